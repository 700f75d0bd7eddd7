"""How many pairs to judge (docs/metrics.md, judging, "planning the judgements"): the core sizes
the strata from the diff's multipliers and the class proportions, taken from a judged pilot sample
when one is given and at their worst case (1/2) otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _core
from ._diff import Diff
from ._sample import judged_shares, load_sample
from ._terms import term


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
    case. Returns {"pairs", "stable_pairs", "judgements", "predicted_half_width"}; with a
    stratified pilot also "more_pairs" and "more_stable_pairs": the draws to add to it
    (`continue_sample(pilot_sample, ..., pairs=more_pairs, stable_pairs=more_stable_pairs)`)."""
    d = Diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    return plan_from_diff(d, half_width=half_width, confidence=confidence, metrics=metrics,
                          pilot=pilot)  # fmt: skip


def plan_from_diff(
    d: Any,
    *,
    half_width: float,
    confidence: float = 0.95,
    metrics: Sequence[str] | None = None,
    pilot: tuple[Any, Any] | None = None,
) -> dict[str, Any]:
    """plan_pairs on a Diff already built (to plan round after round of one diff)."""
    if isinstance(half_width, bool) or not isinstance(half_width, int | float):
        raise ValueError(f"{term('half_width')} must be a number > 0, not {half_width!r}")
    if isinstance(metrics, str):
        metrics = [metrics]
    sample = None
    shares = (0.5, 0.5, 0.5)
    if pilot is not None:
        sample, shares = _pilot_shares(pilot)
    try:
        plan = _core.plan_pairs(d.sample_totals, *shares, float(half_width), float(confidence),
                                list(metrics or []))  # fmt: skip
    except ValueError as e:
        raise ValueError(str(e)) from None
    if sample is not None and sample.meta["mode"] == "stratified":
        if sample.meta["fingerprint"] != d.fingerprint:
            raise ValueError("the pilot sample was drawn from other inputs than these")
        plan["more_pairs"] = max(0, plan["pairs"] - sample.meta["pairs"])
        plan["more_stable_pairs"] = max(0, plan["stable_pairs"] - sample.meta["stable_pairs"])
    return plan


def _pilot_shares(pilot: Any) -> tuple[Any, tuple[float, float, float]]:
    """The pilot sample and its class proportions; the worst case 1/2 for a class it has
    not judged."""
    if not isinstance(pilot, tuple | list) or len(pilot) != 2:
        raise ValueError("pilot must be (sample, verdicts): a judged sample of the same diff")
    sample, verdicts = pilot
    sample = load_sample(sample) if not hasattr(sample, "meta") else sample
    shares = judged_shares(sample, verdicts)
    split, merge, stable = (shares[k] for k in ("split", "merge", "stable"))
    return sample, (
        0.5 if split is None else split,
        0.5 if merge is None else merge,
        0.5 if stable is None else stable,
    )
