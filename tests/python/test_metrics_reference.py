"""Weighted metrics against brute-force pair enumeration and explicit sets; golden values;
properties over the list of metrics; exact counts at n = 1e10 from a cell table."""

import numpy as np
import pytest
from reference import pair_counts, pointwise_items, set_matching

import clusterscore.metrics as M

WEIGHTABLE = [
    "rand_score", "fowlkes_mallows_score", "pair_precision_score", "pair_recall_score",
    "pair_jaccard_score", "mutual_info_score", "normalized_mutual_info_score",
    "homogeneity_score", "completeness_score", "v_measure_score", "f_measure_score",
    "purity_score", "inverse_purity_score", "clustering_error", "clustering_ratio",
    "bcubed_precision_score", "bcubed_recall_score", "bcubed_f_score",
]  # fmt: skip
SYMMETRIC = [
    "rand_score", "adjusted_rand_score", "fowlkes_mallows_score", "pair_jaccard_score",
    "mutual_info_score", "normalized_mutual_info_score", "adjusted_mutual_info_score",
    "clustering_error",
]  # fmt: skip


def weighted_case(seed):
    rng = np.random.default_rng(900 + seed)
    n = int(rng.integers(2, 9))
    a = rng.integers(0, int(rng.integers(1, 4)), n)
    b = rng.integers(0, int(rng.integers(1, 5)), n)
    w = rng.uniform(0.2, 3.0, n)
    return a, b, w


@pytest.mark.parametrize("seed", range(40))
def test_weighted_pair_counts_and_metrics_match_enumeration(seed):
    a, b, w = weighted_case(seed)
    p = pair_counts(a, b, w)
    cm = M.pair_confusion_matrix(a, b, sample_weight=w)
    # ordered pairs, as scikit-learn: each unordered pair twice
    assert cm[1, 1] == pytest.approx(2 * p["a"])
    assert cm[1, 0] == pytest.approx(2 * p["b"])
    assert cm[0, 1] == pytest.approx(2 * p["c"])
    assert cm[0, 0] == pytest.approx(2 * p["d"])
    a_, b_, c_, d_ = p["a"], p["b"], p["c"], p["d"]
    s = M.all_scores(a, b, sample_weight=w)
    assert s["rand_score"] == pytest.approx(
        1.0 if b_ == c_ == 0 else (a_ + d_) / (a_ + b_ + c_ + d_)
    )
    expect = {
        "pair_precision_score": a_ / (a_ + c_) if a_ + c_ else None,
        "pair_recall_score": a_ / (a_ + b_) if a_ + b_ else None,
        "pair_jaccard_score": a_ / (a_ + b_ + c_) if a_ + b_ + c_ else None,
    }
    for k, v in expect.items():
        assert s[k] == (None if v is None else pytest.approx(v)), k
    fmi = np.sqrt(a_ / (a_ + c_) * a_ / (a_ + b_)) if a_ else 0.0
    assert s["fowlkes_mallows_score"] == pytest.approx(fmi)
    for k, v in set_matching(a, b, w).items():
        assert s[k] == pytest.approx(v, abs=1e-12), k
    assert s["adjusted_rand_score"] is None and s["adjusted_mutual_info_score"] is None


@pytest.mark.parametrize("seed", range(20))
def test_weighted_information_metrics_equal_repeated_items(seed):
    # integer weights are the same as repeating items
    a, b, _ = weighted_case(seed)
    w = np.random.default_rng(seed).integers(1, 4, len(a))
    ra, rb = np.repeat(a, w), np.repeat(b, w)
    for name in WEIGHTABLE:
        got = getattr(M, name)(a, b, sample_weight=w.astype(float))
        want = getattr(M, name)(ra, rb)
        if name in ("rand_score", "fowlkes_mallows_score") or name.startswith("pair_"):
            continue  # pairs of copies of one item differ from distinct pairs: not equal
        assert got == pytest.approx(want, rel=1e-12, abs=1e-14), name


