"""Reading clusterings and items tables: files, DataFrames, Arrow tables, dicts.

Every problem is reported as a ValueError that names the file (or input), the line
(or row) and the value, so that a user can find and fix it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from . import _arrays

DEFAULT_WEIGHT_COL = "weight"
_CSV = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET = {".parquet", ".pq"}
_COMPRESSED = {".gz", ".bz2", ".zst", ".lz4"}


@dataclass
class Source:
    """A table and where it came from, to name places in error messages."""

    table: pa.Table
    name: str  # file path, or the role for in-memory input
    kind: str  # "csv", "parquet" or "memory"
    path: Path | None = None

    def where(self, row: int) -> str:
        """'truth.csv line 7', 'actual.parquet row 6' or 'truth row 6' (rows from 0)."""
        if self.kind == "csv" and self.path is not None:
            return f"{self.name} line {_csv_line_of_row(self.path, row)}"
        return f"{self.name} row {row}"


def _csv_line_of_row(path: Path, row: int) -> int:
    """1-based line of data row `row` (0-based), skipping the header and blank lines."""
    seen = -1
    with open(path, "rb") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            if seen == row:  # seen counts the header as -1
                return number
            seen += 1
    return row + 2


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def read_file(path: str | os.PathLike, string_columns: tuple[str, ...] = ()) -> Source:
    """Reads a CSV, TSV or Parquet file (chosen by extension) into an Arrow table.

    `string_columns` are read as text from CSV so that ids like '007' stay exact.
    """
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{p}: no such file")
    if p.is_dir():
        raise ValueError(f"{p}: is a directory, not a file")
    if p.stat().st_size == 0:
        raise ValueError(f"{p}: the file is empty")
    ext = _suffix(p)
    if ext in _PARQUET:
        try:
            table = _read_parquet(p)
            table.column_names  # noqa: B018 (decodes the names, which may not be text)
            for column in table.columns:  # text must be UTF-8 before anything reads it
                if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                    column.validate(full=True)
        except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
            raise ValueError(f"{p}: not a readable Parquet file ({short(e)})") from None
        return Source(table, str(p), "parquet", p)
    if ext in _CSV:
        return Source(_read_csv(p, _CSV[ext], string_columns), str(p), "csv", p)
    raise ValueError(
        f"{p}: unknown file type '{ext or p.name}'; use .csv, .tsv or .parquet"
        " (optionally compressed, e.g. .csv.gz)"
    )


# Rows decoded per batch when reading Parquet: one batch of each column in memory at once
# beside the table being filled. Tests make it small, to read a file in several batches.
_PARQUET_BATCH_ROWS = 1 << 20


def _is_flat(t: pa.DataType) -> bool:
    """Fixed-width numbers that numpy holds as they are (ids, clusters, weights)."""
    return (pa.types.is_integer(t) or pa.types.is_floating(t)) and not pa.types.is_float16(t)


def _read_parquet(p: Path) -> pa.Table:
    """The file's table, with each numeric column that has no nulls in one contiguous
    array, filled batch by batch as the row groups are decoded. pq.read_table() gives a
    chunk per row group, which the core must then copy into one array: at 1e7 items
    (int64 ids and clusters, float weights), `evaluate` from Parquet peaked at 192 bytes
    per item that way, 116 this way. Other columns keep one chunk per batch."""
    f = pq.ParquetFile(p)
    schema = f.schema_arrow
    n = f.metadata.num_rows
    flat: dict[int, np.ndarray] = {
        i: np.empty(n, dtype=field.type.to_pandas_dtype())
        for i, field in enumerate(schema)
        if _is_flat(field.type)
    }
    chunks: list[list[pa.Array]] = [[] for _ in schema]
    at = 0
    for batch in f.iter_batches(batch_size=_PARQUET_BATCH_ROWS):
        rows = batch.num_rows
        if at + rows > n:
            raise ValueError(f"{p}: holds more rows than its metadata says ({n:,})")
        for i in range(len(schema)):
            col = batch.column(i)
            if i in flat and col.null_count > 0:  # nulls: chunks from here on
                chunks[i].append(pa.array(flat.pop(i)[:at].copy()))
            if i in flat:
                flat[i][at : at + rows] = col.to_numpy()
            else:
                chunks[i].append(col)
        at += rows
    if at != n:
        raise ValueError(f"{p}: holds {at:,} rows where its metadata says {n:,}")
    arrays = [
        pa.array(flat[i]) if i in flat else pa.chunked_array(chunks[i], type=field.type)
        for i, field in enumerate(schema)
    ]
    return pa.Table.from_arrays(arrays, schema=schema)


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, with "…" where it was cut: values and
    library messages quoted in an error stay on one short line."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(e: BaseException, limit: int = 160) -> str:
    """An error from a library as one short line: its first line, cut at `limit`."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return clip(text, limit)


