"""Out of memory under `ulimit -v` at 1e7 items: evaluate, diff and sample end with one
line that names memory (and the step that ran out), status 2, and nothing left beside
their outputs."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

CLI = os.path.join(os.path.dirname(sys.executable), "clusterscore")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(0)
    n = 10_000_000
    ids = rng.integers(0, 2**62, n)
    truth = rng.integers(0, n // 4, n)
    actual = np.where(rng.random(n) < 0.05, rng.integers(0, n // 4, n), truth)
    for name, labels in (("truth", truth), ("actual", actual)):
        pq.write_table(pa.table({"item_id": ids, "cluster_id": labels}), d / f"{name}.parquet")
    return d


def _limited(gigabytes: float):
    def limit() -> None:
        size = int(gigabytes * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


@pytest.mark.parametrize("gigabytes", [1.0, 1.6])
@pytest.mark.parametrize("command", ["evaluate", "diff", "sample"])
def test_out_of_memory_is_one_line(inputs, tmp_path, command, gigabytes):
    args = [str(inputs / "truth.parquet"), str(inputs / "actual.parquet"), "--quiet"]
    out = tmp_path / ("s.parquet" if command == "sample" else "out")
    extra = ["--pairs", "100000", "--seed", "1"] if command == "sample" else []
    proc = subprocess.run([CLI, command, *args, *extra, "--out", str(out)], capture_output=True,
                          text=True, preexec_fn=_limited(gigabytes), timeout=600)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: out of memory while "), lines
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert list(tmp_path.iterdir()) == []
