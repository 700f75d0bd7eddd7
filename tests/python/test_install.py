"""How users install: the wheel scripts/build-wheel.sh makes installs into a fresh
environment with no compiler on the path and runs the example; scripts/example.sh, the
README's first command, installs the package and nothing for testing or development."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE, ROOT

# What only the test and development extras bring: none may be in the example's environment.
DEV_AND_TEST = {"pytest", "pytest-xdist", "playwright", "ruff", "mypy", "clang-format",
                "pyspark", "scikit-learn", "polars", "duckdb", "nbclient", "ipykernel",
                "altair", "vl-convert-python", "scikit-build-core", "nanobind",
                "cmake"}  # fmt: skip
EXAMPLE_ARGS = ["evaluate", str(EXAMPLE / "truth.csv"), str(EXAMPLE / "actual.csv"), "--items",
                str(EXAMPLE / "items.csv"), "--resamples", "100", "--json", "-q"]  # fmt: skip


def _run(args: list, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=900, **kw)
    assert r.returncode == 0, f"{args}: {r.stderr[-2000:]}"
    return r


def _installed(python: Path) -> set[str]:
    listed = _run([python, "-m", "pip", "list", "--format=json"]).stdout
    return {p["name"].lower() for p in json.loads(listed)}


def test_the_wheel_installs_and_runs_with_no_compiler(tmp_path):
    wheelhouse = tmp_path / "wheelhouse"
    _run(["bash", ROOT / "scripts" / "build-wheel.sh", wheelhouse])
    (wheel,) = wheelhouse.glob("clusterscore-*manylinux*_x86_64.whl")
    env_dir = tmp_path / "env"
    _run([sys.executable, "-m", "venv", env_dir])
    # Only the environment's own programs: no cc, c++, g++ or cmake to build with.
    bare = {**os.environ, "PATH": str(env_dir / "bin"), "CC": "false", "CXX": "false"}
    for compiler in ("cc", "c++", "g++", "gcc", "cmake"):
        assert shutil.which(compiler, path=bare["PATH"]) is None, compiler
    python = env_dir / "bin" / "python"
    _run([python, "-m", "pip", "install", "-q", "--only-binary=:all:", wheel], env=bare)
    out = _run([env_dir / "bin" / "clusterscore", *EXAMPLE_ARGS], env=bare).stdout
    from_wheel = json.loads(out)["overall"]
    smoke = ("import clusterscore as cs, json, sys; d = sys.argv[1];"
             " ev = cs.evaluate(d + '/truth.csv', d + '/actual.csv', d + '/items.csv',"
             " resamples=100); print(json.dumps(ev.overall))")  # fmt: skip
    api = json.loads(_run([python, "-c", smoke, EXAMPLE], env=bare).stdout)
    here = json.loads(_run([sys.executable, "-m", "clusterscore", *EXAMPLE_ARGS]).stdout)["overall"]
    assert from_wheel == here and api == {k: v for k, v in here.items() if k in api}
    assert not (_installed(python) & DEV_AND_TEST)


def test_the_example_script_installs_the_package_alone(tmp_path):
    clone = tmp_path / "clone"
    _run(["git", "clone", "-q", ROOT, clone])
    _run(["bash", clone / "scripts" / "example.sh"])
    assert (clone / "out" / "example" / "summary.json").exists()
    installed = _installed(clone / ".venv" / "bin" / "python")
    assert "clusterscore" in installed
    assert not installed & DEV_AND_TEST, sorted(installed & DEV_AND_TEST)
