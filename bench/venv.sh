#!/usr/bin/env bash
# Creates bench/.venv with the pinned engines of bench/requirements.txt, once: a venv that already
# imports every one of them is left alone. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/.venv
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import duckdb, chdb, polars, datafusion, matplotlib' 2>/dev/null; then
    echo "setting up $venv (the engines' wheels are large; this happens once)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet -r bench/requirements.txt
fi
echo "$PWD/$venv/bin/python"
