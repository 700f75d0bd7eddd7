"""Reading Parquet files, and folders and URIs of Parquet or CSV files: decoded batch by
batch into the arrays the core takes, text cluster ids coded as they arrive."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import _arrays, _core
from ._io_csv import _csv_convert, _csv_table
from ._io_source import _CSV, _PARQUET, DELIMITER, Source, _suffix, short
from ._progress import advance

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
        delimiter = DELIMITER.get() or _CSV[ext]
        try:
            stream = filesystem.open_input_stream(inner, compression="detect")
            table = _csv_table(stream, delimiter, string_columns)
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
            parse_options=pacsv.ParseOptions(delimiter=DELIMITER.get() or _CSV[next(iter(kinds))]),
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
