"""What scoring against a truth that is a sample needs beside the metrics: the truth
scope, the truth clusters' design weights, and the bootstrap's options (docs/metrics.md:
scoring, truth scope). The estimates and their intervals are the core's (paired_bootstrap)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _arrays, _core
from ._io import (
    Source,
    clip,
    load_table,
    require_columns,
    require_no_nulls,
    require_numeric,
    require_rows,
    revive_ids,
)
from ._terms import setting, term

SCOPES = {"common": _core.TruthScope.common, "entities": _core.TruthScope.entities}
DESIGNS = ("uniform", "inverse_size")


def scope_of(truth_scope: Any) -> _core.TruthScope:
    if not isinstance(truth_scope, str) or truth_scope not in SCOPES:
        shown = clip(repr(truth_scope), 60)
        raise ValueError(f"{term('truth_scope')} must be 'common' or 'entities', not {shown}")
    return SCOPES[truth_scope]


# More resamples than this add nothing a person could see (the intervals' ends move by
# far less than their printed digits) and cost time in proportion.
MOST_RESAMPLES = 10_000_000


# Percentile intervals keep every replicate of every value they are given for: at most
# this many doubles (400 MB) for one table of intervals by a slice. A slice of more values
# than that allows gets intervals for its heaviest values, and a warning says so.
INTERVAL_DOUBLES = 50_000_000
# Replicates a value costs beyond the resamples (the common scope's jackknife), and its
# metrics (pointwise and pair metrics, with room).
_MORE_REPLICATES, _METRICS = 200, 16


def most_interval_groups(resamples: int, runs: int) -> int:
    """How many groups of a slice get intervals from `runs` runs' bootstrap (their values
    and their pairwise deltas) within INTERVAL_DOUBLES."""
    tables = runs + runs * (runs - 1) // 2
    per_group = (resamples + _MORE_REPLICATES) * _METRICS * tables
    return max(100, INTERVAL_DOUBLES // per_group)


def group_batches(sizes: list[int], most: int) -> list[list[int]]:
    """The groupings of `sizes` groups each, in order, cut into consecutive batches of at
    most `most` groups (a grouping larger than that alone): one bootstrap per batch."""
    batches: list[list[int]] = []
    held = 0
    for i, n in enumerate(sizes):
        if not batches or held + n > most:
            batches.append([])
            held = 0
        batches[-1].append(i)
        held += n
    return batches


@dataclass(frozen=True)
class BootstrapOptions:
    """The bootstrap's options, checked: resamples in [1, MOST_RESAMPLES], confidence in
    (0, 1), a 64-bit seed."""

    resamples: int = 1000
    seed: int = 0
    confidence: float = 0.95

    def __post_init__(self) -> None:
        r, s, c = self.resamples, self.seed, self.confidence
        if (
            isinstance(r, bool)
            or not isinstance(r, int | np.integer)
            or not 1 <= r <= MOST_RESAMPLES
        ):
            raise ValueError(
                f"{term('resamples')} must be a whole number in [1, {MOST_RESAMPLES:,}], not"
                f" {clip(repr(r), 60)}"
            )
        if isinstance(s, bool) or not isinstance(s, int | np.integer) or not 0 <= s < 2**64:
            raise ValueError(
                f"{term('seed')} must be a whole number in [0, 2^64), not {clip(repr(s), 60)}"
            )
        ok = isinstance(c, int | float | np.floating) and not isinstance(c, bool)
        if not ok or not 0 < float(c) < 1:
            raise ValueError(
                f"{term('confidence')} must be a number in (0, 1), not {clip(repr(c), 60)}"
            )

    def args(self) -> tuple[int, int, float]:
        return int(self.resamples), int(self.seed), float(self.confidence)


# Why a value has no interval: the core's NoInterval codes (1, 2), in words.
_NO_INTERVAL = [None, "fewer than 2 truth clusters", "no resample moves it"]


def interval_notes(codes: Any) -> pa.Array:
    """Per row of a bootstrap's table, why it has no interval (null where it has one)."""
    return pa.array([_NO_INTERVAL[int(c)] for c in codes], pa.string())


class CommonScopeWarning(UserWarning):
    """Actual items lie outside the truth: precision is that of the common items only."""


def common_scope_caveat(evaluation: Any) -> str | None:
    """In the common scope, when the actual clustering has items outside the truth: what
    the numbers leave out, and the scope that counts it; None otherwise."""
    outside = evaluation.coverage["actual_only_items"]
    if evaluation.truth_scope != "common" or outside == 0:
        return None
    return (
        f"{outside:,} actual items lie outside the truth: false merges with them are not"
        " counted, so precision is that of the common items only. If the truth lists complete"
        f" entities, {setting('truth_scope', 'entities')} estimates the whole clustering."
    )


AVERAGES = ("items", "entities")


