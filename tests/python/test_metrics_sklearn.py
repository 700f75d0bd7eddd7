"""Parity with scikit-learn: seeded random labelings of many shapes and sizes, and
scikit-learn's own edge cases."""

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.metrics import cluster as skc

import clusterscore.metrics as M

SHARED = [
    "rand_score", "adjusted_rand_score", "fowlkes_mallows_score", "mutual_info_score",
    "normalized_mutual_info_score", "homogeneity_score", "completeness_score",
    "v_measure_score", "adjusted_mutual_info_score",
]  # fmt: skip


def same(x, y, name):
    if name == "adjusted_mutual_info_score":
        # Both implementations sum exp() of differences of lgamma values near 1e5, each with
        # ~1e-11 relative error from its own lgamma; near AMI = 0 that shows. See docs/metrics.md.
        assert x == pytest.approx(y, rel=1e-12, abs=1e-9), name
    else:
        assert x == pytest.approx(y, rel=1e-12, abs=1e-15), name


def labelings(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([2, 3, 10, 57, 300, 2000]))
    shape = seed % 5
    if shape == 0:
        a, b = rng.integers(0, 4, n), rng.integers(0, 6, n)
    elif shape == 1:  # many small clusters
        a, b = rng.integers(0, n // 2 + 1, n), rng.integers(0, n // 3 + 1, n)
    elif shape == 2:  # b is a noisy copy of a
        a = rng.integers(0, max(2, n // 10), n)
        b = np.where(rng.random(n) < 0.1, rng.integers(0, n, n), a)
    elif shape == 3:  # negative and sparse labels
        a, b = rng.integers(-50, 50, n) * 1000, -rng.integers(0, 7, n)
    else:  # strings
        a = np.array([f"c{x}" for x in rng.integers(0, 5, n)])
        b = np.array([f"k{x}" for x in rng.integers(0, 9, n)])
    return a, b


def zero_over_zero_ami(a, b, method):
    """One labeling all singletons, the other not and not one cluster (AMI 0 then), with
    the "min" average: MI, its expectation and the normaliser are one entropy: 0/0."""
    sizes = [len(set(x.tolist())) for x in (a, b)]
    singletons = [k == len(a) for k in sizes]
    return method == "min" and singletons[0] != singletons[1] and min(sizes) > 1


def test_ami_zero_over_zero_is_none_and_identical_partitions_are_one():
    a, b = [0, 0, 1, 1, 2], [0, 1, 2, 3, 4]
    assert M.adjusted_mutual_info_score(a, b, average_method="min") is None
    assert M.adjusted_mutual_info_score(b, a, average_method="min") is None
    assert M.all_scores(a, b)["adjusted_mutual_info_score"] is not None  # arithmetic
    assert M.adjusted_mutual_info_score(b, [5, 6, 7, 8, 9], average_method="min") == 1.0


@pytest.mark.parametrize("seed", range(60))
def test_random_labelings_agree(seed):
    a, b = labelings(seed)
    for name in SHARED:
        same(getattr(M, name)(a, b), getattr(skm, name)(a, b), name)
    for method in ("arithmetic", "geometric", "min", "max"):
        same(
            M.normalized_mutual_info_score(a, b, average_method=method),
            skm.normalized_mutual_info_score(a, b, average_method=method),
            "nmi",
        )
        ours = M.adjusted_mutual_info_score(a, b, average_method=method)
        if zero_over_zero_ami(a, b, method):
            assert ours is None  # scikit-learn returns what the rounding left
            continue
        expected = skm.adjusted_mutual_info_score(a, b, average_method=method)
        same(ours, expected, "adjusted_mutual_info_score")
    for beta in (0.5, 1.0, 2.0):
        for x, y in zip(
            M.homogeneity_completeness_v_measure(a, b, beta=beta),
            skm.homogeneity_completeness_v_measure(a, b, beta=beta),
            strict=True,
        ):
            same(x, y, "hcv")
    assert (M.pair_confusion_matrix(a, b) == skc.pair_confusion_matrix(a, b)).all()
    assert (M.contingency_matrix(a, b) == skc.contingency_matrix(a, b)).all()
    assert (
        M.contingency_matrix(a, b, sparse=True) != skc.contingency_matrix(a, b, sparse=True)
    ).nnz == 0
    assert np.allclose(M.contingency_matrix(a, b, eps=0.5), skc.contingency_matrix(a, b, eps=0.5))


EDGE = {
    "empty": ([], []),
    "single item": ([0], [5]),
    "one cluster each": ([1, 1, 1, 1], [0, 0, 0, 0]),
    "one cluster vs singletons": ([0, 0, 0, 0], [0, 1, 2, 3]),
    "all singletons": ([0, 1, 2, 3], [3, 2, 1, 0]),
    "perfect match relabelled": ([0, 0, 1, 1, 2], [5, 5, 3, 3, 9]),
    "negative labels": ([-1, -1, -2, -3], [-5, -5, -5, 0]),
    "string labels": (["a", "a", "b", "c"], ["x", "y", "y", "y"]),
    "mixed sizes": ([0, 0, 0, 1, 2, 2], [0, 0, 1, 1, 1, 2]),
}


@pytest.mark.parametrize("case", list(EDGE))
def test_edge_cases_agree(case):
    a, b = EDGE[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in SHARED:
            if name == "mutual_info_score" and len(a) == 0:
                continue  # scikit-learn raises a math domain error there; we return 0.0
            same(getattr(M, name)(a, b), getattr(skm, name)(a, b), name)
            assert isinstance(getattr(M, name)(a, b), float)
        assert (M.pair_confusion_matrix(a, b) == skc.pair_confusion_matrix(a, b)).all()
    assert M.mutual_info_score([], []) == 0.0


def test_int_overflow_cases_agree():
    # scikit-learn's own overflow tests: large n with few clusters
    x = np.array([1] * 52632 + [2] * 52632 + [3] * 52632 + [4] * 52632 + [5] * 52632)
    y = np.array([0] * 100000 + [1] * 163160)
    for name in ("fowlkes_mallows_score", "mutual_info_score", "adjusted_rand_score", "rand_score"):
        same(getattr(M, name)(x[: len(y)], y), getattr(skm, name)(x[: len(y)], y), name)
    n = 100_000
    a = np.concatenate([np.zeros(n // 2, int), np.ones(n // 2, int)])
    b = np.arange(n) % 7
    same(M.adjusted_rand_score(a, b), skm.adjusted_rand_score(a, b), "ari")


LARGE = {  # above 2^16 items, where the expected mutual information uses its recurrence
    "few clusters, mode far from 1": (
        lambda r, n: r.integers(0, 3, n),
        lambda r, n: r.integers(0, 4, n),
    ),
    "two halves vs sizes past n/2": (
        lambda r, n: (np.arange(n) < n // 2).astype(int),
        lambda r, n: np.where(r.random(n) < 0.9, 0, r.integers(1, 5, n)),
    ),
    "power-law, 10% moved": (
        lambda r, n: np.minimum(r.zipf(1.6, n), 400),
        lambda r, n: np.minimum(r.zipf(1.6, n), 300),
    ),
    "many small clusters": (lambda r, n: r.integers(0, 300, n), lambda r, n: r.integers(0, 200, n)),
}


@pytest.mark.parametrize("case", list(LARGE))
def test_adjusted_mutual_info_agrees_above_two_to_the_sixteen(case):
    rng = np.random.default_rng(11)
    n = 70_000
    make_a, make_b = LARGE[case]
    a = make_a(rng, n)
    b = make_b(rng, n)
    if case.startswith("power-law"):
        b = np.where(rng.random(n) < 0.9, a, b)
    for method in ("arithmetic", "max"):
        ours = M.adjusted_mutual_info_score(a, b, average_method=method)
        theirs = skm.adjusted_mutual_info_score(a, b, average_method=method)
        same(ours, theirs, "adjusted_mutual_info_score")


def test_mutual_info_from_a_contingency_table():
    a, b = labelings(7)
    c = skc.contingency_matrix(a, b)
    same(M.mutual_info_score(None, None, contingency=c), skm.mutual_info_score(a, b), "mi")
    same(
        M.mutual_info_score(None, None, contingency=skc.contingency_matrix(a, b, sparse=True)),
        skm.mutual_info_score(a, b),
        "mi",
    )


def test_same_errors_as_scikit_learn():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        M.adjusted_rand_score([0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="labels_true must be 1D"):
        M.rand_score([[0, 1], [1, 0]], [0, 1])
    with pytest.raises(ValueError, match="labels_pred must be 1D"):
        M.v_measure_score([0, 1], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="'average_method' must be"):
        M.normalized_mutual_info_score([0, 1], [0, 1], average_method="median")
    with pytest.raises(ValueError, match="Cannot set 'eps' when sparse=True"):
        M.contingency_matrix([0], [0], eps=1.0, sparse=True)
    with pytest.raises(ValueError, match=r"sample_weight\[1\] = -1.0"):
        M.rand_score([0, 1], [0, 1], sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="sample_weight must be 1D of length 2"):
        M.rand_score([0, 1], [0, 1], sample_weight=[1.0])
    with pytest.raises(TypeError):
        M.adjusted_rand_score([0, 1], [0, 1], sample_weight=[1.0, 1.0])


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_a_weight_that_is_not_finite_and_positive_is_named(bad):
    w = [1.0, 2.0, bad, 1.0]
    said = rf"sample_weight\[2\] = {bad!r} is not a finite number > 0"
    with pytest.raises(ValueError, match=said):
        M.rand_score([0, 0, 1, 1], [0, 1, 1, 1], sample_weight=w)