@pytest.mark.parametrize("seed", range(20))
def test_bcubed_equals_unweighted_pointwise(seed):
    a, b, w = weighted_case(seed)
    items = list(range(len(a)))
    ref = pointwise_items(dict(zip(items, a, strict=True)), dict(zip(items, b, strict=True)),
                          dict.fromkeys(items, 1.0))  # fmt: skip
    assert M.bcubed_precision_score(a, b) == pytest.approx(
        np.mean([r["precision"] for r in ref.values()])
    )
    assert M.bcubed_recall_score(a, b) == pytest.approx(
        np.mean([r["recall"] for r in ref.values()])
    )


def test_golden_set_matching():
    # truth {0,1,2} {3,4}; pred {0,1} {2,3,4}
    t, p = [0, 0, 0, 1, 1], [0, 0, 1, 1, 1]
    # F: truth A (3): vs {0,1}: 2*2/(3+2)=0.8, vs {2,3,4}: 2*1/(3+3)=1/3 → 0.8
    #    truth B (2): vs {2,3,4}: 2*2/(2+3)=0.8 → 0.8; F = (3*0.8 + 2*0.8)/5 = 0.8
    assert M.f_measure_score(t, p) == pytest.approx(0.8)
    # purity: pred {0,1} → 2, pred {2,3,4} → 2 ⇒ 4/5; inverse: A → 2, B → 2 ⇒ 4/5
    assert M.purity_score(t, p) == pytest.approx(0.8)
    assert M.inverse_purity_score(t, p) == pytest.approx(0.8)
    # optimal mapping A→{0,1} (2) and B→{2,3,4} (2) keeps 4 of 5 ⇒ error 0.2
    assert M.clustering_error(t, p) == pytest.approx(0.2)
    # greedy fails here: truth {0..3} {4,5}; pred {0,1,4,5}, {2,3}
    #  greedy takes the largest cell (2) in several ways; optimum A→{2,3}(2), B→{0,1,4,5}(2)
    t2, p2 = [0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0]
    assert M.clustering_error(t2, p2) == pytest.approx(1 - 4 / 6)
    # a chain where the best single cell is not in the optimum:
    # cells: (A,x)=3, (A,y)=2, (B,x)=2 ⇒ optimum A→y, B→x keeps 4, not A→x keeps 3
    t3 = ["A"] * 5 + ["B"] * 2
    p3 = ["x"] * 3 + ["y"] * 2 + ["x"] * 2
    assert M.clustering_error(t3, p3) == pytest.approx(1 - 4 / 7)
    assert M.clustering_ratio(t3, p3) == 1.0
    assert M.clustering_ratio([0, 0, 0], [0, 1, 2]) == 3.0


