#!/usr/bin/env bash
# memwall vs DuckDB vs ClickHouse (chDB), one thread, same data, answers checked: see bench/README.md.
# Extra arguments go to bench/compare.py (e.g. --agg count,sum,avg, --join, --runs 3, --pin 1, --preset small).
exec "$(dirname "$0")/memwall-py.sh" compare.py "$@"
