"""Inputs that once gave a wrong answer or a raw exception: each is now the one-line
ValueError naming the input (file, line, value), or a defined value."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import clusterscore as cs
import clusterscore.metrics as M

TRUTH = {"a": 1, "b": 1, "c": 2, "d": 2}
ACTUAL = {"a": 1, "b": 2, "c": 2, "d": 2}


def one_line_error(fn, *patterns):
    with pytest.raises(ValueError) as e:
        fn()
    assert not isinstance(e.value, pa.ArrowException)
    text = str(e.value)
    assert "\n" not in text, text
    for p in patterns:
        assert p in text, text
    return text


def test_a_weight_column_that_does_not_exist(tmp_path):
    items = pd.DataFrame({"item_id": list("abcd"), "wieght": [1.0, 2, 3, 4]})
    one_line_error(lambda: cs.evaluate(TRUTH, ACTUAL, items, weight_col="wieght2"),
                   "no column 'wieght2'", "wieght")  # fmt: skip
    # the default name may be absent: every weight is then 1
    assert cs.evaluate(TRUTH, ACTUAL, items).coverage["common_weight"] == 4


def test_nan_cluster_and_item_ids(tmp_path):
    t = pa.table({"item_id": [1, 2, 3], "cluster_id": [1.0, float("nan"), 2.0]})
    pq.write_table(t, tmp_path / "t.parquet")
    one_line_error(lambda: cs.evaluate(tmp_path / "t.parquet", tmp_path / "t.parquet"),
                   "t.parquet row 2", "cluster_id is NaN")  # fmt: skip
    items = pa.table({"item_id": [1.0, float("nan")]})
    one_line_error(lambda: cs.evaluate({1: 1}, {1: 1}, items), "items row 2", "NaN")
    one_line_error(lambda: M.adjusted_rand_score([1.0, np.nan], [1, 2]), "labels_true[1]")
    one_line_error(lambda: M.rand_score([1, 2], [np.nan, 1.0]), "labels_pred[0]")


def test_nested_id_columns_and_repeated_columns(tmp_path):
    t = pa.table({"item_id": [[1], [2]], "cluster_id": [1, 2]})
    pq.write_table(t, tmp_path / "t.parquet")
    one_line_error(lambda: cs.evaluate(tmp_path / "t.parquet", {1: 1}), "'item_id' holds list")
    (tmp_path / "d.csv").write_text("item_id,cluster_id,item_id\n1,a,1\n")
    one_line_error(lambda: cs.evaluate(tmp_path / "d.csv", {1: 1}),
                   "d.csv line 1", "'item_id' appears twice")  # fmt: skip


def test_unreadable_csv_files_are_named(tmp_path):
    import gzip

    (tmp_path / "bad.csv").write_bytes(b"item_id,cluster_id\n1,a\n2,\xff\xfe\n")
    one_line_error(lambda: cs.evaluate(tmp_path / "bad.csv", {1: 1}), "bad.csv line 3", "UTF-8")
    (tmp_path / "head.csv").write_bytes(b"item_id,clu\xffster\n1,a\n")
    one_line_error(lambda: cs.evaluate(tmp_path / "head.csv", {1: 1}), "head.csv line 1")
    data = gzip.compress(b"item_id,cluster_id\n" + b"".join(b"%d,a\n" % i for i in range(999)))
    (tmp_path / "cut.csv.gz").write_bytes(data[: len(data) // 2])
    one_line_error(lambda: cs.evaluate(tmp_path / "cut.csv.gz", {1: 1}), "cut.csv.gz")
    (tmp_path / "w.csv").write_text("item_id,weight\na,1_0\nb,2\n")
    one_line_error(lambda: cs.evaluate(TRUTH, ACTUAL, tmp_path / "w.csv"),
                   "w.csv line 2", "'1_0' is not a number")  # fmt: skip
    t = pa.table({"item_id": [1], "clu\nster": [1]})
    one_line_error(lambda: cs.evaluate(t, t), "'clu\\nster'")


def test_labels_beyond_64_bits_are_opaque():
    a = [2**64 + 1, 2**64 + 1, 3, 3]
    assert M.adjusted_rand_score(a, [0, 0, 1, 1]) == 1.0
    assert M.adjusted_rand_score(np.array([2**63 + 5, 2**63 + 5, 1], dtype=np.uint64),
                                 [7, 7, 8]) == 1.0  # fmt: skip


def test_scores_from_cells_validates_its_lists():
    one_line_error(lambda: M.scores_from_cells([0], [0], [-1]), "counts[0]")
    one_line_error(lambda: M.scores_from_cells([0], [0], [1.5]), "counts[0]")
    one_line_error(lambda: M.scores_from_cells([0, 1], [0, 1], [2**63, 2**63]), "past 2^64")
    one_line_error(lambda: M.scores_from_cells([0], [0], [0]), "count 0")
    one_line_error(lambda: M.scores_from_cells([0], [0], [1], [float("nan")]), "weights")
    one_line_error(lambda: M.scores_from_cells([-1], [0], [1]), "rows[0]")
    # indices are names: a large one allocates nothing and changes nothing
    small = M.scores_from_cells([0, 0, 1], [0, 1, 1], [3, 1, 2])
    large = M.scores_from_cells([0, 0, 10**12], [0, 4_000_000_000, 4_000_000_000], [3, 1, 2])
    assert small == large


@pytest.mark.parametrize("scale", [1e160, 1e-160, 1e300, 1e-300])
def test_weights_are_scale_invariant_to_the_double_range(scale):
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, 50), rng.integers(0, 5, 50)
    w = rng.uniform(0.5, 2, 50)
    plain = M.all_scores(a, b, w)
    scaled = M.all_scores(a, b, w * scale)
    for name, value in plain.items():
        if value is None:
            assert scaled[name] is None, name
        else:
            assert scaled[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


def test_weights_summing_past_the_double_range_are_refused():
    items = pd.DataFrame({"item_id": list("abcd"), "weight": [1e308] * 4})
    one_line_error(lambda: cs.evaluate(TRUTH, ACTUAL, items), "items", "divide them")
    items = pd.DataFrame({"item_id": list("abcd"), "weight": [1e-300] * 4})
    tiny, plain = cs.evaluate(TRUTH, ACTUAL, items), cs.evaluate(TRUTH, ACTUAL)
    assert tiny.overall == pytest.approx(plain.overall)
    # Weights too small to square: every level is summed over items, not cells.
    for side in ("truth", "actual"):
        got = tiny.per_cluster_table(side).to_pandas().drop(columns="weight")
        want = plain.per_cluster_table(side).to_pandas().drop(columns="weight")
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


def test_verdicts_in_either_order_and_their_contradictions():
    base = {i: i // 4 for i in range(24)}
    exp = {i: i // 3 for i in range(24)}
    s = cs.sample_pairs(base, exp, pairs=200, seed=1)
    pairs = s.raters_table().to_pandas()[["item_i", "item_j"]]
    direct = cs.estimate(s, pairs.assign(verdict="same"))
    swapped = pairs.rename(columns={"item_i": "item_j", "item_j": "item_i"})
    assert cs.estimate(s, swapped.assign(verdict="same")) == direct
    both = pd.concat([pairs.assign(verdict="same"), swapped.iloc[[0]].assign(verdict="different")])
    one_line_error(lambda: cs.estimate(s, both), "two different verdicts")


def test_too_many_pairs_is_refused_at_once():
    one_line_error(lambda: cs.sample_pairs(TRUTH, ACTUAL, pairs=10**12, seed=1), "at most")
