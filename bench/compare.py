#!/usr/bin/env python3
"""memwall against DuckDB and ClickHouse (chDB): GROUP BY and join, one thread, same data.

Three GROUP BY queries (`--agg count,sum,avg`, any list) and one join (`--join`), each run by
memwall and by both engines on exactly the same rows, each engine held to one thread with its
tables already in its own memory, and each answer checked against memwall's:

* count: ClickBench's Q16 shape on one column,
      SELECT key, count(*) AS c FROM t GROUP BY key ORDER BY c DESC, key LIMIT 10
  Every group has to be counted to know the ten largest, but only ten rows come back, so
  nothing measures shipping 17M rows into Python. memwall computes the same: every group's
  count, then the top ten with ties broken by key. Checked: rows, groups and the top-10.
* sum (of the i64 `value` column):
      SELECT count(*), sum(s) FROM (SELECT key, sum(value) AS s FROM t GROUP BY key)
  The outer query forces the full aggregation (the number of groups cannot be known without
  it) and returns one row, which is checked against memwall's `runs[].totals`: groups exactly,
  and the sum of every group's sum exactly (an integer).
* avg: the same with avg(value), plus sum(abs(a)) for the float check: every engine adds
  17M per-group averages in its own order, so the total is checked within the rounding a sum
  of n doubles can have, (groups + 4) * 2^-52 * sum(|avg|), not bit for bit; the groups exactly.
* join (`--join`):
      SELECT count(*), sum(p.key), sum(b.payload) FROM probe p JOIN build b ON p.key = b.key
  over `memwall join`'s sides (the build side's distinct keys with 8-byte payloads, the probe
  side's rows), written by `memwall generate --build-out`. Checked against memwall's match
  count and its exact sums of matched keys and payloads (`runs[].key_sum`, `payload_sum`),
  which memwall's kernels compute beside their checksum because the checksum (wrapping 64-bit
  multiplies) is not expressible in SQL. `--miss-rate R` replaces a share R of the probe rows
  by keys absent from the build side (`memwall join --miss-rate`, the same rows in the file).

Rules, the same for all: one thread (DuckDB `SET threads = 1`, ClickHouse `max_threads = 1`,
memwall `--threads 1`); the tables in memory first (DuckDB: in-memory tables; chDB: tables of
the Memory engine, uncompressed blocks in RAM; memwall: its arrays); one untimed warm-up run,
then N timed runs, the best counts (the median is shown too). memwall times its kernel alone
(aggregation, or build plus probe), under `--memory warm`, the policy closest to the engines':
its scratch memory, like their allocators' arenas, stays mapped from query to query. The
engines' times are wall-clock around the query call from Python, so they also include their
scan of the in-memory columns, parse, plan and a result of at most ten rows, which are small
next to a second-long aggregation or join.

Usage: bench/compare.sh (which builds memwall, sets up bench/.venv, then runs this).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from engines import AGGS, JOIN, Query, check_agreement, chdb_engine, duckdb_engine, groupby_query, log

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


# What the issues ask, printed beside the measured ratio (never asserted: a measurement).
ASKED = {
    "count": ("ClickHouse", 3.5, "issue 12"),
    "sum": ("ClickHouse", 3.5, "issue 12"),
    "join": ("faster engine", 2.0, "issue 13"),
}


def run_memwall(cmd: list[str], out: Path, pin: int | None) -> dict:
    cmd = cmd + ["--threads", "1", "--memory", "warm", "--json", str(out)]
    if pin is not None:
        cmd += ["--pin", str(pin)]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    return json.loads(out.read_text())


def memwall_groupby(memwall: Path, keys: Path, agg: str, kernels: str, runs: int, pin: int | None) -> list[dict]:
    cmd = [str(memwall), "groupby", "--input", str(keys), "--column", "key", "--kernel", kernels, "--runs", str(runs)]
    if agg != "count":
        cmd += ["--agg", agg, "--value-column", "value"]
    groupby = run_memwall(cmd, RESULTS / f"memwall-groupby-{agg}.json", pin)["groupby"]
    results = []
    for run in groupby["runs"]:
        result = {
            "engine": f"memwall {run['kernel']}",
            "query": agg,
            "times": run["samples_seconds"],
            "rows": groupby["dataset"]["rows"],
            "groups": run["groups"],
        }
        totals = run.get("totals") or {}
        if agg == "count":
            result["top"] = [(int(kc["key"]), int(kc["count"])) for kc in run["top"]]
        elif agg == "sum":
            result["sum"] = int(totals["sum"])
        else:
            result["avg"] = float(totals["avg"])
        results.append(result)
    return results


def memwall_join(memwall: Path, preset: str, miss_rate: float, kernels: str, runs: int, pin: int | None) -> list[dict]:
    cmd = [str(memwall), "join", "--preset", preset, "--miss-rate", repr(miss_rate), "--kernel", kernels,
           "--runs", str(runs)]
    join = run_memwall(cmd, RESULTS / "memwall-join.json", pin)["join"]
    return [
        {
            "engine": f"memwall {run['kernel']}",
            "query": "join",
            "times": run["samples_seconds"],
            "rows": join["dataset"]["probe_rows"],
            "matches": run["matches"],
            "key_sum": int(run["key_sum"]),
            "payload_sum": int(run["payload_sum"]),
        }
        for run in join["runs"]
    ]


def generate(memwall: Path, keys: Path, preset: str, build: Path | None, miss_rate: float) -> None:
    cmd = [str(memwall), "generate", "--preset", preset, "--out", str(keys), "--column", "key", "--value-column", "value"]
    if build is not None:
        cmd += ["--build-out", str(build), "--payload-column", "payload", "--miss-rate", repr(miss_rate)]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def markdown(query: Query, results: list[dict], runs: int) -> str:
    base = next((r for r in results if r["engine"] == "memwall tuned"), results[0])
    unit = "ns/probe" if query.per == "probe row" else "ns/row"
    lines = [
        f"| engine (1 thread) | seconds (best) | {unit} (best) | seconds (median) | best vs {base['engine']} |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in sorted(results, key=lambda r: min(r["times"])):
        best = min(r["times"])
        ns = best / r["rows"] * 1e9
        lines.append(
            f"| {r['engine']} | {best:.3f} | {ns:.2f} | {statistics.median(r['times']):.3f} "
            f"| {best / min(base['times']):.2f}x |"
        )
    return "\n".join(lines)


def asked(query: Query, results: list[dict]) -> str:
    """memwall tuned's lead over the engine an issue names, beside what the issue asks."""
    if query.name not in ASKED:
        return ""
    tuned = next((r for r in results if r["engine"] == "memwall tuned"), None)
    engines = [r for r in results if not r["engine"].startswith("memwall")]
    whom, factor, issue = ASKED[query.name]
    if whom == "ClickHouse":
        engines = [r for r in engines if r["engine"].startswith("ClickHouse")]
    if tuned is None or not engines:
        return ""
    rival = min(engines, key=lambda r: min(r["times"]))
    ratio = min(rival["times"]) / min(tuned["times"])
    verdict = "meets" if ratio >= factor else "DOES NOT meet"
    return (
        f"memwall tuned is {ratio:.2f}x faster than {rival['engine']} (best against best): "
        f"{verdict} {issue}'s {factor:g}x in this run."
    )


