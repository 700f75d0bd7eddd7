"""What `evaluate` and `diff` share: loading both clusterings and the items table,
handing them to the C++ core, and presenting its tables as dicts and DataFrames."""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _arrays, _core
from ._io import Source, item_id_arrays, load_clustering, load_items
from ._io_source import Renamed
from ._progress import step
from ._terms import setting

_NONE = _core.NONE  # the core's "no such row" in index arrays
# How many slice groupings a comparison keeps (4 bytes an item each).
KEPT_GROUPINGS = 4


def nullable(x: float) -> float | None:
    """None for NaN: how the core marks an undefined value."""
    return None if math.isnan(x) else x


def _require_finite_total(items: Source, column: str, weights: np.ndarray) -> None:
    """Sums of weights are reported (coverage, each group's weight): they must be numbers.
    Bad single weights are the core's to report, with their row."""
    # A margin of 4: the core's compensated sums must not overflow on the way either.
    # Summed in place: a copy of the finite weights would cost a pass and 8 bytes an item.
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is what is checked for
        total = np.sum(weights) * 4.0
    if not np.isfinite(total) and np.isfinite(weights).all():
        raise ValueError(
            f"{items.name}: the weights in {column!r} sum past a quarter of the largest double"
            f" (~1.8e308); divide them all by one constant (the metrics stay the same)"
        )
    positive = weights[weights > 0] if len(weights) else weights
    with np.errstate(over="ignore"):  # a span past the doubles is what is checked for
        span = np.max(positive) / np.min(positive) if len(positive) else 1.0
    if span > _WEIGHT_SPAN:
        raise ValueError(
            f"{items.name}: the weights in {column!r} run from {np.min(positive):.3g} to"
            f" {np.max(positive):.3g}; a pair counts the product of two weights, which a double"
            f" cannot hold across more than {_WEIGHT_SPAN:.0e} between them: cap or rescale them"
        )


# The widest ratio of item weights: pair products w_i·w_j of the lightest and the
# heaviest items, scaled together, must stay normal doubles (~1e-308 to ~1e308).
_WEIGHT_SPAN = 1e150


def reading(obj: Any, role: str) -> AbstractContextManager:
    """The progress step of reading `obj`: named by its file, or by its role for input in
    memory; none for input already read (one truth shared by several runs)."""
    if obj is None or isinstance(obj, Source):
        return nullcontext()
    path = obj.source if isinstance(obj, Renamed) else obj
    return step(f"reading {Path(path).name if isinstance(path, (str, os.PathLike)) else role}")


@dataclasses.dataclass(frozen=True)
class Units:
    """An items table whose rows are *units*: groups of items that share both clusters and
    every slice value, as another engine's group-by (Spark) hands them over. Its item column
    numbers the units, its weight column holds their Σw, and `count_col` and
    `weight_sq_col` their item counts and Σw². Every metric and interval is a function of
    these sums, so a comparison of units equals that of the items they stand for."""

    table: pa.Table
    count_col: str = "count"
    weight_sq_col: str = "weight_sq"


def check_batch_rows(rows: Any) -> None:
    """per_item_batches()' `rows`: a positive integer, or a ValueError naming it."""
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise ValueError(f"per_item_batches: rows must be a positive integer, not {rows!r}")


