"""Clusterings held as Spark DataFrames (docs/spark.md): `evaluate`, `compare`, `diff`,
`sample_pairs` and `all_scores` with the in-process API's options and result objects.

Spark does what scales out: it gathers the inputs by item id and groups the items into
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
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _core, _diff, _evaluate, _runs, _two_clusterings

__all__ = [
    "SparkDiff",
    "SparkEvaluation",
    "all_scores",
    "compare",
    "diff",
    "evaluate",
    "read",
    "sample_from_diff",
    "sample_pairs",
    "session",
]

# Internal column names: never a user's column (slices keep their own names).
_ITEM, _WEIGHT, _ROW = "__cs_item", "__cs_weight", "__cs_row"
_COUNT, _WEIGHT_SQ = "__cs_count", "__cs_weight_sq"
_BAD, _SRC = "__cs_bad", "__cs_src"
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


def _check_schemas(
    clusterings: Mapping[str, Any], items: Any, item_col: str, cluster_col: str, weight_col: str
) -> bool:
    """Checks what the inputs' schemas say (no Spark job): DataFrames, their columns, ids of
    one kind. Returns whether the items table has weights."""
    kinds = set()
    for role, df in clusterings.items():
        _require_frame(df, role)
        _require_columns(df, role, [item_col, cluster_col])
        kinds.add(_kind(df, role, item_col))
    weighted = False
    if items is not None:
        _require_frame(items, "items")
        _require_columns(items, "items", [item_col])
        kinds.add(_kind(items, "items", item_col))
        weighted = weight_col in items.columns
        if not weighted and weight_col != "weight":  # only the default may be absent
            _require_columns(items, "items", [weight_col])
    if len(kinds) > 1:
        raise ValueError("item ids must be all integers or all strings in every input")
    return weighted


def _bad_weight(w: Any) -> Any:
    """Whether a weight (a double column) is not a finite number > 0: the core's rule
    (src/detail/weight.h) as a Spark expression, since the rows never leave Spark to be
    checked (Spark's NaN compares above every number, so it is asked for by name)."""
    F = _functions()
    return w.isNull() | F.isnan(w) | (w <= 0) | (w == math.inf)


def _input_rows(
    clusterings: Mapping[str, Any], items: Any, item_col: str, cluster_col: str,
    weight_col: str, weighted: bool, slices: Sequence[str], cluster_cols: Sequence[str],
) -> Any:  # fmt: skip
    """Every input's rows in one DataFrame: the item id, the input's number (`_SRC`: the
    clusterings in order, then the items table), clustering k's cluster in cluster_cols[k],
    and the items table's weight (as a double) and slice columns; null where the row's
    input has no such column."""
    F = _functions()
    parts = [
        df.select(F.col(item_col).alias(_ITEM), F.lit(k).alias(_SRC),
                  F.col(cluster_col).alias(cluster_cols[k]))
        for k, df in enumerate(clusterings.values())
    ]  # fmt: skip
    if items is not None:
        cols = [F.col(item_col).alias(_ITEM), F.lit(len(cluster_cols)).alias(_SRC)]
        if weighted:
            cols.append(F.col(weight_col).cast("double").alias(_WEIGHT))
        parts.append(items.select(*cols, *[F.col(c) for c in slices]))
    rows = functools.reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), parts)
    if _WEIGHT not in rows.columns:
        rows = rows.withColumn(_WEIGHT, F.lit(None).cast("double"))
    return rows


def _check_rows(
    rows: Any, clusterings: Mapping[str, Any], items: Any, item_col: str, cluster_col: str,
    weight_col: str, weighted: bool, cluster_cols: Sequence[str],
) -> None:  # fmt: skip
    """Names an item without an id or a cluster, listed twice, or with a weight that is not
    a finite number > 0, in the inputs' `rows` (_input_rows)."""
    F = _functions()
    roles = [*clusterings, "items"]
    src = F.col(_SRC)
    bad = functools.reduce(
        lambda a, b: a | b,
        [(src == k) & F.col(c).isNull() for k, c in enumerate(cluster_cols)],
        (src == len(cluster_cols)) & (_bad_weight(F.col(_WEIGHT)) if weighted else F.lit(False)),
    )
    found = _first(
        rows.groupBy(_SRC, _ITEM)
        .agg(F.count(F.lit(1)).alias("n"), F.max(bad.cast("int")).alias("bad"))
        .where(F.col(_ITEM).isNull() | (F.col("n") > 1) | (F.col("bad") == 1))
    )
    if found is None:
        return
    role, item = roles[found[_SRC]], found[_ITEM]
    df = items if role == "items" else clusterings[role]
    if item is None:
        raise ValueError(f"{role}: missing value in column {item_col!r}")
    if found["n"] > 1:
        raise ValueError(f"{role}: item {item!r} appears {found['n']} times")
    if role != "items":
        raise ValueError(f"{role}: missing value in column {cluster_col!r} (item {item!r})")
    value = _first(df.where(F.col(item_col) == item))[weight_col]
    raise ValueError(f"items: weight {value!r} of item {item!r} is not a finite number > 0")


