"""docs/metrics.md properties on random inputs."""

import numpy as np
import pandas as pd
import pytest
from conftest import SHAPES, random_clustering
from reference import MEAN_METRICS

import clusterscore as cs

METRICS = [*MEAN_METRICS, "f1_of_means"]


def case(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(2, 80))
    items = list(range(n))
    a = random_clustering(rng, items, SHAPES[seed % 4])
    b = random_clustering(rng, items, SHAPES[(seed // 4) % 4])
    w = rng.uniform(0.1, 5.0, n)
    return rng, items, a, b, w


def table(items, w):
    return pd.DataFrame({"item_id": items, "weight": w})


@pytest.mark.parametrize("seed", range(24))
def test_weight_scaling_changes_nothing(seed):
    _, items, a, b, w = case(seed)
    base = cs.evaluate(a, b, table(items, w)).overall
    scaled = cs.evaluate(a, b, table(items, w * 37.5)).overall
    for m in METRICS:
        assert scaled[m] == pytest.approx(base[m], rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("seed", range(24))
def test_subdividing_an_item_changes_no_overall_metric(seed):
    rng, items, a, b, w = case(seed)
    base = cs.evaluate(a, b, table(items, w)).overall
    # split every item into k copies in the same cells sharing its weight
    a2, b2, items2, w2 = {}, {}, [], []
    for i, wi in zip(items, w, strict=True):
        k = int(rng.integers(1, 4))
        parts = rng.dirichlet(np.ones(k)) * wi
        for j in range(k):
            key = f"{i}/{j}"
            a2[key], b2[key] = a[i], b[i]
            items2.append(key)
            w2.append(parts[j])
    sub = cs.evaluate(a2, b2, table(items2, np.array(w2))).overall
    for m in METRICS:
        assert sub[m] == pytest.approx(base[m], rel=1e-9, abs=1e-12), m


@pytest.mark.parametrize("seed", range(24))
def test_swapping_truth_and_actual_swaps_precision_and_recall(seed):
    _, items, a, b, w = case(seed)
    ab = cs.evaluate(a, b, table(items, w)).overall
    ba = cs.evaluate(b, a, table(items, w)).overall
    assert ba["precision"] == pytest.approx(ab["recall"], rel=1e-12)
    assert ba["recall"] == pytest.approx(ab["precision"], rel=1e-12)
    assert ba["jaccard_distance"] == pytest.approx(ab["jaccard_distance"], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(40))
def test_jaccard_distance_is_a_metric(seed):
    rng, items, a, b, w = case(seed)
    c = random_clustering(rng, items, SHAPES[seed % 4])
    t = table(items, w)

    def d(x, y):
        return cs.evaluate(x, y, t).overall["jaccard_distance"]

    assert d(a, a) == 0.0
    assert d(a, b) == pytest.approx(d(b, a), abs=1e-15)
    assert d(a, c) <= d(a, b) + d(b, c) + 1e-12


@pytest.mark.parametrize("seed", range(12))
def test_bounds(seed):
    _, items, a, b, w = case(seed)
    res = cs.evaluate(a, b, table(items, w))
    for df in (res.per_item(), res.per_cluster("truth"), res.per_cluster("actual")):
        for m in ["precision", "recall", "f1", "accuracy", "jaccard_index"]:
            assert ((df[m] > 0) & (df[m] <= 1 + 1e-15)).all(), m


@pytest.mark.parametrize("scope", ["common", "entities"])
def test_intervals_do_not_depend_on_row_order(scope):
    """The bootstrap draws truth clusters in the order of their ids: shuffling the truth's
    rows (which renumbers its clusters) gives the same resamples, so the same intervals
    and deltas, for a seed."""
    rng = np.random.default_rng(7)
    ids = [f"i{k}" for k in range(600)]
    truth = pd.DataFrame({"item_id": ids, "cluster_id": rng.integers(0, 120, 600)})
    runs = {f"r{k}": pd.DataFrame({"item_id": ids, "cluster_id": rng.integers(0, 150, 600)})
            for k in range(2)}  # fmt: skip
    shuffled = truth.sample(frac=1, random_state=3)
    assert list(shuffled["cluster_id"].drop_duplicates()) != list(truth["cluster_id"].unique())
    opts = dict(truth_scope=scope, resamples=80, seed=5)
    a = cs.evaluate(truth, runs["r0"], **opts).intervals()
    b = cs.evaluate(shuffled, runs["r0"], **opts).intervals()
    np.testing.assert_allclose(a["std_error"], b["std_error"], rtol=1e-12)
    np.testing.assert_allclose(a["ci_low"], b["ci_low"], rtol=1e-12)
    da = cs.compare(truth, runs, **opts).deltas()
    db = cs.compare(shuffled, runs, **opts).deltas()
    np.testing.assert_allclose(da["std_error"], db["std_error"], rtol=1e-12)


def test_a_cluster_order_must_be_a_permutation():
    from clusterscore import _core

    e = cs.evaluate({"a": 1, "b": 1, "c": 2}, {"a": "x", "b": "y", "c": "y"})
    sums = [_core.run_sums(e.core, None)]
    assert sorted(e.cluster_rank) == [0, 1]
    for bad in ([0, 0], [0], [0, 2], [1, 0, 2]):
        with pytest.raises(ValueError, match="cluster_rank must be a permutation"):
            _core.paired_bootstrap(sums, 10, 0, 0.95, np.array(bad, dtype=np.uint32))


def test_each_slice_is_grouped_once_for_its_table_and_its_intervals(monkeypatch):
    """The command line's order, several slices' intervals prepared together and then each
    slice's table: each slice grouped once, and the same values as a fresh evaluation's."""
    from clusterscore import _core

    rng = np.random.default_rng(7)
    n = 400
    truth = pd.DataFrame({"item_id": range(n), "cluster_id": rng.integers(0, 60, n)})
    actual = pd.DataFrame({"item_id": range(n), "cluster_id": rng.integers(0, 50, n)})
    items = pd.DataFrame({"item_id": range(n), "a": rng.integers(0, 3, n).astype(str),
                          "b": rng.integers(0, 4, n).astype(str)})  # fmt: skip
    fresh = cs.evaluate(truth, actual, items, resamples=50, seed=1)
    want = {s: (fresh.per_slice_table(s), fresh.intervals_table(s)) for s in ("a", "b")}
    calls = []
    group_items = _core.Comparison.group_items
    monkeypatch.setattr(_core.Comparison, "group_items",
                        lambda self, *a: calls.append(a) or group_items(self, *a))  # fmt: skip
    ev = cs.evaluate(truth, actual, items, resamples=50, seed=1)
    ev.prepare_intervals([None, "a", "b"])
    tables = {s: ev.per_slice_table(s) for s in ("a", "b")}
    assert len(calls) == 2
    for s in ("a", "b"):
        assert tables[s].equals(want[s][0]) and ev.intervals_table(s).equals(want[s][1])