class Comparison:
    """Two clusterings A and B compared on their common items T (see docs/metrics.md)."""

    roles: tuple[str, str]
    _family: _core.MetricFamily
    _scope: _core.TruthScope = (
        _core.TruthScope.common
    )  # pointwise only (docs/metrics.md, truth scope)

    def __init__(
        self,
        a: Any,
        b: Any,
        items: Any = None,
        *,
        item_col: str = "item_id",
        cluster_col: str = "cluster_id",
        weight_col: str = "weight",
    ) -> None:
        ra, rb = self.roles
        self._item_col, self._cluster_col, self._weight_col = item_col, cluster_col, weight_col
        # slice_grouping's last few, by their columns, the most recently used last.
        self._groupings: dict[tuple[str, ...], tuple[Any, Any]] = {}
        with reading(a, ra):
            self._a = load_clustering(a, ra, item_col, cluster_col)
        with reading(b, rb):
            self._b = load_clustering(b, rb, item_col, cluster_col)
        units = items if isinstance(items, Units) else None
        if units is not None:
            items = units.table.drop_columns([units.count_col, units.weight_sq_col])
        with reading(items, "items"):
            self._items = None if items is None else load_items(items, item_col, weight_col)
        id_cols = [self._a.table.column(item_col), self._b.table.column(item_col)]
        if self._items is not None:
            id_cols.append(self._items.table.column(item_col))
        ids = item_id_arrays(*id_cols)
        items_arg = weights = None
        if self._items is not None:
            items_arg = _arrays.id_tuple(ids[2])
            if weight_col in self._items.table.column_names:
                weights = _arrays.float_array(self._items.table.column(weight_col))
                _require_finite_total(self._items, weight_col, weights)
        with self._errors(), step("joining and building cells"):
            self._core = _core.Comparison(
                ra,
                _arrays.id_tuple(ids[0]),
                _cluster_ids(self._a, cluster_col),
                rb,
                _arrays.id_tuple(ids[1]),
                _cluster_ids(self._b, cluster_col),
                items_arg,
                weights,
                self._family,
                self._scope,
                *_unit_sizes(units),
            )

    # -- what the package's other modules read -------------------------------------------

    @property
    def core(self) -> Any:
        """The C++ comparison that holds the cells (for the package's modules)."""
        return self._core

    @property
    def sources(self) -> tuple[Source, Source, Source | None]:
        """The two clusterings and the items table (None without one), as read."""
        return self._a, self._b, self._items

    @property
    def columns(self) -> tuple[str, str, str]:
        """The names of the item id, cluster id and weight columns."""
        return self._item_col, self._cluster_col, self._weight_col

    @functools.cached_property
    def input_fingerprints(self) -> dict[str, str]:
        """Per input (the two roles, and "items" if given): an order-independent hash of
        its ids, clusters and weights as given, in hex (an integer id and its text are
        different inputs)."""

        def one(src: Source) -> int:
            t = src.table
            return _core.fingerprint(
                _arrays.id_tuple(_arrays.normalize_ids(t.column(self._item_col))),
                _arrays.id_tuple(_arrays.normalize_ids(t.column(self._cluster_col))),
            )

        out = {self.roles[0]: one(self._a), self.roles[1]: one(self._b)}
        if self._items is not None:
            t = self._items.table
            w = (_arrays.float_array(t.column(self._weight_col))
                 if self._weight_col in t.column_names else None)  # fmt: skip
            ids = _arrays.normalize_ids(t.column(self._item_col))
            out["items"] = _core.items_fingerprint(_arrays.id_tuple(ids), w)
        return {k: f"{v:016x}" for k, v in out.items()}

    # -- errors ------------------------------------------------------------------------

    def _errors(self, **more: Source) -> _ErrorContext:
        """The core's input errors named by file and line: these two clusterings' and
        items table's, and `more` inputs by the core's names for them."""
        sources = {self.roles[0]: self._a, self.roles[1]: self._b, "items": self._items, **more}
        return _ErrorContext(sources, f"{self._a.name} vs {self._b.name}")

    # -- summaries -----------------------------------------------------------------------

    @property
    def coverage(self) -> dict[str, float | int]:
        """Item counts and weights of each side, the common items T, and what is missing."""
        c = self._core.coverage()
        values = []
        for key in ("items", "weight"):
            values += [
                getattr(c, f"{part}_{key}") for part in ("a", "b", "common", "a_only", "b_only")
            ]
        values += [c.a_clusters, c.b_clusters, c.a_clusters_common, c.b_clusters_common]
        if self._items is not None:
            values += [c.items_table_rows, c.items_table_unmatched]
        keys = self.coverage_keys(*self.roles, items=self._items is not None)
        return dict(zip(keys, values, strict=True))

    @staticmethod
    def coverage_keys(ra: str, rb: str, items: bool) -> list[str]:
        """The coverage's keys in order, for sides named `ra` and `rb`, with an items table
        or without."""
        keys = []
        for key in ("items", "weight"):
            keys += [f"{ra}_{key}", f"{rb}_{key}", f"common_{key}", f"{ra}_only_{key}",
                     f"{rb}_only_{key}"]  # fmt: skip
        keys += [f"{ra}_clusters", f"{rb}_clusters", f"{ra}_clusters_common",
                 f"{rb}_clusters_common"]  # fmt: skip
        return keys + (["items_table_rows", "items_table_unmatched"] if items else [])

    @property
    def overall(self) -> dict[str, float | None]:
        """Every metric over all scored items (weighted means, and the pair metrics);
        None where a metric is undefined (a pair metric without pairs)."""
        g = self._core.overall()
        return {name: nullable(float(v[0])) for name, v in _arrays.named_columns(g).items()}

    # -- tables ---------------------------------------------------------------------------

    def per_item(self) -> pd.DataFrame:
        """One row per common item, in the order of the first clustering."""
        return self.per_item_table().to_pandas()

    def per_cluster(self, side: str) -> pd.DataFrame:
        """One row per cluster of `side` that meets the common items."""
        return self.per_cluster_table(side).to_pandas()

    def per_slice(self, column: str | Sequence[str]) -> pd.DataFrame:
        """One row per value (or combination of values) of items-table column(s), heaviest
        first (by `weight`, the value's scored items; ties in the items table's order),
        items without an items-table row last."""
        return self.per_slice_table(column).to_pandas()

    def per_item_table(self) -> pa.Table:
        """`per_item()` as an Arrow table."""
        items: Any = self._core.common_items()  # a uint32 array
        return self._per_item_part(items, self._core.cell_counts())

    def per_item_batches(self, rows: int = 1 << 20) -> Iterator[pa.RecordBatch]:
        """The per-item table as Arrow record batches of at most `rows` rows, in the same
        order: for writing it out at sizes where the whole table (~130 bytes per item)
        is more than memory should hold at once. Only one batch is built at a time."""
        check_batch_rows(rows)
        items: Any = self._core.common_items()  # a uint32 array
        counts = self._core.cell_counts()  # once for all batches
        parts = (items[start : start + rows] for start in range(0, len(items), rows))
        return (batch for part in parts for batch in self._per_item_part(part, counts).to_batches())

    def _per_item_part(self, item: np.ndarray, counts: Any) -> pa.Table:
        """Per-item rows of the given common items (indices from the core), with the
        comparison's per-cell counts (its cell_counts())."""
        rows = self._core.per_item(item, counts)
        ra, rb = self.roles
        cols: dict[str, Any] = {
            self._item_col: self._a.table.column(self._item_col).take(item),
            f"{ra}_cluster": _arrays.take(self._a.table.column(self._cluster_col), item),
            f"{rb}_cluster": _arrays.take(
                self._b.table.column(self._cluster_col), rows.b_cluster_row
            ),
            "weight": rows.weight,
        }
        cols.update(self._item_columns(_arrays.named_columns(rows)))
        return pa.table(cols)

    @staticmethod
    def _item_columns(d: dict[str, np.ndarray]) -> dict[str, Any]:
        """The per-item table's value columns from the core's (a static method: the Spark
        engine's workers call it too)."""
        return d

    def per_cluster_table(self, side: str) -> pa.Table:
        """`per_cluster(side)` as an Arrow table."""
        if side not in self.roles:
            raise ValueError(f"unknown side {side!r}; use one of: {', '.join(self.roles)}")
        g = self._core.by_cluster(_core.Side.a if side == self.roles[0] else _core.Side.b)
        return self._group_table({"cluster_id": self.cluster_labels(side, g.group)}, g)

    def per_cluster_parts(self, side: str) -> pa.Table | Iterator[pa.RecordBatch]:
        """per_cluster_table(side) as a writer takes it: here the table itself (an engine
        whose tables are elsewhere gives batches, in the order of the cluster ids)."""
        return self.per_cluster_table(side)

    def picked_clusters(self, side: str, pick: Callable[[pd.DataFrame], pd.DataFrame]) -> Any:
        """The rows `pick` keeps of `side`'s per-cluster table (as pandas), for display.
        `pick` must keep the top rows of an order, ties in the table's order: what it keeps
        of the whole table must be among what it keeps of any part."""
        return pick(self.per_cluster_table(side).to_pandas())

    def summed_clusters(self, side: str, summed: Callable[[pd.DataFrame], pd.DataFrame]
                        ) -> pd.DataFrame:  # fmt: skip
        """`summed` of `side`'s per-cluster table (as pandas), for display. `summed` must
        give sums by a text column `size` in float columns, so that the sums of parts of the
        table add up to the table's (an engine whose tables are elsewhere sums its parts)."""
        return summed(self.per_cluster_table(side).to_pandas())

    def cluster_labels(self, side: str, codes: np.ndarray | None = None) -> Any:
        """The cluster ids of `side` (a role) as its input gives them, one per cluster in the
        core's order, or for the cluster indices `codes` (increasing) only."""
        core_side = _core.Side.a if side == self.roles[0] else _core.Side.b
        first_rows = self._core.cluster_first_rows(core_side)
        # Codes come in increasing order, so as many as there are clusters are all of them:
        # no gather.
        every = codes is None or len(codes) == len(first_rows)
        src = self._a if core_side == _core.Side.a else self._b
        column = src.table.column(self._cluster_col)
        if self._cluster_col in src.coded:  # the core numbers clusters by these codes
            values = _arrays.one_chunk(column).dictionary
            return values if every else values.take(codes)
        return _arrays.take(column, first_rows if every else first_rows[codes])

    def per_slice_table(self, column: str | Sequence[str]) -> pa.Table:
        """`per_slice(column)` as an Arrow table."""
        grouping, labels_of = self.slice_grouping(column)
        with self._errors():
            g = self._core.by_items(grouping)
        return self._group_table(labels_of(g.group), g)

    def slice_grouping(self, column: str | Sequence[str]) -> tuple[Any, Any]:
        """The core's grouping of items by the values of items-table `column`(s), and a
        function from group codes to those values (a dict of Arrow arrays). The last four
        (KEPT_GROUPINGS) are kept: the tables of several slices and then their intervals
        (the command line asks in that order) group each slice once (a few only, as a
        grouping holds 4 bytes an item)."""
        columns = [column] if isinstance(column, str) else list(column)
        key = tuple(columns)
        if key in self._groupings:
            self._groupings[key] = self._groupings.pop(key)  # the most recently used last
            return self._groupings[key]
        if self._items is None:
            raise ValueError(
                f"per_slice needs an items table ({setting('items', ...)}) holding the slice"
                " columns"
            )
        if not columns:
            raise ValueError("per_slice needs at least one column")
        table = self._items.table
        for c in columns:
            if c not in table.column_names or c == self._item_col:
                have = ", ".join(n for n in table.column_names if n != self._item_col)
                raise ValueError(f"{self._items.name}: no slice column {c!r} (columns: {have})")
            t = table.column(c).type
            if pa.types.is_nested(t) or pa.types.is_null(t):
                raise ValueError(
                    f"{self._items.name}: slice column {c!r} holds {t}; a slice's values are"
                    " numbers, text, dates or true/false"
                )
        arrays = [_arrays.normalize_ids(table.column(c)) for c in columns]
        with self._errors():
            grouping: Any = self._core.group_items([_arrays.id_tuple(a, True) for a in arrays])
        found = grouping, self._labels_for(columns, grouping)
        self._groupings[key] = found
        if len(self._groupings) > KEPT_GROUPINGS:
            del self._groupings[next(iter(self._groupings))]
        return found

    def _labels_for(self, column: str | Sequence[str], grouping: Any) -> Any:
        """The function from `grouping`'s group codes to their values (a dict of Arrow
        arrays, one per column)."""
        columns = [column] if isinstance(column, str) else list(column)
        assert self._items is not None
        table = self._items.table

        def labels_of(codes: np.ndarray) -> dict[str, Any]:
            rows = grouping.group_row[codes]
            idx = pa.array(rows.astype(np.int64), mask=rows == _NONE)
            return {c: _arrays.take(table.column(c), idx) for c in columns}

        return labels_of

    def interval_grouping(
        self, column: str | Sequence[str], most: int, like: Any = None
    ) -> tuple[Any, Any]:
        """slice_grouping(column), kept to its `most` heaviest groups (its first: groups come
        heaviest first) when it has more, with a warning naming how many values get no
        interval. With `like` (another comparison's interval grouping of the same items
        table: runs compared against one truth), its groups in `like`'s order, so that a
        group's code means one value in both."""
        grouping, labels_of = self.slice_grouping(column)
        if like is not None:
            kept = grouping.keep(_order_like(grouping, like))
            return kept, self._labels_for(column, kept)
        n = int(grouping.n_groups)
        if n <= most:
            return grouping, labels_of
        kept = grouping.keep(np.arange(most, dtype=np.uint32))
        name = column if isinstance(column, str) else ", ".join(column)
        warnings.warn(
            f"intervals by {name}: for its {most:,} heaviest values of {n:,}; the other"
            f" {n - most:,} have none (each value's intervals keep every resample)",
            stacklevel=4,
        )
        return kept, self._labels_for(column, kept)

    @staticmethod
    def _group_table(labels: dict[str, Any], g: Any) -> pa.Table:
        """`labels` then the core's GroupTable `g`: items, weight and its metrics."""
        cols: dict[str, Any] = dict(labels)
        cols["items"] = g.items.view(np.int64)  # counts < 2^63: the same bits
        cols["weight"] = g.weight
        # Undefined values (a pair metric of a group without pairs) are nulls, not NaN.
        cols.update({name: _arrays.nan_as_null(v) for name, v in _arrays.named_columns(g).items()})
        return pa.table(cols)


