"""Columns that Arrow holds in several chunks (Parquet row groups, tables built from
batches) give exactly what the same columns in one chunk give, at every level; and the
label lookups fetch rows chunk by chunk."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import clusterscore as cs
from clusterscore import _arrays, _core


def chunked(table: pa.Table, sizes: list[int]) -> pa.Table:
    """The same rows, in chunks of the given sizes (the last takes the rest)."""
    batches, start = [], 0
    for size in [*sizes, table.num_rows]:
        batches.append(table.slice(start, size))
        start += size
        if start >= table.num_rows:
            break
    return pa.concat_tables(batches)


def random_inputs(seed: int, ids_as_text: bool):
    rng = np.random.default_rng(seed)
    n = 400
    ids = rng.permutation(10 * n)[:n].astype(np.int64)
    item = pa.array([f"i{x}" for x in ids]) if ids_as_text else pa.array(ids)
    truth = pa.table({"item_id": item, "cluster_id": rng.integers(0, 40, n)})
    order = rng.permutation(n)[: n - 30]  # some truth items are not in actual
    actual = pa.table({"item_id": item.take(order), "cluster_id": rng.integers(0, 60, len(order))})
    country = rng.choice(["US", "DE", "a much longer slice value"], n).astype(object)
    country[rng.random(n) < 0.1] = None  # nulls are a slice value of their own
    items = pa.table(
        {"item_id": item, "weight": rng.uniform(0.5, 2.0, n), "country": pa.array(country)}
    )
    return truth, actual, items


def same_table(a: pa.Table, b: pa.Table) -> None:
    assert a.column_names == b.column_names
    for name in a.column_names:
        assert a.column(name).to_pylist() == b.column(name).to_pylist(), name


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ids_as_text", [False, True])
def test_evaluate_on_chunked_tables_equals_one_chunk(seed, ids_as_text):
    truth, actual, items = random_inputs(seed, ids_as_text)
    one = cs.evaluate(truth, actual, items)
    many = cs.evaluate(
        chunked(truth, [1, 150, 0, 99]), chunked(actual, [200]), chunked(items, [7, 7, 300])
    )
    assert chunked(items, [7, 7, 300]).column("country").num_chunks > 1
    assert many.overall == one.overall
    assert many.coverage == one.coverage
    for side in ("truth", "actual"):
        same_table(many.per_cluster_table(side), one.per_cluster_table(side))
    same_table(many.per_slice_table("country"), one.per_slice_table("country"))
    same_table(many.per_item_table(), one.per_item_table())


def test_diff_flows_on_chunked_tables_equal_one_chunk():
    base, exp, items = random_inputs(9, ids_as_text=False)
    one = cs.diff(base, exp, items)
    many = cs.diff(chunked(base, [13, 200]), chunked(exp, [1, 1]), chunked(items, [100]))
    assert many.overall == one.overall
    same_table(many.flows_table(), one.flows_table())


def test_classic_scores_of_chunked_text_labels_equal_one_chunk():
    rng = np.random.default_rng(3)
    t = pa.array(rng.choice(["a", "b", "c", "a longer label"], 300))
    p = pa.array(rng.integers(0, 5, 300))
    chunked_t = pa.chunked_array([t.slice(0, 100), t.slice(100, 0), t.slice(100)])
    tuples = _arrays.id_tuple(_arrays.normalize_ids(chunked_t, as_string=True))
    assert isinstance(tuples, list) and len(tuples) == 3

    def scores(labels):
        avg = _core.Average.arithmetic
        p_tuple = _arrays.id_tuple(_arrays.normalize_ids(p))
        return _core.classic_from_labels(labels, p_tuple, None, avg, 1.0, True, True)

    one = scores(_arrays.id_tuple(_arrays.normalize_ids(t, as_string=True)))
    assert scores(tuples) == one
    mixed = [tuples[0], _arrays.id_tuple(_arrays.normalize_ids(p.slice(0, 3)))]
    with pytest.raises(ValueError, match="mix integers and strings"):
        scores(mixed)


@pytest.mark.parametrize("seed", range(5))
def test_take_chunk_by_chunk_equals_arrow_take(seed):
    rng = np.random.default_rng(seed)
    values = pa.chunked_array(
        [
            pa.array([f"v{x}" for x in rng.integers(0, 9, n)], pa.string())
            for n in (50, 0, 1, 120, 30)
        ]
    )
    rows = rng.integers(0, len(values), 12)
    idx = pa.array(rows, mask=rng.random(12) < 0.3)
    got = _arrays.take(values, idx)
    assert got.to_pylist() == values.combine_chunks().take(idx).to_pylist()
    assert _arrays.take(values, pa.array([], pa.int64())).to_pylist() == []
    with pytest.raises(IndexError):
        _arrays.take(values, pa.array([len(values)]))


def test_take_of_many_rows_and_of_one_chunk():
    values = pa.chunked_array([pa.array([1, 2, 3]), pa.array([4, 5])])
    assert _arrays.take(values, [4, 0, 2, 1, 3]).to_pylist() == [5, 1, 3, 2, 4]
    assert _arrays.take(pa.chunked_array([pa.array([7, 8])]), [1]).to_pylist() == [8]
    assert pc.sum(_arrays.take(values, pa.array([0, None]))).as_py() == 1
