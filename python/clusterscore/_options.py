"""How a truth scores a clustering, held once: the truth's scope and design weights, the
bootstrap's resamples, seed and confidence, the input columns' names and the average.
evaluate, compare, threshold_curve, the Spark engine and the command line each build one
from their keyword arguments and hand it on; the result classes take its keywords."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from ._estimates import BootstrapOptions, average_of, scope_of


# eq=False: cluster_weights may be a DataFrame, which neither compares nor hashes.
@dataclass(frozen=True, eq=False)
class ScoreOptions:
    """evaluate()'s options, checked when made (before any input is read)."""

    truth_scope: str = "common"
    cluster_weights: Any = None
    confidence: float = 0.95
    resamples: int = 1000
    seed: int = 0
    item_col: str = "item_id"
    cluster_col: str = "cluster_id"
    weight_col: str = "weight"
    average: str = "items"

    def __post_init__(self) -> None:
        scope_of(self.truth_scope)
        average_of(self.average, self.truth_scope)
        self.bootstrap  # noqa: B018 - checks resamples, seed and confidence

    @property
    def bootstrap(self) -> BootstrapOptions:
        return BootstrapOptions(self.resamples, self.seed, self.confidence)

    def keywords(self) -> dict[str, Any]:
        """The options as evaluate()'s and Evaluation()'s keyword arguments."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def but(self, **changes: Any) -> ScoreOptions:
        """The same options with `changes`."""
        return replace(self, **changes)
