#!/usr/bin/env bash
# memwall vs DuckDB, ClickHouse (chDB), Polars and DataFusion at every cardinality, 1 and all threads,
# answers checked: see bench/README.md. Extra arguments go to bench/sweep.py (--quick, --join, --rounds 2, ...).
exec "$(dirname "$0")/memwall-py.sh" sweep.py "$@"
