#!/usr/bin/env bash
# Sets up (if needed) and runs every check: formatting and lint, types (mypy), the C++
# tests (GoogleTest, and the installed CMake package built into an example), and the
# Python tests (the docs' links, generated reference and type stub among them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"

echo "== format and lint"
ruff check python tests bench examples scripts
ruff format --check python tests bench examples scripts
clang-format --dry-run --Werror include/clusterscore/*.h src/*/* \
  python/src/* tests/cpp/*.cpp tests/cpp/*.h examples/cpp/*.cpp bench/cpp/*.cpp

echo "== types"
mypy

echo "== C++ tests"
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j "$(nproc)"

echo "== C++ tests under AddressSanitizer and UBSan"
# The installed-package example is left to the release run: its consumer build has no
# sanitizer runtime to link; so are the three tests of long inputs (the same code as their
# short siblings, at a size that takes 90 s under the sanitizers).
cmake --preset debug >/dev/null
cmake --build --preset debug
ctest --preset debug -j "$(nproc)" -E "example_find_package|StretchesOnAnyNumberOfThreadsEqualTheirReference|LongColumnsInPartsEqualOneThread|LongInputsFoundAgainInStretchesAgreeWithOracle"

echo "== Python tests"
# One worker per core: most tests wait on a subprocess, a JVM or a browser, and the long
# simulations are many tests, so the suite takes about 60% of its time on one worker.
python -m pytest -q -n auto --dist worksteal tests/python
