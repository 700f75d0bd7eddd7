"""The Spark engine's units: the items grouped by their clusters and slice values in Spark,
handed to the in-process result classes as Units, and the inputs' fingerprints."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _core, _two_clusterings
from ._spark_io import (
    _BAD,
    _COUNT,
    _ITEM,
    _ROW,
    _WEIGHT,
    _WEIGHT_SQ,
    _by_item,
    _check_rows,
    _check_schemas,
    _functions,
    _input_rows,
    _require_columns,
    _to_arrow,
    _unused_id,
    engine_jobs,
    kept,
)


class _Units:
    """The inputs gathered by item id and grouped into units by Spark, and what the result
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
        keep: str = "all",
    ) -> None:
        """`keep`: which units come to the driver. "all" (a diff, a sample); "truth": those
        holding truth items (the first clustering's), as the common scope scores only
        those; "touched": those too of every other clustering's cluster that holds a truth
        item, as the entities scope reads such a cluster whole (_truth_units: the others
        come summed, so that every total is the same)."""
        F = _functions()
        weighted = _check_schemas(clusterings, items, item_col, cluster_col, weight_col)
        self.roles = list(clusterings)
        self.cluster_cols = [f"__cs_cluster{k}" for k in range(len(self.roles))]
        self.slices = self._slices(items, item_col, weight_col, slices)
        coded, self.slice_values = _coded_slices(items, self.slices)
        rows = _input_rows(clusterings, coded, item_col, cluster_col, weight_col, weighted,
                           self.slices, self.cluster_cols)  # fmt: skip
        by_item = _by_item(rows, weighted, self.slices, self.cluster_cols)
        w = F.coalesce(F.col(_WEIGHT), F.lit(1.0))  # an item without a row weighs 1
        in_some = functools.reduce(
            lambda a, b: a | b, [F.col(c).isNotNull() for c in self.cluster_cols]
        )
        self.items = by_item.where(in_some).select(_ITEM, *self.cluster_cols, w.alias(_WEIGHT))
        aggs = [
            F.count(F.lit(1)).alias(_COUNT),
            F.sum(w).alias(_WEIGHT),
            F.sum(w * w).alias(_WEIGHT_SQ),
            F.sum(_ROW).alias(_ROW),
            F.sum(F.col(_BAD).cast("int")).alias(_BAD),
        ]
        self.frame = by_item.groupBy(*self.cluster_cols, *self.slices).agg(*aggs)
        self._keep, self._rows = keep, rows
        self._inputs = (clusterings, items, item_col, cluster_col, weight_col, weighted)
        self.item_col, self.cluster_col, self.weight_col = item_col, cluster_col, weight_col
        self.session = next(iter(clusterings.values())).sparkSession
        self.frames, self.items_frame, self.weighted = dict(clusterings), items, weighted

    def name_bad_item(self) -> None:
        """Raises the error that names the first flagged item and its input (called when
        the units hold one)."""
        _check_rows(self._rows, *self._inputs, self.cluster_cols)
        raise RuntimeError("clusterscore: an item was flagged that no check names")

    @functools.cached_property
    def _collected(self) -> _Collected:
        """The units `keep` names on the driver (collected the first time a result needs
        them)."""
        with engine_jobs(self.session):
            return _Collected(self, self._keep)

    # What the collected units give the in-process result classes.
    table = property(lambda self: self._collected.table)
    clusters = property(lambda self: self._collected.clusters)
    sides = property(lambda self: self._collected.sides)
    cluster_counts = property(lambda self: self._collected.cluster_counts)
    items_table_rows = property(lambda self: self._collected.items_table_rows)
    items_table_unmatched = property(lambda self: self._collected.items_table_unmatched)

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

    def decoded(self, table: pa.Table) -> pa.Table:
        """`table` (units, or sums of them, on the driver) with its coded slice columns'
        values in place of their codes."""
        for c, values in self.slice_values.items():
            if c in table.column_names:
                i = table.column_names.index(c)
                table = table.set_column(i, c, values.take(table.column(c)))
        return table

    def units(self) -> _two_clusterings.Units:
        return _two_clusterings.Units(self.table, _COUNT, _WEIGHT_SQ)

    def items_in(self, roles: Sequence[str]) -> Any:
        """The items (id, every clustering's cluster, weight) in all the clusterings named."""
        F = _functions()
        cols = [self.cluster_cols[self.roles.index(r)] for r in roles]
        return self.items.where(functools.reduce(lambda a, b: a & b,
                                                 [F.col(c).isNotNull() for c in cols]))  # fmt: skip


