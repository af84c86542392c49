#!/usr/bin/env python3
"""memwall against DuckDB, ClickHouse (chDB), Polars and DataFusion at every cardinality.

GROUP BY count and sum over a fixed number of rows while the distinct keys sweep 10^3, 10^4, ...
(uniform and Zipf-skewed), and the join while the build side sweeps the same sizes (probe rows
fixed, miss rate 0 and 0.3); each point at one thread and at every thread this process may use.
Every engine's answer is checked against memwall's at every point (bench/engines.py, the same
checks as bench/compare.py), a mismatch printed loudly and the exit code 1.

Rules, the same for all: the rows in each engine's own memory before the clock starts (loading is
never timed); one untimed warm-up, then `--rounds` rounds taking turns (memwall, then each engine,
the order reversed every other round, so that the host's slow swings land on every side alike),
`--runs` timed runs each per round, the best of all counts; DuckDB `threads`,
ClickHouse `max_threads`, Polars `POLARS_MAX_THREADS`, DataFusion `target_partitions` and memwall
`--threads` all set to the point's thread count. Engine times are wall-clock around the query from
Python (scan of the in-memory columns, plan and a result of at most ten rows included); memwall's
are its kernel alone under `--memory warm` (bench/README.md says why that is the fair pairing),
its tables sized by one ladder taken before the sweep (`--caches-from`; each run probes its own if
that ladder names no cache).
Each engine runs in a process of its own, which keeps its rows across the rounds of a point (with
`--rounds 1` each engine closes before the next loads, so no two hold the rows at once).

Output: a Markdown table per query, skew and thread count (ns per row by distinct keys, one column
per engine and memwall kernel, and how memwall adaptive stands against the best engine), PNG charts,
and every figure as a memwall report that the web page opens and draws with the engines overlaid
(`bench/results/sweep-<mode>.{md,json}`, `sweep-<mode>-<query>.png`).

    bench/sweep.sh --quick          # 10M rows, 10^3..10^7 keys: the whole sweep in minutes
    bench/sweep.sh                  # 100M rows, 10^3..10^8 keys
    bench/sweep.sh --quick --join   # the join across build sizes
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engines import JOIN, OPEN, check_agreement, groupby_query, log
from model import model_error

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
# memwall adaptive counts as first where the best engine is at most this much faster.
WITHIN = 1.05


def parse_count(text: str) -> int:
    """10M, 1e3, 17630976 and so on."""
    scale = {"k": 1e3, "m": 1e6, "g": 1e9}.get(text[-1:].lower())
    return int(float(text[:-1]) * scale) if scale else int(float(text))


def all_threads() -> int:
    return len(os.sched_getaffinity(0))


def memwall_points(memwall: Path, args, data: dict, threads: int, first_round: bool) -> list[dict]:
    """memwall's kernels at one point, one result per kernel and query, in the engines' shape.
    Every kernel is checked against the sort-and-count reference in the first round; later rounds
    check them against each other (and the engines against adaptive) without it."""
    results = []
    for query in data["queries"]:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            if query == "join":
                cmd = [str(memwall), "join", "--build-keys", str(data["keys"]), "--probe-rows", str(args.rows),
                       "--miss-rate", repr(data["miss_rate"])]
            else:
                cmd = [str(memwall), "groupby", "--input", str(data["rows_file"]), "--column", "key"]
                if query != "count":
                    cmd += ["--agg", query, "--value-column", "value"]
            cmd += ["--kernel", args.kernels, "--runs", str(args.runs), "--threads", str(threads),
                    "--memory", "warm", "--json", out.name]
            if args.caches:
                cmd += ["--caches-from", str(args.caches)]
            if not first_round:
                cmd.append("--no-verify")
            log("$ " + " ".join(cmd))
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            sys.stderr.write(done.stderr)
            if done.returncode != 0:
                said = done.stderr.strip().splitlines()
                raise MemwallFailed(said[-1] if said else f"memwall exited with {done.returncode}")
            report = json.loads(Path(out.name).read_text())
        section = report["join" if query == "join" else "groupby"]
        for run in section["runs"]:
            result = {"engine": f"memwall {run['kernel']}", "query": query, "times": run["samples_seconds"],
                      "rows": section["dataset"]["probe_rows" if query == "join" else "rows"]}
            if run.get("choice"):
                result["chose"] = run["choice"]["kernel"]
            if run.get("predicted_ns_per_row") is not None:
                result["predicted"] = run["predicted_ns_per_row"]
            if query == "join":
                result.update(matches=run["matches"], key_sum=int(run["key_sum"]), payload_sum=int(run["payload_sum"]))
            else:
                result["groups"] = run["groups"]
                if query == "count":
                    result["top"] = [(int(kc["key"]), int(kc["count"])) for kc in run["top"]]
                else:
                    result["sum"] = int((run.get("totals") or {})["sum"])
            results.append(result)
    # The adaptive kernel first: it is the one every engine is held to.
    return sorted(results, key=lambda r: r["engine"] != "memwall adaptive")


class MemwallFailed(Exception):
    """memwall refused or failed a run; the message is its own one-line error."""


class Worker:
    """One engine kept open for all rounds of a point, in a process of its own (Polars sizes its
    pool once per process): it loads the rows and warms every query once, then each `run()` times
    every query `--runs` times (`worker` below is the other end)."""

    def __init__(self, engine: str, args, data: dict, threads: int):
        cmd = [sys.executable, __file__, "--worker", engine, "--worker-threads", str(threads), "--runs",
               str(args.runs), "--worker-rows", str(data["rows_file"]), "--worker-queries", ",".join(data["queries"])]
        if data.get("build_file"):
            cmd += ["--worker-build", str(data["build_file"])]
        env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
        self.engine = engine
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        self.read()

    def read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.engine} worker stopped (exit code {self.proc.wait()}); its log is above")
        return json.loads(line)

    def run(self) -> list[dict]:
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        results = self.read()
        for r in results:
            if "top" in r:
                r["top"] = [tuple(kc) for kc in r["top"]]
        return results

    def close(self) -> None:
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise RuntimeError(f"the {self.engine} worker exited with {self.proc.returncode}")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


def worker(args) -> int:
    """The engine's side of `Worker`: one JSON line when ready, then one per `run` line on stdin."""
    # The engines' own output goes to stderr, so that stdout carries only these lines.
    lines = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    queries = [JOIN if q == "join" else groupby_query(q) for q in args.worker_queries.split(",")]
    build = Path(args.worker_build) if args.worker_build else None
    session = OPEN[args.worker](Path(args.worker_rows), build, queries, args.worker_threads)
    try:
        for query in queries:
            session.run(query)
        print(json.dumps({"ready": session.name}), file=lines, flush=True)
        for command in sys.stdin:
            if command.strip() != "run":
                break
            results = []
            for query in queries:
                results.append(session.result(query, *session.timed_runs(query, args.runs)))
            print(json.dumps(results), file=lines, flush=True)
    finally:
        session.close()
    return 0


