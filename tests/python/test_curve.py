"""threshold_curve against an independent oracle: every row equals `evaluate` of the
connected components (scipy's) of the pairs scored at or above its threshold, on seeded
random inputs with weights, both scopes, design weights, items no pair names and tied
scores; then what it keeps, and its errors."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import clusterscore as cs

TOL = 1e-12


def components_at(ids: np.ndarray, pairs: pd.DataFrame, t: float) -> pd.DataFrame:
    """The clustering at threshold t, by scipy: ids in the order given."""
    place = pd.Series(np.arange(len(ids)), index=ids)
    chosen = pairs[pairs.match_probability >= t]
    a = place[chosen.unique_id_l.to_numpy()].to_numpy()
    b = place[chosen.unique_id_r.to_numpy()].to_numpy()
    graph = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(len(ids), len(ids)))
    _, label = connected_components(graph, directed=False)
    return pd.DataFrame({"item_id": ids, "cluster_id": label})


def random_case(
    seed: int, weighted: bool
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """A truth of some items, pairs over those and others (scores on a coarse grid, so
    that many tie), and an items table listing items no pair names."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    truth_items = rng.choice(n + 30, n, replace=False)
    truth = pd.DataFrame({"item_id": truth_items, "cluster_id": rng.integers(0, max(2, n // 4), n)})
    p = int(rng.integers(1, 3 * n))
    left, right = rng.integers(0, n + 40, p), rng.integers(0, n + 40, p)
    keep = left != right
    pairs = pd.DataFrame({"unique_id_l": left[keep], "unique_id_r": right[keep],
                          "match_probability": rng.integers(0, 12, keep.sum()) / 11})  # fmt: skip
    if not weighted and seed % 2:
        return truth, pairs, None
    listed = np.arange(n + 50)
    weight = rng.uniform(0.1, 5, len(listed)) if weighted else np.ones(len(listed))
    return truth, pairs, pd.DataFrame({"item_id": listed, "weight": weight})


def check_rows(curve: cs.ThresholdCurve, truth, pairs, items, **options) -> int:
    ids = curve.clustering_at(np.inf).column("item_id").to_numpy()
    for _, row in curve.curve.iterrows():
        actual = components_at(ids, pairs, row.threshold)
        assert row.clusters == actual.cluster_id.nunique()
        ev = cs.evaluate(truth, actual, items, **options)
        for metric, value in ev.overall.items():
            if value is None:
                assert np.isnan(row[metric]), (metric, row.threshold)
            else:
                assert row[metric] == pytest.approx(value, abs=TOL, rel=TOL), (
                    metric,
                    row.threshold,
                )
    return len(curve.curve)


OPTIONS = [
    {},
    {"truth_scope": "entities"},
    {"truth_scope": "entities", "cluster_weights": "inverse_size"},
    {"truth_scope": "entities", "cluster_weights": "inverse_size", "average": "entities"},
]


@pytest.mark.parametrize(
    "options", OPTIONS, ids=lambda o: "-".join(map(str, o.values())) or "common"
)
@pytest.mark.parametrize("weighted", [False, True])
def test_every_row_equals_evaluate_of_the_components(options, weighted):
    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    rows = 0
    for seed in range(8):
        truth, pairs, items = random_case(seed, weighted)
        curve = cs.threshold_curve(truth, pairs, items, **options)
        rows += check_rows(curve, truth, pairs, items, **options)
        # Every distinct score is a row (no more than max_points of them here).
        assert len(curve.curve) == pairs.match_probability.nunique()
    assert rows > 50


def test_given_design_weights_and_thresholds():
    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    truth, pairs, items = random_case(3, weighted=True)
    rng = np.random.default_rng(0)
    weights = {c: float(rng.uniform(1, 4)) for c in truth.cluster_id.unique()}
    for scope in ("common", "entities"):
        options = {"truth_scope": scope, "cluster_weights": weights}
        thresholds = [0.5, 2.0, -1.0, 0.5, 0.25]
        curve = cs.threshold_curve(truth, pairs, items, thresholds=thresholds, **options)
        assert curve.curve.threshold.tolist() == [2.0, 0.5, 0.25, -1.0]
        check_rows(curve, truth, pairs, items, **options)
        # Above every score nothing is linked; below every score all pairs are.
        assert curve.curve.clusters.iloc[0] == len(curve.clustering_at(np.inf))


def test_string_ids_and_pairs_in_either_order_count_once_with_their_highest_score():
    truth = pd.DataFrame({"item_id": list("abcd"), "cluster_id": [1, 1, 2, 2]})
    pairs = pd.DataFrame({"unique_id_l": ["a", "b", "c", "a"], "unique_id_r": ["b", "a", "d", "c"],
                          "match_probability": [0.2, 0.9, 0.5, 0.1]})  # fmt: skip
    curve = cs.threshold_curve(truth, pairs)
    # (a, b) at 0.9 only: its 0.2 is no threshold of its own.
    assert curve.curve.threshold.tolist() == [0.9, 0.5, 0.1]
    assert curve.curve.clusters.tolist() == [3, 2, 1]
    assert curve.pairs == 3 and curve.distinct_scores == 3
    assert curve.curve.precision.tolist()[:2] == [1.0, 1.0]
    assert curve.best("f1") == (0.5, 1.0)
    assert curve.best("over_merge_rate") == (0.9, 0.0)  # lower is better; the highest tie


@pytest.mark.parametrize("weighted", [False, True])
def test_max_points_keeps_first_last_best_and_spacing(weighted):
    """With real-valued weights every cell is a group of its own, so the large clusters'
    sums are bounded between kept rows (curve_pass.h): the kept rows and the best ones
    must still be exactly those of the curve that keeps every row."""
    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    rng = np.random.default_rng(5)
    n = 3000
    truth = pd.DataFrame({"item_id": np.arange(n), "cluster_id": np.arange(n) // 3})
    same = np.arange(n - 1)[np.arange(n - 1) % 3 != 2]
    noise = rng.integers(0, n, (4000, 2))
    noise = noise[noise[:, 0] != noise[:, 1]]
    pairs = pd.DataFrame({
        "unique_id_l": np.concatenate([same, noise[:, 0]]),
        "unique_id_r": np.concatenate([same + 1, noise[:, 1]]),
        "match_probability": np.concatenate([rng.uniform(0.3, 1, len(same)),
                                             rng.uniform(0, 0.7, len(noise))]),
    })  # fmt: skip
    items = None
    if weighted:
        items = pd.DataFrame({"item_id": np.arange(n), "weight": rng.uniform(0.5, 2, n)})
    full = cs.threshold_curve(truth, pairs, items, max_points=10**9)
    cut = cs.threshold_curve(truth, pairs, items, max_points=50)
    assert len(full.curve) == full.distinct_scores > 50 and len(cut.curve) <= 50
    assert cut.curve.threshold.is_monotonic_decreasing
    assert cut.curve.threshold.iloc[0] == full.curve.threshold.iloc[0]
    assert cut.curve.threshold.iloc[-1] == full.curve.threshold.iloc[-1]
    for metric in ("f1", "f1_of_means", "pair_f1"):
        assert cut.best(metric) == full.best(metric)
        assert full.best(metric).value == full.curve[metric].max()
    # Every kept row is the full curve's row at that threshold.
    merged = cut.curve.merge(full.curve, on="threshold", suffixes=("", "_full"))
    assert len(merged) == len(cut.curve)
    for column in full.curve.columns.drop("threshold"):
        same = (merged[column] == merged[f"{column}_full"]) | merged[column].isna()
        assert same.all(), column
    # Evenly spaced in merges: no gap between kept rows is far more than its share.
    merges = len(full.clustering_at(np.inf)) - cut.curve.clusters.to_numpy()
    assert np.diff(merges).max() <= 3 * merges[-1] / 44
    with pytest.raises(ValueError, match="max_points"):
        cs.threshold_curve(truth, pairs, max_points=3)


def test_at_gives_the_full_evaluation_of_the_clustering_there():
    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    truth, pairs, items = random_case(4, weighted=False)
    curve = cs.threshold_curve(truth, pairs, items, resamples=50)
    t = float(curve.curve.threshold.iloc[len(curve.curve) // 2])
    ev = curve.at(t)
    row = curve.curve[curve.curve.threshold == t].iloc[0]
    assert ev.overall["f1"] == pytest.approx(row.f1, abs=TOL)
    assert set(ev.intervals().metric) >= {"precision", "recall", "f1"}


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ({"unique_id_l": [1, 2], "unique_id_r": [2, 2], "match_probability": [0.5, 0.4]},
         "pairs row 2: the pair names one item twice"),
        (pa.table({"unique_id_l": [1, 2], "unique_id_r": [2, 3],
                   "match_probability": pa.array([0.5, float("nan")], from_pandas=False)}),
         "pairs row 2: the score is not a number"),
        ({"unique_id_l": [1, 2], "unique_id_r": [2, 3], "match_probability": [0.5, None]},
         "pairs row 2: missing value in column 'match_probability'"),
        ({"unique_id_l": [1, 2], "unique_id_r": [2, 3], "score": [0.5, 0.4]},
         "pairs: no column 'match_probability'"),
        ({"unique_id_l": [1], "unique_id_r": [2], "match_probability": ["high"]},
         "pairs row 1: match_probability 'high' is not a number"),
    ],
)  # fmt: skip
def test_bad_pairs_are_one_line_naming_the_row(pairs, message):
    truth = {1: "a", 2: "a", 3: "b"}
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
        cs.threshold_curve(truth, pairs if isinstance(pairs, pa.Table) else pd.DataFrame(pairs))


def test_bad_rows_in_a_csv_are_named_by_line(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("unique_id_l,unique_id_r,match_probability\n1,2,0.5\n3,3,0.4\n")
    with pytest.raises(ValueError, match=r"^.*pairs\.csv line 3: the pair names one item twice$"):
        cs.threshold_curve({1: "a", 2: "a", 3: "b"}, path)


def test_other_column_names_and_bad_thresholds():
    truth = {1: "a", 2: "a", 3: "b"}
    pairs = pd.DataFrame({"x": [1, 2], "y": [2, 3], "s": [0.9, 0.1]})
    curve = cs.threshold_curve(truth, pairs, left_col="x", right_col="y", score_col="s")
    assert curve.curve.clusters.tolist() == [2, 1]
    with pytest.raises(ValueError, match="thresholds: nan is not a number"):
        cs.threshold_curve(truth, pairs, left_col="x", right_col="y", score_col="s",
                           thresholds=[0.5, float("nan")])  # fmt: skip
    with pytest.raises(ValueError, match="no metric 'purity'"):
        curve.best("purity")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_same_bits_on_any_number_of_threads(threads):
    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    truth, pairs, items = random_case(7, weighted=True)
    pairs = pd.concat([pairs] * 30, ignore_index=True)  # enough rows to sort in parts
    pairs["match_probability"] = np.random.default_rng(1).random(len(pairs))
    before = cs.threads()
    try:
        cs.set_threads(1)
        one = cs.threshold_curve(truth, pairs, items, max_points=40).curve
        cs.set_threads(threads)
        many = cs.threshold_curve(truth, pairs, items, max_points=40).curve
    finally:
        cs.set_threads(before)
    pd.testing.assert_frame_equal(one, many, check_exact=True)


def test_text_ids_of_both_offset_widths_and_an_items_file(tmp_path):
    """pandas 3 hands text over as large strings, a CSV reads as strings: one id space."""
    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    truth = pd.DataFrame({"item_id": ["a", "b", "c"], "cluster_id": [1, 1, 2]})
    pairs = pa.table({"unique_id_l": pa.array(["a", "b"], pa.large_string()),
                      "unique_id_r": pa.array(["b", "c"], pa.large_string()),
                      "match_probability": [0.9, 0.2]})  # fmt: skip
    items = tmp_path / "items.csv"
    items.write_text("item_id,weight\na,1\nb,2\nc,1\nd,1\n")
    curve = cs.threshold_curve(truth, pairs, items)
    assert curve.curve.clusters.tolist() == [3, 2]  # d, named by the items file only, alone
    assert curve.clustering_at(0.5).column("item_id").to_pylist() == ["a", "b", "c", "d"]
