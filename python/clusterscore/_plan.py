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
    case. Returns {"pairs", "stable_pairs", "judgements", "predicted_half_width"}."""
    if isinstance(half_width, bool) or not isinstance(half_width, int | float):
        raise ValueError(f"{term('half_width')} must be a number > 0, not {half_width!r}")
    if isinstance(metrics, str):
        metrics = [metrics]
    d = Diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    totals = d.sample_totals
    shares = _pilot_shares(pilot) if pilot is not None else (0.5, 0.5, 0.5)
    try:
        return _core.plan_pairs(totals, *shares, float(half_width), float(confidence),
                                list(metrics or []))  # fmt: skip
    except ValueError as e:
        raise ValueError(str(e)) from None


def _pilot_shares(pilot: Any) -> tuple[float, float, float]:
    """The pilot's class proportions; the worst case 1/2 for a class it has not judged."""
    if not isinstance(pilot, tuple | list) or len(pilot) != 2:
        raise ValueError("pilot must be (sample, verdicts): a judged sample of the same diff")
    sample, verdicts = pilot
    sample = load_sample(sample) if not hasattr(sample, "meta") else sample
    shares = judged_shares(sample, verdicts)
    split, merge, stable = (shares[k] for k in ("split", "merge", "stable"))
    return (
        0.5 if split is None else split,
        0.5 if merge is None else merge,
        0.5 if stable is None else stable,
    )
