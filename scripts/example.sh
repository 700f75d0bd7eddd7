#!/usr/bin/env bash
# Installs clusterscore alone (into .venv, creating it if missing; the C++ core is compiled
# by pip, no test or development tool comes with it) and scores the bundled example: an
# actual clustering of 5,000 business records against a human-made truth, with weights and
# a country slice. Writes out/example/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q .
.venv/bin/clusterscore evaluate examples/data/truth.csv examples/data/actual.csv \
  --items examples/data/items.csv --slice country --out out/example