def point(memwall: Path, args, data: dict, threads: int, engines: list[str]) -> list[list[dict]]:
    """One point in `--rounds` rounds taking turns (memwall, then each engine; the order reversed
    every other round), so that the host's slow swings land on every side alike; each round's
    results, memwall adaptive first."""
    rounds, workers = [], {}
    try:
        for r in range(args.rounds):
            sides = ["memwall", *engines]
            if r % 2:
                sides.reverse()
            mine, theirs = [], []
            for side in sides:
                if side == "memwall":
                    try:
                        mine = memwall_points(memwall, args, data, threads, first_round=r == 0)
                    except MemwallFailed as refused:
                        if not workers:
                            raise
                        # The engines' workers keep their rows from round to round; where memwall's
                        # run does not fit beside them (10^8 keys on a 24 GiB guest: "needs about
                        # 12.49 GiB but only 10.33 GiB can be allocated"), they close, memwall runs
                        # alone, and each loads its rows again, untimed, when its turn comes.
                        log(f"{refused}: closing the engines' workers, and running memwall again alone")
                        for w in workers.values():
                            w.close()
                        workers.clear()
                        mine = memwall_points(memwall, args, data, threads, first_round=r == 0)
                    continue
                if side not in workers:
                    workers[side] = Worker(side, args, data, threads)
                theirs += workers[side].run()
                # With one round, each engine leaves memory before the next loads its rows.
                if r == args.rounds - 1:
                    workers.pop(side).close()
            rounds.append(mine + theirs)
    finally:
        for w in workers.values():
            w.kill()
    return rounds


