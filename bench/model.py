"""memwall's cost model against the clock over a sweep's points (bench/sweep.py)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from engines import log


def model_error(out: Path, points: list[dict]) -> None:
    """memwall's cost model against the clock: each memwall kernel's predicted ns per row (from
    the sweep's ladder, in its report) beside the measured, kept in `out`, with the
    median and worst |predicted - measured| / measured logged."""
    pairs = [dict(series=p["series"], keys=p["keys"], threads=p["threads"], kernel=p["engine"],
                  predicted=p["predicted"], measured=p["ns_per_row"],
                  error=abs(p["predicted"] - p["ns_per_row"]) / p["ns_per_row"])
             for p in points if p.get("predicted") is not None and p["ns_per_row"] > 0]
    if not pairs:
        return
    median = statistics.median(p["error"] for p in pairs)
    worst = sorted(pairs, key=lambda p: -p["error"])[:5]
    out.write_text(json.dumps(dict(median=median, worst=worst, points=pairs), indent=1) + "\n")
    log(f"cost model over {len(pairs)} kernel points: median error {median:.1%}, worst "
        + ", ".join(f"{w['kernel']} {w['series']} {w['keys']:,}: {w['predicted']:.2f} vs {w['measured']:.2f}" for w in worst))
