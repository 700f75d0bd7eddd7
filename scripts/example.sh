#!/usr/bin/env bash
# Sets up (if needed) and scores the bundled example: an actual clustering of 5,000 business
# records against a human-made truth, with weights and a country slice. Writes out/example/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/clusterscore evaluate examples/data/truth.csv examples/data/actual.csv \
  --items examples/data/items.csv --slice country --out out/example