def merged(rounds: list[list[dict]], query: str) -> list[dict]:
    """Each engine's and kernel's times over every round; adaptive's choice in its fastest round
    first, then any other it made."""
    by_engine: dict[str, list[dict]] = {}
    for results in rounds:
        for r in results:
            if r["query"] == query:
                by_engine.setdefault(r["engine"], []).append(r)
    out = []
    for runs in by_engine.values():
        runs.sort(key=lambda r: min(r["times"]))
        result = dict(runs[0], times=[t for r in runs for t in r["times"]])
        choices = list(dict.fromkeys(r["chose"] for r in runs if r.get("chose")))
        if choices:
            result["chose"] = "/".join(choices)
        out.append(result)
    return out


def measure_caches(memwall: Path, out: Path) -> tuple[Path | None, str]:
    """One ladder before the sweep, that every memwall run sizes its tables by (`--caches-from`):
    adaptive decides by the same caches at every point, and no run pays for a probe of its own.
    Page-local, so that TLB steps are not read as caches; on huge pages where the host has them, as
    the kernels' scratch is. Returns the report, and the levels it read in words; no report where
    the ladder names neither a cache nor DRAM (memwall would refuse it), and each run then probes
    the caches itself, as without the sweep."""
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    huge = "thp" if thp.exists() and any(f"[{m}]" in thp.read_text() for m in ("always", "madvise")) else "off"
    cmd = [str(memwall), "ladder", "--pattern", "page-local", "--huge-pages", huge, "--max", "1GiB",
           "--points-per-octave", "1", "--json", str(out)]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    levels = json.loads(out.read_text())["ladder"]["levels"]
    size = lambda b: f"{b / 2**20:g} MiB" if b >= 2**20 else f"{b / 2**10:g} KiB"
    words = [f"{level['name']} {'from' if level['cause'] == 'dram' else 'to'} {size(level['size_bytes'])}"
             for level in levels if level["cause"] in ("cache", "dram")]
    if not words:
        log(f"the ladder before the sweep named no cache and no DRAM ({out}): each memwall run probes its own")
        return None, "a short ladder of each run's own (the one before the sweep named no cache and no DRAM)"
    log("memwall's caches for the whole sweep: " + ", ".join(words))
    return out, f"{', '.join(words)} (one page-local ladder on {huge} pages before the sweep, {out.name})"


