#!/usr/bin/env bash
# Installs everything clusterscore needs on a fresh Debian/Ubuntu machine with Python 3.10+:
# a virtual environment in .venv with the package (C++ core compiled by pip) and its test
# tools, and GoogleTest for the C++ tests. Safe to run again: it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f /usr/include/gtest/gtest.h ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libgtest-dev ninja-build >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libgtest-dev ninja-build >/dev/null
  fi
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.4" cmake ninja
# --no-build-isolation + a fixed build dir: rebuilding after a change recompiles only what changed.
.venv/bin/python -m pip install -q --no-build-isolation -Cbuild-dir=build/py ".[test,dev]"