def section(query: Query, results: list[dict], data: str, runs: int, agree: bool, loads: tuple) -> str:
    if query.duckdb_sql == query.chdb_sql:
        sql = f"`{query.duckdb_sql}`"
    else:
        sql = f"`{query.duckdb_sql}` (DuckDB), `{query.chdb_sql}` (ClickHouse)"
    rules = (
        f"one thread each; tables already in each engine's memory; best of {runs} warm runs after one "
        "untimed warm-up; engine times are wall-clock around the query from Python (the scan of the "
        "in-memory tables, parse, plan and the result included); memwall's are its kernel alone "
        "(" + ("build and probe" if query.name == "join" else "the aggregation") + ", `--memory warm`)"
    )
    checked = {
        "count": "rows, groups and the top-10",
        "sum": "rows, groups and the sum over groups (exact)",
        "avg": "rows, groups (exact) and the sum of the groups' averages (within float rounding)",
        "join": "probe rows, matches and the exact sums of matched keys and payloads",
    }[query.name]
    verdict = (
        f"all engines agree with memwall on {checked}"
        if agree
        else f"ENGINES DISAGREE with memwall on {checked} (see above)"
    )
    parts = [
        f"### {query.title}",
        "",
        f"Query: {sql}",
        "",
        f"Rules: {rules}.",
        "",
        markdown(query, results, runs),
        "",
        f"{data}; load average {loads[0]:.2f} before, {loads[1]:.2f} after on {os.cpu_count()} CPUs; {verdict}.",
    ]
    line = asked(query, results)
    if line:
        parts += ["", line]
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memwall", type=Path, default=REPO / "target" / "release" / "memwall")
    parser.add_argument("--preset", default="clickbench", help="memwall generate preset (default clickbench)")
    parser.add_argument("--keys", type=Path, default=None,
                        help="GROUP BY only: this Parquet file (Int64 `key`, and Int64 `value` for sum and avg) "
                             "instead of generating one")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the data files even if they exist")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per engine (best counts)")
    parser.add_argument("--agg", default="count",
                        help="GROUP BY aggregates to race, one query each: count, sum, avg, or a comma list")
    parser.add_argument("--join", action="store_true", help="race the join instead of GROUP BY")
    parser.add_argument("--miss-rate", type=float, default=0.0,
                        help="join only: share of probe rows (0 to 1) whose keys are not on the build side")
    parser.add_argument("--kernels", default=None,
                        help="memwall --kernel list (default: tuned,naive for GROUP BY, tuned for the join, "
                             "whose naive kernel takes 10-20 s a run at the clickbench size)")
    parser.add_argument("--engines", default="memwall,duckdb,chdb")
    parser.add_argument("--pin", type=int, default=None,
                        help="pin this process (so both engines) and memwall to one CPU")
    parser.add_argument("--out", type=Path, default=None,
                        help="Markdown output (default bench/results/compare-<query>.md)")
    args = parser.parse_args()

    if args.join:
        queries = [JOIN]
        kernels = args.kernels or "tuned"
        if args.keys is not None:
            parser.error("--keys applies to GROUP BY only: the join's sides come from memwall generate --build-out")
        if not 0.0 <= args.miss_rate <= 1.0:
            parser.error(f"--miss-rate {args.miss_rate}: expected a share from 0 to 1")
    else:
        aggs = [a.strip() for a in args.agg.split(",") if a.strip()]
        unknown = [a for a in aggs if a not in AGGS]
        if unknown or not aggs:
            parser.error(f"--agg {args.agg}: expected count, sum, avg or a comma list of them")
        queries = [groupby_query(a) for a in dict.fromkeys(aggs)]
        kernels = args.kernels or "tuned,naive"
        if args.miss_rate != 0.0:
            parser.error("--miss-rate applies to the join only (--join)")
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    build = (RESULTS / f"build-{args.preset}.parquet").resolve() if args.join else None
    if args.keys is None:
        # The probe rows with misses are other rows than the GROUP BY's: a file of their own.
        missing = f"-miss{args.miss_rate:g}" if args.join and args.miss_rate > 0 else ""
        keys = RESULTS / f"rows-{args.preset}{missing}.parquet"
        if args.regenerate or not keys.exists() or (build is not None and not build.exists()):
            generate(args.memwall, keys, args.preset, build, args.miss_rate)
    else:
        keys = args.keys
    keys = keys.resolve()

    loads = [os.getloadavg()[0]]
    by_query: dict[str, list[dict]] = {q.name: [] for q in queries}
    # One engine at a time, each dropping its tables before the next loads: never two copies of
    # the data in memory at once besides the engine's own.
    if "memwall" in engines:
        for query in queries:
            if args.join:
                by_query["join"] += memwall_join(args.memwall, args.preset, args.miss_rate, kernels, args.runs,
                                                 args.pin)
            else:
                by_query[query.name] += memwall_groupby(args.memwall, keys, query.name, kernels, args.runs, args.pin)
    for engine, run in (("duckdb", duckdb_engine), ("chdb", chdb_engine)):
        if engine in engines:
            for result in run(keys, build, queries, args.runs):
                by_query[result["query"]].append(result)
    loads.append(os.getloadavg()[0])
    if not any(by_query.values()):
        log("no engine selected")
        return 2

    agree = True
    sections = []
    for query in queries:
        results = by_query[query.name]
        ok = check_agreement(results)
        agree &= ok
        if args.join:
            data = (f"sides: {build.name} ({results[0]['rows']:,} probe rows' keys in {keys.name}, miss rate "
                    f"{args.miss_rate:g}), {results[0]['matches']:,} matches")
        else:
            data = f"rows: {keys.name}, {results[0]['rows']:,} rows, {results[0]['groups']:,} groups"
        sections.append(section(query, results, data, args.runs, ok, tuple(loads)))
    text = "\n\n".join(sections)
    print(text)
    name = (f"join-miss{args.miss_rate:g}" if args.miss_rate > 0 else "join") if args.join else "-".join(
        q.name for q in queries)
    out = args.out or RESULTS / f"compare-{name}.md"
    out.write_text(text + "\n")
    (RESULTS / f"compare-{name}.json").write_text(json.dumps(by_query, indent=2) + "\n")
    log(f"wrote {out} and {RESULTS / f'compare-{name}.json'}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