class _Collected:
    """The units a `_Units`' `keep` names, on the driver, as the in-process result classes
    take them: the units table, each clustering's units, the coverage's counts."""

    def __init__(self, u: _Units, keep: str) -> None:
        self.roles, self.cluster_cols, self.slices = u.roles, u.cluster_cols, u.slices
        # Per clustering whose clusters without truth items reach the core as one: how many
        # clusters it has.
        self.cluster_counts: dict[str, int] = {}
        units = u.frame
        if keep == "all":
            grouped = _to_arrow(units)
            totals = [pc.sum(grouped.column(c)).as_py() or 0 for c in (_BAD, _ROW)]
            first = pc.is_null(grouped.column(self.cluster_cols[0]))
            for c in self.cluster_cols[1:]:
                neither = pc.and_(first, pc.is_null(grouped.column(c)))
                totals.append(pc.sum(pc.filter(grouped.column(_ROW), neither)).as_py() or 0)
            in_none = functools.reduce(
                pc.and_, [pc.is_null(grouped.column(c)) for c in self.cluster_cols]
            )
            grouped = grouped.filter(pc.invert(in_none))
        else:
            grouped, totals = self._truth_units(units, keep)
        if totals[0]:  # say which input and item, and why
            u.name_bad_item()
        self.items_table_rows = int(totals[1])
        # Per other clustering: the items-table rows of items in neither it nor the first,
        # counted for its coverage. Units of items in no clustering are dropped.
        self.items_table_unmatched = dict(zip(self.roles[1:], map(int, totals[2:]), strict=True))
        grouped = grouped.drop_columns([_ROW, _BAD])
        # Sorted: Spark returns groups in an order that depends on the partitioning; sorted,
        # the units, and so every sum the core makes over them, are the same for any layout.
        keys = [(c, "ascending") for c in [*self.cluster_cols, *self.slices]]
        grouped = u.decoded(grouped.sort_by(keys))  # nulls last
        unit = pa.array(np.arange(len(grouped), dtype=np.int64))
        self.table = pa.table(
            {
                u.item_col: unit,
                "weight": grouped.column(_WEIGHT),
                _COUNT: grouped.column(_COUNT),
                _WEIGHT_SQ: grouped.column(_WEIGHT_SQ),
                **{c: grouped.column(c) for c in self.slices},
            }
        )
        # Per unit, its cluster in each clustering (null where it has none); each
        # clustering's units, as the in-process API takes a clustering.
        self.clusters = {
            r: grouped.column(c) for r, c in zip(self.roles, self.cluster_cols, strict=True)
        }
        self.sides = {
            role: pa.table({u.item_col: unit.filter(pc.is_valid(c)),
                            u.cluster_col: c.filter(pc.is_valid(c))})
            for role, c in self.clusters.items()
        }  # fmt: skip

    def _truth_units(self, units: Any, keep: str) -> tuple[pa.Table, list[int]]:
        """The `units` DataFrame's units that `keep` names, on the driver, and the totals of
        them all: items flagged, items-table rows, those of items in neither the first
        clustering nor each other one. The other units come as one unit per set of
        clusterings they are in, each clustering's part of them in one cluster that no
        truth item is in: the core then sees every total (the entities scope's w(S') among
        them), and `cluster_counts` holds each other clustering's true number of
        clusters."""
        F = _functions()
        truth, others = self.cluster_cols[0], self.cluster_cols[1:]
        if keep not in ("truth", "touched"):
            raise ValueError(f"keep: {keep!r}")
        in_none = functools.reduce(
            lambda a, b: a & b, [F.col(c).isNull() for c in self.cluster_cols]
        )
        neither = [F.col(truth).isNull() & F.col(c).isNull() for c in others]
        sizes = [_COUNT, _WEIGHT, _WEIGHT_SQ]
        # Cached as the first job brings the units that stay to the driver: the second
        # (the totals, and the others summed) reads them again.
        units = kept(units)
        try:
            stays, flagged = F.col(truth).isNotNull(), units
            if keep == "touched":  # a cluster a truth item is in: none of its units stays
                for k, c in enumerate(others):
                    flag = f"__cs_touched{k}"
                    touched = units.where(F.col(truth).isNotNull() & F.col(c).isNotNull())
                    touched = touched.select(c).distinct().withColumn(flag, F.lit(True))
                    flagged = flagged.join(touched, c, "left")
                    stays = stays | F.col(flag).isNotNull()
            names = [*self.cluster_cols, *self.slices, *sizes, _ROW, _BAD]
            grouped = _to_arrow(flagged.where(stays).select(*names))
            part, count_of = "__cs_part", [f"__cs_clusters{k}" for k in range(len(others))]
            rest_and_totals = _to_arrow(
                flagged.where(~stays & ~in_none)
                .groupBy(*[F.col(c).isNotNull().alias(c) for c in others])
                .agg(*[F.sum(c).alias(c) for c in sizes])
                .withColumn(part, F.lit(0))
                .unionByName(
                    units.agg(
                        F.sum(F.col(_BAD)).alias(_BAD), F.sum(F.col(_ROW)).alias(_ROW),
                        *[F.sum(F.when(n, F.col(_ROW))).alias(f"__cs_neither{k}")
                          for k, n in enumerate(neither)],
                        *[F.countDistinct(c).alias(n)
                          for c, n in zip(others, count_of, strict=True)],
                    ).withColumn(part, F.lit(1)),
                    allowMissingColumns=True,
                )
            )  # fmt: skip
        finally:
            units.unpersist()
        which = rest_and_totals.column(part)
        row = rest_and_totals.filter(pc.equal(which, 1)).to_pylist()[0]
        summed = [_BAD, _ROW, *[f"__cs_neither{k}" for k in range(len(others))]]
        totals = [int(row[n] or 0) for n in summed]
        self.cluster_counts = {
            role: int(row[n]) for role, n in zip(self.roles[1:], count_of, strict=True)
        }
        rest = rest_and_totals.filter(pc.equal(which, 0)).select([*others, *sizes])
        if len(rest):
            grouped = pa.concat_tables([grouped, self._rest_units(grouped, rest)])
        return grouped, totals

    def _rest_units(self, grouped: pa.Table, rest: pa.Table) -> pa.Table:
        """The units that `rest` describes (per set of other clusterings: a flag column per
        clustering, and the sizes) in `grouped`'s schema: in each clustering flagged, a
        cluster id that none of `grouped`'s units is in."""
        cols: dict[str, Any] = {}
        for c in grouped.column_names:
            t = grouped.schema.field(c).type
            if c in rest.column_names and c in self.cluster_cols:
                unused = _unused_id(grouped.column(c))
                cols[c] = pa.array([unused if f else None for f in rest.column(c).to_pylist()], t)
            elif c in rest.column_names:
                cols[c] = rest.column(c).cast(t)
            else:
                cols[c] = pa.nulls(len(rest), t)
        return pa.table(cols, schema=grouped.schema)


