#!/usr/bin/env bash
# The house rules, for anyone to run: see scripts/house.py (--graph prints every arrow).
exec python3 "$(dirname "$0")/house.py" "$@"
