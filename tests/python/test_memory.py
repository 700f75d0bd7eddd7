"""The core keeps freed big arrays for reuse; release_memory() hands them back. Huge pages
for them are asked for only when set (set_huge_pages or CLUSTERSCORE_HUGE_PAGES)."""

import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from conftest import EXAMPLE

import clusterscore as cs


def test_release_memory_returns_the_cached_bytes():
    cs.release_memory()
    assert cs.release_memory() == 0  # nothing left to release
    # A call big enough for big blocks (4 MiB and up) leaves them cached for the next one.
    n = 600_000
    big = pa.table({"item_id": np.arange(n), "cluster_id": np.arange(n) // 3})
    first = cs.evaluate(big, big).overall
    assert cs.release_memory() > 0
    assert cs.release_memory() == 0
    assert cs.evaluate(big, big).overall == first  # fresh or reused memory: same results


def test_huge_pages_change_no_result():
    rng = np.random.default_rng(5)
    n = 700_000  # big blocks for the join and the cells
    truth = pa.table({"item_id": np.arange(n), "cluster_id": rng.integers(0, n // 4, n)})
    actual = pa.table({"item_id": np.arange(n), "cluster_id": rng.integers(0, n // 4, n)})
    try:
        results = []
        for on in (False, True):
            assert cs.set_huge_pages(on) is on
            cs.release_memory()  # the call's blocks are mapped fresh, with the setting
            e = cs.evaluate(truth, actual)
            results.append((e.overall, e.per_cluster_table("truth")))
    finally:
        cs.set_huge_pages(False)
    assert results[0][0] == results[1][0]
    assert results[0][1].equals(results[1][1])


@pytest.mark.parametrize("on", [1, "yes", None])
def test_set_huge_pages_takes_a_bool_only(on):
    with pytest.raises(ValueError, match=f"set_huge_pages: on must be True or False, not {on!r}"):
        cs.set_huge_pages(on)


def with_pages(value: str) -> dict[str, str]:
    return {**os.environ, "CLUSTERSCORE_HUGE_PAGES": value}


@pytest.mark.parametrize(("value", "shown"), [("1", "True"), ("0", "False"), ("", "False")])
def test_the_environment_sets_huge_pages(value, shown):
    check = "import clusterscore._core as c; print(c.huge_pages())"
    r = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                       env=with_pages(value))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == shown


@pytest.mark.parametrize("value", ["2", "true", " 1"])
def test_a_bad_environment_value_is_one_line_naming_it(run_cli, value):
    r = run_cli("evaluate", EXAMPLE / "truth.csv", EXAMPLE / "actual.csv", env=with_pages(value))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: CLUSTERSCORE_HUGE_PAGES='{value}': give 1 (huge pages for the big arrays)"
        " or 0 (the system's policy)"
    ]