def _coded_slices(items: Any, slices: Sequence[str]) -> tuple[Any, dict[str, pa.Array]]:
    """`items` with each text (or bytes) slice column replaced by its values' codes, and
    per such column its distinct values (code k: the k-th, in order; nulls stay null).
    Spark groups an item's rows with hash tables only when what it keeps of them has a
    fixed width: with text it sorts every row of every input instead, several times slower.
    A slice column has few values (the driver holds one row per combination in each cell),
    so its values are collected and the codes joined to the items table by broadcast."""
    if items is None:
        return items, {}
    F = _functions()
    types = dict(items.dtypes)
    values: dict[str, pa.Array] = {}
    for c in slices:
        if types[c] not in ("string", "binary"):
            continue
        distinct = _to_arrow(items.select(c).where(F.col(c).isNotNull()).distinct()).column(c)
        distinct = distinct.take(pc.array_sort_indices(distinct)).combine_chunks()
        values[c] = distinct
        code, value = "__cs_code", "__cs_value"
        table = pa.table(
            {value: distinct, code: pa.array(np.arange(len(distinct), dtype=np.int32))}
        )
        schema = f"{value} {types[c]}, {code} int"
        codes = items.sparkSession.createDataFrame(table.to_pandas(), schema)
        items = items.join(F.broadcast(codes), items[c] == codes[value], "left")
        items = items.drop(c, value).withColumnRenamed(code, c)
    return items, values


def _batch_fingerprints(batches: Any, item_col: str, other_col: str | None, items: bool) -> Any:
    """Per Arrow batch of a partition (in a Spark worker): its rows and its fingerprint
    (as a signed 64-bit number, Spark having no unsigned one)."""
    from . import _arrays, _core

    for b in batches:
        ids = _arrays.id_tuple(_arrays.normalize_ids(b.column(item_col)))
        if items:
            w = None if other_col is None else _arrays.float_array(b.column(other_col))
            fp = _core.items_fingerprint(ids, w)
        else:
            assert other_col is not None
            fp = _core.fingerprint(
                ids, _arrays.id_tuple(_arrays.normalize_ids(b.column(other_col)))
            )
        signed = int(np.array([fp], np.uint64).view(np.int64)[0])
        yield pa.RecordBatch.from_pydict(
            {
                "rows": pa.array([b.num_rows], pa.int64()),
                "fingerprint": pa.array([signed], pa.int64()),
            }
        )


def _fingerprint(df: Any, item_col: str, other_col: str | None, items: bool) -> str:
    """The input's fingerprint as the in-process API computes it, in hex: each batch
    fingerprinted by the core where it lies, the parts combined by the core."""
    cols = [item_col] if other_col is None else [item_col, other_col]
    if items and other_col is not None:
        df = df.withColumn(other_col, df[other_col].cast("double"))
    parts = _to_arrow(
        df.select(*cols).mapInArrow(
            functools.partial(
                _batch_fingerprints, item_col=item_col, other_col=other_col, items=items
            ),
            "rows long, fingerprint long",
        )
    )
    fps = parts.column("fingerprint").to_numpy().astype(np.int64).view(np.uint64).tolist()
    rows = parts.column("rows").to_numpy().astype(np.uint64).tolist()
    return f"{_core.combine_fingerprints(fps, rows, items):016x}"
