"""The dumbest correct versions of the metrics: explicit sets per item. Test-only."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any


def common_members(a: dict, b: dict) -> tuple[dict, dict, list]:
    """Clusters as sets, restricted to the common items T."""
    t = [i for i in a if i in b]
    ta, tb = defaultdict(set), defaultdict(set)
    for i in t:
        ta[a[i]].add(i)
        tb[b[i]].add(i)
    return ta, tb, t


def pointwise_items(truth: dict, actual: dict, w: dict) -> dict:
    """Per item of T: tp, fp, fn, tn and every docs/metrics.md metric, by set operations."""
    ta, tb, t = common_members(truth, actual)
    total = sum(w[i] for i in t)
    out = {}
    for i in t:
        ideal, act = ta[truth[i]], tb[actual[i]]
        tp = sum(w[j] for j in ideal & act)
        fp = sum(w[j] for j in act - ideal)
        fn = sum(w[j] for j in ideal - act)
        tn = total - tp - fp - fn
        out[i] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": tp / (tp + fp),
            "recall": tp / (tp + fn),
            "f1": 2 * tp / (2 * tp + fp + fn),
            "accuracy": (tp + tn) / total,
            "jaccard_index": tp / (tp + fp + fn),
            "jaccard_distance": 1 - tp / (tp + fp + fn),
            "over_merge_rate": 1 - tp / (tp + fp),
            "under_merge_rate": 1 - tp / (tp + fn),
        }
    return out


MEAN_METRICS = [
    "precision",
    "recall",
    "f1",
    "accuracy",
    "jaccard_index",
    "jaccard_distance",
    "over_merge_rate",
    "under_merge_rate",
]


def mean_over(per_item: dict, w: dict, members) -> dict:
    members = [i for i in members if i in per_item]
    total = sum(w[i] for i in members)
    out = {m: sum(w[i] * per_item[i][m] for i in members) / total for m in MEAN_METRICS}
    p, r = out["precision"], out["recall"]
    out["f1_of_means"] = 2 * p * r / (p + r)
    out["items"] = len(members)
    out["weight"] = total
    return out


def groups_of(mapping: dict, items) -> dict:
    g = defaultdict(list)
    for i in items:
        g[mapping.get(i)].append(i)
    return g


def as_fraction(x) -> Fraction:
    return Fraction(x).limit_denominator(10**6)


IMPACT_METRICS = [
    "split_distance", "merge_distance", "jaccard_distance", "jaccard_index",
    "split_rate", "merge_rate",
]  # fmt: skip


def impact_items(base: dict, exp: dict, w: dict) -> dict:
    """Per item of T: docs/metrics.md, diff quantities by set operations."""
    tb, te, t = common_members(base, exp)
    out = {}
    for i in t:
        bs, es = tb[base[i]], te[exp[i]]
        b = sum(w[j] for j in bs)
        e = sum(w[j] for j in es)
        x = sum(w[j] for j in bs & es)
        u = sum(w[j] for j in bs | es)
        out[i] = {
            "B": b, "E": e, "X": x, "U": u,
            "split_distance": (b - x) / u, "merge_distance": (e - x) / u,
            "jaccard_distance": (b + e - 2 * x) / u, "jaccard_index": x / u,
            "split_rate": (b - x) / b, "merge_rate": (e - x) / e,
            "affected": bs != es,
        }  # fmt: skip
    return out


def impact_mean(per_item: dict, w: dict, members) -> dict:
    members = [i for i in members if i in per_item]
    total = sum(w[i] for i in members)
    out = {m: sum(w[i] * per_item[i][m] for i in members) / total for m in IMPACT_METRICS}
    out["affected_weight"] = sum(w[i] for i in members if per_item[i]["affected"])
    out["items"] = len(members)
    out["weight"] = total
    return out


def pair_counts(labels_true, labels_pred, w=None) -> dict:
    """Unordered distinct pairs {i, j} enumerated explicitly; a pair counts w_i·w_j.
    a: together in both, b: together in truth only, c: together in pred only, d: neither."""
    n = len(labels_true)
    w = [1.0] * n if w is None else list(w)
    out = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}
    for i in range(n):
        for j in range(i + 1, n):
            t = labels_true[i] == labels_true[j]
            p = labels_pred[i] == labels_pred[j]
            key = "a" if t and p else "b" if t else "c" if p else "d"
            out[key] += w[i] * w[j]
    return out


def set_matching(labels_true, labels_pred, w=None) -> dict:
    """F-measure, purity, inverse purity and B-cubed by explicit sets; the optimal
    one-to-one mapping by trying every injection (small inputs only)."""
    from itertools import permutations

    n = len(labels_true)
    w = [1.0] * n if w is None else list(w)
    total = sum(w)
    truth, pred = defaultdict(set), defaultdict(set)
    for i in range(n):
        truth[labels_true[i]].add(i)
        pred[labels_pred[i]].add(i)

    def mass(s):
        return sum(w[i] for i in s)

    f = sum(
        mass(y) * max(2 * mass(y & c) / (mass(y) + mass(c)) for c in pred.values())
        for y in truth.values()
    )
    purity = sum(max(mass(y & c) for y in truth.values()) for c in pred.values())
    inverse = sum(max(mass(y & c) for c in pred.values()) for y in truth.values())
    bp = sum(
        w[i] * mass(truth[labels_true[i]] & pred[labels_pred[i]]) / mass(pred[labels_pred[i]])
        for i in range(n)
    )  # noqa: E501
    br = sum(
        w[i] * mass(truth[labels_true[i]] & pred[labels_pred[i]]) / mass(truth[labels_true[i]])
        for i in range(n)
    )  # noqa: E501
    ts, ps = list(truth.values()), list(pred.values())
    if len(ts) > len(ps):
        ts, ps = ps, ts
    best = max(
        sum(mass(t & p) for t, p in zip(ts, perm, strict=False))
        for perm in permutations(ps, len(ts))
    )
    return {
        "f_measure_score": f / total, "purity_score": purity / total,
        "inverse_purity_score": inverse / total, "bcubed_precision_score": bp / total,
        "bcubed_recall_score": br / total, "clustering_error": 1 - best / total,
    }  # fmt: skip


def abcde_pairs(base: dict, exp: dict, w: dict) -> list:
    """Every pair of docs/metrics.md's populations with its exact weight: (i, j, kind, w_ij, U,
    B, E). Split and merge pairs of all items; stable and self pairs of affected items."""
    tb, te, t = common_members(base, exp)
    total = sum(w[i] for i in t)
    out = []
    for i in t:
        bs, es = tb[base[i]], te[exp[i]]
        b, e = sum(w[j] for j in bs), sum(w[j] for j in es)
        u = sum(w[j] for j in bs | es)
        affected = bs != es
        for j in bs | es:
            kind = ("self" if j == i else "stable") if j in bs and j in es else (
                "split" if j in bs else "merge")  # fmt: skip
            if kind in ("self", "stable") and not affected:
                continue
            out.append((i, j, kind, w[i] * w[j] / (total * u), u, b, e))
    return out


def abcde_truth(pairs: list, ideal: dict, flip: Any = 0.0) -> dict:
    """Exact values of the docs/metrics.md, judging estimands given the ideal clustering; with
    `flip` (a probability, or a function of the pair (i, j) giving one), what raters who
    answer each judged pair wrongly with that probability estimate (self pairs are never
    judged: always the same entity)."""

    def same(i, j):
        s = ideal[i] == ideal[j]
        f = flip(i, j) if callable(flip) else flip
        return float(s) if i == j else (1.0 - f if s else f)

    v = dict.fromkeys(
        ["good_split_distance", "bad_split_distance", "good_merge_distance", "bad_merge_distance",
         "affected_good_index", "affected_bad_index", "delta_precision", "good_split_rate",
         "bad_split_rate", "good_merge_rate", "bad_merge_rate"], 0.0)  # fmt: skip
    for i, j, kind, wij, u, b, e in pairs:
        s = same(i, j)
        if kind == "split":  # s: the probability of the verdict "same"
            v["good_split_distance"] += wij * (1 - s)
            v["bad_split_distance"] += wij * s
            v["good_split_rate"] += wij * u / b * (1 - s)
            v["bad_split_rate"] += wij * u / b * s
            v["delta_precision"] += wij * (-u / b) * s
        elif kind == "merge":
            v["good_merge_distance"] += wij * s
            v["bad_merge_distance"] += wij * (1 - s)
            v["good_merge_rate"] += wij * u / e * s
            v["bad_merge_rate"] += wij * u / e * (1 - s)
            v["delta_precision"] += wij * (u / e) * s
        else:
            v["affected_good_index"] += wij * s
            v["affected_bad_index"] += wij * (1 - s)
            v["delta_precision"] += wij * (u / e - u / b) * s
    v["good_distance"] = v["good_split_distance"] + v["good_merge_distance"]
    v["bad_distance"] = v["bad_split_distance"] + v["bad_merge_distance"]
    return v