def generate(memwall: Path, rows: int, keys: int, skew: str, miss_rate: float | None, out: Path, build: Path | None,
             order: str = "shuffled", heavy: float = 0.0):
    if out.exists() and (build is None or build.exists()):
        return
    cmd = [str(memwall), "generate", "--rows", str(rows), "--keys", str(keys), "--out", str(out), "--column", "key"]
    if build is None:
        cmd += ["--skew", skew, "--value-column", "value", "--order", order, "--heavy", repr(heavy)]
    else:
        cmd += ["--build-out", str(build), "--payload-column", "payload", "--miss-rate", repr(miss_rate)]
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def table(points: list[dict], query: str, series: str, threads: int) -> str:
    """One Markdown table: ns per row by distinct keys, a column per engine, adaptive's standing."""
    mine = [p for p in points if p["query"] == query and p["series"] == series and p["threads"] == threads]
    engines = sorted({p["engine"] for p in mine}, key=lambda e: (not e.startswith("memwall"), e))
    per = "probe row" if query == "join" else "row"
    lines = [f"| {'build keys' if query == 'join' else 'distinct keys'} | " + " | ".join(engines)
             + " | best engine | adaptive vs it | adaptive's regret |", "|---:|" + "---:|" * (len(engines) + 3)]
    for keys in sorted({p["keys"] for p in mine}):
        at = {p["engine"]: p for p in mine if p["keys"] == keys}
        cells = []
        for e in engines:
            p = at.get(e)
            cell = "-" if p is None else f"{p['ns_per_row']:.2f}"
            if p is not None and p.get("chose"):
                cell += f" ({p['chose']})"
            cells.append(cell)
        rivals = [p for e, p in at.items() if not e.startswith("memwall")]
        adaptive = at.get("memwall adaptive")
        if rivals and adaptive:
            best = min(rivals, key=lambda p: p["ns_per_row"])
            lead = best["ns_per_row"] / adaptive["ns_per_row"]
            mark = "**2x+ ahead**" if lead >= 2 else ("first" if lead * WITHIN >= 1 else "BEHIND")
            standing = f"{lead:.2f}x, {mark}"
            best_name = best["engine"].split(" (")[0]
        else:
            standing, best_name = "-", "-"
        # Adaptive's regret: its time over the fastest other memwall kernel's (each the best of
        # the rounds taking turns; adaptive's includes its sampling and trials).
        others = [p for e, p in at.items() if e.startswith("memwall") and e != "memwall adaptive"]
        regret = (f"{adaptive['ns_per_row'] / min(p['ns_per_row'] for p in others):.3f}"
                  f" ({min(others, key=lambda p: p['ns_per_row'])['engine'].removeprefix('memwall ')})"
                  if adaptive and others else "-")
        lines.append(f"| {keys:,} | " + " | ".join(cells) + f" | {best_name} | {standing} | {regret} |")
    return f"ns per {per}, {threads} thread(s)\n\n" + "\n".join(lines)


