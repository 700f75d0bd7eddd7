"""How many pairs to judge (SPEC §4, "planning the judgements"): the core sizes the strata
from the diff's multipliers and the class proportions, taken from a judged pilot sample
when one is given and at their worst case (1/2) otherwise."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from . import _core
from ._diff import Diff
from ._sample import _totals, estimate, load_sample


def plan_pairs(
    base: Any,
    exp: Any,
    items: Any = None,
    *,
    half_width: float,
    confidence: float = 0.95,
    metrics: Sequence[str] | None = None,
    pilot: tuple[Any, Any] | None = None,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> dict[str, Any]:
    """The diff pairs and stable pairs to draw (`sample_pairs(..., pairs, stable_pairs)`)
    so that each of `metrics` (default: good and bad split and merge distances and the
    affected indices) has a `confidence` interval of half-width at most `half_width`.
    `pilot`: (sample, verdicts) already judged, whose class proportions replace the worst
    case. Returns {"pairs", "stable_pairs", "judgements", "predicted_half_width"}."""
    if isinstance(half_width, bool) or not isinstance(half_width, int | float):
        raise ValueError(f"half_width must be a number > 0, not {half_width!r}")
    if isinstance(metrics, str):
        metrics = [metrics]
    d = Diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    totals = _totals(d)
    shares = _pilot_shares(pilot, totals) if pilot is not None else (0.5, 0.5, 0.5)
    try:
        return _core.plan_pairs(totals, *shares, float(half_width), float(confidence),
                                list(metrics or []))  # fmt: skip
    except ValueError as e:
        raise ValueError(str(e)) from None


def _pilot_shares(pilot: Any, totals: dict) -> tuple[float, float, float]:
    """The share of i ≡ j among a pilot's judged split, merge and stable non-self pairs
    (1/2 for a class it has no judgement of)."""
    if not isinstance(pilot, tuple | list) or len(pilot) != 2:
        raise ValueError("pilot must be (sample, verdicts): a judged sample of the same diff")
    sample, verdicts = pilot
    sample = load_sample(sample) if not hasattr(sample, "meta") else sample
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a pilot is small by design
        est = estimate(sample, verdicts)
    t = sample.meta["totals"]

    def share(value: float | None, multiplier: float, known: float = 0.0) -> float:
        if value is None or multiplier <= 0 or not math.isfinite(value):
            return 0.5
        return min(1.0, max(0.0, (value - known) / multiplier))

    self = t["self_mass"] / t["stable_mass"] if t["stable_mass"] > 0 else 0.0
    aji = t["affected_jaccard_index"]
    return (
        share(est["bad_split_distance"]["estimate"], t["split_distance"]),
        share(est["good_merge_distance"]["estimate"], t["merge_distance"]),
        share(est["affected_good_index"]["estimate"], aji * (1 - self), aji * self),
    )