@pytest.mark.parametrize("seed", range(30))
def test_matching_matches_exhaustive_search(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    a, b = rng.integers(0, 4, n), rng.integers(0, 5, n)
    w = rng.uniform(0.5, 2, n)
    assert M.clustering_error(a, b) == pytest.approx(
        set_matching(a, b)["clustering_error"], abs=1e-12
    )
    got = M.clustering_error(a, b, sample_weight=w)
    assert got == pytest.approx(set_matching(a, b, w)["clustering_error"], abs=1e-12)


def blocks_of_components(rng, blocks):
    """Labelings whose cell graph has many components of every kind: single cells, stars
    of one truth cluster split over several predicted ones and the reverse, and tangled
    ones, each made inside its own block of labels."""
    a, b = [], []
    for k in range(blocks):
        kind = k % 4
        size = int(rng.integers(1, 30))
        if kind == 0:  # one cell
            ta, tb = np.zeros(size, int), np.zeros(size, int)
        elif kind == 1:  # one truth cluster split
            ta, tb = np.zeros(size, int), rng.integers(0, 4, size)
        elif kind == 2:  # predicted cluster merging several truth clusters
            ta, tb = rng.integers(0, 4, size), np.zeros(size, int)
        else:  # anything
            ta, tb = rng.integers(0, 3, size), rng.integers(0, 4, size)
        a.append(ta + 10 * k)
        b.append(tb + 10 * k)
    return np.concatenate(a), np.concatenate(b)


@pytest.mark.parametrize("seed", range(10))
def test_matching_of_many_components_matches_an_assignment_solver(seed):
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(300 + seed)
    a, b = blocks_of_components(rng, 80)
    w = rng.uniform(0.5, 2, len(a))
    for weights in (None, w):
        _, ai = np.unique(a, return_inverse=True)
        _, bi = np.unique(b, return_inverse=True)
        table = np.zeros((ai.max() + 1, bi.max() + 1))
        np.add.at(table, (ai, bi), 1.0 if weights is None else weights)
        rows, cols = linear_sum_assignment(table, maximize=True)
        expected = 1 - table[rows, cols].sum() / table.sum()
        got = M.clustering_error(a, b, sample_weight=weights)
        assert got == pytest.approx(expected, abs=1e-12)


def same_or_absent(x, y):
    """Equal to 1e-12, or both absent (None) where a denominator is zero."""
    if y is None:
        return x is None
    return x == pytest.approx(y, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_properties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    a, b = rng.integers(0, 5, n), rng.integers(0, 8, n)
    s = M.all_scores(a, b)
    for name in SYMMETRIC:
        assert same_or_absent(M.all_scores(b, a)[name], s[name]), name
    # relabelling invariance
    perm_a = rng.permutation(10)[a] * 7 - 3
    perm_b = np.array([f"L{x}" for x in rng.permutation(10)[b]])
    s2 = M.all_scores(perm_a, perm_b)
    for k, v in s.items():
        assert same_or_absent(s2[k], v), k
    for k in ("rand_score", "fowlkes_mallows_score", "normalized_mutual_info_score",
              "homogeneity_score", "completeness_score", "v_measure_score", "f_measure_score",
              "purity_score", "inverse_purity_score", "clustering_error",
              "bcubed_precision_score", "bcubed_recall_score"):  # fmt: skip
        assert -1e-12 <= s[k] <= 1 + 1e-12, k
    assert s["v_measure_score"] == pytest.approx(
        M.normalized_mutual_info_score(a, b, average_method="arithmetic"), rel=1e-12
    )
    if s["pair_precision_score"] is not None and s["pair_recall_score"] is not None:
        assert s["fowlkes_mallows_score"] == pytest.approx(
            np.sqrt(s["pair_precision_score"] * s["pair_recall_score"]), rel=1e-12
        )
    same = M.all_scores(a, a)
    for k in ("rand_score", "adjusted_rand_score", "v_measure_score",
              "purity_score", "f_measure_score", "bcubed_f_score"):  # fmt: skip
        assert same[k] == pytest.approx(1.0), k
    # scikit-learn's convention: FMI is 0 when no pair is together (all singletons)
    assert same["fowlkes_mallows_score"] == (1.0 if len(set(a)) < n else 0.0)
    assert same["clustering_error"] == pytest.approx(0.0, abs=1e-15)


def test_exact_pair_counts_at_ten_billion_items():
    # 1e10 items in two truth clusters and two predicted clusters, from the cell table
    half = 5 * 10**9
    quarter = half // 2
    rows, cols = [0, 0, 1, 1], [0, 1, 0, 1]
    counts = [half, half - quarter, 1, quarter - 1]  # rows: 1.5e10/2... exact integers
    s = M.scores_from_cells(rows, cols, counts)
    n = sum(counts)
    a_i = [counts[0] + counts[1], counts[2] + counts[3]]
    b_j = [counts[0] + counts[2], counts[1] + counts[3]]
    sq = sum(c * c for c in counts)
    tp = sq - n
    fp = sum(b * b for b in b_j) - sq
    fn = sum(a * a for a in a_i) - sq
    tn = n * n - fp - fn - sq
    assert s["pair_confusion_matrix"] == (tn, fp, fn, tp)
    assert max(tn, fp, fn, tp) > 2**64  # beyond 64 bits, and still exact
    from fractions import Fraction

    ari = Fraction(2 * (tp * tn - fn * fp), (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    assert s["adjusted_rand_score"] == pytest.approx(float(ari), rel=1e-15)
    assert s["rand_score"] == pytest.approx(float(Fraction(tp + tn, tp + tn + fp + fn)), rel=1e-15)
