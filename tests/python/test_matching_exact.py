"""clustering_error against an exact dense solver (scipy's linear_sum_assignment) on the
shapes users have: records moved to random other clusters (one giant component of the
cell graph), whole-cluster splits and merges, two unrelated labelings (every count tied),
and weights. Each case forces the fixing rule and the auction to work together."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import clusterscore.metrics as M


def exact_error(a, b, w=None):
    """1 − (best one-to-one mapping's mass) / total, from the dense contingency matrix."""
    w = np.ones(len(a)) if w is None else np.asarray(w, dtype=float)
    _, ra = np.unique(a, return_inverse=True)
    _, rb = np.unique(b, return_inverse=True)
    m = np.zeros((ra.max() + 1, rb.max() + 1))
    np.add.at(m, (ra, rb), w)
    r, c = linear_sum_assignment(m, maximize=True)
    return 1.0 - m[r, c].sum() / w.sum()


def power_law(rng, n):
    sizes = np.minimum(rng.zipf(2.0, size=n), n)
    sizes = sizes[np.cumsum(sizes) <= n]
    sizes = np.append(sizes, n - sizes.sum())
    return rng.permutation(np.repeat(np.arange(len(sizes)), sizes))


def moved(rng, labels, fraction):
    out = labels.copy()
    idx = rng.choice(len(labels), size=int(fraction * len(labels)), replace=False)
    out[idx] = rng.integers(0, labels.max() + 1, size=len(idx))
    return out


def merged_and_split(rng, labels):
    k = labels.max() + 1
    remap = np.arange(k)
    chosen = rng.choice(k, size=k // 10, replace=False)
    remap[chosen] = rng.integers(0, k, size=len(chosen))
    out = remap[labels]
    split = rng.random(len(labels)) < 0.05
    out[split] += k
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fraction", [0.02, 0.05, 0.10, 0.40])
def test_random_moves_equal_the_dense_solver(seed, fraction):
    rng = np.random.default_rng(seed)
    a = power_law(rng, 3000)
    b = moved(rng, a, fraction)
    assert M.clustering_error(a, b) == pytest.approx(exact_error(a, b), abs=1e-12)
    w = rng.uniform(0.5, 2.0, len(a))
    got = M.clustering_error(a, b, sample_weight=w)
    assert got == pytest.approx(exact_error(a, b, w), abs=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_splits_and_merges_equal_the_dense_solver(seed):
    rng = np.random.default_rng(100 + seed)
    a = power_law(rng, 3000)
    b = merged_and_split(rng, a)
    assert M.clustering_error(a, b) == pytest.approx(exact_error(a, b), abs=1e-12)
    assert M.clustering_error(b, a) == pytest.approx(exact_error(b, a), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [3, 30, 300, 1500])
def test_unrelated_labelings_equal_the_dense_solver(seed, k):
    """Every cell about equally heavy: ties everywhere, nothing for the fixing rule."""
    rng = np.random.default_rng(200 + seed)
    a, b = rng.integers(0, k, 3000), rng.integers(0, k, 3000)
    assert M.clustering_error(a, b) == pytest.approx(exact_error(a, b), abs=1e-12)
    w = rng.choice([0.5, 1.0, 3.0], 3000)  # ties between weighted cells too
    got = M.clustering_error(a, b, sample_weight=w)
    assert got == pytest.approx(exact_error(a, b, w), abs=1e-10)


@pytest.mark.parametrize("seed", range(20))
def test_small_knots_with_ties_at_the_fixing_bound(seed):
    """Cells holding exactly a third of their row and column together, and rows split
    in halves: the rule's equality cases."""
    rng = np.random.default_rng(300 + seed)
    blocks_a, blocks_b, base = [], [], 0
    for _ in range(40):
        sa = rng.integers(0, 3, 6)
        sb = rng.integers(0, 3, 6)
        blocks_a.append(base + sa)
        blocks_b.append(base + sb)
        base += 3
    a, b = np.concatenate(blocks_a), np.concatenate(blocks_b)
    assert M.clustering_error(a, b) == pytest.approx(exact_error(a, b), abs=1e-12)
    w = rng.integers(1, 4, len(a)).astype(float)
    assert M.clustering_error(a, b, sample_weight=w) == pytest.approx(
        exact_error(a, b, w), abs=1e-12
    )


@pytest.mark.parametrize("fraction", [0.02, 0.10])
def test_every_other_metric_on_random_moves_agrees_with_scikit_learn(fraction):
    from sklearn import metrics as skm

    rng = np.random.default_rng(400)
    a = power_law(rng, 20_000)
    b = moved(rng, a, fraction)
    ours = M.all_scores(a, b)
    for name in ("adjusted_rand_score", "rand_score", "normalized_mutual_info_score",
                 "adjusted_mutual_info_score", "homogeneity_score", "completeness_score",
                 "v_measure_score", "fowlkes_mallows_score", "mutual_info_score"):  # fmt: skip
        assert ours[name] == pytest.approx(getattr(skm, name)(a, b), rel=1e-9, abs=1e-12), name