def _by_item(rows: Any, weighted: bool, slices: Sequence[str], cluster_cols: Sequence[str]) -> Any:
    """The inputs' `rows` (_input_rows) gathered by item id in one shuffle (where joins
    would shuffle every input again): per item its cluster in each clustering (null where
    it is not listed), its weight, slice values and items-table rows, and whether an input
    lists it wrongly (twice, without a cluster, without an id, with a weight that is not a
    finite number > 0)."""
    F = _functions()
    src = F.col(_SRC)
    table = len(cluster_cols)  # the items table's source number
    aggs = []
    for k, col in enumerate(cluster_cols):
        listed = F.sum((src == k).cast("int"))
        aggs.append(F.max(col).alias(col))  # its one cluster, if listed once
        aggs.append(((listed > 1) | (listed > F.count(col))).alias(f"__cs_bad{k}"))
    w = F.col(_WEIGHT)
    aggs += [
        F.sum((src == table).cast("int")).alias(_ROW),
        F.max((src == table) & (_bad_weight(w) if weighted else F.lit(False))).alias(
            "__cs_bad_weight"
        ),
        F.max(w).alias(_WEIGHT),
        *[F.max(c).alias(c) for c in slices],
    ]
    by_item = rows.groupBy(_ITEM).agg(*aggs)
    flags = [F.col(f"__cs_bad{k}") for k in range(len(cluster_cols))]
    flags += [F.col(_ROW) > 1, F.coalesce(F.col("__cs_bad_weight"), F.lit(False))]
    bad = functools.reduce(lambda a, b: a | b, flags, F.col(_ITEM).isNull())
    return by_item.select(_ITEM, *cluster_cols, _ROW, _WEIGHT, *slices, bad.alias(_BAD))


def _unused_id(ids: Any) -> Any:
    """An id of the type of `ids` (integers or text) that is not among them."""
    if pa.types.is_integer(ids.type):
        top, low = pc.max(ids).as_py(), pc.min(ids).as_py()
        if top is None:
            return 0
        # Every value of the type cannot be held: one end or the other is free.
        return top + 1 if top < np.iinfo(ids.type.to_pandas_dtype()).max else low - 1
    used = set(pc.unique(ids).to_pylist())
    name = "(clusters without truth items)"
    while name in used:
        name += "'"
    return name


def _to_arrow(df: Any) -> pa.Table:
    return df.toArrow() if hasattr(df, "toArrow") else pa.Table.from_pandas(df.toPandas())


# Rows per partition when a table comes to the driver a partition at a time: a partition's
# result passes through the driver's block manager whole, and results of a few hundred MB
# (1e6 per-item rows in two partitions, as Spark's adaptive execution coalesced them) were
# lost there under the default 1 GiB of driver memory.
_ROWS_PER_PARTITION = 1 << 17