def average_of(average: Any, truth_scope: str) -> str:
    """`average`, checked: "items" or "entities" (the entities scope only: it reweighs the
    truth's entities, which the common scope's intervals recompute without)."""
    if average not in AVERAGES:
        raise ValueError(
            f"{term('average')} must be 'items' or 'entities', not {clip(repr(average), 60)}"
        )
    if average == "entities" and truth_scope != "entities":
        raise ValueError(
            f"{setting('average', 'entities')} counts each truth entity once: it needs"
            f" {setting('truth_scope', 'entities')}"
        )
    return str(average)


def design_weights(evaluation: Any, cluster_weights: Any) -> tuple[str, np.ndarray | None]:
    """How `evaluation`'s truth clusters were drawn: "uniform", "inverse_size" or "given",
    and for "given" each truth cluster's design weight (the core's order).
    `cluster_weights`: None or "uniform", "inverse_size", a mapping {cluster: weight}, or a
    table (path, DataFrame, Arrow table) with columns cluster_id and weight."""
    if cluster_weights is None or (
        isinstance(cluster_weights, str) and cluster_weights == "uniform"
    ):
        return "uniform", None
    if isinstance(cluster_weights, str) and cluster_weights == "inverse_size":
        return "inverse_size", None
    if isinstance(cluster_weights, str) and not os.path.splitext(cluster_weights)[1]:
        raise ValueError(
            f"{term('cluster_weights')} must be 'uniform', 'inverse_size', a mapping, or a table"
            f" with columns cluster_id and weight, not {clip(repr(cluster_weights), 60)}"
        )
    src = _weights_table(cluster_weights)
    truth = evaluation.sources[0]
    d = _weights_by_cluster(src, evaluation.cluster_labels(evaluation.roles[0]), truth.name)
    # The estimates are sums of design weight × item weight: they must stay numbers (a
    # margin of 4 for the compensated sums on the way, as for item weights).
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(d) * max(1.0, float(evaluation.coverage["truth_weight"])) * 4.0
    if not np.isfinite(total):
        raise ValueError(
            f"{src.name}: the design weights times the items' weights sum past a quarter of the"
            " largest double (~1.8e308); divide the design weights by one constant (the"
            " estimates stay the same)"
        )
    return "given", d


def _weights_table(obj: Any) -> Source:
    if isinstance(obj, Mapping):
        keys = list(obj.keys())
        try:
            table = pa.table({"cluster_id": keys, "weight": list(obj.values())})
        except (pa.ArrowTypeError, pa.ArrowInvalid) as e:
            raise ValueError(f"cluster_weights: {clip(str(e), 120)}") from None
        src = Source(table, "cluster_weights", "memory")
    else:
        src = load_table(obj, "cluster_weights", ("cluster_id",))
        revive_ids(src, ("cluster_id",))
    require_columns(src, ["cluster_id", "weight"], "a design-weights table has cluster_id, weight")
    require_rows(src)
    require_no_nulls(src, "cluster_id")
    require_no_nulls(src, "weight")
    require_numeric(src, "weight")
    return src


def _weights_by_cluster(src: Source, labels: pa.Array, truth_name: str) -> np.ndarray:
    ids = src.table.column("cluster_id")
    as_string = not (_arrays.is_integer(ids) and _arrays.is_integer(labels))
    ids = _arrays.flat(_arrays.normalize_ids(ids, as_string))
    labels = _arrays.flat(_arrays.normalize_ids(labels, as_string))
    weights = _arrays.float_array(src.table.column("weight"))
    row = _arrays.first_bad_weight(weights)
    if row is not None:
        raise ValueError(
            f"{src.where(row)}: weight {_shown(src.table.column('weight')[row])} of cluster"
            f" {_shown(ids[row])} is not a finite number > 0"
        )
    counts = pc.value_counts(ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        rows = pc.indices_nonzero(pc.equal(ids, repeated[0]))
        row = rows[1].as_py()  # where it comes again
        raise ValueError(f"{src.where(row)}: cluster {_shown(repeated[0])} is given twice")
    unknown = pc.is_null(pc.index_in(ids, value_set=labels))
    if pc.any(unknown).as_py():
        row = pc.index(unknown, True).as_py()
        raise ValueError(f"{src.where(row)}: cluster {_shown(ids[row])} is not in {truth_name}")
    at = pc.index_in(labels, value_set=ids)
    if at.null_count:
        missing = labels[pc.index(pc.is_null(at), True).as_py()]
        raise ValueError(
            f"{src.name}: no weight for cluster {_shown(missing)} of {truth_name}"
            f" ({at.null_count:,} of its {len(labels):,} clusters have none)"
        )
    return weights[np.asarray(at)]


def _shown(value: Any) -> str:
    v = value.as_py() if hasattr(value, "as_py") else value
    return clip(repr(v), 60)