def _order_like(grouping: Any, like: Any) -> np.ndarray:
    """The codes of `grouping` for `like`'s groups in `like`'s order (a group is known by
    its items-table row), then `grouping`'s group of items without a row if `like` has
    none and kept every other: both group the same items table, so only that group can
    differ between them."""
    rows = np.asarray(grouping.group_row)
    code_of = dict(zip(rows.tolist(), range(len(rows)), strict=True))
    wanted = np.asarray(like.group_row).tolist()
    order = [code_of[r] for r in wanted if r in code_of]
    if _NONE in code_of and _NONE not in wanted and len(order) == len(rows) - 1:
        order.append(code_of[_NONE])
    return np.asarray(order, dtype=np.uint32)


def _cluster_ids(src: Source, column: str) -> tuple | list:
    """The core's view of a cluster column: a coded one's codes as they are (numbered in
    order of first appearance, as the core numbers clusters)."""
    col = src.table.column(column)
    if column in src.coded:
        codes = _arrays.one_chunk(col).indices
        return ("codes", codes.to_numpy(zero_copy_only=True).view(np.uint32))
    return _arrays.id_tuple(_arrays.normalize_ids(col))


def _unit_sizes(units: Units | None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The core's counts and weights_sq arguments: None for single items."""
    if units is None:
        return None, None
    count = units.table.column(units.count_col).to_numpy().astype(np.uint64, copy=False)
    weight_sq = _arrays.float_array(units.table.column(units.weight_sq_col))
    return np.ascontiguousarray(count), weight_sq


class _ErrorContext:
    """Turns the core's InputError(message, source, row, first_row) into a ValueError naming the
    file and line (or input and row) the user has to fix: `sources` by the core's names
    for them; an error of no one input is said of `unnamed`."""

    def __init__(self, sources: dict[str, Source | None], unnamed: str) -> None:
        self._sources, self._unnamed = sources, unnamed

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ: Any, exc: Any, tb: Any) -> None:
        if typ is None or not issubclass(typ, _core.InputError):
            return
        message, source, row, first = exc.args
        src = self._sources.get(source)
        if src is None:
            raise ValueError(f"{self._unnamed}: {message}") from None
        where = src.where(row) if row >= 0 else src.name
        if first >= 0:
            message += f" (first at {src.place(first)})"
        raise ValueError(f"{where}: {message}") from None