def scaling(points: list[dict], query: str, series: str, one: int, most: int) -> str:
    """How each engine and kernel scales: its time at `one` thread over its time at `most`."""
    mine = [p for p in points if p["query"] == query and p["series"] == series]
    engines = sorted({p["engine"] for p in mine}, key=lambda e: (not e.startswith("memwall"), e))
    at = {(p["engine"], p["keys"], p["threads"]): p["ns_per_row"] for p in mine}
    lines = [f"Scaling, {one} to {most} threads (time at {one} over time at {most}; {most}x would be perfect)", "",
             f"| {'build keys' if query == 'join' else 'distinct keys'} | " + " | ".join(engines) + " |",
             "|---:|" + "---:|" * len(engines)]
    for keys in sorted({p["keys"] for p in mine}):
        cells = [f"{at[e, keys, one] / at[e, keys, most]:.2f}x" if (e, keys, one) in at and (e, keys, most) in at
                 else "-" for e in engines]
        lines.append(f"| {keys:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chart(points: list[dict], query: str, out: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed: no chart (pip install -r bench/requirements.txt)")
        return
    mine = [p for p in points if p["query"] == query]
    panels = sorted({(p["series"], p["threads"]) for p in mine})
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (series, threads) in zip(axes[0], panels):
        here = [p for p in mine if p["series"] == series and p["threads"] == threads]
        for engine in sorted({p["engine"] for p in here}):
            line = sorted((p["keys"], p["ns_per_row"]) for p in here if p["engine"] == engine)
            style = dict(linewidth=2.5, color="black") if engine == "memwall adaptive" else {}
            ax.plot(*zip(*line), marker="o", label=engine.split(" (")[0], **style)
        ax.set(xscale="log", yscale="log", xlabel="build keys" if query == "join" else "distinct keys",
               ylabel="ns per probe row" if query == "join" else "ns per row", title=f"{query}, {series}, {threads} thread(s)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memwall", type=Path, default=REPO / "target" / "release" / "memwall")
    parser.add_argument("--quick", action="store_true", help="10M rows and keys 10^3..10^7 (default 100M, ..10^8)")
    parser.add_argument("--rows", type=parse_count, default=None)
    parser.add_argument("--keys", default=None, help="comma list of distinct keys (default powers of ten to --rows)")
    parser.add_argument("--skews", default="uniform,zipf:1.1", help="GROUP BY key skews, comma list")
    parser.add_argument("--orders", default="shuffled",
                        help="GROUP BY row orders, comma list: shuffled, sessions, first-seen, sorted")
    parser.add_argument("--heavy", default="0", help="GROUP BY heavy-key shares (0 to below 1), comma list")
    parser.add_argument("--aggs", default="count,sum")
    parser.add_argument("--join", action="store_true", help="sweep the join's build side instead")
    parser.add_argument("--miss-rates", default="0,0.3", help="join: probe rows missing the build side")
    parser.add_argument("--threads", default="1,all", help="comma list of thread counts, `all` for every CPU")
    parser.add_argument("--engines", default="duckdb,chdb,polars,datafusion")
    parser.add_argument("--kernels", default="adaptive,tuned,naive", help="memwall kernels")
    parser.add_argument("--rounds", type=int, default=3, help="rounds at each point, taking turns (default 3)")
    parser.add_argument("--runs", type=int, default=1, help="timed runs per round (default 1); the best of all counts")
    parser.add_argument("--name", default=None, help="output name (default sweep-quick / sweep-full, -join)")
    parser.add_argument("--render", type=Path, metavar="REPORT",
                        help="only write the tables and charts of a sweep's report (bench/results/sweep-*.json)")
    parser.add_argument("--worker", choices=sorted(OPEN), help=argparse.SUPPRESS)
    parser.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--worker-rows", help=argparse.SUPPRESS)
    parser.add_argument("--worker-build", help=argparse.SUPPRESS)
    parser.add_argument("--worker-queries", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if args.render:
        return render_file(args.render)

    started = time.perf_counter()
    args.rows = args.rows or (10_000_000 if args.quick else 100_000_000)
    top = 7 if args.quick else 8
    keys = [parse_count(k) for k in args.keys.split(",")] if args.keys else [10**e for e in range(3, top + 1)]
    keys = [k for k in keys if k <= args.rows]
    threads = sorted({all_threads() if t == "all" else int(t) for t in args.threads.split(",")})
    engines = [e for e in args.engines.split(",") if e]
    unknown = [e for e in engines if e not in OPEN]
    if unknown or args.runs < 1 or args.rounds < 1 or not keys:
        parser.error(f"engines are {', '.join(OPEN)}; --runs and --rounds at least 1; keys at most --rows")
    if not args.memwall.exists():
        parser.error(f"{args.memwall}: no memwall binary (cargo build --release -p memwall)")
    mode = args.name or ("sweep-quick" if args.quick else "sweep-full") + ("-join" if args.join else "")
    data_dir = RESULTS / "sweep-data"
    data_dir.mkdir(parents=True, exist_ok=True)
    args.caches, args.levels = measure_caches(args.memwall, RESULTS / f"{mode}-caches.json")

    datasets = []
    if args.join:
        for miss in (float(m) for m in args.miss_rates.split(",")):
            for k in keys:
                rows_file = data_dir / f"probe-{args.rows}-{k}-miss{miss:g}.parquet"
                build_file = data_dir / f"build-{args.rows}-{k}-miss{miss:g}.parquet"
                datasets.append(dict(series=f"miss {miss:g}", keys=k, miss_rate=miss, queries=["join"],
                                     rows_file=rows_file, build_file=build_file))
    else:
        shapes = [(o, float(h)) for o in args.orders.split(",") for h in args.heavy.split(",")]
        for skew in args.skews.split(","):
            for order, heavy in shapes:
                # The series names its shape where it is not the generator's shuffled rows.
                shape = ("" if order == "shuffled" else f" {order}") + (f" heavy {heavy:g}" if heavy else "")
                tag = ("" if order == "shuffled" else f"-{order}") + (f"-heavy{heavy:g}" if heavy else "")
                for k in keys:
                    rows_file = data_dir / f"rows-{args.rows}-{k}-{skew.replace(':', '')}{tag}.parquet"
                    datasets.append(dict(series=skew + shape, keys=k, queries=args.aggs.split(","),
                                         rows_file=rows_file, skew=skew, order=order, heavy=heavy))

    points, agree = [], True
    for data in datasets:
        generate(args.memwall, args.rows, data["keys"], data.get("skew", data["series"]), data.get("miss_rate"),
                 data["rows_file"], data.get("build_file"), data.get("order", "shuffled"), data.get("heavy", 0.0))
        for t in threads:
            try:
                rounds = point(args.memwall, args, data, t, engines)
            except MemwallFailed as failed:
                log(f"sweep stopped at {data['series']} {data['keys']:,} keys, {t} thread(s): {failed}")
                if points:
                    write(mode, args, threads, points, agree, started, done=False)
                return 2
            for query in data["queries"]:
                ok = all([check_agreement([r for r in results if r["query"] == query]) for results in rounds])
                agree &= ok
                for r in merged(rounds, query):
                    points.append(dict(query=query, series=data["series"], keys=data["keys"], threads=t,
                                       engine=r["engine"], seconds=r["times"], ns_per_row=min(r["times"]) / r["rows"] * 1e9,
                                       chose=r.get("chose"), agrees=ok, predicted=r.get("predicted")))
            log(f"{data['series']} {data['keys']:,} keys, {t} thread(s): done at {time.perf_counter() - started:.0f} s")
        # What is done so far, on disk: a full sweep takes hours, and one cut short keeps its points.
        write(mode, args, threads, points, agree, started, done=data is datasets[-1])
    return 0 if agree else 1


def write(mode: str, args, threads: list[int], points: list[dict], agree: bool, started: float, done: bool) -> None:
    """The tables, charts and report of the points so far; `done` is false while the sweep runs."""
    elapsed = time.perf_counter() - started
    version = subprocess.run([str(args.memwall), "--version"], capture_output=True, text=True).stdout.strip()
    host = dict(cpu=cpu_model(), cpus=all_threads(), system=platform.platform())
    report = as_report(mode, args, version, host, elapsed, agree, points, done)
    text = render(report, load=os.getloadavg()[0])
    if done:
        print(text)
    (RESULTS / f"{mode}.md").write_text(text)
    (RESULTS / f"{mode}.json").write_text(json.dumps(report, indent=1) + "\n")
    model_error(RESULTS / f"{mode}-model.json", points)
    log(f"wrote {RESULTS / mode}.md, .json and the charts; {elapsed / 60:.1f} min{'' if done else ' (partial)'}")


def rounds(sweep: dict) -> str:
    """How each figure was taken, in words; reports from before rounds ran every side once."""
    n, runs = sweep.get("rounds", 1), sweep["runs"]
    taken = f"best of {runs} warm run{'s' if runs > 1 else ''} after one untimed"
    return taken if n == 1 else f"{taken}, in each of {n} rounds taking turns (the best of {n * runs})"


def render(report: dict, load: float | None = None) -> str:
    """A sweep report (`as_report`) as Markdown tables, its charts drawn beside them in RESULTS."""
    sweep = report["engine_sweeps"][0]
    mode, points = sweep["mode"].removesuffix(" (partial)"), sweep["points"]
    done = not sweep["mode"].endswith(" (partial)")
    threads = sorted({p["threads"] for p in points})
    queries = list(dict.fromkeys(p["query"] for p in points))
    is_join = queries == ["join"]
    when = datetime.datetime.fromtimestamp(report["created_unix_s"], datetime.timezone.utc)
    host, minutes = report["host"], sweep["elapsed_seconds"] / 60
    sections = [f"# {mode}: memwall against engines by cardinality",
                "",
                ("" if done else "**Partial: the sweep was still running (or was stopped) when this was written.** ")
                + f"{sweep['rows']:,} {'probe ' if is_join else ''}rows; memwall {report['tool']['version']}; "
                f"{host['cpu_model']}, {host['logical_cpus']} CPUs; {when:%Y-%m-%d %H:%M} UTC; "
                + rounds(sweep) + "; "
                + (f"load average {load:.2f} at the end; " if load is not None else "")
                + (f"the whole sweep took {minutes:.1f} min" if done else f"{minutes:.1f} min so far")
                + ". Every engine agreed with memwall at every point: "
                f"{'yes' if sweep['all_agree'] else 'NO (see the log)'}. 'first': adaptive within {WITHIN - 1:.0%} of "
                "the best engine or ahead. Rules: bench/sweep.py's docstring."
                + "".join(f" memwall's caches: {c}" for c in sweep["rules"].split(" memwall's caches: ")[1:])]
    for query in queries:
        for s in sorted({p["series"] for p in points if p["query"] == query}):
            for t in threads:
                sections += ["", f"## {query}, {s}", "", table(points, query, s, t)]
            if len(threads) > 1:
                sections += ["", scaling(points, query, s, threads[0], threads[-1])]
        chart(points, query, RESULTS / f"{mode}-{query}.png")
    return "\n".join(sections) + "\n"


def as_report(mode: str, args, version: str, host: dict, elapsed: float, agree: bool, points: list[dict],
              done: bool) -> dict:
    """The sweep as a memwall report (crates/memwall-report, `engine_sweeps`): the web page opens it
    like any other report and draws each panel with the engines overlaid."""
    rules = __doc__.split("Rules, the same for all: ", 1)[1].split("\n\n", 1)[0]
    rules += f" memwall's caches: {args.levels}."
    sweep = {"mode": mode if done else f"{mode} (partial)", "rows": args.rows, "runs": args.runs, "rounds": args.rounds, "elapsed_seconds": elapsed, "all_agree": agree,
             "rules": " ".join(rules.split()),
             "engines": sorted({p["engine"] for p in points if not p["engine"].startswith("memwall ")}),
             "points": [{"query": p["query"], "series": p["series"], "keys": p["keys"], "threads": p["threads"],
                         "engine": p["engine"], "ns_per_row": p["ns_per_row"], "samples_seconds": p["seconds"],
                         "agrees": p["agrees"], **({"chose": p["chose"]} if p.get("chose") else {})}
                        for p in points]}
    return {"schema_version": 1, "tool": {"name": "memwall", "version": (version.split() + ["unknown", "unknown"])[1]}, "source": "native",
            "created_unix_s": int(time.time()),
            "host": {"cpu_model": host["cpu"], "logical_cpus": host["cpus"], "os": host["system"]},
            "engine_sweeps": [sweep]}


def render_file(path: Path) -> int:
    """`--render`: a saved report's tables to stdout and RESULTS/<mode>.md, its charts beside them."""
    try:
        report = json.loads(path.read_text())
        text = render(report)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print(f"sweep.py: {path}: not a sweep report this script wrote ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    mode = report["engine_sweeps"][0]["mode"].removesuffix(" (partial)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{mode}.md").write_text(text)
    print(text)
    return 0


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
