"""The engines memwall races (DuckDB, ClickHouse as chDB, Polars, DataFusion), the queries they
run, and the checks that hold every engine's answer to memwall's: shared by bench/compare.py
(one preset, one thread) and bench/sweep.py (every cardinality, 1 and all threads).

Each engine opens as a `Session`: the rows loaded into the engine's own memory (untimed), then
any query run on them as often as a caller asks. `ENGINES[name](...)` is the one-shot form
compare.py uses: open, one untimed run of each query, `runs` timed ones, close; sweep.py keeps a
session open across rounds instead (`sweep.py --worker`).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

AGGS = ("count", "sum", "avg")
# f64's machine epsilon: the float check's unit of rounding.
EPSILON = 2.0**-52


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


class Session:
    """One engine with the rows in its memory: `run(query)` gives the query's result rows,
    `groups()` the distinct keys (the count query's answer holds only the top ten)."""

    def __init__(self, name: str, rows: int, run, groups, close=lambda: None):
        self.name, self.rows = name, rows
        self.run, self.close = run, close
        self._groups, self._counted = groups, None

    def groups(self) -> int:
        if self._counted is None:
            self._counted = self._groups()
        return self._counted

    def timed(self, query: "Query") -> tuple[float, list]:
        gc.collect()
        started = time.perf_counter()
        out = self.run(query)
        return time.perf_counter() - started, out

    def timed_runs(self, query: "Query", runs: int) -> tuple[list[float], list]:
        """`runs` timed runs of `query`: every time, and the last answer."""
        timed = [self.timed(query) for _ in range(runs)]
        return [t for t, _ in timed], timed[-1][1]

    def result(self, query: "Query", times: list[float], out: list) -> dict:
        """The figures and answer of `query` in the shape the checks and tables read."""
        result = {"engine": self.name, "query": query.name, "times": times, "rows": self.rows, **answer(query, out)}
        if query.name == "count":
            result["groups"] = self.groups()
        return result


def measure(session: Session, queries: list["Query"], runs: int) -> list[dict]:
    """Each query once untimed, then `runs` timed times; one result per query."""
    results = []
    for query in queries:
        session.run(query)
        times, out = session.timed_runs(query, runs)
        results.append(session.result(query, times, out))
        log(f"{session.name} {query.name}: best {min(times):.3f} s")
    return results


class Query:
    """One race: its SQL for each engine, how to read the answer, and its rows for ns/row."""

    def __init__(self, name: str, title: str, duckdb_sql: str, chdb_sql: str, per: str):
        self.name = name
        self.title = title
        self.duckdb_sql = duckdb_sql
        self.chdb_sql = chdb_sql
        self.per = per  # "row" or "probe row"


def groupby_query(agg: str) -> Query:
    if agg == "count":
        sql = "SELECT key, count(*) AS c FROM t GROUP BY key ORDER BY c DESC, key LIMIT 10"
        return Query("count", "GROUP BY count", sql, sql, "row")
    if agg == "sum":
        # ClickHouse sums Int64 into Int64 (wrapping past 2^63); the generated values (|v| <= 1e9,
        # 1e8 rows) stay far inside it, and a wrap would show as a mismatch, never pass silently.
        sql = "SELECT count(*), sum(s) FROM (SELECT key, sum(value) AS s FROM t GROUP BY key)"
        return Query("sum", "GROUP BY sum of an i64 column", sql, sql, "row")
    if agg == "avg":
        sql = "SELECT count(*), sum(a), sum(abs(a)) FROM (SELECT key, avg(value) AS a FROM t GROUP BY key)"
        return Query("avg", "GROUP BY avg of an i64 column", sql, sql, "row")
    raise ValueError(agg)


JOIN = Query(
    "join",
    "hash join, build side of distinct keys with payloads",
    "SELECT count(*), sum(p.key), sum(b.payload) FROM probe p JOIN build b ON p.key = b.key",
    # ClickHouse sums Int64 and UInt64 in 64 bits (wrapping); the key sums need 128.
    "SELECT count(), sum(toInt128(p.key)), sum(toUInt128(b.payload)) FROM probe AS p INNER JOIN build AS b ON p.key = b.key",
    "probe row",
)


def answer(query: Query, rows: list) -> dict:
    """The engine's result rows as the fields checked against memwall's."""
    if query.name == "count":
        return {"top": [(int(k), int(c)) for k, c in rows]}
    if query.name == "sum":
        return {"groups": int(rows[0][0]), "sum": int(rows[0][1])}
    if query.name == "avg":
        return {"groups": int(rows[0][0]), "avg": float(rows[0][1]), "avg_abs": float(rows[0][2])}
    return {"matches": int(rows[0][0]), "key_sum": int(rows[0][1]), "payload_sum": int(rows[0][2])}


def open_duckdb(keys: Path, build: Path | None, queries: list[Query], threads: int = 1) -> Session:
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute(f"SET threads = {threads}")
    # The Python client would otherwise print progress bars on stderr for long queries.
    con.execute("SET enable_progress_bar = false")
    name = f"DuckDB {duckdb.__version__}"
    started = time.perf_counter()
    if build is None:
        columns = "key, value" if any(q.name in ("sum", "avg") for q in queries) else "key"
        con.execute(f"CREATE TABLE t AS SELECT {columns} FROM read_parquet('{keys}')")
        rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    else:
        con.execute(f"CREATE TABLE probe AS SELECT key FROM read_parquet('{keys}')")
        con.execute(f"CREATE TABLE build AS SELECT key, payload FROM read_parquet('{build}')")
        rows = con.execute("SELECT count(*) FROM probe").fetchone()[0]
    log(f"{name}: loaded {rows} rows in {time.perf_counter() - started:.1f} s")
    return Session(name, rows, lambda query: con.execute(query.duckdb_sql).fetchall(),
                   lambda: con.execute("SELECT count(*) FROM (SELECT key FROM t GROUP BY key)").fetchone()[0],
                   con.close)


def open_chdb(keys: Path, build: Path | None, queries: list[Query], threads: int = 1) -> Session:
    import chdb
    from chdb import session

    sess = session.Session()
    settings = f" SETTINGS max_threads = {threads}"

    def query(sql: str) -> list[list[str]]:
        text = str(sess.query(sql + settings, "TSV"))
        return [line.split("\t") for line in text.splitlines() if line]

    version = query("SELECT version()")[0][0]
    name = f"ClickHouse {version} (chDB {chdb.__version__})"
    tables = ["t"] if build is None else ["probe", "build"]
    for table in tables:
        sess.query(f"DROP TABLE IF EXISTS {table}")
    started = time.perf_counter()
    if build is None:
        with_values = any(q.name in ("sum", "avg") for q in queries)
        sess.query("CREATE TABLE t (key Int64" + (", value Int64" if with_values else "") + ") ENGINE = Memory")
        sess.query(f"INSERT INTO t SELECT key{', value' if with_values else ''} FROM file('{keys}', Parquet)")
        rows = int(query("SELECT count(*) FROM t")[0][0])
    else:
        sess.query("CREATE TABLE probe (key Int64) ENGINE = Memory")
        sess.query(f"INSERT INTO probe SELECT key FROM file('{keys}', Parquet)")
        sess.query("CREATE TABLE build (key Int64, payload UInt64) ENGINE = Memory")
        sess.query(f"INSERT INTO build SELECT key, payload FROM file('{build}', Parquet)")
        rows = int(query("SELECT count(*) FROM probe")[0][0])
    log(f"{name}: loaded {rows} rows in {time.perf_counter() - started:.1f} s")

    def close() -> None:
        for table in tables:
            sess.query(f"DROP TABLE {table}")
        sess.close()

    return Session(name, rows, lambda q: query(q.chdb_sql),
                   lambda: int(query("SELECT count(*) FROM (SELECT key FROM t GROUP BY key)")[0][0]), close)


def mismatch(field: str, reference: dict, other: dict, why: str = "") -> None:
    log("!" * 72)
    log(f"MISMATCH in {field}{why}: {reference['engine']} vs {other['engine']} ({other['query']})")
    log(f"  {reference['engine']}: {reference.get(field)}")
    log(f"  {other['engine']}: {other.get(field)}")
    log("!" * 72)


def check_agreement(results: list[dict]) -> bool:
    """Every engine must give memwall's answer (the first result); a mismatch is printed loudly."""
    reference = results[0]
    exact = {
        "count": ("rows", "groups", "top"),
        "sum": ("rows", "groups", "sum"),
        "avg": ("rows", "groups"),
        "join": ("rows", "matches", "key_sum", "payload_sum"),
    }[reference["query"]]
    ok = True
    for other in results[1:]:
        for field in exact:
            if other[field] != reference[field]:
                ok = False
                mismatch(field, reference, other)
        if reference["query"] == "avg":
            # memwall's total is the exact sum of its per-group averages, rounded once; an engine
            # adding them in its own order may be off by (n - 1) * eps * sum(|a|) for n groups,
            # and each average by about eps * |a| (two roundings are allowed for).
            abs_sum = other.get("avg_abs", abs(other["avg"]))
            bound = (reference["groups"] + 4) * EPSILON * abs_sum
            if not abs(other["avg"] - reference["avg"]) <= bound:
                ok = False
                mismatch("avg", reference, other, f" (beyond the rounding bound {bound:.3g})")
    return ok


def open_polars(keys: Path, build: Path | None, queries: list[Query], threads: int = 1) -> Session:
    """Polars, lazy queries over in-memory DataFrames. Its thread pool is sized once per process
    (POLARS_MAX_THREADS, read at import): the caller sets it before the first import."""
    import os

    os.environ.setdefault("POLARS_MAX_THREADS", str(threads))
    import polars as pl

    if int(os.environ["POLARS_MAX_THREADS"]) != threads or pl.thread_pool_size() != threads:
        raise RuntimeError(f"Polars runs {pl.thread_pool_size()} threads, asked {threads}: one process per count")
    name = f"Polars {pl.__version__}"
    started = time.perf_counter()
    if build is None:
        columns = ["key", "value"] if any(q.name in ("sum", "avg") for q in queries) else ["key"]
        t = pl.read_parquet(keys, columns=columns).rechunk()
        rows = t.height
    else:
        probe = pl.read_parquet(keys, columns=["key"]).rechunk()
        side = pl.read_parquet(build, columns=["key", "payload"]).rechunk()
        rows = probe.height
    log(f"{name}: loaded {rows} rows in {time.perf_counter() - started:.1f} s")

    def run(query: Query) -> list:
        if query.name == "count":
            out = (t.lazy().group_by("key").agg(pl.len().alias("c")).sort(["c", "key"], descending=[True, False])
                   .head(10).collect())
            return out.rows()
        if query.name in ("sum", "avg"):
            agg = pl.col("value").sum() if query.name == "sum" else pl.col("value").mean()
            inner = t.lazy().group_by("key").agg(agg.alias("a"))
            outer = [pl.len(), pl.col("a").cast(pl.Int128).sum() if query.name == "sum" else pl.col("a").sum()]
            if query.name == "avg":
                outer.append(pl.col("a").abs().sum())
            return inner.select(outer).collect().rows()
        joined = probe.lazy().join(side.lazy(), on="key", how="inner")
        return joined.select(pl.len(), pl.col("key").cast(pl.Int128).sum(),
                             pl.col("payload").cast(pl.Int128).sum()).collect().rows()

    return Session(name, rows, run, lambda: t.select(pl.col("key").n_unique()).item())


def open_datafusion(keys: Path, build: Path | None, queries: list[Query], threads: int = 1) -> Session:
    """DataFusion, SQL over in-memory Arrow tables, `target_partitions` = threads."""
    import datafusion
    import pyarrow.parquet as pq
    from datafusion import SessionConfig, SessionContext

    ctx = SessionContext(SessionConfig().with_target_partitions(threads))
    name = f"DataFusion {datafusion.__version__}"
    started = time.perf_counter()
    if build is None:
        columns = ["key", "value"] if any(q.name in ("sum", "avg") for q in queries) else ["key"]
        table = pq.read_table(keys, columns=columns)
        # One batch per partition, as a scan of the engine's own storage hands them out.
        ctx.register_record_batches("t", [table.to_batches(max_chunksize=1 << 17)])
        rows = table.num_rows
    else:
        probe = pq.read_table(keys, columns=["key"])
        side = pq.read_table(build, columns=["key", "payload"])
        ctx.register_record_batches("probe", [probe.to_batches(max_chunksize=1 << 17)])
        ctx.register_record_batches("build", [side.to_batches(max_chunksize=1 << 17)])
        rows = probe.num_rows
    log(f"{name}: loaded {rows} rows in {time.perf_counter() - started:.1f} s")
    wide = "arrow_cast({}, 'Decimal128(38, 0)')"
    sql = {
        "count": "SELECT key, count(*) AS c FROM t GROUP BY key ORDER BY c DESC, key LIMIT 10",
        # Its sum of Int64 is Int64; the total over groups is summed as a decimal.
        "sum": f"SELECT count(*), sum({wide.format('s')}) FROM (SELECT key, sum(value) AS s FROM t GROUP BY key)",
        "avg": "SELECT count(*), sum(a), sum(abs(a)) FROM (SELECT key, avg(value) AS a FROM t GROUP BY key)",
        "join": f"SELECT count(*), sum({wide.format('p.key')}), sum({wide.format('b.payload')}) "
                "FROM probe p JOIN build b ON p.key = b.key",
    }

    def run(query: Query) -> list:
        table = ctx.sql(sql[query.name]).to_arrow_table()
        return [tuple(col[i].as_py() for col in table.columns) for i in range(table.num_rows)]

    return Session(name, rows, run,
                   lambda: ctx.sql("SELECT count(DISTINCT key) FROM t").to_arrow_table().column(0)[0].as_py())


OPEN = {"duckdb": open_duckdb, "chdb": open_chdb, "polars": open_polars, "datafusion": open_datafusion}


def one_shot(engine: str):
    """`OPEN[engine]` as one call: open, `measure`, close."""

    def run(keys: Path, build: Path | None, queries: list[Query], runs: int, threads: int = 1) -> list[dict]:
        session = OPEN[engine](keys, build, queries, threads)
        try:
            return measure(session, queries, runs)
        finally:
            session.close()

    return run


ENGINES = {engine: one_shot(engine) for engine in OPEN}
duckdb_engine, chdb_engine = ENGINES["duckdb"], ENGINES["chdb"]
