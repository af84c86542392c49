#!/usr/bin/env python3
"""Regenerates data/cloud/shelf.json from Spare Cores' curves (the `curves.json` of
`../shared/cloud-curves/`, itself a snapshot of GitHub `SpareCores/sc-inspector-data`).

    scripts/cloud-shelf.py [PATH/TO/curves.json]

The shelf keeps what memwall reads and shows, nothing it derives: each instance type's raw latency
curve, the caches its `lscpu` declares (one cache's size, how many CPUs share it), provider, type,
CPU model, architecture, vCPUs, metal/VM/unknown, the all-thread bandwidth as measured, the date and
the tool. Levels are read from the raw curves when the shelf is loaded, by memwall's own reader, so
they never go stale. The data is CC BY-SA 4.0 (data/cloud/LICENSE.md); this script is memwall's.
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "cloud-curves" / "curves.json"
OUT = ROOT / "data" / "cloud" / "shelf.json"
CACHE_FIELDS = (("L1d cache", 1, "Data"), ("L2 cache", 2, "Unified"), ("L3 cache", 3, "Unified"), ("L4 cache", 4, "Unified"))


def caches(lscpu):
    """[level, kind, bytes of one cache, CPUs sharing it]: lscpu prints `TOTAL (N instances)`."""
    cpus = int(lscpu.get("CPU(s)", "0") or 0)
    out = []
    for field, level, kind in CACHE_FIELDS:
        m = re.match(r"\s*(\d+)\s*\((\d+) instances?\)", lscpu.get(field, ""))
        if m:
            total, instances = int(m.group(1)), int(m.group(2))
            out.append([level, kind, total // instances, max(cpus // instances, 1) if cpus else None])
    return out


def main():
    src = json.loads(SOURCE.read_text())
    hosts = []
    for h in src["hosts"]:
        lscpu = h["lscpu"]
        hosts.append({
            "provider": h["vendor"],
            "type": h["instance"],
            "cpu": lscpu.get("Model name", "").strip(),
            "arch": lscpu.get("Architecture", ""),
            "vcpus": int(lscpu.get("CPU(s)", "0") or 0),
            "metal": h["metal"],
            "hypervisor": lscpu.get("Hypervisor vendor"),
            "measured": h["measured"][:10],
            "tool": "sc-membench " + h["membench_version"],
            "caches": caches(lscpu),
            "latency": [[p["bytes"], p["ns"]] for p in h["latency"]],
            "bandwidth": {kind: [[p["bytes"], round(p["mb_s"]), p["threads"]] for p in h["bandwidth"][kind]]
                          for kind in ("read", "write", "copy")},
        })
    shelf = {
        "about": "Latency curves of cloud instance types measured by Spare Cores with sc-membench; "
                 "see LICENSE.md beside this file (CC BY-SA 4.0). Regenerate: scripts/cloud-shelf.py",
        "source": "https://github.com/" + src["source"],
        "commit": src["commit"],
        "license": src["license"],
        "measured_by": src["measured_by"],
        "pattern": "random",
        "pages": "huge where granted (explicit 2 MiB pages, else THP)",
        "hosts": hosts,
    }
    # One host a line: small diffs when the source moves, still plain JSON.
    lines = ",\n".join(json.dumps(h, separators=(",", ":")) for h in hosts)
    head = json.dumps({k: v for k, v in shelf.items() if k != "hosts"}, indent=1)[:-2]
    OUT.write_text(head + ',\n "hosts": [\n' + lines + "\n ]\n}\n")
    json.loads(OUT.read_text())
    print(f"wrote {OUT.relative_to(ROOT)}: {len(hosts)} instance types", file=sys.stderr)


if __name__ == "__main__":
    main()
