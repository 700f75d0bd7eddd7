"""Clusterings held as Spark DataFrames (docs/spark.md): `evaluate`, `compare`, `diff` and
`all_scores` with the in-process API's options and result objects.

Spark does what scales out: it joins the inputs on the item id and groups the items into
*units*, one row per (truth or Base cluster, each other clustering's cluster, slice values)
with the items' count, Σw and Σw². Only the units reach the driver; the C++ core computes
every metric, interval and delta from them, exactly as it does from the items they stand
for. The per-item table is the one result as large as the input: it stays a Spark
DataFrame, the core's per-cell values joined back to the items by Spark.

pyspark is imported only when one of these functions is called (`pip install
'clusterscore[spark]'`)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _diff, _evaluate, _runs
from ._two_clusterings import Units

# Internal column names: never a user's column (slices keep their own names).
_ITEM, _WEIGHT, _ROW = "__cs_item", "__cs_weight", "__cs_row"
_COUNT, _WEIGHT_SQ, _UNIT = "__cs_count", "__cs_weight_sq", "__cs_unit"
_INTEGER_TYPES = {"tinyint", "smallint", "int", "bigint"}


def _functions() -> Any:
    try:
        from pyspark.sql import functions
    except ImportError:
        raise ImportError(
            "clusterscore.spark needs pyspark: pip install 'clusterscore[spark]'"
        ) from None
    return functions


def _require_frame(df: Any, role: str) -> None:
    if not (hasattr(df, "sparkSession") and hasattr(df, "groupBy")):
        raise ValueError(
            f"{role}: clusterscore.spark takes Spark DataFrames, not {type(df).__name__}"
        )


def _require_columns(df: Any, role: str, columns: Sequence[str]) -> None:
    for c in columns:
        if c not in df.columns:
            raise ValueError(f"{role}: no column {c!r} (columns: {', '.join(df.columns)})")


def _kind(df: Any, role: str, column: str) -> str:
    """'integer' or 'string': the kinds of id the core joins on."""
    t = dict(df.dtypes)[column]
    if t in _INTEGER_TYPES:
        return "integer"
    if t == "string":
        return "string"
    raise ValueError(f"{role}: column {column!r} holds {t}; ids must be integers or text")


def _first(df: Any) -> Any:
    rows = df.limit(1).collect()
    return rows[0] if rows else None


def _check_clustering(df: Any, role: str, item_col: str, cluster_col: str) -> None:
    """Names the first item without an id or a cluster, or listed twice."""
    F = _functions()
    _require_frame(df, role)
    _require_columns(df, role, [item_col, cluster_col])
    _kind(df, role, item_col)
    missing = _first(df.where(F.col(item_col).isNull() | F.col(cluster_col).isNull()))
    if missing is not None:
        what = item_col if missing[item_col] is None else cluster_col
        raise ValueError(f"{role}: missing value in column {what!r} (row {missing.asDict()})")
    twice = _first(df.groupBy(item_col).count().where(F.col("count") > 1))
    if twice is not None:
        raise ValueError(f"{role}: item {twice[item_col]!r} appears {twice['count']} times")


def _check_items(df: Any, item_col: str, weight_col: str) -> bool:
    """Checks the items table as _check_clustering does its clusterings, and its weights;
    returns whether it has weights."""
    F = _functions()
    _require_frame(df, "items")
    _require_columns(df, "items", [item_col])
    _kind(df, "items", item_col)
    if _first(df.where(F.col(item_col).isNull())) is not None:
        raise ValueError(f"items: missing value in column {item_col!r}")
    twice = _first(df.groupBy(item_col).count().where(F.col("count") > 1))
    if twice is not None:
        raise ValueError(f"items: item {twice[item_col]!r} appears {twice['count']} times")
    if weight_col not in df.columns:
        if weight_col != "weight":  # only the default may be absent (every weight is then 1)
            _require_columns(df, "items", [weight_col])
        return False
    w = F.col(weight_col).cast("double")
    bad = _first(
        df.where(w.isNull() | F.isnan(w) | (w <= 0) | (w == math.inf)).select(item_col, weight_col)
    )
    if bad is not None:
        raise ValueError(
            f"items: weight {bad[weight_col]!r} of item {bad[item_col]!r} is not a finite"
            " number > 0"
        )
    return True


def _to_arrow(df: Any) -> pa.Table:
    return df.toArrow() if hasattr(df, "toArrow") else pa.Table.from_pandas(df.toPandas())


class _Units:
    """The inputs joined on item id and grouped into units by Spark, and what the result
    objects need of them: each clustering's units, the units table, the items table's
    coverage, and the joined items for the per-item table."""

    def __init__(
        self,
        clusterings: Mapping[str, Any],
        items: Any,
        item_col: str,
        cluster_col: str,
        weight_col: str,
        slices: Sequence[str] | None,
    ) -> None:
        F = _functions()
        kinds = set()
        for role, df in clusterings.items():
            _check_clustering(df, role, item_col, cluster_col)
            kinds.add(_kind(df, role, item_col))
        weighted = items is not None and _check_items(items, item_col, weight_col)
        if items is not None:
            kinds.add(_kind(items, "items", item_col))
        if len(kinds) > 1:
            raise ValueError("item ids must be all integers or all strings in every input")
        self.roles = list(clusterings)
        self.cluster_cols = [f"__cs_cluster{k}" for k in range(len(self.roles))]
        self.slices = self._slices(items, item_col, weight_col, slices)
        joined = None
        for df, col in zip(clusterings.values(), self.cluster_cols, strict=True):
            part = df.select(F.col(item_col).alias(_ITEM), F.col(cluster_col).alias(col))
            joined = part if joined is None else joined.join(part, _ITEM, "full_outer")
        assert joined is not None
        if items is not None:
            cols = [F.col(item_col).alias(_ITEM), F.lit(1).alias(_ROW)]
            if weighted:
                cols.append(F.col(weight_col).cast("double").alias(_WEIGHT))
            cols += [F.col(c) for c in self.slices]
            # Outer: the items table's rows in no clustering are counted for the coverage.
            joined = joined.join(items.select(*cols), _ITEM, "full_outer")
        w = F.col(_WEIGHT) if weighted else F.lit(1.0)
        if weighted:
            w = F.coalesce(w, F.lit(1.0))  # an item without a row weighs 1
        self.items = joined.select(_ITEM, *self.cluster_cols, w.alias(_WEIGHT))
        aggs = [
            F.count(F.lit(1)).alias(_COUNT),
            F.sum(w).alias(_WEIGHT),
            F.sum(w * w).alias(_WEIGHT_SQ),
        ]
        if items is not None:
            aggs.append(F.sum(F.coalesce(F.col(_ROW), F.lit(0))).alias(_ROW))
        grouped = _to_arrow(joined.groupBy(*self.cluster_cols, *self.slices).agg(*aggs))
        self.items_table_rows = 0
        self.items_table_unmatched = 0
        if items is not None:
            self.items_table_rows = int(pc.sum(grouped.column(_ROW)).as_py() or 0)
            in_none = functools.reduce(
                pc.and_, [pc.is_null(grouped.column(c)) for c in self.cluster_cols]
            )
            self.items_table_unmatched = int(
                pc.sum(pc.filter(grouped.column(_COUNT), in_none)).as_py() or 0
            )
            grouped = grouped.filter(pc.invert(in_none)).drop_columns([_ROW])
        # Sorted, so that the first clustering's clusters are numbered alike in every call:
        # compare's runs share their truth clusters' numbers, and a seed its resamples.
        keys = [(c, "ascending") for c in [*self.cluster_cols, *self.slices]]
        grouped = grouped.sort_by(keys)  # nulls last
        unit = pa.array(np.arange(len(grouped), dtype=np.int64))
        self.item_col, self.cluster_col, self.weight_col = item_col, cluster_col, "weight"
        self.table = pa.table(
            {
                item_col: unit,
                "weight": grouped.column(_WEIGHT),
                _COUNT: grouped.column(_COUNT),
                _WEIGHT_SQ: grouped.column(_WEIGHT_SQ),
                **{c: grouped.column(c) for c in self.slices},
            }
        )
        self.sides = {}
        # Per unit, its cluster in each clustering (null where it has none).
        self.clusters = {
            r: grouped.column(c) for r, c in zip(self.roles, self.cluster_cols, strict=True)
        }
        for role, col in zip(self.roles, self.cluster_cols, strict=True):
            has = pc.is_valid(grouped.column(col))
            self.sides[role] = pa.table(
                {item_col: unit.filter(has), cluster_col: grouped.column(col).filter(has)}
            )
        self.session = next(iter(clusterings.values())).sparkSession

    @staticmethod
    def _slices(
        items: Any, item_col: str, weight_col: str, slices: Sequence[str] | None
    ) -> list[str]:
        if items is None:
            if slices:
                raise ValueError("slices need an items table holding the slice columns")
            return []
        if slices is None:  # every column of the items table but the id and the weight
            return [c for c in items.columns if c not in (item_col, weight_col)]
        chosen = [slices] if isinstance(slices, str) else list(slices)
        _require_columns(items, "items", chosen)
        return chosen

    def units(self) -> Units:
        return Units(self.table, _COUNT, _WEIGHT_SQ)


class _OnSpark:
    """What an in-process result does differently when its units came from Spark: the
    items table's coverage is counted by Spark, and the per-item table is a Spark
    DataFrame."""

    _spark: _Units
    roles: tuple[str, str]

    def _spark_coverage(self, coverage: dict[str, Any]) -> dict[str, Any]:
        if "items_table_rows" in coverage:
            coverage["items_table_rows"] = self._spark.items_table_rows
            coverage["items_table_unmatched"] = self._spark.items_table_unmatched
        return coverage

    def _spark_per_item(self, cells: pa.Table) -> Any:
        """The items in both clusterings of this comparison, with their cell's columns
        (`cells`: one row per unit, from the core)."""
        F = _functions()
        u = self._spark
        ra, rb = self.roles
        ca, cb = (u.cluster_cols[u.roles.index(r)] for r in (self._spark_roles))
        per_cell = cells.drop_columns([u.item_col, "weight"])
        keys = [f"{ra}_cluster", f"{rb}_cluster"]
        per_cell = pa.Table.from_pandas(
            per_cell.to_pandas().drop_duplicates(subset=keys), preserve_index=False
        )
        cells_df = u.session.createDataFrame(per_cell)
        items = u.items.where(F.col(ca).isNotNull() & F.col(cb).isNotNull()).select(
            F.col(_ITEM).alias(u.item_col),
            F.col(ca).alias(keys[0]),
            F.col(cb).alias(keys[1]),
            F.col(_WEIGHT).alias("weight"),
        )
        return items.join(cells_df, keys, "inner")

    _spark_roles: tuple[str, str]


class SparkEvaluation(_OnSpark, _evaluate.Evaluation):
    """An Evaluation whose inputs were Spark DataFrames: the same values and methods;
    `per_item()` is a Spark DataFrame."""

    @property
    def coverage(self) -> dict[str, float | int]:
        return self._spark_coverage(super().coverage)

    def per_item(self) -> Any:
        """One row per item in both clusterings, as a Spark DataFrame (in no order)."""
        return self._spark_per_item(super().per_item_table())


class SparkDiff(_OnSpark, _diff.Diff):
    """A Diff whose inputs were Spark DataFrames: the same values and methods;
    `per_item()` is a Spark DataFrame."""

    @property
    def coverage(self) -> dict[str, float | int]:
        return self._spark_coverage(super().coverage)

    def per_item(self) -> Any:
        """One row per item in both clusterings, as a Spark DataFrame (in no order)."""
        return self._spark_per_item(super().per_item_table())


def _evaluation(u: _Units, truth: str, run: str, options: dict[str, Any]) -> SparkEvaluation:
    weights = options.get("cluster_weights")
    if weights is not None and hasattr(weights, "sparkSession"):
        options = {**options, "cluster_weights": _to_arrow(weights)}
    e = SparkEvaluation.__new__(SparkEvaluation)
    e._spark, e._spark_roles = u, (truth, run)
    _evaluate.Evaluation.__init__(
        e, u.sides[truth], u.sides[run], u.units(), item_col=u.item_col,
        cluster_col=u.cluster_col, **options,
    )  # fmt: skip
    return e


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
    slices: Sequence[str] | None = None,
) -> SparkEvaluation:
    """clusterscore.evaluate on Spark DataFrames. `slices`: the items-table columns that
    per_slice() and intervals(by) may group by (default: all but the id and the weight;
    name fewer when some have very many values: the driver holds one row per distinct
    combination in each cell). `cluster_weights` may also be a Spark DataFrame."""
    u = _Units({"truth": truth, "actual": actual}, items, item_col, cluster_col, weight_col, slices)
    options = dict(
        truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed,
    )  # fmt: skip
    return _evaluation(u, "truth", "actual", options)


def compare(
    truth: Any,
    runs: Any,
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
    slices: Sequence[str] | None = None,
) -> _runs.RunComparison:
    """clusterscore.compare on Spark DataFrames (`runs`: a dict {name: DataFrame} or a
    list). One Spark job groups the items by their truth cluster, every run's cluster and
    their slice values, so every run is scored on the same units and resampled alike."""
    named = _runs.run_names(runs)
    if "truth" in named:
        raise ValueError("a run may not be named 'truth'")
    u = _Units({"truth": truth, **named}, items, item_col, cluster_col, weight_col, slices)
    options = dict(
        truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed,
    )  # fmt: skip
    evaluations: dict[str, _evaluate.Evaluation] = {
        name: _evaluation(u, "truth", name, options) for name in named
    }
    return _runs.RunComparison.of(evaluations, truth_scope, confidence, resamples, seed)


def diff(
    base: Any,
    exp: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    slices: Sequence[str] | None = None,
) -> SparkDiff:
    """clusterscore.diff on Spark DataFrames (`slices` as for evaluate)."""
    u = _Units({"base": base, "exp": exp}, items, item_col, cluster_col, weight_col, slices)
    d = SparkDiff.__new__(SparkDiff)
    d._spark, d._spark_roles = u, ("base", "exp")
    _diff.Diff.__init__(d, u.sides["base"], u.sides["exp"], u.units(), item_col=item_col,
                        cluster_col=cluster_col)  # fmt: skip
    return d


def all_scores(
    truth: Any,
    actual: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> dict[str, float | None]:
    """clusterscore.metrics.all_scores of the items in both clusterings, truth's clusters
    as the true labels: weighted when `items` has weights (the adjusted metrics are then
    None, as with sample_weight). Spark counts the cells; the core scores them."""
    from . import metrics

    u = _Units({"truth": truth, "actual": actual}, items, item_col, cluster_col, weight_col, [])
    truth_of, actual_of = u.clusters["truth"], u.clusters["actual"]
    both = pc.and_(pc.is_valid(truth_of), pc.is_valid(actual_of))
    t = u.table.filter(both)
    rows, cols = (_codes(c.filter(both)) for c in (truth_of, actual_of))
    counts = t.column(_COUNT).to_numpy()
    if items is not None and weight_col in items.columns:
        w, w2 = t.column("weight").to_numpy(), t.column(_WEIGHT_SQ).to_numpy()
        scores = metrics.scores_from_cells(rows, cols, counts, w, w2)
    else:
        scores = metrics.scores_from_cells(rows, cols, counts)
    scores.pop("pair_confusion_matrix")
    return scores


def _codes(labels: Any) -> np.ndarray:
    """Labels as indices of their distinct values."""
    return pc.index_in(labels, pc.unique(labels)).to_numpy()
