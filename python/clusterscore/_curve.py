"""A clustering's quality at every match threshold of scored pairs (docs/metrics.md,
curves): the clustering at threshold t links every pair scored t or more (connected
components), and the core walks the pairs once in descending score."""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _arrays, _core
from ._estimates import CommonScopeWarning, common_scope_caveat
from ._evaluate import Evaluation
from ._format import better
from ._io import (
    load_items,
    load_table,
    require_columns,
    require_id_column,
    require_no_nulls,
    require_numeric,
    require_rows,
)
from ._io_source import Source
from ._notebook import result_html
from ._options import ScoreOptions
from ._progress import step
from ._terms import term

# Splink's predictions table, read with no options.
SPLINK_COLUMNS = ("unique_id_l", "unique_id_r", "match_probability")


class Best(NamedTuple):
    """The threshold where a metric of the curve is best, and its value there."""

    threshold: float
    value: float


class ThresholdCurve:
    """The overall metrics of the clustering at each threshold of scored pairs.

    `.curve` is a DataFrame (`threshold` descending, `clusters`, then every overall
    metric of `evaluate`); `.best(metric)` the threshold where a metric is best and its
    value; `.at(t)` the full `Evaluation` of the clustering at threshold t."""

    def __repr__(self) -> str:
        best = self.best("f1")
        return (f"ThresholdCurve({len(self.curve):,} thresholds kept; best f1"
                f" {best.value:.4f} at {best.threshold:.6g})")  # fmt: skip

    def _repr_html_(self) -> str:
        return result_html(self)

    def __init__(
        self,
        truth: Any,
        pairs: Any,
        items: Any = None,
        *,
        left_col: str = SPLINK_COLUMNS[0],
        right_col: str = SPLINK_COLUMNS[1],
        score_col: str = SPLINK_COLUMNS[2],
        thresholds: Any = None,
        max_points: int = 1000,
        options: ScoreOptions,
    ) -> None:
        item_col, cluster_col = options.item_col, options.cluster_col
        with step("reading pairs"):
            self._pairs = _load_pairs(pairs, left_col, right_col, score_col)
        if items is not None:
            items = load_items(items, item_col, options.weight_col)
        ids, self._left, self._right = _actual_items(self._pairs, left_col, right_col, items,
                                                     item_col)  # fmt: skip
        self._ids = ids
        self._score = _arrays.float_array(self._pairs.table.column(score_col))
        self._truth, self._items, self._options = truth, items, options
        singletons = pa.table({item_col: ids, cluster_col: pa.array(np.arange(len(ids)))})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CommonScopeWarning)
            base = Evaluation(truth, Source(singletons, "actual", "memory"), items,
                              **options.keywords())  # fmt: skip
        # Said once, by this call: actual items outside the truth stay outside at every t.
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=3)
        self._truth = base.sources[0]
        # The common scope's caveat (None if none): what precision speaks of at every t.
        self.caveat = common_scope_caveat(base)
        given = [] if thresholds is None else _thresholds(thresholds, self._score)
        with base._errors(pairs=self._pairs), step("curve over the thresholds"):
            t = _core.threshold_curve(base.core, self._left, self._right, self._score, given,
                                      int(max_points))  # fmt: skip
        self.pairs, self.distinct_scores = int(t.pairs), int(t.distinct_scores)
        columns = {"threshold": t.threshold, "clusters": t.clusters}
        self.curve = pd.DataFrame({**columns, **_arrays.named_columns(t)})
        self._best_rows = t.best

    def best(self, metric: str) -> Best:
        """The threshold where `metric` (a column of `.curve`) is best, by its direction
        (higher or lower), and its value; the highest such threshold among ties. For f1,
        f1_of_means and pair_f1 over every threshold, rows are kept where they are best."""
        if metric not in self.curve.columns or metric in ("threshold", "clusters"):
            have = ", ".join(c for c in self.curve.columns if c not in ("threshold", "clusters"))
            raise ValueError(f"no metric {metric!r} in the curve (metrics: {have})")
        row = self._best_rows.get(metric)
        if row is None:
            values = self.curve[metric]
            if values.isna().all():
                raise ValueError(f"{metric} is undefined at every threshold")
            row = int(
                values.idxmin() if better(metric, "pointwise") == "lower" else values.idxmax()
            )
        return Best(float(self.curve.threshold[row]), float(self.curve[metric][row]))

    @property
    def inputs(self) -> tuple[Source, Source | None]:
        """The truth and the items table as read: another curve of the same truth takes
        them as they are, without reading them again."""
        return self._truth, self._items

    @property
    def kept_best(self) -> tuple[str, ...]:
        """The metrics whose best rows the curve always keeps: f1, f1_of_means, pair_f1."""
        return tuple(self._best_rows)

    def best_table(self, metrics: tuple[str, ...] | None = None) -> pd.DataFrame:
        """Per metric (default: kept_best), where it is best (`.best()`), with its
        interval there from the bootstrap of the clustering at that threshold
        (`.at(t).intervals()`, one per distinct threshold): columns metric, threshold,
        clusters, value, std_error, ci_low, ci_high, interval_note."""
        rows, evaluations = [], {}
        for metric in self.kept_best if metrics is None else metrics:
            threshold, value = self.best(metric)
            if threshold not in evaluations:
                evaluations[threshold] = self.at(threshold).intervals().set_index("metric")
            iv = evaluations[threshold].loc[metric]
            clusters = int(self.curve.clusters[self.curve.threshold == threshold].iloc[0])
            rows.append({"metric": metric, "threshold": threshold, "clusters": clusters,
                         "value": value, "std_error": iv.std_error, "ci_low": iv.ci_low,
                         "ci_high": iv.ci_high, "interval_note": iv.interval_note})  # fmt: skip
        return pd.DataFrame(rows)

    def clustering_at(self, threshold: float) -> pa.Table:
        """The clustering at `threshold` (item id, cluster id: each component named by
        its first item in order of appearance)."""
        labels = _core.components_at(len(self._ids), self._left, self._right, self._score,
                                     float(threshold))  # fmt: skip
        item_col, cluster_col = self._options.item_col, self._options.cluster_col
        return pa.table({item_col: self._ids, cluster_col: _arrays.take(self._ids, labels)})

    def at(self, threshold: float) -> Evaluation:
        """The full evaluation (every level, intervals included) of the clustering at
        `threshold`."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CommonScopeWarning)  # said when the curve was made
            return Evaluation(self._truth, self.clustering_at(threshold), self._items,
                              **self._options.keywords())  # fmt: skip


def _thresholds(thresholds: Any, scores: np.ndarray) -> list[float]:
    """The thresholds asked for: as given, or for a number N, N evenly spaced from the
    lowest score to the highest."""
    if isinstance(thresholds, (int, np.integer)) and not isinstance(thresholds, bool):
        if thresholds < 2:
            raise ValueError(f"{term('thresholds')}: a grid needs at least 2 points")
        return np.linspace(scores.min(), scores.max(), int(thresholds)).tolist()
    values = np.asarray(thresholds, dtype=np.float64).ravel()
    if len(values) == 0:
        raise ValueError(f"{term('thresholds')}: none given")
    if np.isnan(values).any():
        raise ValueError(f"{term('thresholds')}: {values[np.isnan(values)][0]} is not a number")
    return values.tolist()


def _load_pairs(pairs: Any, left_col: str, right_col: str, score_col: str) -> Source:
    src = load_table(pairs, "pairs", (left_col, right_col))
    require_columns(src, [left_col, right_col, score_col],
                    f"name the columns with {term('left_col')}, {term('right_col')} and"
                    f" {term('score_col')}")  # fmt: skip
    require_rows(src)
    for column in (left_col, right_col, score_col):
        require_no_nulls(src, column)
    require_id_column(src, left_col)
    require_id_column(src, right_col)
    require_numeric(src, score_col)
    return src


def _actual_items(
    pairs: Source, left_col: str, right_col: str, items: Source | None, item_col: str
) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """The actual clustering's items (named by a pair, or listed in the items table) in
    order of first appearance, and each pair's two items as their places there."""
    columns = [pairs.table.column(left_col), pairs.table.column(right_col)]
    if items is not None:
        columns.append(items.table.column(item_col))
    ids, codes = _arrays.shared_codes(columns)
    if len(ids) >= 2**32 - 1:
        raise ValueError("pairs: more than 2^32 - 2 distinct items")
    n = pairs.table.num_rows
    return ids, np.ascontiguousarray(codes[:n]), np.ascontiguousarray(codes[n : 2 * n])


