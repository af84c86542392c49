#!/usr/bin/env python3
"""memwall's GROUP BY kernels against DuckDB and ClickHouse (chDB), one thread, same keys.

The query is ClickBench's Q16 shape on one column:

    SELECT key, count(*) AS c FROM t GROUP BY key ORDER BY c DESC, key LIMIT 10

Why this form: every group has to be built and counted (there is no way to know the ten largest
counts without counting all 17.6M groups), but only ten rows come back, so nothing measures the
cost of shipping 17M rows into Python. memwall's kernels compute exactly the same thing: every
group's count, then the top ten with ties broken by key, so the work is the same on both sides.
The `key` tie-break makes the answer unique, so the engines' top-10 can be compared row by row.

Each engine gets its table in its own memory first (DuckDB: an in-memory table; chDB: a table of
the Memory engine, i.e. uncompressed blocks in RAM), is held to one thread (DuckDB
`SET threads = 1`, ClickHouse `max_threads = 1`), runs the query once to warm up, then N timed
times; the best time counts. memwall times only its aggregation, best of N too (`--runs N`),
under `--memory warm`, the policy closest to the engines': like them it gets an untimed warm-up
run, and its scratch memory, like their allocators' arenas, stays mapped from query to query.
The engines' times include their scan of the in-memory column and their per-query overhead
(parse, plan, a result of ten rows), which is small next to a second-long aggregation.

Usage: bench/compare.sh (which builds memwall, sets up bench/.venv, then runs this).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"

TOP10 = "SELECT key, count(*) AS c FROM t GROUP BY key ORDER BY c DESC, key LIMIT 10"
GROUPS = "SELECT count(*) FROM (SELECT key FROM t GROUP BY key)"


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def best_of(run, runs: int) -> tuple[list[float], object]:
    """One untimed warm-up, then `runs` timed calls; every time and the last result."""
    result = run()
    times = []
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return times, result


def duckdb_engine(keys: Path, runs: int) -> dict:
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("SET threads = 1")
    # The Python client would otherwise print progress bars on stderr for long queries.
    con.execute("SET enable_progress_bar = false")
    started = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT key FROM read_parquet('{keys}')")
    loaded = time.perf_counter() - started
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    log(f"duckdb {duckdb.__version__}: loaded {rows} rows in {loaded:.1f} s")
    times, top = best_of(lambda: con.execute(TOP10).fetchall(), runs)
    groups = con.execute(GROUPS).fetchone()[0]
    con.close()
    return {
        "engine": f"DuckDB {duckdb.__version__}",
        "seconds": min(times),
        "median": statistics.median(times),
        "rows": rows,
        "groups": groups,
        "top": [(int(k), int(c)) for k, c in top],
    }


def chdb_engine(keys: Path, runs: int) -> dict:
    import chdb
    from chdb import session

    sess = session.Session()
    settings = " SETTINGS max_threads = 1"

    def query(sql: str) -> list[list[str]]:
        text = str(sess.query(sql + settings, "TSV"))
        return [line.split("\t") for line in text.splitlines() if line]

    sess.query("DROP TABLE IF EXISTS t")
    sess.query("CREATE TABLE t (key Int64) ENGINE = Memory")
    started = time.perf_counter()
    sess.query(f"INSERT INTO t SELECT key FROM file('{keys}', Parquet)")
    loaded = time.perf_counter() - started
    rows = int(query("SELECT count(*) FROM t")[0][0])
    version = query("SELECT version()")[0][0]
    log(f"chdb {chdb.__version__} (ClickHouse {version}): loaded {rows} rows in {loaded:.1f} s")
    times, top = best_of(lambda: query(TOP10), runs)
    groups = int(query(GROUPS)[0][0])
    sess.query("DROP TABLE t")
    sess.close()
    return {
        "engine": f"ClickHouse {version} (chDB {chdb.__version__})",
        "seconds": min(times),
        "median": statistics.median(times),
        "rows": rows,
        "groups": groups,
        "top": [(int(k), int(c)) for k, c in top],
    }


def memwall_engine(memwall: Path, keys: Path, kernels: str, runs: int, pin: int | None) -> list[dict]:
    out = RESULTS / "memwall-groupby.json"
    cmd = [
        str(memwall), "groupby",
        "--input", str(keys), "--column", "key",
        "--kernel", kernels, "--threads", "1",
        "--runs", str(runs), "--memory", "warm", "--json", str(out),
    ]
    if pin is not None:
        cmd += ["--pin", str(pin)]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    report = json.loads(out.read_text())
    groupby = report["groupby"]
    rows = groupby["dataset"]["rows"]
    results = []
    for run in groupby["runs"]:
        results.append({
            "engine": f"memwall {run['kernel']}",
            "seconds": run["seconds"]["min"],
            "median": run["seconds"]["median"],
            "rows": rows,
            "groups": run["groups"],
            "top": [(int(kc["key"]), int(kc["count"])) for kc in run["top"]],
        })
    return results


def generate(memwall: Path, keys: Path, preset: str) -> None:
    cmd = [str(memwall), "generate", "--preset", preset, "--out", str(keys), "--column", "key"]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def check_agreement(results: list[dict]) -> bool:
    """Every engine must see the same rows, groups and top-10; a mismatch is printed loudly."""
    reference = results[0]
    ok = True
    for other in results[1:]:
        for field in ("rows", "groups", "top"):
            if other[field] != reference[field]:
                ok = False
                log("!" * 72)
                log(f"MISMATCH in {field}: {reference['engine']} vs {other['engine']}")
                log(f"  {reference['engine']}: {reference[field]}")
                log(f"  {other['engine']}: {other[field]}")
                log("!" * 72)
    return ok


def markdown(results: list[dict], baseline: str) -> str:
    base = next((r for r in results if r["engine"] == baseline), results[0])
    lines = [
        f"| engine (1 thread) | seconds (best) | ns/row (best) | seconds (median) | best vs {base['engine']} |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in sorted(results, key=lambda r: r["seconds"]):
        ns = r["seconds"] / r["rows"] * 1e9
        ratio = r["seconds"] / base["seconds"]
        lines.append(f"| {r['engine']} | {r['seconds']:.3f} | {ns:.2f} | {r['median']:.3f} | {ratio:.2f}x |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memwall", type=Path, default=REPO / "target" / "release" / "memwall")
    parser.add_argument("--preset", default="clickbench", help="memwall generate preset (default clickbench)")
    parser.add_argument("--keys", type=Path, default=None,
                        help="use this Parquet file (column `key`) instead of generating one")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the keys even if they exist")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per engine (best counts)")
    parser.add_argument("--kernels", default="tuned,naive", help="memwall --kernel list")
    parser.add_argument("--engines", default="memwall,duckdb,chdb")
    parser.add_argument("--pin", type=int, default=None,
                        help="pin this process (so both engines) and memwall to one CPU")
    parser.add_argument("--out", type=Path, default=RESULTS / "compare.md")
    args = parser.parse_args()

    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.keys is None:
        keys = RESULTS / f"keys-{args.preset}.parquet"
        if args.regenerate or not keys.exists():
            generate(args.memwall, keys, args.preset)
    else:
        keys = args.keys
    keys = keys.resolve()

    load_before = os.getloadavg()[0]
    results: list[dict] = []
    # One engine at a time, each dropping its table before the next loads: never two copies of
    # the keys in memory at once besides the engine's own.
    if "memwall" in engines:
        results += memwall_engine(args.memwall, keys, args.kernels, args.runs, args.pin)
    if "duckdb" in engines:
        results.append(duckdb_engine(keys, args.runs))
    if "chdb" in engines:
        results.append(chdb_engine(keys, args.runs))
    if not results:
        log("no engine selected")
        return 2

    agree = check_agreement(results)
    baseline = "memwall tuned" if any(r["engine"] == "memwall tuned" for r in results) else results[0]["engine"]
    table = markdown(results, baseline)
    ref = results[0]
    summary = (
        f"keys: {keys.name}, {ref['rows']:,} rows, {ref['groups']:,} groups; "
        f"best of {args.runs} warm runs (memwall: --memory warm); "
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"on {os.cpu_count()} CPUs; "
        + ("all engines agree on groups and top-10" if agree else "ENGINES DISAGREE (see above)")
    )
    print(table)
    print()
    print(summary)
    args.out.write_text(table + "\n\n" + summary + "\n")
    (RESULTS / "compare.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
