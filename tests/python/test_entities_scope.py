"""The entities scope (docs/metrics.md, truth scope), the pair metrics (docs/metrics.md) and
design weights: against a padded truth, brute-force oracles and hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import clusterscore as cs
from clusterscore import metrics as M

MEANS = ["precision", "recall", "f1", "accuracy", "jaccard_index", "jaccard_distance",
         "over_merge_rate", "under_merge_rate"]  # fmt: skip
PAIRS = ["pair_precision", "pair_recall", "pair_f1"]


def _random(seed: int):
    """Truth, actual and items tables with weights and a slice; items missing on either
    side, and actual items outside the truth sharing clusters with truth items."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 300))
    ids = np.arange(n)
    entity = rng.integers(0, max(2, n // 4), n)
    in_truth = rng.random(n) < rng.uniform(0.2, 0.9)
    in_actual = rng.random(n) < 0.95
    actual = np.where(rng.random(n) < 0.3, rng.integers(0, n // 3 + 1, n), entity + 10_000)
    truth = pd.DataFrame({"item_id": ids[in_truth], "cluster_id": entity[in_truth]})
    act = pd.DataFrame({"item_id": ids[in_actual], "cluster_id": actual[in_actual]})
    listed = rng.random(n) < 0.9  # some items take the default weight 1
    items = pd.DataFrame(
        {
            "item_id": ids[listed],
            "weight": rng.uniform(0.1, 5, n)[listed],
            "country": rng.choice(["US", "DE", "FR", "JP"], n)[listed],
        }
    )
    return truth, act, items


def _padded(truth: pd.DataFrame, actual: pd.DataFrame) -> pd.DataFrame:
    """The truth plus every actual item outside it as an entity of its own."""
    outside = actual[~actual.item_id.isin(truth.item_id)].item_id
    pad = pd.DataFrame({"item_id": outside, "cluster_id": -1 - outside.to_numpy()})
    return pd.concat([truth, pad], ignore_index=True)


def _means(items: pd.DataFrame, by: str | None) -> pd.DataFrame:
    """Weighted means of the per-item metrics and the pair metrics, per `by` value."""
    df = items.assign(_g=0 if by is None else items[by].fillna("<none>"))
    w = df.weight
    cols = {m: (w * df[m]).groupby(df._g).sum() / w.groupby(df._g).sum() for m in MEANS}
    together = (w * (df.tp - w)).groupby(df._g).sum()
    actual = (w * (df.tp + df.fp - w)).groupby(df._g).sum()
    truth = (w * (df.tp + df.fn - w)).groupby(df._g).sum()
    cols["pair_precision"] = together / actual.where(actual > 0)
    cols["pair_recall"] = together / truth.where(truth > 0)
    cols["pair_f1"] = 2 * together / (actual + truth).where((actual > 0) & (truth > 0))
    return pd.DataFrame(cols)


def _close(got: pd.DataFrame, want: pd.DataFrame) -> None:
    got, want = got.sort_index(), want.sort_index()
    assert list(got.index) == list(want.index)
    for m in [*MEANS, *PAIRS]:
        a, b = got[m].to_numpy(float), want[m].to_numpy(float)
        assert np.array_equal(np.isnan(a), np.isnan(b)), m
        ok = ~np.isnan(a)
        np.testing.assert_allclose(a[ok], b[ok], rtol=1e-12, atol=1e-12, err_msg=m)


@pytest.mark.parametrize("seed", range(12))
def test_entities_scope_is_the_common_scope_against_a_padded_truth(seed):
    truth, actual, items = _random(seed)
    ent = cs.evaluate(truth, actual, items, truth_scope="entities")
    pad = cs.evaluate(_padded(truth, actual), actual, items)
    # Read over the truth's items only.
    per_item = pad.per_item()
    per_item = per_item[per_item.item_id.isin(truth.item_id)].reset_index(drop=True)
    mine = ent.per_item()
    pd.testing.assert_frame_equal(
        mine.drop(columns="truth_cluster"), per_item.drop(columns="truth_cluster"),
        check_dtype=False, rtol=1e-12, atol=1e-12,
    )  # fmt: skip
    country = per_item.merge(items[["item_id", "country"]], on="item_id", how="left")
    _close(pd.DataFrame([ent.overall]), _means(per_item, None).reset_index(drop=True))
    _close(ent.per_cluster("truth").set_index("cluster_id"), _means(per_item, "truth_cluster"))
    _close(ent.per_cluster("actual").set_index("cluster_id"), _means(per_item, "actual_cluster"))
    got = ent.per_slice("country").fillna({"country": "<none>"}).set_index("country")
    _close(got, _means(country, "country"))


@pytest.mark.parametrize("seed", range(6))
def test_common_scope_is_unchanged_and_its_pair_metrics_are_the_weighted_pair_scores(seed):
    truth, actual, items = _random(seed)
    ev = cs.evaluate(truth, actual, items)
    per_item = ev.per_item()
    _close(pd.DataFrame([ev.overall]), _means(per_item, None).reset_index(drop=True))
    w = per_item.weight.to_numpy()
    t, a = per_item.truth_cluster.to_numpy(), per_item.actual_cluster.to_numpy()
    for name, fn in (("pair_precision", M.pair_precision_score),
                     ("pair_recall", M.pair_recall_score)):  # fmt: skip
        want = fn(t, a, sample_weight=w)
        got = ev.overall[name]
        assert (got is None) == (want is None), name
        if want is not None:
            assert got == pytest.approx(want, rel=1e-12), name


def test_entities_scope_on_a_hand_example():
    # docs/metrics.md's worked example, weights 1, 2, 3, plus j1 (weight 1) in i1's actual
    # cluster and j2 (weight 1) with i2: the whole actual clusters weigh 5 ({i1, i3, j1})
    # and 3 ({i2, j2}).
    truth = {"i1": "a", "i2": "a", "i3": "b"}
    actual = {"i1": "x", "i3": "x", "j1": "x", "i2": "y", "j2": "y"}
    items = pd.DataFrame({"item_id": ["i1", "i2", "i3", "j1", "j2"], "weight": [1, 2, 3, 1, 1]})
    ev = cs.evaluate(truth, actual, items, truth_scope="entities")
    o = ev.overall
    assert o["precision"] == pytest.approx((1 * 1 / 5 + 2 * 2 / 3 + 3 * 3 / 5) / 6, rel=1e-14)
    assert o["recall"] == pytest.approx(7 / 9, rel=1e-14)  # recall does not change
    # Pairs: no item shares its actual cluster with another of its truth cluster.
    assert o["pair_precision"] == 0 and o["pair_recall"] == 0 and o["pair_f1"] == 0
    # tn counts against w(S') = 8.
    row = ev.per_item().set_index("item_id").loc["i2"]
    assert (row.tp, row.fp, row.fn, row.tn) == (2, 1, 1, 4)
    common = cs.evaluate(truth, actual, items).overall
    assert common["precision"] == pytest.approx(3 / 4) and o["precision"] < common["precision"]


def test_pair_metrics_without_pairs_are_null():
    ev = cs.evaluate({1: 1, 2: 2}, {1: 1, 2: 2})
    assert ev.overall["pair_precision"] is None and ev.overall["pair_f1"] is None
    assert ev.per_cluster("truth").pair_recall.isna().all()
    iv = ev.intervals().set_index("metric")
    assert iv.loc["pair_precision"].isna().all()


def _design_oracle(ev: cs.Evaluation, d: dict) -> dict:
    df = ev.per_item()
    dw = df.truth_cluster.map(d) * df.weight
    out = {m: (dw * df[m]).sum() / dw.sum() for m in MEANS}
    together = (dw * (df.tp - df.weight)).sum()
    out["pair_precision"] = together / (dw * (df.tp + df.fp - df.weight)).sum()
    out["pair_recall"] = together / (dw * (df.tp + df.fn - df.weight)).sum()
    return out


@pytest.mark.parametrize("seed", range(4))
def test_design_weights_weight_each_truth_clusters_items(seed):
    truth, actual, items = _random(seed)
    sizes = truth.cluster_id.value_counts()
    inv = cs.evaluate(truth, actual, items, truth_scope="entities", cluster_weights="inverse_size")
    given = {c: 1 / n for c, n in sizes.items()}
    mapped = cs.evaluate(truth, actual, items, truth_scope="entities", cluster_weights=given)
    table = pd.DataFrame({"cluster_id": list(given), "weight": list(given.values())})
    tabled = cs.evaluate(truth, actual, items, truth_scope="entities", cluster_weights=table)
    want = _design_oracle(inv, given)
    for ev in (inv, mapped, tabled):
        for m, v in want.items():
            assert ev.overall[m] == pytest.approx(v, rel=1e-12), m
    assert inv.cluster_weights == "inverse_size" and mapped.cluster_weights == "given"
    # The items' own weight stays what the tables report.
    plain = cs.evaluate(truth, actual, items, truth_scope="entities")
    pd.testing.assert_series_equal(
        inv.per_slice("country").weight, plain.per_slice("country").weight
    )
    # Per truth cluster the design weight is one constant: nothing changes.
    a = inv.per_cluster("truth").precision.to_numpy()
    np.testing.assert_allclose(a, plain.per_cluster("truth").precision.to_numpy(), rtol=1e-13)
    # The estimates of intervals() are the overall values.
    iv = inv.intervals().set_index("metric").estimate
    for m, v in inv.overall.items():
        assert iv[m] == pytest.approx(v, rel=1e-12), m


def test_intervals_by_slice_and_their_columns():
    truth, actual, items = _random(3)
    ev = cs.evaluate(truth, actual, items, truth_scope="entities", resamples=200, seed=4)
    iv = ev.intervals("country")
    assert list(iv.columns) == [
        "metric",
        "country",
        "estimate",
        "std_error",
        "ci_low",
        "ci_high",
        "interval_note",
    ]
    want = ev.per_slice("country").set_index("country")
    for row in iv.itertuples():
        if pd.isna(row.estimate):
            continue
        assert row.estimate == pytest.approx(want.loc[row.country, row.metric], rel=1e-12)
        assert row.ci_low <= row.estimate + 1e-12 and row.estimate - 1e-12 <= row.ci_high
    again = cs.evaluate(truth, actual, items, truth_scope="entities", resamples=200, seed=4)
    pd.testing.assert_frame_equal(iv, again.intervals("country"))
    assert ev.clusters_resampled == truth[truth.item_id.isin(actual.item_id)].cluster_id.nunique()


def test_compare_in_the_entities_scope_pairs_the_runs_estimates():
    truth, actual, items = _random(5)
    other = actual.assign(cluster_id=actual.cluster_id.where(actual.item_id % 7 != 0, -5))
    c = cs.compare(truth, {"a": actual, "b": other}, items, truth_scope="entities",
                   resamples=100, cluster_weights="inverse_size")  # fmt: skip
    d = c.deltas().set_index("metric")
    for name, run in (("a", actual), ("b", other)):
        ev = cs.evaluate(truth, run, items, truth_scope="entities", cluster_weights="inverse_size")
        col = "value_a" if name == "a" else "value_b"
        for m, v in ev.overall.items():
            if v is not None:
                assert d.loc[m, col] == pytest.approx(v, rel=1e-12), m
    assert "entities" in c.estimand and "inverse_size" in c.estimand
