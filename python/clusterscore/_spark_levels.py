"""Every level of an evaluation or a diff made where the units are: Spark puts beside each
unit its cell's weight and the cell's marginals (window sums), the core turns each
partition's units into what they add to any level's sums (`unit_level_sums`, or
`impact_unit_sums` for a diff, inside mapInArrow), Spark sums those rows by the level's key,
and the core finishes the sums (`finish_level_sums`, `finish_impact_sums`). The driver
receives the overall values, the per-slice rows and the coverage's counts; per-cluster
tables and a diff's flows stay Spark DataFrames."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _core
from ._arrays import named_columns
from ._spark_io import _BAD, _COUNT, _ROW, _WEIGHT, _WEIGHT_SQ, _functions, _to_arrow, kept
from ._two_clusterings import Comparison, nullable

# Internal columns: never a user's (slices keep their own names).
_X, _B, _E, _SIZE = "__cs_x", "__cs_b", "__cs_e", "__cs_size"
_XN, _BN, _EN = "__cs_xn", "__cs_bn", "__cs_en"  # item counts of a cell and its marginals
_SUM = "__cs_sum_"  # before each of the per-unit sums' column names
# A diff's per-unit flags, counted once per cluster (impact_unit_sums), not summed.
_SPLIT, _MERGED = "base_split", "exp_merged"


# Summed rows as the core's functions take them: items, weight, names, columns.
_CoreSums = tuple[np.ndarray, np.ndarray, list[str], list[np.ndarray]]


@functools.cache
def _sum_names(impact: bool) -> list[str]:
    """The per-unit sums' columns after items and weight, as the core names them: those of
    impact_unit_sums() for a diff, of unit_level_sums() for an evaluation."""
    f, u = np.empty(0), np.empty(0, np.uint64)
    if impact:
        return list(_core.impact_unit_sums(u, f, f, f, f, u, u, u).names)
    return list(_core.unit_level_sums(u, f, f, f, f, f, None, 0.0, 1.0, False).names)


@functools.cache
def _value_names(impact: bool) -> list[str]:
    """The finished columns: the values of every level, as the core names them."""
    no_rows = [np.empty(0)] * len(_sum_names(impact))
    return list(_finisher(impact)(*_core_sums(impact, np.empty(0), np.empty(0), no_rows)).names)


def _finisher(impact: bool) -> Any:
    """The core's function that finishes summed rows: values from sums."""
    return _core.finish_impact_sums if impact else _core.finish_level_sums


def _core_sums(impact: bool, items: np.ndarray, weight: np.ndarray,
               sums: list[np.ndarray]) -> _CoreSums:  # fmt: skip
    """Summed rows as the core's functions of them take them: items, weight, names, columns."""
    columns = [np.ascontiguousarray(c, dtype=np.float64) for c in sums]
    items = np.ascontiguousarray(items, dtype=np.uint64)
    return items, np.ascontiguousarray(weight, dtype=np.float64), _sum_names(impact), columns


def _summed_columns(impact: bool) -> list[str]:
    """The columns of the per-unit rows that the levels sum: count, weight, sums."""
    return [_COUNT, _WEIGHT, *(_SUM + n for n in _sum_names(impact))]


def _sums_of(t: pa.Table, impact: bool) -> _CoreSums:
    """The summed rows of table `t` as the core takes them (_core_sums)."""
    sums = [t.column(_SUM + n).to_numpy() for n in _sum_names(impact)]
    return _core_sums(impact, t.column(_COUNT).to_numpy(), t.column(_WEIGHT).to_numpy(), sums)


def _finished(t: pa.Table, impact: bool) -> Any:
    """The core's values (a GroupTable) of the rows of summed table `t`."""
    return _finisher(impact)(*_sums_of(t, impact))


def _finish_table(t: pa.Table, labels: dict[str, Any], impact: bool) -> pa.Table:
    """The rows of summed table `t` finished, after `labels`, with the in-process tables'
    columns (nulls where a value is undefined)."""
    return Comparison._group_table(labels, _finished(t, impact))


def _counts(b: Any, c: str) -> np.ndarray:
    """Column `c` of batch `b`: sums of counts, int64 and never negative, as the core's."""
    return b.column(c).to_numpy().view(np.uint64)


def _rows_batch(b: Any, keys: list[str], rows: Any) -> Any:
    """Batch `b`'s `keys`, then the core's per-unit rows."""
    cols = {k: b.column(k) for k in keys}
    cols[_COUNT] = pa.array(rows.items.view(np.int64))
    cols[_WEIGHT] = pa.array(rows.weight)
    for k, name in enumerate(rows.names):
        cols[_SUM + name] = pa.array(rows.column(k))
    return pa.RecordBatch.from_pydict(cols)


