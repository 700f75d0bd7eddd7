"""A comparison of units (items grouped by another engine, with count, Σw and Σw²) equals
the comparison of the items they stand for, at every level, in both scopes and families."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from units_oracle import random_items, units_of

import clusterscore as cs
from clusterscore._diff import Diff
from clusterscore._evaluate import Evaluation
from clusterscore._sample import sample_from_diff

SLICES = ["region", "source"]


def assert_same(a: pd.DataFrame, b: pd.DataFrame, keys: list[str]) -> None:
    a = a.sort_values(keys, na_position="last").reset_index(drop=True)
    b = b.sort_values(keys, na_position="last").reset_index(drop=True)
    assert list(a.columns) == list(b.columns)
    assert len(a) == len(b)
    for c in a.columns:
        # keys; text (no interval: why), which pandas 2 holds as objects beside its nulls
        if c in keys or pd.api.types.is_string_dtype(a[c]) or a[c].dtype == object:
            assert a[c].astype(str).tolist() == b[c].astype(str).tolist(), c
        else:
            np.testing.assert_allclose(
                a[c].astype(float), b[c].astype(float), rtol=1e-12, atol=1e-14, err_msg=c
            )


def assert_same_dict(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if a[k] is None:
            assert b[k] is None, k
        else:
            assert b[k] == pytest.approx(a[k], rel=1e-12, abs=1e-14), k


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("scope", ["common", "entities"])
@pytest.mark.parametrize("weights", [True, False])
def test_evaluation_of_units_equals_items(seed: int, scope: str, weights: bool) -> None:
    d = random_items(seed, weights=weights)
    design = "inverse_size" if scope == "entities" else None
    opts = dict(truth_scope=scope, cluster_weights=design, resamples=60, seed=seed)
    items = cs.evaluate(d["truth"], d["exp"], d["items"], **opts)
    a, (b,), units = units_of(d["truth"], [d["exp"]], d["items"], SLICES)
    got = Evaluation(a, b, units, **opts)
    assert got.coverage.keys() == items.coverage.keys()
    for k, v in items.coverage.items():
        if k not in ("items_table_rows", "items_table_unmatched"):  # rows of units, there
            assert got.coverage[k] == pytest.approx(v, rel=1e-12), k
    assert_same_dict(items.overall, got.overall)
    assert_same_dict(items.classic, got.classic)
    for side in ("truth", "actual"):
        assert_same(items.per_cluster(side), got.per_cluster(side), ["cluster_id"])
    for by in (["region"], ["source"], SLICES):
        assert_same(items.per_slice(by), got.per_slice(by), by)
    # The same resamples of the same truth clusters: the same intervals.
    assert_same(items.intervals(), got.intervals(), ["metric"])
    assert_same(items.intervals("region"), got.intervals("region"), ["metric", "region"])


@pytest.mark.parametrize("seed", [4, 5])
def test_compare_of_units_equals_items(seed: int) -> None:
    d = random_items(seed)
    runs = {"base": d["base"], "exp": d["exp"]}
    items = cs.compare(d["truth"], runs, d["items"], resamples=50, seed=seed)
    a, bs, units = units_of(d["truth"], list(runs.values()), d["items"], SLICES)
    evals = {
        n: Evaluation(a, b, units, resamples=50, seed=seed) for n, b in zip(runs, bs, strict=True)
    }
    got = cs.compare(d["truth"], runs, d["items"], resamples=50, seed=seed)
    got.evaluations = evals
    got._deltas.clear()
    assert_same(items.deltas(), got.deltas(), ["run_a", "run_b", "metric"])
    keys = ["run_a", "run_b", "region", "metric"]
    assert_same(items.deltas("region"), got.deltas("region"), keys)


@pytest.mark.parametrize("seed", [6, 7])
def test_diff_of_units_equals_items(seed: int) -> None:
    d = random_items(seed)
    items = cs.diff(d["base"], d["exp"], d["items"])
    a, (b,), units = units_of(d["base"], [d["exp"]], d["items"], SLICES)
    got = Diff(a, b, units)
    assert_same_dict(items.overall, got.overall)
    assert_same_dict(items.sample_totals, got.sample_totals)  # self pairs: Σw² per unit
    for side in ("base", "exp"):
        assert_same(items.per_cluster(side), got.per_cluster(side), ["cluster_id"])
    assert_same(items.per_slice("region"), got.per_slice("region"), ["region"])
    flows_i, flows_u = items.flows(), got.flows()
    assert_same(flows_i, flows_u, ["base_cluster", "exp_cluster"])


def test_units_are_not_sampled() -> None:
    d = random_items(8)
    a, (b,), units = units_of(d["base"], [d["exp"]], d["items"], SLICES)
    with pytest.raises(ValueError, match="sampled from items, not from units"):
        sample_from_diff(Diff(a, b, units), 100, 0)


def test_a_unit_of_no_item_is_refused() -> None:
    d = random_items(9)
    a, (b,), units = units_of(d["truth"], [d["exp"]], d["items"], SLICES)
    t = units.table
    bad = t.set_column(t.column_names.index("count"), "count", [np.zeros(len(t), np.int64)])
    with pytest.raises(ValueError, match=r"items row 1: unit 0 holds no item \(count 0\)"):
        Evaluation(a, b, type(units)(bad))


@pytest.mark.parametrize("seed", [12, 13])
def test_units_of_whole_cells(seed: int) -> None:
    """Without slices a unit is a whole cell: many items each, where Σw² ≠ (Σw)² matters."""
    d = random_items(seed, n=2000)
    rng = np.random.default_rng(seed)
    # Exp and the actual clustering: the truth with a tenth of its items moved at random.
    exp = d["truth"].assign(cluster_id=[f"c{c}" for c in d["truth"]["cluster_id"]])
    moved = rng.random(len(exp)) < 0.1
    exp.loc[moved, "cluster_id"] = [f"c{c}" for c in rng.integers(0, 300, moved.sum())]
    d["base"], d["exp"] = d["truth"], exp
    items = d["items"][["item_id", "weight"]]
    a, (b,), units = units_of(d["base"], [d["exp"]], items, [])
    assert max(units.table.column("count").to_pylist()) >= 5
    want, got = cs.diff(d["base"], d["exp"], items), Diff(a, b, units)
    assert_same_dict(want.overall, got.overall)
    assert_same_dict(want.sample_totals, got.sample_totals)
    truth = cs.evaluate(d["truth"], d["exp"], items, resamples=30)
    a, (b,), units = units_of(d["truth"], [d["exp"]], items, [])
    e = Evaluation(a, b, units, resamples=30)
    assert_same_dict(truth.overall, e.overall)
    assert_same(truth.per_cluster("truth"), e.per_cluster("truth"), ["cluster_id"])
    assert_same(truth.intervals(), e.intervals(), ["metric"])


def test_pick_by_weight() -> None:
    """The rule the sampler's positions follow: the first member whose running weight
    exceeds at × the group's weight."""
    from clusterscore import _core

    groups = np.array([0, 0, 0, 2, 2], np.uint32)
    weights = np.array([1.0, 2.0, 1.0, 3.0, 1.0])
    draws = np.array([0, 0, 0, 0, 2, 2], np.uint32)
    at = np.array([0.0, 0.2499, 0.25, 0.99999, 0.74, 0.76])
    assert _core.pick_by_weight(groups, weights, draws, at).tolist() == [0, 0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="a draw into a group of no item"):
        _core.pick_by_weight(groups, weights, np.array([1], np.uint32), np.array([0.5]))
    with pytest.raises(ValueError, match="arrays differ in length"):
        _core.pick_by_weight(groups, weights[:2], draws, at)


def test_fingerprints_combine_over_parts() -> None:
    from clusterscore import _arrays, _core

    rng = np.random.default_rng(3)
    items = pa.array(rng.integers(0, 10**9, 1000))
    clusters = pa.array(rng.integers(0, 50, 1000))
    weights = rng.random(1000)

    def fp(lo: int, hi: int) -> int:
        return _core.fingerprint(_arrays.id_tuple(items[lo:hi]), _arrays.id_tuple(clusters[lo:hi]))

    def items_fp(lo: int, hi: int) -> int:
        return _core.items_fingerprint(_arrays.id_tuple(items[lo:hi]), weights[lo:hi].copy())

    cuts = [0, 1, 1, 400, 999, 1000]  # an empty part too
    parts = list(zip(cuts, cuts[1:], strict=False))
    rows = [hi - lo for lo, hi in parts]
    assert _core.combine_fingerprints([fp(*p) for p in parts], rows, False) == fp(0, 1000)
    assert _core.combine_fingerprints([items_fp(*p) for p in parts], rows, True) == items_fp(
        0, 1000
    )
    with pytest.raises(ValueError, match="one row count per fingerprint"):
        _core.combine_fingerprints([1, 2], [3], False)
