"""`evaluate` and `diff` at a size where the core takes its big-data paths, against a
vectorised reference (pandas joins and group sums, test-only), at every level, per item
included.

At ~1e5 items the join is partitioned (several partitions, scattered without counting
first), cells are sorted in several blocks, the sums per actual cluster and per slice of
many values take the sorted path (per truth cluster, the runs path), and a slice column
with more than 65,535 values needs 32-bit codes: none of which the small oracle cases of
test_evaluate_oracle.py reach."""

import numpy as np
import pandas as pd
import pytest
from reference import IMPACT_METRICS, MEAN_METRICS

import clusterscore as cs

N = 120_000
GROUP_COLS = ["items", "weight", *MEAN_METRICS, "f1_of_means"]
IMPACT_GROUP_COLS = ["items", "weight", *IMPACT_METRICS, "affected_share", "affected_weight"]


def clusterings(seed: int, ids: str, labels: str):
    """Truth, actual and items tables in three row orders: power-law truth clusters; an
    actual clustering where 5% of items split off (one new cluster per source cluster) and
    5% moved to other clusters, which lacks 5% of the truth's items and has 3% of its own;
    an items table that lacks 3% of all items and has rows for items in neither."""
    rng = np.random.default_rng(seed)
    universe = N + N // 33 + 1_000
    keys = rng.choice(2**62, size=universe, replace=False).astype(np.int64) - 2**61
    sizes = np.minimum(rng.zipf(2.0, size=N), 500)  # each >= 1: N clusters hold N items
    truth_c = rng.permutation(np.repeat(np.arange(N), sizes)[:N])
    actual_c = truth_c.copy()
    split = rng.random(N) < 0.05
    actual_c[split] = truth_c[split] + N  # labels under 4 N: "dense" ones map directly
    moved = rng.random(N) < 0.05
    actual_c[moved] = truth_c[rng.integers(0, N, int(moved.sum()))]
    in_actual = rng.random(N) >= 0.05
    extra = np.arange(N, N + N // 33)  # actual-only items
    t_items = np.arange(N)
    a_items = np.concatenate([t_items[in_actual], extra])
    a_clusters = np.concatenate([actual_c[in_actual], rng.integers(0, N, len(extra))])
    if labels == "sparse":  # random 64-bit labels: interned through the hash table
        label_of = rng.choice(2**62, size=2 * N, replace=False).astype(np.int64)
        truth_c, a_clusters = label_of[truth_c], label_of[a_clusters]

    def item_ids(index):
        return [f"item-{keys[i]}" for i in index] if ids == "str" else keys[index]

    order_t, order_a = rng.permutation(len(t_items)), rng.permutation(len(a_items))
    truth = pd.DataFrame({"item_id": item_ids(t_items[order_t]), "cluster_id": truth_c[order_t]})
    actual = pd.DataFrame(
        {"item_id": item_ids(a_items[order_a]), "cluster_id": a_clusters[order_a]}
    )
    rows = rng.permutation(np.flatnonzero(rng.random(universe) >= 0.03))
    country = rng.choice(np.array(["US", "DE", "FR", "JP", "BR"], dtype=object), len(rows))
    country[rng.random(len(rows)) < 0.01] = None
    items = pd.DataFrame(
        {
            "item_id": item_ids(rows),
            "weight": rng.uniform(0.5, 2.0, len(rows)),
            "country": country,
            "shard": rng.integers(0, 200_000, len(rows)),  # ~90,000 values: 32-bit codes
        }
    )
    return truth, actual, items


def joined(truth: pd.DataFrame, actual: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The common items in the truth's row order, with their clusters (cluster_id_t,
    cluster_id_a), weight (1 without an items-table row) and slice values (null without)."""
    t = truth.merge(actual, on="item_id", suffixes=("_t", "_a"))  # keeps truth's order
    t = t.merge(items, on="item_id", how="left")
    t["weight"] = t["weight"].fillna(1.0)
    return t


def reference(truth: pd.DataFrame, actual: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """joined(), with each item's tp, fp, fn, tn and pointwise metrics (docs/metrics.md)."""
    t = joined(truth, actual, items)
    w = t["weight"]
    tp = w.groupby([t["cluster_id_t"], t["cluster_id_a"]]).transform("sum")
    fp = w.groupby(t["cluster_id_a"]).transform("sum") - tp
    fn = w.groupby(t["cluster_id_t"]).transform("sum") - tp
    tn = w.sum() - tp - fp - fn
    t = t.assign(tp=tp, fp=fp, fn=fn, tn=tn)
    return t.assign(
        precision=tp / (tp + fp),
        recall=tp / (tp + fn),
        f1=2 * tp / (2 * tp + fp + fn),
        accuracy=(tp + tn) / w.sum(),
        jaccard_index=tp / (tp + fp + fn),
        jaccard_distance=(fp + fn) / (tp + fp + fn),
        over_merge_rate=fp / (tp + fp),
        under_merge_rate=fn / (tp + fn),
    )


def impact_reference(base: pd.DataFrame, exp: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """joined(), with each item's B, E, X, U and impact metrics (docs/metrics.md, diff). An item is
    affected if its cell is not its whole Base or Exp cluster (counted, not weighed)."""
    t = joined(base, exp, items)
    w, cb, ce = t["weight"], t["cluster_id_t"], t["cluster_id_a"]
    x, b, e = (w.groupby(k).transform("sum") for k in ([cb, ce], cb, ce))
    nx, nb, ne = (w.groupby(k).transform("size") for k in ([cb, ce], cb, ce))
    bx, ex = (b - x).where(nx < nb, 0.0), (e - x).where(nx < ne, 0.0)
    u = x + bx + ex
    return t.assign(
        B=b,
        E=e,
        X=x,
        U=u,
        split_distance=bx / u,
        merge_distance=ex / u,
        jaccard_distance=(bx + ex) / u,
        jaccard_index=x / u,
        split_rate=bx / b,
        merge_rate=ex / e,
        affected=(nx < nb) | (nx < ne),
    )


def labels(values: pd.Series) -> pd.Series:
    """Group values as comparable strings: numbers as floats (pandas makes an integer
    column with nulls float), null as "<null>"."""
    return values.map(
        lambda v: "<null>" if pd.isna(v) else v if isinstance(v, str) else repr(float(v))
    )


def group_means(ref: pd.DataFrame, key: str) -> pd.DataFrame:
    """Per value of `key` (null its own value): items, weight, the weighted means of
    the pointwise metrics and f1_of_means, or (if `ref` has them) of the impact metrics
    with affected_share and affected_weight."""
    impact = "affected" in ref
    metrics = IMPACT_METRICS + ["affected"] if impact else MEAN_METRICS
    g = ref.assign(key=labels(ref[key]), affected=ref.get("affected", False))
    weighted = g[metrics].astype(float).mul(g["weight"], axis=0)
    sums = weighted.assign(weight=g["weight"], key=g["key"]).groupby("key").sum()
    out = sums[metrics].div(sums["weight"], axis=0)
    out["items"] = g.groupby("key").size()
    out["weight"] = sums["weight"]
    if impact:
        out = out.rename(columns={"affected": "affected_share"})
        out["affected_weight"] = sums["affected"]
    else:
        p, r = out["precision"], out["recall"]
        out["f1_of_means"] = 2 * p * r / (p + r)
    return out


def assert_groups(got: pd.DataFrame, key: str, want: pd.DataFrame):
    got = got.assign(key=labels(got[key]))
    got = got.set_index("key").sort_index()
    want = want.sort_index()
    assert list(got.index) == list(want.index)
    cols = IMPACT_GROUP_COLS if "affected_share" in want else GROUP_COLS
    for c in cols:
        got_c, want_c = got[c].to_numpy(float), want[c].to_numpy(float)
        np.testing.assert_allclose(got_c, want_c, rtol=1e-9, atol=1e-12, err_msg=c)


CASES = [("int", "dense"), ("int", "sparse"), ("str", "dense")]


@pytest.fixture(scope="module", params=CASES, ids=["-".join(c) for c in CASES])
def case(request):
    truth, actual, items = clusterings(7, *request.param)
    return cs.evaluate(truth, actual, items), reference(truth, actual, items), truth, actual, items


def test_per_item(case):
    res, ref = case[:2]
    got = res.per_item()
    assert got["item_id"].tolist() == ref["item_id"].tolist()
    assert (got["truth_cluster"].to_numpy() == ref["cluster_id_t"].to_numpy()).all()
    assert (got["actual_cluster"].to_numpy() == ref["cluster_id_a"].to_numpy()).all()
    for c in ["weight", "tp", "fp", "fn", "tn", *MEAN_METRICS]:
        np.testing.assert_allclose(got[c].to_numpy(), ref[c].to_numpy(), rtol=1e-9, err_msg=c)


def test_overall_and_per_cluster(case):
    res, ref = case[:2]
    overall = group_means(ref.assign(all=0), "all").iloc[0]
    for c in [*MEAN_METRICS, "f1_of_means"]:
        assert res.overall[c] == pytest.approx(overall[c], rel=1e-9), c
    assert_groups(res.per_cluster("truth"), "cluster_id", group_means(ref, "cluster_id_t"))
    assert_groups(res.per_cluster("actual"), "cluster_id", group_means(ref, "cluster_id_a"))


@pytest.mark.parametrize("column", ["country", "shard"])
def test_per_slice(case, column):
    res, ref = case[:2]
    assert_groups(res.per_slice(column), column, group_means(ref, column))


def test_coverage(case):
    res, ref, truth, actual, items = case
    cov = res.coverage
    assert cov["common_items"] == len(ref)
    assert cov["truth_only_items"] == len(truth) - len(ref)
    assert cov["actual_only_items"] == len(actual) - len(ref)
    assert cov["common_weight"] == pytest.approx(ref["weight"].sum(), rel=1e-12)
    assert cov["truth_clusters"] == truth["cluster_id"].nunique()
    assert cov["truth_clusters_common"] == ref["cluster_id_t"].nunique()
    assert cov["actual_clusters_common"] == ref["cluster_id_a"].nunique()
    ids = items["item_id"]
    in_neither = ~ids.isin(truth["item_id"]) & ~ids.isin(actual["item_id"])
    assert cov["items_table_unmatched"] == in_neither.sum() > 0


@pytest.fixture(scope="module", params=CASES, ids=["-".join(c) for c in CASES])
def diff_case(request):
    base, exp, items = clusterings(8, *request.param)
    return cs.diff(base, exp, items), impact_reference(base, exp, items)


def test_diff_per_item(diff_case):
    res, ref = diff_case
    got = res.per_item()
    assert got["item_id"].tolist() == ref["item_id"].tolist()
    assert (got["base_cluster"].to_numpy() == ref["cluster_id_t"].to_numpy()).all()
    assert (got["exp_cluster"].to_numpy() == ref["cluster_id_a"].to_numpy()).all()
    assert (got["affected"].to_numpy() == ref["affected"].to_numpy()).all()
    for c in ["weight", "B", "E", "X", "U", *IMPACT_METRICS]:
        got_c, want_c = got[c].to_numpy(), ref[c].to_numpy()
        np.testing.assert_allclose(got_c, want_c, rtol=1e-9, atol=1e-12, err_msg=c)


def test_diff_every_level(diff_case):
    res, ref = diff_case
    overall = group_means(ref.assign(all=0), "all").iloc[0]
    for c in IMPACT_METRICS:
        assert res.overall[c] == pytest.approx(overall[c], rel=1e-9, abs=1e-12), c
    assert res.overall["affected_weight"] == pytest.approx(overall["affected_weight"], rel=1e-9)
    assert res.overall["affected_items"] == ref["affected"].sum()
    assert_groups(res.per_cluster("base"), "cluster_id", group_means(ref, "cluster_id_t"))
    assert_groups(res.per_cluster("exp"), "cluster_id", group_means(ref, "cluster_id_a"))
    for column in ("country", "shard"):
        assert_groups(res.per_slice(column), column, group_means(ref, column))