def threshold_curve(
    truth: Any,
    pairs: Any,
    items: Any = None,
    *,
    left_col: str = SPLINK_COLUMNS[0],
    right_col: str = SPLINK_COLUMNS[1],
    score_col: str = SPLINK_COLUMNS[2],
    thresholds: Any = None,
    max_points: int = 1000,
    truth_scope: str = "common",
    cluster_weights: Any = None,
    average: str = "items",
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> ThresholdCurve:
    """The clustering's overall metrics at every match threshold of `pairs` (a path,
    DataFrame or Arrow table of scored pairs: Splink's predictions by default).

    The clustering at threshold t is the connected components of the pairs scored t or
    more, over every item a pair names or the `items` table lists (the others stay
    alone). With `thresholds=None` every distinct score is a row, at most `max_points` of
    them (evenly spaced in merges; the first, the last and the best rows of f1,
    f1_of_means and pair_f1 always kept); else the thresholds given (a sequence), or a
    number N of them evenly spaced from the lowest score to the highest. A pair named twice
    (in either order) counts once, with its highest score. `truth_scope`,
    `cluster_weights` and `average` as `evaluate`'s; `confidence`, `resamples` and `seed`
    serve `.at(t)`'s intervals."""
    options = ScoreOptions(
        truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average,
    )  # fmt: skip
    return ThresholdCurve(truth, pairs, items, left_col=left_col, right_col=right_col,
                          score_col=score_col, thresholds=thresholds, max_points=max_points,
                          options=options)  # fmt: skip