def _arrow_batches(df: Any, rows: int, total: int) -> Any:
    """The `total` rows of `df` on the driver as Arrow batches of at most `rows` rows,
    one partition at a time. Each partition's Arrow batches travel as Arrow IPC bytes in
    rows of their own, and toLocalIterator() runs one job per partition, so that neither
    the driver nor a worker holds the whole table. Checks `rows` at once, as in-process."""
    _two_clusterings.check_batch_rows(rows)
    df = df.repartition(max(1, -(-total // _ROWS_PER_PARTITION)))

    def to_ipc(batches: Any) -> Any:
        for batch in batches:
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, batch.schema) as writer:
                writer.write_batch(batch)
            yield pa.record_batch([pa.array([sink.getvalue().to_pybytes()], pa.binary())],
                                  names=["ipc"])  # fmt: skip

    def batches() -> Any:
        held: list[pa.RecordBatch] = []
        count = 0
        for row in df.mapInArrow(to_ipc, "ipc binary").toLocalIterator():
            for batch in pa.ipc.open_stream(pa.py_buffer(row.ipc)):
                held.append(batch)
                count += batch.num_rows
                if count >= rows:  # whole batches of `rows` out; the rest waits for more
                    table = pa.Table.from_batches(held).combine_chunks()
                    whole = count - count % rows
                    yield from table.slice(0, whole).to_batches(max_chunksize=rows)
                    held = table.slice(whole).to_batches()
                    count -= whole
        if count:
            yield from pa.Table.from_batches(held).combine_chunks().to_batches(max_chunksize=rows)

    return batches()


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
        rows = _input_rows(clusterings, items, item_col, cluster_col, weight_col, weighted,
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
        units = by_item.groupBy(*self.cluster_cols, *self.slices).agg(*aggs)
        # Per clustering whose clusters without truth items reach the core as one: how many
        # clusters it has.
        self.cluster_counts: dict[str, int] = {}
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
            _check_rows(rows, clusterings, items, item_col, cluster_col, weight_col, weighted,
                        self.cluster_cols)  # fmt: skip
            raise RuntimeError("clusterscore: an item was flagged that no check names")
        self.items_table_rows = int(totals[1])
        # Per other clustering: the items-table rows of items in neither it nor the first,
        # counted for its coverage. Units of items in no clustering are dropped.
        self.items_table_unmatched = dict(zip(self.roles[1:], map(int, totals[2:]), strict=True))
        grouped = grouped.drop_columns([_ROW, _BAD])
        # Sorted: Spark returns groups in an order that depends on the partitioning; sorted,
        # the units, and so every sum the core makes over them, are the same for any layout.
        keys = [(c, "ascending") for c in [*self.cluster_cols, *self.slices]]
        grouped = grouped.sort_by(keys)  # nulls last
        unit = pa.array(np.arange(len(grouped), dtype=np.int64))
        self.item_col, self.cluster_col, self.weight_col = item_col, cluster_col, weight_col
        self.table = pa.table(
            {
                item_col: unit,
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
            role: pa.table({item_col: unit.filter(pc.is_valid(c)),
                            cluster_col: c.filter(pc.is_valid(c))})
            for role, c in self.clusters.items()
        }  # fmt: skip
        self.session = next(iter(clusterings.values())).sparkSession
        self.frames, self.items_frame, self.weighted = dict(clusterings), items, weighted

    def _truth_units(self, units: Any, keep: str) -> tuple[pa.Table, list[int]]:
        """The `units` DataFrame's units that `keep` names, on the driver, and the totals of
        them all: items flagged, items-table rows, those of items in neither the first
        clustering nor each other one. The other units come as one unit per set of
        clusterings they are in, each clustering's part of them in one cluster that no
        truth item is in: the core then sees every total (the entities scope's w(S') among
        them), and `cluster_counts` holds each other clustering's true number of
        clusters."""
        from pyspark import StorageLevel

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
        units = units.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            kept, flagged = F.col(truth).isNotNull(), units
            if keep == "touched":  # a cluster a truth item is in: none of its units stays
                for k, c in enumerate(others):
                    flag = f"__cs_touched{k}"
                    touched = units.where(F.col(truth).isNotNull() & F.col(c).isNotNull())
                    touched = touched.select(c).distinct().withColumn(flag, F.lit(True))
                    flagged = flagged.join(touched, c, "left")
                    kept = kept | F.col(flag).isNotNull()
            names = [*self.cluster_cols, *self.slices, *sizes, _ROW, _BAD]
            grouped = _to_arrow(flagged.where(kept).select(*names))
            part, count_of = "__cs_part", [f"__cs_clusters{k}" for k in range(len(others))]
            rest_and_totals = _to_arrow(
                flagged.where(~kept & ~in_none)
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

    def units(self) -> _two_clusterings.Units:
        return _two_clusterings.Units(self.table, _COUNT, _WEIGHT_SQ)

    def items_in(self, roles: Sequence[str]) -> Any:
        """The items (id, every clustering's cluster, weight) in all the clusterings named."""
        F = _functions()
        cols = [self.cluster_cols[self.roles.index(r)] for r in roles]
        return self.items.where(functools.reduce(lambda a, b: a & b,
                                                 [F.col(c).isNotNull() for c in cols]))  # fmt: skip


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


class _OnSpark(_two_clusterings.Comparison):
    """What an in-process result does differently when its units came from Spark: the
    items table's coverage and the inputs' fingerprints come from Spark, and the per-item
    table is a Spark DataFrame."""

    _spark: _Units
    _spark_roles: tuple[str, str]  # the roles of the two clusterings among _spark's

    @functools.cached_property
    def input_fingerprints(self) -> dict[str, str]:
        """Per input, its fingerprint as clusterscore.evaluate or diff would give it."""
        u = self._spark
        out = {
            role: _fingerprint(u.frames[name], u.item_col, u.cluster_col, items=False)
            for role, name in zip(self.roles, self._spark_roles, strict=True)
        }
        if u.items_frame is not None:
            weight = u.weight_col if u.weighted else None
            out["items"] = _fingerprint(u.items_frame, u.item_col, weight, items=True)
        return out

    @property
    def coverage(self) -> dict[str, float | int]:
        """As in-process; the items table's rows are counted by Spark (the core sees units)."""
        u = self._spark
        coverage = super().coverage
        if u.items_frame is None:  # the core's items table is the units: not the user's
            coverage.pop("items_table_rows", None)
            coverage.pop("items_table_unmatched", None)
        else:
            coverage["items_table_rows"] = u.items_table_rows
            coverage["items_table_unmatched"] = u.items_table_unmatched[self._spark_roles[1]]
        for role, name in zip(self.roles, self._spark_roles, strict=True):
            if name in u.cluster_counts:  # its clusters without truth items came as one
                coverage[f"{role}_clusters"] = u.cluster_counts[name]
        return coverage

    def per_item(self) -> Any:
        """One row per item in both clusterings, as a Spark DataFrame (in no order): the
        core's per-cell values joined to the items by Spark."""
        F = _functions()
        u = self._spark
        keys = [f"{role}_cluster" for role in self.roles]
        ca, cb = (u.cluster_cols[u.roles.index(r)] for r in self._spark_roles)
        # One row per unit; the units of one cell (told apart by slices) share its values.
        units = super().per_item_table().drop_columns([u.item_col, "weight"])
        per_cell = pa.Table.from_pandas(
            units.to_pandas().drop_duplicates(subset=keys), preserve_index=False
        )
        items = u.items_in(self._spark_roles).select(
            F.col(_ITEM).alias(u.item_col),
            F.col(ca).alias(keys[0]),
            F.col(cb).alias(keys[1]),
            F.col(_WEIGHT).alias("weight"),
        )
        joined = items.join(u.session.createDataFrame(per_cell), keys, "inner")
        # The in-process per-item table's column order: id, both clusters, weight, values.
        values = [c for c in per_cell.column_names if c not in keys]
        return joined.select(u.item_col, *keys, "weight", *values)

    def per_item_table(self) -> pa.Table:
        """per_item() collected to the driver as an Arrow table."""
        return _to_arrow(self.per_item())

    def per_item_batches(self, rows: int = 1 << 20) -> Any:
        """per_item() on the driver as Arrow batches of at most `rows` rows, fetched one
        partition at a time: the driver never holds more than a partition and a batch."""
        return _arrow_batches(self.per_item(), rows, int(self.coverage["common_items"]))


class SparkEvaluation(_OnSpark, _evaluate.Evaluation):
    """An Evaluation whose inputs were Spark DataFrames: the same values and methods;
    `per_item()` is a Spark DataFrame."""


class SparkDiff(_OnSpark, _diff.Diff):
    """A Diff whose inputs were Spark DataFrames: the same values and methods;
    `per_item()` is a Spark DataFrame."""


def _local_weights(options: dict[str, Any]) -> dict[str, Any]:
    """The options with design weights given as a Spark DataFrame collected (once, for
    every run): one row per truth cluster."""
    weights = options.get("cluster_weights")
    if weights is not None and hasattr(weights, "sparkSession"):
        return {**options, "cluster_weights": _to_arrow(weights)}
    return options


def _keep(truth_scope: str) -> str:
    """The units an evaluation in `truth_scope` needs on the driver (_Units' `keep`)."""
    return "touched" if truth_scope == "entities" else "truth"


def _evaluation(u: _Units, truth: str, run: str, options: dict[str, Any]) -> SparkEvaluation:
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
    average: str = "items",
) -> SparkEvaluation:
    """clusterscore.evaluate on Spark DataFrames. `slices`: the items-table columns that
    per_slice() and intervals(by) may group by (default: all but the id and the weight;
    name fewer when some have very many values: the driver holds one row per distinct
    combination in each cell). `cluster_weights` may also be a Spark DataFrame."""
    u = _Units({"truth": truth, "actual": actual}, items, item_col, cluster_col, weight_col,
               slices, _keep(truth_scope))  # fmt: skip
    options = dict(
        truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed, average=average,
    )  # fmt: skip
    return _evaluation(u, "truth", "actual", _local_weights(options))


def compare(
    truth: Any,
    runs: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    slices: Sequence[str] | None = None,
    **options: Any,
) -> _runs.RunComparison:
    """clusterscore.compare on Spark DataFrames (`runs`: a dict {name: DataFrame} or a
    list; `options`: evaluate's truth_scope, cluster_weights, confidence, resamples,
    seed and average). One Spark job groups the items by their truth cluster, every run's
    cluster and their slice values, so every run is scored on the same units and resampled
    alike."""
    named = _runs.run_names(runs)
    if "truth" in named:
        raise ValueError("a run may not be named 'truth'")
    u = _Units({"truth": truth, **named}, items, item_col, cluster_col, weight_col, slices,
               _keep(options.get("truth_scope", "common")))  # fmt: skip
    options = _local_weights(options)
    evaluations: dict[str, _evaluate.Evaluation] = {
        name: _evaluation(u, "truth", name, options) for name in named
    }
    first = next(iter(evaluations.values()))
    return _runs.RunComparison.of(evaluations, first.truth_scope, first.bootstrap)


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

    u = _Units({"truth": truth, "actual": actual}, items, item_col, cluster_col, weight_col, [],
               "truth")  # fmt: skip
    truth_of, actual_of = u.clusters["truth"], u.clusters["actual"]
    both = pc.and_(pc.is_valid(truth_of), pc.is_valid(actual_of))
    t = u.table.filter(both)
    rows, cols = (_codes(c.filter(both)) for c in (truth_of, actual_of))
    counts = t.column(_COUNT).to_numpy()
    if u.weighted:
        w, w2 = t.column("weight").to_numpy(), t.column(_WEIGHT_SQ).to_numpy()
        scores = metrics.scores_from_cells(rows, cols, counts, w, w2)
    else:
        scores = metrics.scores_from_cells(rows, cols, counts)
    scores.pop("pair_confusion_matrix")
    return scores


def _codes(labels: Any) -> np.ndarray:
    """Labels as indices of their distinct values."""
    return pc.index_in(labels, pc.unique(labels)).to_numpy()


# -- the command line's Spark engine -----------------------------------------------------------


def session(master: str | None = None) -> Any:
    """The Spark session the command line runs on: `master` (e.g. local[4],
    spark://host:7077, yarn), else the one spark-submit gives, else local[*]."""
    import os
    import sys

    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ImportError(
            "--engine spark needs pyspark: pip install 'clusterscore[spark]'"
        ) from None
    # pyspark warns on every pandas conversion that it has not been tested with pandas 3;
    # clusterscore's tests run it with the pandas installed.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    # Local workers run this interpreter, which has clusterscore; a cluster's are set up by
    # its own configuration (docs/spark.md).
    if master is None or master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Quiet: the terminal shows clusterscore's own progress, tables and one-line errors.
    builder = (
        SparkSession.builder.appName("clusterscore")
        .config("spark.log.level", "OFF")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if master is not None:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    return spark


_PARQUET = {".parquet", ".pq"}
_TAB = {".tsv", ".tab"}


def require_exists(path: str | None) -> None:
    """A local path (no scheme) that names nothing is an error; a URL is Spark's to read."""
    import os

    if path is not None and "://" not in str(path) and not os.path.exists(path):
        raise ValueError(f"{path}: no such file or folder")


def read(spark: Any, path: str | None, text_columns: Sequence[str] = ()) -> Any:
    """A CSV, TSV or Parquet file, or a folder of them, as a Spark DataFrame (None for
    None). CSV and TSV have a header; as the in-process reader does, `text_columns` (the
    ids) are read as text, so that ids like '007' stay exact, and other types are
    inferred."""
    if path is None:
        return None
    import os
    from pathlib import PurePath

    require_exists(path)
    local = "://" not in path
    if local and os.path.isdir(path):
        names = [n for n in os.listdir(path) if not n.startswith((".", "_"))]
        kind = ".parquet" if any(PurePath(n).suffix in _PARQUET for n in names) else ".csv"
    else:
        suffixes = [s.lower() for s in PurePath(path).suffixes]
        kind = next((s for s in reversed(suffixes) if s in {*_PARQUET, *_TAB, ".csv"}), "")
        if not kind:
            raise ValueError(f"{path}: not a .csv, .tsv or .parquet file")
    if kind in _PARQUET:
        return spark.read.parquet(path)
    sep = "\t" if kind in _TAB else ","
    from pyspark.sql.types import StringType, StructField, StructType

    inferred = spark.read.csv(path, header=True, inferSchema=True, sep=sep).schema
    schema = StructType(
        [StructField(f.name, StringType()) if f.name in text_columns else f for f in inferred]
    )
    return spark.read.csv(path, header=True, schema=schema, sep=sep)


# -- pairs for judging ---------------------------------------------------------------------------

_KIND, _DRAW, _AT = "__cs_kind", "__cs_draw", "__cs_at"


def sample_pairs(
    base: Any,
    exp: Any,
    pairs: int,
    seed: int,
    items: Any = None,
    stable_pairs: int | None = None,
    *,
    distance_only: bool = False,
    replicates: int = 50,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> Any:
    """clusterscore.sample_pairs on Spark DataFrames: the same population, weights and
    PairSample. The core draws every pair down to the cells of its two items and where in
    each cell's weight the item lies; Spark takes each cell's items in the order of their
    ids and the core picks the item there (in mapInArrow). So a seed gives the same pairs
    whatever the partitioning (other pairs than in-process, which orders a cell's items as
    it read them)."""
    d = diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
             slices=[])  # fmt: skip
    return sample_from_diff(
        d, pairs, seed, stable_pairs, distance_only=distance_only, replicates=replicates
    )


def sample_from_diff(
    d: SparkDiff, pairs: int, seed: int, stable_pairs: int | None = None, *,
    distance_only: bool = False, replicates: int = 50,
) -> Any:  # fmt: skip
    """sample_pairs on a diff already made by clusterscore.spark.diff (to draw many samples
    from one diff)."""
    from . import _sample

    n, stable, mode = _sample.sample_request(pairs, seed, stable_pairs, distance_only)
    replicates = _sample._count(replicates, "replicates")
    try:
        raw = d.core.sample_unit_pairs(n, stable, _sample.mode_of(mode), int(seed))
    except ValueError as e:
        raise ValueError(f"base vs exp: {e}") from None
    item_i, item_j = _pick_items(d._spark, raw)
    # A unit's two draws may be one item: a self pair, as the in-process sampler says.
    kinds, code = raw["kind"].copy(), _sample.KINDS.index
    kinds[(kinds == code("stable")) & pc.equal(item_i, item_j).to_numpy(zero_copy_only=False)] = (
        code("self")
    )
    drawn = pa.table(
        {
            "item_i": item_i, "item_j": item_j, "kind": _sample.kind_column(kinds),
            "stratum": raw["stratum"].astype(np.int8), "U_i": raw["U_i"], "B_i": raw["B_i"],
            "E_i": raw["E_i"], _DRAW: np.arange(len(item_i), dtype=np.int64),
        }
    )  # fmt: skip
    table = _with_attributes(d._spark, _distinct_pairs(drawn))
    meta = _sample.sample_meta(d, mode, n, stable, seed, replicates)
    return _sample.PairSample(table, meta)


def _distinct_pairs(drawn: pa.Table) -> pa.Table:
    """One row per distinct (item_i, item_j), in order of first draw, with its draws: as
    the in-process sampler records them."""
    counts = drawn.group_by(["item_i", "item_j"], use_threads=False).aggregate(
        [(_DRAW, "min"), (_DRAW, "count")]
    )
    first = counts.column(f"{_DRAW}_min").to_numpy()
    order = np.argsort(first, kind="stable")
    rows = drawn.take(first[order])
    return pa.table(
        {
            "item_i": rows.column("item_i"), "item_j": rows.column("item_j"),
            "kind": rows.column("kind"),
            "draws": counts.column(f"{_DRAW}_count").take(order).cast(pa.int64()),
            "stratum": rows.column("stratum"), "U_i": rows.column("U_i"),
            "B_i": rows.column("B_i"), "E_i": rows.column("E_i"),
        }
    )  # fmt: skip


def _pick_items(u: _Units, raw: dict[str, np.ndarray]) -> tuple[pa.Array, pa.Array]:
    """The items the draws land on: each drawn unit's items in the order of their ids, the
    core picking the one at the draw's position (in the Spark worker holding the unit)."""
    F = _functions()
    ca, cb = u.cluster_cols
    draws = len(raw["unit_i"])
    units = np.concatenate([raw["unit_i"], raw["unit_j"]]).astype(np.int64)
    wanted = pa.table(
        {
            ca: u.clusters["base"].take(units), cb: u.clusters["exp"].take(units),
            _KIND: pa.array(np.ones(len(units), np.int8)),
            _WEIGHT: pa.nulls(len(units), pa.float64()),
            _AT: np.concatenate([raw["at_i"], raw["at_j"]]),
            _DRAW: np.arange(len(units), dtype=np.int64),
        }
    )  # fmt: skip
    members = u.items_in(u.roles).select(
        ca, cb, F.lit(0).cast("byte").alias(_KIND), _ITEM, _WEIGHT,
        F.lit(None).cast("double").alias(_AT), F.lit(None).cast("long").alias(_DRAW),
    )  # fmt: skip
    item_type = u.items.schema[_ITEM].dataType.simpleString()
    asked = (
        u.session.createDataFrame(wanted)
        .withColumn(_ITEM, F.lit(None).cast(item_type))
        .select(*members.columns)
    )
    both = members.unionByName(asked).repartition(ca, cb)
    # Within each unit: its items by id first, then its draws.
    ordered = both.sortWithinPartitions(ca, cb, _KIND, _ITEM, _DRAW)
    picked = _to_arrow(
        ordered.mapInArrow(
            functools.partial(_pick_in_partition, keys=(ca, cb)),
            f"{_DRAW} long, {_ITEM} {item_type}",
        )
    )
    at = np.empty(len(units), dtype=np.int64)
    at[picked.column(_DRAW).to_numpy()] = np.arange(picked.num_rows)
    chosen = picked.column(_ITEM).take(pa.array(at))
    return chosen.slice(0, draws).combine_chunks(), chosen.slice(draws).combine_chunks()


def _pick_in_partition(batches: Any, keys: tuple[str, str]) -> Any:
    """In a Spark worker: a partition's units, each as its items (by id) then its draws;
    yields each draw's item, picked by the core."""
    from . import _core

    t = pa.Table.from_batches(list(batches))
    if t.num_rows == 0:
        return
    t = t.combine_chunks()
    n = t.num_rows
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in keys:
        col = t.column(k)
        new[1:] |= pc.not_equal(col.slice(1), col.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    group = (np.cumsum(new) - 1).astype(np.uint32)
    is_draw = t.column(_KIND).to_numpy() == 1
    member_rows = np.flatnonzero(~is_draw)
    weights = t.column(_WEIGHT).to_numpy(zero_copy_only=False)[member_rows].astype(np.float64)
    at = t.column(_AT).to_numpy(zero_copy_only=False)[is_draw].astype(np.float64)
    pick: Any = _core.pick_by_weight(group[member_rows], weights, group[is_draw], at)
    items = t.column(_ITEM).take(pa.array(member_rows[pick]))
    drawn = t.column(_DRAW).filter(pa.array(is_draw))
    yield from pa.table({_DRAW: drawn, _ITEM: items}).to_batches()


def _with_attributes(u: _Units, pairs: pa.Table) -> pa.Table:
    """The items table's other columns for both items of each pair (`<column>_i`,
    `<column>_j`), as the in-process sample has them."""
    items, item_col = u.items_frame, u.item_col
    if items is None:
        return pairs
    attrs = [c for c in items.columns if c != item_col]
    ids = pc.unique(pa.concat_arrays([pairs.column("item_i").combine_chunks(),
                                      pairs.column("item_j").combine_chunks()]))  # fmt: skip
    wanted = u.session.createDataFrame(pa.table({item_col: ids}))
    found = _to_arrow(items.join(wanted, item_col, "inner"))
    cols = {c: pairs.column(c) for c in pairs.column_names}
    for side in ("i", "j"):
        at = pc.index_in(pairs.column(f"item_{side}"), found.column(item_col))
        for c in attrs:
            cols[f"{c}_{side}"] = found.column(c).take(at)
    return pa.table(cols)
