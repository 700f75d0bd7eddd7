"""Scoring a clustering against a ground truth (SPEC §1)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from . import _core
from ._comparison import Comparison
from ._progress import step


class Evaluation(Comparison):
    """An actual clustering scored against a truth on their common items.

    `.overall` and `.coverage` are dicts; `.per_item()`, `.per_cluster("truth" | "actual")`
    and `.per_slice(column)` are pandas DataFrames.
    """

    _roles = ("truth", "actual")
    _family = _core.MetricFamily.pointwise

    @property
    def classic(self) -> dict[str, float | None]:
        """The classic external metrics (clusterscore.metrics) on the common items, from
        item counts (unweighted, so that they agree with scikit-learn's)."""
        return dict(self._classic_scores)

    @cached_property
    def _classic_scores(self) -> dict[str, float | None]:
        # Computed once: at 1e7 items a call takes ~0.8 s, and the CLI both prints and
        # writes them.
        with step("classic metrics"):
            scores = self._core.classic()
        scores.pop("pair_confusion_matrix")
        return scores


def evaluate(
    truth: Any,
    actual: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> Evaluation:
    """Scores `actual` against `truth` (each a path, DataFrame, Arrow table or dict
    {item: cluster}); `items` optionally gives weights and slice columns."""
    return Evaluation(
        truth, actual, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col
    )
