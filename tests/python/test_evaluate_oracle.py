"""The fast path against the brute-force reference (set operations per item) on seeded
random weighted clusterings of many shapes, at every level, per item included."""

import numpy as np
import pandas as pd
import pytest
from conftest import SHAPES, random_clustering
from reference import MEAN_METRICS, groups_of, mean_over, pointwise_items

import clusterscore as cs

ITEM_COLS = ["tp", "fp", "fn", "tn", *MEAN_METRICS]
GROUP_COLS = [*MEAN_METRICS, "f1_of_means", "items", "weight"]


def make_case(seed: int, shape_t: str, shape_a: str):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    universe = [f"x{i}" for i in range(n + 10)]
    truth_items = [i for i in universe if rng.random() < 0.85] or universe[:1]
    actual_items = [i for i in universe if rng.random() < 0.85]
    actual_items = sorted(set(actual_items) | {truth_items[0]}, key=universe.index)
    rng.shuffle(actual_items)
    truth = random_clustering(rng, truth_items, shape_t)
    actual = random_clustering(rng, actual_items, shape_a)
    w = {i: float(rng.choice([1.0, rng.uniform(0.1, 10.0)])) for i in universe}
    country = {i: str(rng.choice(["a", "b", "c"])) for i in universe}
    items = pd.DataFrame(
        {
            "item_id": universe,
            "weight": [w[i] for i in universe],
            "country": [country[i] for i in universe],
        }
    )
    return truth, actual, w, country, items


CASES = [(s, st, sa) for s in range(12) for st in SHAPES for sa in SHAPES]


def assert_rows(got: pd.Series, want: dict, cols):
    for c in cols:
        assert got[c] == pytest.approx(want[c], rel=1e-12, abs=1e-12), c


@pytest.mark.parametrize(("seed", "shape_t", "shape_a"), CASES)
def test_matches_reference(seed, shape_t, shape_a):
    truth, actual, w, country, items = make_case(seed, shape_t, shape_a)
    res = cs.evaluate(truth, actual, items)
    ref = pointwise_items(truth, actual, w)

    per_item = res.per_item().set_index("item_id")
    assert list(per_item.index) == [i for i in truth if i in actual]  # truth order
    for i, want in ref.items():
        assert_rows(per_item.loc[i], want, ITEM_COLS)
        assert per_item.loc[i, "truth_cluster"] == truth[i]
        assert per_item.loc[i, "actual_cluster"] == actual[i]

    assert_rows(pd.Series(res.overall), mean_over(ref, w, ref), MEAN_METRICS + ["f1_of_means"])
    for side, mapping in (("truth", truth), ("actual", actual)):
        df = res.per_cluster(side).set_index("cluster_id")
        groups = groups_of(mapping, ref)
        assert set(df.index) == set(groups)
        for cluster, members in groups.items():
            assert_rows(df.loc[cluster], mean_over(ref, w, members), GROUP_COLS)
    df = res.per_slice("country").set_index("country")
    groups = groups_of(country, ref)
    assert set(df.index) == set(groups)
    for value, members in groups.items():
        assert_rows(df.loc[value], mean_over(ref, w, members), GROUP_COLS)

    cov = res.coverage
    common = set(truth) & set(actual)
    assert cov["common_items"] == len(common)
    assert cov["truth_only_items"] == len(set(truth) - common)
    assert cov["actual_only_items"] == len(set(actual) - common)
    assert cov["common_weight"] == pytest.approx(sum(w[i] for i in common))
    assert cov["truth_only_weight"] == pytest.approx(sum(w[i] for i in set(truth) - common))
    assert cov["truth_clusters_common"] == len({truth[i] for i in common})
    assert cov["actual_clusters"] == len(set(actual.values()))


@pytest.mark.parametrize("null_row", [False, True])
@pytest.mark.parametrize("columns", [["country", "source"], ["source"]])
def test_slice_columns_and_missing_items_table_rows(columns, null_row):
    """Items 25..29 have no row in the items table: their slice values are null, and they
    share one group with the rows whose values are all null (with `null_row`, item 24's)."""
    truth = {i: i % 3 for i in range(30)}
    actual = {i: i % 4 for i in range(30)}
    items = pd.DataFrame(
        {
            "item_id": range(25),
            "country": ["a", "b"] * 12 + [None if null_row else "a"],
            "source": ["x"] * 10 + [None] * 15,
        }
    )
    w = dict.fromkeys(range(30), 1.0)
    ref = pointwise_items(truth, actual, w)
    df = cs.evaluate(truth, actual, items).per_slice(columns)

    def norm(v):
        return None if v is None or v != v else v

    key = {i: tuple(norm(items[c][i]) if i < 25 else None for c in columns) for i in range(30)}
    groups = groups_of(key, ref)
    assert len(df) == len(groups)
    assert df[columns].isna().all(axis=1).sum() == 1  # one group of nulls
    for row in df.itertuples(index=False):
        k = tuple(norm(getattr(row, c)) for c in columns)
        assert_rows(pd.Series(row._asdict()), mean_over(ref, w, groups[k]), GROUP_COLS)


def test_boolean_filter_is_a_slice():
    truth = {i: i // 4 for i in range(40)}
    actual = {i: i // 5 for i in range(40)}
    flag = [i % 3 == 0 for i in range(40)]
    items = pd.DataFrame({"item_id": range(40), "vip": flag})
    w = dict.fromkeys(range(40), 1.0)
    ref = pointwise_items(truth, actual, w)
    df = cs.evaluate(truth, actual, items).per_slice("vip").set_index("vip")
    want = mean_over(ref, w, [i for i in range(40) if flag[i]])
    assert_rows(df.loc[True], want, GROUP_COLS)


def test_many_slices_in_item_order_with_items_missing_between():
    """Slice values met in order along the truth's rows, with items the actual lacks in
    between: the aggregation sums such groups run by run, and once emitted a group twice
    (too many groups for per-group sums in cache, so that path is taken)."""
    n = 30_000
    truth = {i: i // 3 for i in range(n)}
    actual = {i: i // 2 for i in range(n) if i % 6 != 1}  # the middle of every other slice
    items = pd.DataFrame({"item_id": range(n), "slice": [i // 3 for i in range(n)]})
    df = cs.evaluate(truth, actual, items).per_slice("slice")
    assert df["slice"].is_unique
    assert len(df) == n // 3
    assert df["items"].sum() == len(actual)
