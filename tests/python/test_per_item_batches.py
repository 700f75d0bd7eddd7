"""The per-item table built a slice of items at a time (what the CLI writes at scale):
the same rows in the same order as the whole table, bad batch sizes and item indices
refused, and Parquet files written batch by batch equal to the whole table's, also when
written on a thread beside other work."""

import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import clusterscore as cs
from clusterscore import _report as report


def random_inputs(seed: int):
    """Truth and actual over overlapping item sets (items only on either side), weights."""
    rng = np.random.default_rng(seed)
    ids = rng.permutation(1000)[:300].astype(np.int64)
    truth = pa.table({"item_id": ids[:260], "cluster_id": rng.integers(0, 30, 260)})
    actual_ids = rng.permutation(ids[20:])
    actual = pa.table({"item_id": actual_ids, "cluster_id": rng.integers(0, 50, len(actual_ids))})
    items = pa.table({"item_id": ids, "weight": rng.uniform(0.5, 2.0, len(ids))})
    return truth, actual, items


@pytest.mark.parametrize("rows", [1, 7, 239, 240, 1 << 20])
@pytest.mark.parametrize("make", [cs.evaluate, cs.diff])
def test_batches_are_the_table_in_order(rows, make):
    result = make(*random_inputs(rows))
    whole = result.per_item_table()
    batches = list(result.per_item_batches(rows))
    assert whole.num_rows == 240  # the common items: truth's 260 minus the 20 not in actual
    assert all(b.num_rows <= rows for b in batches)
    assert len(batches) == -(-whole.num_rows // rows)
    assert pa.Table.from_batches(batches).equals(whole)


@pytest.mark.parametrize("rows", [0, -3, 1.5, True, "10"])
def test_batch_size_must_be_a_positive_integer(rows):
    result = cs.evaluate(*random_inputs(0))
    with pytest.raises(ValueError, match="rows must be a positive integer"):
        result.per_item_batches(rows)  # at the call, not at the first batch


def test_core_refuses_indices_of_items_not_in_both():
    result = cs.evaluate(*random_inputs(1))
    common = result._core.common_items()
    truth_only = np.setdiff1d(np.arange(260, dtype=np.uint32), common)
    assert len(truth_only) == 20
    counts = result._core.cell_counts()
    for bad in (truth_only[:1], np.array([10**6], dtype=np.uint32)):
        with pytest.raises(IndexError, match="is not the index of a common item"):
            result._core.per_item(bad, counts)


def test_core_refuses_counts_without_a_row_per_cell():
    result = cs.evaluate(*random_inputs(1))
    other = cs.evaluate({1: "a", 2: "a"}, {1: "x", 2: "y"})  # two cells, not this one's
    with pytest.raises(ValueError, match="counts do not have a row per cell"):
        result._core.per_item(result._core.common_items(), other._core.cell_counts())


def test_parquet_written_by_batches_equals_the_table(tmp_path):
    result = cs.evaluate(*random_inputs(2))
    report.write_parquet(tmp_path / "whole.parquet", result.per_item_table())
    report.write_parquet(tmp_path / "batches.parquet", result.per_item_batches(50))
    by_batches = pq.ParquetFile(tmp_path / "batches.parquet")
    assert by_batches.metadata.num_row_groups == 5  # one per batch: 240 rows by 50
    assert by_batches.read().equals(pq.read_table(tmp_path / "whole.parquet"))


def test_failed_batch_write_leaves_no_file(tmp_path):
    result = cs.evaluate(*random_inputs(3))

    def failing():
        yield from result.per_item_batches(100)
        raise RuntimeError("the source went away")

    path = tmp_path / "per_item.parquet"
    with pytest.raises(RuntimeError, match="the source went away"):
        report.write_parquet(path, failing())
    assert not path.exists()
    with pytest.raises(ValueError, match="no rows to write"):
        report.write_parquet(path, iter([]))
    assert not path.exists()


def test_ahead_keeps_the_order_and_passes_errors_on():
    batches = [pa.record_batch({"x": [i]}) for i in range(5)]
    assert list(report.ahead(batches)) == batches

    def broken():
        yield batches[0]
        raise KeyError("lost")

    got = report.ahead(broken())
    assert next(got) == batches[0]
    with pytest.raises(KeyError, match="lost"):
        next(got)


class CountingCore:
    """Passes every call on to the real core, counting calls to classic()."""

    def __init__(self, core):
        self._core, self.classic_calls = core, 0

    def __getattr__(self, name):
        return getattr(self._core, name)

    def classic(self):
        self.classic_calls += 1
        return self._core.classic()


def test_classic_scores_are_computed_once():
    result = cs.evaluate(*random_inputs(4))
    result._core = core = CountingCore(result._core)
    first = result.classic
    first["adjusted_rand_score"] = "changed by the caller"
    second = result.classic
    assert core.classic_calls == 1
    assert second["adjusted_rand_score"] != "changed by the caller"
    assert second == cs.evaluate(*random_inputs(4)).classic


def test_tables_are_views_of_the_core_results_and_outlive_them_quietly():
    """Level, per-item and flow tables wrap the core's arrays without a copy (read-only
    views that keep the result alive), and tables still alive at exit say nothing."""
    script = """
import gc
import numpy as np
import clusterscore as cs
t = {i: i // 3 for i in range(300)}
a = {i: i // 4 for i in range(300)}
e = cs.evaluate(t, a, resamples=1)
g = e._core.by_cluster(cs._core.Side.a)
w = g.weight
del g
gc.collect()
assert not w.flags.writeable and w.base is not None and float(w[0]) == 3.0
table = e.per_cluster_table("truth")
flows = cs.diff(t, a).flows_table()
items = e.per_item_table()
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_written_meanwhile_is_the_table_written_alone(tmp_path):
    truth, actual, items = random_inputs(3)
    e = cs.evaluate(truth, actual, items)
    with report.parquet_meanwhile(tmp_path / "beside.parquet", e.per_item_batches(7)) as written:
        e.intervals()  # the work the write runs beside
        written()
    report.write_parquet(tmp_path / "alone.parquet", e.per_item_batches(7))
    assert pq.read_table(tmp_path / "beside.parquet").equals(
        pq.read_table(tmp_path / "alone.parquet")
    )


def test_a_block_that_fails_stops_the_write_beside_it_and_leaves_no_file(tmp_path):
    started = threading.Event()

    def slow_batches():
        for i in range(1000):
            started.set()
            time.sleep(0.01)
            yield pa.record_batch({"x": [i]})

    path = tmp_path / "t.parquet"
    with (
        pytest.raises(KeyError, match="the block's"),
        report.parquet_meanwhile(path, slow_batches()),
    ):
        started.wait(5)
        raise KeyError("the block's")
    assert not path.exists()


def test_a_write_that_fails_raises_when_the_block_waits_for_it(tmp_path):
    def failing():
        yield pa.record_batch({"x": [1]})
        raise OSError("disk gone")

    path = tmp_path / "t.parquet"
    with (
        pytest.raises(OSError, match="disk gone"),
        report.parquet_meanwhile(path, failing()) as written,
    ):
        written()
    assert not path.exists()