def _unit_sums_batches(batches: Any, keys: list[str], total: float, scale: float,
                       sized: bool, per_entity: bool) -> Any:  # fmt: skip
    """Per Arrow batch of units with their cells' weights beside them (in a Spark worker):
    its `keys`, then what each unit adds to every level's sums."""
    from . import _core
    from ._arrays import float_array

    for b in batches:
        n, w, x, truth, actual = _cell_units(b)
        sq = float_array(b.column(_WEIGHT_SQ))
        size = _counts(b, _SIZE) if sized else None
        rows = _core.unit_level_sums(n, w, sq, x, truth, actual, size, total, scale,
                                     per_entity)  # fmt: skip
        yield _rows_batch(b, keys, rows)


def _cell_units(b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Batch `b`'s units as the core's per-unit functions begin their arguments: count,
    weight, then the weights of the unit's cell and of its two clusters."""
    from ._arrays import float_array

    w, x, base, exp = (float_array(b.column(c)) for c in (_WEIGHT, _X, _B, _E))
    return _counts(b, _COUNT), w, x, base, exp


def _impact_units(b: Any) -> tuple[np.ndarray, ...]:
    """Batch `b`'s diff units as impact_unit_sums() and impact_unit_item_values() take
    them: _cell_units(), then the item counts of the cell and of its two clusters."""
    return (*_cell_units(b), *(_counts(b, c) for c in (_XN, _BN, _EN)))


def _impact_sums_batches(batches: Any, keys: list[str]) -> Any:
    """Per Arrow batch of a diff's units with their cells' weights and counts beside them
    (in a Spark worker): its `keys`, then what each unit adds to every level's sums."""
    from . import _core

    for b in batches:
        yield _rows_batch(b, keys, _core.impact_unit_sums(*_impact_units(b)))


@functools.cache
def _item_value_names(impact: bool) -> list[str]:
    """The core's per-item value columns, in order."""
    f, u = np.empty(0), np.empty(0, np.uint64)
    if impact:
        return list(_core.impact_unit_item_values(u, f, f, f, f, u, u, u).names)
    return list(_core.unit_item_values(u, f, f, f, f, 0.0).names)


def _item_values_batches(batches: Any, keys: list[str], total: float, impact: bool,
                         item_columns: Any) -> Any:  # fmt: skip
    """Per Arrow batch of units, one of each cell, with their cells' weights (and counts)
    beside them (in a Spark worker): the cell's keys, then its per-item values."""
    from . import _core
    from ._arrays import named_columns

    for b in batches:
        if impact:
            values = _core.impact_unit_item_values(*_impact_units(b))
        else:
            values = _core.unit_item_values(*_cell_units(b), total)
        cols = {k: b.column(k) for k in keys}
        cols.update(item_columns(dict(named_columns(values))))
        yield pa.RecordBatch.from_pydict(cols)


def _finish_batches(batches: Any, key: str, impact: bool) -> Any:
    """Per Arrow batch of summed rows of clusters (in a Spark worker): their values."""
    for b in batches:
        t = pa.Table.from_batches([b])
        yield from _finish_table(t, {"cluster_id": t.column(key)}, impact).to_batches()


def changed_units() -> Any:
    """Which of a diff's per-unit sums are of units whose cell the diff affects (its Base
    cluster split or its Exp cluster merged, as the core flagged them): a Spark condition."""
    F = _functions()
    return (F.col(_SUM + _SPLIT) > 0) | (F.col(_SUM + _MERGED) > 0)


class Levels:
    """The levels of clustering `roles[1]` of `units` (_Units) scored against `roles[0]`
    (called `names` in the results) in `scope` with `design` weights ("uniform" or
    "inverse_size"), made by Spark and the core; with `impact`, a diff's (`roles`: Base,
    then Exp; the common scope, uniform design). Made eagerly: the coverage's counts (which
    also find flagged items) and the per-unit sums, kept by Spark for the levels asked for
    later."""

    def __init__(self, units: Any, roles: tuple[str, str], names: tuple[str, str], scope: str,
                 design: str, per_entity: bool, impact: bool = False) -> None:  # fmt: skip
        F = _functions()
        self.units, self.roles, self.names, self.impact = units, roles, names, impact
        self.keys = [units.cluster_cols[units.roles.index(r)] for r in roles]
        frame = kept(units.frame)  # read by every job below
        t, a = (F.col(k) for k in self.keys)
        in_t = t.isNotNull() & a.isNotNull()
        # Per cluster of each side: whether it holds common items, and a truth cluster's
        # items in the truth; for the coverage's cluster counts (and the inverse_size design).
        truth = frame.where(t.isNotNull()).groupBy(self.keys[0])
        truth = truth.agg(F.sum(_COUNT).alias(_SIZE), F.max(in_t).alias(_B))
        truth = kept(truth)
        actual = frame.where(a.isNotNull()).groupBy(self.keys[1]).agg(F.max(in_t).alias(_E))
        self.coverage = self._coverage(frame, truth, actual)
        if not self.coverage["common_items"]:  # as the core says it in-process
            raise ValueError(
                f"no item is in both {names[0]} ({self.coverage[f'{names[0]}_items']} items) and"
                f" {names[1]} ({self.coverage[f'{names[1]}_items']} items): item ids must match"
                " exactly, including their type"
            )
        entities = scope == "entities"  # an actual cluster read whole: over S'
        rows = self._with_cells(frame, entities)
        if design == "inverse_size":
            rows = rows.join(truth.select(self.keys[0], _SIZE), self.keys[0])
        total = self.coverage[f"{names[1]}_weight" if entities else "common_weight"]
        scale = _core.pair_scale(float(self.coverage["common_weight"]),
                                 int(self.coverage["common_items"]))  # fmt: skip
        # A diff's sample takes the affected cells' units from here, their Σw² with them.
        carried = [*self.keys, *units.slices, _ROW, *([_WEIGHT_SQ] if impact else [])]
        schema = rows.select(*carried).schema
        for name in _summed_columns(impact):
            schema = schema.add(name, "long" if name == _COUNT else "double")
        run: Any = functools.partial(_unit_sums_batches, keys=carried, total=float(total),
                                     scale=scale, sized=design == "inverse_size",
                                     per_entity=per_entity)  # fmt: skip
        if impact:
            run = functools.partial(_impact_sums_batches, keys=carried)
        self.sums = kept(rows.mapInArrow(run, schema))
        self._rows, self._scored_total = rows, float(total)  # for the per-item values
        self.sums.count()  # made now, while the truth's clusters are kept
        truth.unpersist()

    def cell_values(self, item_columns: Any) -> Any:
        """One row per cell of the scored items, as a Spark DataFrame: its two clusters
        (self.keys), then the values the per-item table gives its items, made by the core
        in each partition and put as `item_columns` (the result class's _item_columns)
        puts them."""
        cells = self._rows.dropDuplicates(self.keys)  # a cell's units share its values
        names = _item_value_names(self.impact)
        cols = item_columns({n: np.empty(0) for n in names})
        schema = cells.select(*self.keys).schema
        for name, values in cols.items():
            schema = schema.add(name, "boolean" if values.dtype == bool else "double")
        run = functools.partial(_item_values_batches, keys=self.keys, total=self._scored_total,
                                impact=self.impact, item_columns=item_columns)  # fmt: skip
        return cells.mapInArrow(run, schema)

    def _with_cells(self, frame: Any, entities: bool) -> Any:
        """The units of common items with their cell's weight X and the marginals E and B
        beside them (and for a diff, which decides on counts whether a cell is affected,
        their item counts too), as window sums: one shuffle by the actual cluster for the
        cell and E (the cell's window within it), one by the truth cluster for B. Joins
        shuffled every side again (3.2 s against 9.2 s at 1e7)."""
        from pyspark.sql import Window

        F = _functions()
        t, a = (F.col(k) for k in self.keys)
        in_t = t.isNotNull() & a.isNotNull()
        rows = frame.where(a.isNotNull()) if entities else frame.where(in_t)
        # Per window, the sums beside each unit: (summed column, name).
        sums = [(_WEIGHT, _X, _E, _B)] + ([(_COUNT, _XN, _EN, _BN)] if self.impact else [])
        u = self.units
        by_cell = Window.partitionBy(*self.keys[::-1])
        several = u.slices or len(u.cluster_cols) > 2  # a cell's units are several
        for of, cell, _, _ in sums:
            rows = rows.withColumn(cell, F.sum(of).over(by_cell) if several else F.col(of))
        for of, _, actual, _ in sums:
            rows = rows.withColumn(actual, F.sum(of).over(Window.partitionBy(self.keys[1])))
        rows = rows.where(in_t)
        for of, _, _, truth in sums:
            rows = rows.withColumn(truth, F.sum(of).over(Window.partitionBy(self.keys[0])))
        return rows

    def _coverage(self, frame: Any, truth: Any, actual: Any) -> dict[str, float | int]:
        """The coverage's counts, as Comparison.coverage names them, from the units and
        the per-cluster sums of each side; raises the error naming a flagged item if the
        units hold one."""
        F = _functions()
        u, (ra, rb) = self.units, self.names
        t, a = (F.col(k) for k in self.keys)
        where = {ra: t.isNotNull(), rb: a.isNotNull(), "common": t.isNotNull() & a.isNotNull(),
                 f"{ra}_only": t.isNotNull() & a.isNull(),
                 f"{rb}_only": a.isNotNull() & t.isNull()}  # fmt: skip
        aggs = [F.sum(F.col(_BAD).cast("long")).alias(_BAD)]
        for key, col in (("items", _COUNT), ("weight", _WEIGHT)):
            aggs += [F.sum(F.when(c, F.col(col))).alias(f"{n}_{key}") for n, c in where.items()]
        aggs += [
            F.sum(_ROW).alias("items_table_rows"),
            F.sum(F.when(t.isNull() & a.isNull(), F.col(_ROW))).alias("items_table_unmatched"),
        ]
        row = frame.agg(*aggs).collect()[0].asDict()
        if row.pop(_BAD):
            u.name_bad_item()
        # A side's clusters, and those with common items.
        for name, side, common in ((ra, truth, _B), (rb, actual, _E)):
            counts = side.agg(F.count(F.lit(1)), F.count(F.when(F.col(common), 1))).collect()[0]
            row[f"{name}_clusters"], row[f"{name}_clusters_common"] = counts
        out: dict[str, float | int] = {}
        for k in Comparison.coverage_keys(ra, rb, u.items_frame is not None):
            v = row[k]
            out[k] = float(v or 0.0) if k.endswith("_weight") else int(v or 0)
        return out

    def _summed(self, keys: Sequence[str]) -> Any:
        """The per-unit sums summed by `keys` (a Spark DataFrame; none: one row)."""
        F = _functions()
        aggs = [F.sum(c).alias(c) for c in _summed_columns(self.impact)]
        if not keys:
            return self.sums.agg(*aggs)
        return self.sums.groupBy(*keys).agg(*aggs, F.sum(_ROW).alias(_ROW))

    @functools.cached_property
    def _total(self) -> pa.Table:
        """The per-unit sums summed over all scored items: one row."""
        return _to_arrow(self._summed([]))

    @functools.cached_property
    def overall(self) -> dict[str, float | None]:
        """Every metric over all scored items (a diff's means only: see impact_summary)."""
        g = _finished(self._total, self.impact)
        return {name: nullable(float(v[0])) for name, v in named_columns(g).items()}

    @functools.cached_property
    def impact_summary(self) -> Any:
        """A diff's summary (the core's ImpactSummary): its affected items and Jaccard
        indices from the summed rows, its split and merged clusters counted by Spark."""
        F = _functions()
        split, merged = (F.col(_SUM + flag) > 0 for flag in (_SPLIT, _MERGED))
        counts = self.sums.agg(F.count_distinct(F.when(split, F.col(self.keys[0]))),
                               F.count_distinct(F.when(merged, F.col(self.keys[1]))))  # fmt: skip
        n_split, n_merged = counts.collect()[0]
        return _core.impact_summary_of_sums(*_sums_of(self._total, True), n_split, n_merged)

    def flows(self) -> Any:
        """A diff's flows as a Spark DataFrame in no order: one row per (Base cluster, Exp
        cluster) sharing items where either cluster changed (the units whose clusters the
        core flagged), with their items, weight and shares of each cluster's weight."""
        F = _functions()
        base, exp = self.keys
        return self.sums.where(changed_units()).groupBy(F.col(base).alias("base_cluster"),
                                                F.col(exp).alias("exp_cluster")).agg(
            F.sum(_COUNT).alias("items"), F.sum(_WEIGHT).alias("weight"),
            *(F.sum(_SUM + c).alias(c) for c in ("share_of_base", "share_of_exp")),
        )  # fmt: skip

    def per_cluster(self, side: str) -> Any:
        """One row per cluster of `side` (a role) that meets the scored items, as a Spark
        DataFrame in no order: cluster_id, items, weight, then every value."""
        key = self.keys[self.roles.index(side)]
        summed = self._summed([key]).drop(_ROW)
        schema = summed.select(_functions().col(key).alias("cluster_id")).schema
        schema = schema.add("items", "long").add("weight", "double")
        for n in _value_names(self.impact):
            schema = schema.add(n, "double")
        run = functools.partial(_finish_batches, key=key, impact=self.impact)
        return summed.mapInArrow(run, schema)

    def per_slice_table(self, columns: Sequence[str]) -> pa.Table:
        """One row per combination of values of the slice `columns`, heaviest first (ties
        in the order of their values); the group of items without an items-table row
        last."""
        t = self.units.decoded(_to_arrow(self._summed(columns)))
        # The in-process order: heaviest first; a group of items without a row (every value
        # null, no items-table row among them) last.
        nulls = [pc.is_null(t.column(c)) for c in columns]
        rowless = pc.and_(functools.reduce(pc.and_, nulls), pc.equal(t.column(_ROW), 0))
        keys = [("__cs_rowless", "ascending"), (_WEIGHT, "descending")]
        keys += [(c, "ascending") for c in columns]
        t = t.append_column("__cs_rowless", rowless).sort_by(keys)
        return _finish_table(t, {c: t.column(c) for c in columns}, self.impact)