def _read_csv(p: Path, delimiter: str, string_columns: tuple[str, ...]) -> pa.Table:
    # No invalid_row_handler: a Python callable held by Arrow's reader threads was
    # released by one of them while the interpreter finalized, which aborted the process
    # at exit (apache/arrow#34314). A bad row is located by a scan of our own instead.
    kind = "TSV" if delimiter == "\t" else "CSV"
    try:
        table = pacsv.read_csv(
            p,
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in string_columns},
                # Only an empty field is missing: an item may well be called "NA".
                null_values=[""],
                strings_can_be_null=True,
            ),
        )
        table.column_names  # noqa: B018 (decodes the names: the header may not be text)
        if not any(pa.types.is_binary(t) for t in table.schema.types):
            return table
        # Arrow reads a column holding bytes that are not UTF-8 as binary: say where.
        raise pa.ArrowInvalid("a field is not UTF-8 text")
    except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
        bad = _first_bad_row(p, delimiter)
        if bad is not None:
            raise ValueError(bad) from None
        raise ValueError(f"{p}: cannot read as {kind}: {short(e)}") from None


def _first_bad_row(p: Path, delimiter: str) -> str | None:
    """'<file> line N: ...' for the first line that is not UTF-8 text or whose number of
    fields differs from the header's; None if every line reads."""
    import csv

    number = 0

    def lines() -> Iterator[str]:
        nonlocal number
        with pa.input_stream(str(p), compression="detect") as stream:
            rest = b""
            while chunk := stream.read(1 << 20):
                *whole, rest = (rest + chunk).split(b"\n")
                for raw in whole:
                    number += 1
                    yield raw.decode("utf-8") + "\n"
            if rest:
                number += 1
                yield rest.decode("utf-8")

    try:
        reader = csv.reader(lines(), delimiter=delimiter, strict=True)
        expected = None
        for row in reader:
            if not row:
                continue
            if expected is None:
                expected = len(row)
            elif len(row) != expected:
                return (
                    f"{p} line {reader.line_num}: expected {expected} fields,"
                    f" found {len(row)}: {clip(delimiter.join(row), 80)!r}"
                )
    except UnicodeDecodeError:
        return f"{p} line {number}: not UTF-8 text"
    except csv.Error as e:
        return f"{p} line {number}: {short(e, 80)}"
    except (pa.ArrowException, OSError, EOFError) as e:
        after = f" after line {number}" if number else ""
        return f"{p}: cannot be read to its end{after} ({short(e, 100)})"
    return None


def _from_memory(obj: Any, name: str) -> pa.Table | None:
    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    module = type(obj).__module__
    if module.startswith("polars"):
        return obj.to_arrow()
    if module.startswith("pandas"):
        try:
            return pa.Table.from_pandas(obj, preserve_index=False)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            # Mixed-type object columns: ids are opaque, so compare them as text.
            return pa.Table.from_pandas(obj.astype(str), preserve_index=False)
    return None


def load_table(obj: Any, name: str, string_columns: tuple[str, ...] = ()) -> Source:
    """Any supported input (path, DataFrame, Arrow table) → Source; a Source already
    loaded (one truth scored against several runs) is used as it is."""
    if isinstance(obj, Source):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        src = read_file(obj, string_columns)
    else:
        table = _from_memory(obj, name)
        if table is None:
            raise ValueError(
                f"{name}: expected a file path, a pandas or polars DataFrame, a pyarrow Table"
                f" or a dict {{item: cluster}}, got {type(obj).__name__}"
            )
        src = Source(table, name, "memory")
    _require_unique_columns(src)
    return src


def _require_unique_columns(src: Source) -> None:
    seen: set[str] = set()
    for c in src.table.column_names:
        if c in seen:
            where = f"{src.name} line 1" if src.kind == "csv" else src.name
            raise ValueError(f"{where}: column {_shown_name(c)!r} appears twice")
        seen.add(c)


def require_id_column(src: Source, column: str) -> None:
    """Ids and cluster ids are numbers or text: not lists or structs, and never NaN."""
    t = src.table.column(column).type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_nested(t) or pa.types.is_null(t):
        raise ValueError(f"{src.name}: column {column!r} holds {t}; ids must be numbers or text")
    if pa.types.is_floating(t):
        isnan = pc.is_nan(src.table.column(column))
        if pc.any(isnan).as_py():
            row = pc.index(isnan, True).as_py()
            raise ValueError(f"{src.where(row)}: {column} is NaN; ids must be values")


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
            raise ValueError(f"{src.name}: no column '{c}' (columns: {have}); {option}")


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


def load_clustering(obj: Any, role: str, item_col: str, cluster_col: str) -> Source:
    if isinstance(obj, dict):
        src = Source(_dict_table(obj, item_col, cluster_col), role, "memory")
    else:
        src = load_table(obj, role, (item_col, cluster_col))
    require_columns(src, [item_col, cluster_col], "name the columns with item_col/cluster_col")
    require_rows(src)
    require_no_nulls(src, item_col)
    require_no_nulls(src, cluster_col)
    require_id_column(src, item_col)
    require_id_column(src, cluster_col)
    return src


def load_items(obj: Any, item_col: str, weight_col: str) -> Source:
    src = load_table(obj, "items", (item_col,))
    require_columns(src, [item_col], "name the item column with item_col")
    require_rows(src)
    require_no_nulls(src, item_col)
    require_id_column(src, item_col)
    if weight_col in src.table.column_names:
        require_no_nulls(src, weight_col)
        require_numeric(src, weight_col)
    elif weight_col != DEFAULT_WEIGHT_COL:
        # Only the default name may be absent (every weight is then 1): another name is a
        # request for that column, and a typo must not weigh every item 1.
        require_columns(src, [weight_col], "name the weight column with weight_col")
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
