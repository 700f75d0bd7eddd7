"""Arrow arrays → the tuples the C++ core reads, without copying row by row."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

STRING_TYPES = (pa.string(), pa.large_string())


def one_chunk(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """`arr` as one array: its only chunk as it is (combine_chunks() copies even that one),
    or its chunks joined."""
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def flat(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    arr = one_chunk(arr)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr


def nan_as_null(values: np.ndarray) -> pa.Array:
    """A float64 array with its NaN (undefined) values null, wrapping `values` without a
    copy. The validity bitmap is packed by numpy: several times faster than
    `pa.array(values, from_pandas=True)` on the millions of rows of a per-cluster table."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    nan = np.isnan(values)
    if not nan.any():
        return pa.array(values)
    valid = np.packbits(~nan, bitorder="little")
    buffers = [pa.py_buffer(valid), pa.py_buffer(values)]
    return pa.Array.from_buffers(pa.float64(), len(values), buffers)


def _one_chunk_if_possible(arr: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    if isinstance(arr, pa.ChunkedArray) and arr.num_chunks == 1:
        return arr.chunk(0)
    return arr


def normalize_ids(
    arr: pa.Array | pa.ChunkedArray, as_string: bool = False
) -> pa.Array | pa.ChunkedArray:
    """Integers become int64 and everything else a string array (ids are opaque). Chunks
    stay chunks: the core joins them (see `id_tuple`), which costs less than Arrow's copy."""
    arr = _one_chunk_if_possible(arr)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr, t = pc.cast(arr, t.value_type), t.value_type
    if not as_string and (pa.types.is_integer(t) or pa.types.is_boolean(t)):
        return arr if t == pa.int64() else pc.cast(arr, pa.int64())
    if t in STRING_TYPES:
        return arr
    if pa.types.is_string_view(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pc.cast(arr, pa.large_string())
    if pa.types.is_floating(t):
        # -0.0 == 0.0: one id, as the classic metrics (and every other tool) count it.
        arr = pc.add(arr, pa.scalar(0, t))
    return pc.cast(arr, pa.string())


def is_integer(arr: pa.Array | pa.ChunkedArray) -> bool:
    t = arr.type.value_type if pa.types.is_dictionary(arr.type) else arr.type
    return pa.types.is_integer(t) or pa.types.is_boolean(t)


def id_tuple(arr: pa.Array | pa.ChunkedArray, with_validity: bool = False) -> tuple | list:
    """The (kind, buffers...) tuple for an array from `normalize_ids`, views not copies;
    for a chunked array, a list of one such tuple per chunk."""
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 0:
            return id_tuple(pa.array([], type=arr.type), with_validity)
        return [id_tuple(chunk, with_validity) for chunk in arr.chunks]
    n = len(arr)
    validity = None
    if with_validity and arr.null_count > 0:
        validity = pc.is_valid(arr).to_numpy(zero_copy_only=False).view(np.uint8)
    if arr.type == pa.int64():
        values = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + n]
        return ("int64", values, None, validity)
    large = arr.type == pa.large_string()
    offsets_buf, data_buf = arr.buffers()[1], arr.buffers()[2]
    dtype = np.int64 if large else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=dtype)[arr.offset : arr.offset + n + 1]
    chars = (
        np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(1, np.uint8)
    )
    return ("large_string" if large else "string", chars, offsets, validity)


def take(column: pa.Array | pa.ChunkedArray, indices: Any) -> pa.Array | pa.ChunkedArray:
    """`_take()`, with the values of a dictionary column (a coded cluster column, a
    categorical) rather than its codes: what a user reads in a result."""
    got = _take(column, indices)
    if not pa.types.is_dictionary(got.type):
        return got
    return pc.cast(got, got.type.value_type)


def _take(column: pa.Array | pa.ChunkedArray, indices: Any) -> pa.Array | pa.ChunkedArray:
    """`column.take(indices)` (null indices give nulls), without letting Arrow join a
    chunked column's chunks first: that copies the whole column (60 MB for a slice column
    of 1e7 short strings) to fetch a few rows. Few rows are taken chunk by chunk."""
    idx = indices if isinstance(indices, (pa.Array, pa.ChunkedArray)) else pa.array(indices)
    if not isinstance(column, pa.ChunkedArray) or column.num_chunks <= 1:
        return column.take(idx)
    if len(idx) * 8 > len(column):  # most rows: the copy is no waste
        return column.take(idx)
    idx = idx.combine_chunks() if isinstance(idx, pa.ChunkedArray) else idx
    pos = pc.fill_null(idx, 0).to_numpy(zero_copy_only=False).astype(np.int64)
    bounds = np.cumsum([0] + [len(c) for c in column.chunks])
    if len(pos) and (pos.min() < 0 or pos.max() >= bounds[-1]):
        raise IndexError("take: index out of bounds")
    chunk_of = np.searchsorted(bounds, pos, side="right") - 1
    order = np.argsort(chunk_of, kind="stable")  # the rows grouped by chunk, once
    pos, chunk_of = pos[order], chunk_of[order]
    ends = np.searchsorted(chunk_of, np.arange(column.num_chunks), side="right")
    parts, start = [], 0
    for k, end in enumerate(ends):
        if end > start:
            parts.append(column.chunk(k).take(pa.array(pos[start:end] - bounds[k])))
        start = end
    if not parts:
        return pa.array([], type=column.type)
    back = np.empty_like(order)
    back[order] = np.arange(len(order))  # where each requested row landed
    got = pa.concat_arrays(parts).take(pa.array(back))
    if idx.null_count == 0:
        return got
    return pc.if_else(idx.is_valid(), got, pa.scalar(None, type=column.type))


def float_array(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    arr = flat(arr)
    if arr.type != pa.float64():
        arr = pc.cast(arr, pa.float64())
    return arr.to_numpy(zero_copy_only=False)


def named_columns(result: Any) -> dict[str, np.ndarray]:
    """A core result's metric columns by name (GroupTable, PerItemRows, CurveTable: `names`
    and `column(k)`), each a read-only view of the core's array."""
    return {name: result.column(k) for k, name in enumerate(result.names)}


def first_bad_weight(weights: np.ndarray) -> int | None:
    """The first position whose weight is not a finite number > 0 (the core's rule,
    src/detail/weight.h, asked before the core so the error can name the file and row),
    or None."""
    bad = ~(np.isfinite(weights) & (weights > 0))
    return int(np.argmax(bad)) if bad.any() else None


def shared_codes(columns: list[pa.ChunkedArray]) -> tuple[pa.Array, np.ndarray]:
    """Every distinct id of `columns` (integers if all are, else text) in order of first
    appearance, and each row's code there: the rows of all columns one after another. The
    core's interning: one pass, where Arrow's unique and index_in take two."""
    from . import _core

    as_text = not all(is_integer(c) for c in columns)
    normal = [pa.chunked_array(normalize_ids(c, as_text)) for c in columns]
    if len({c.type for c in normal}) > 1:  # text of both offset widths (pandas 3 and a CSV)
        normal = [c.cast(pa.large_string()) for c in normal]
    every = pa.chunked_array([chunk for c in normal for chunk in c.chunks], normal[0].type)
    codes, first_rows = _core.column_codes(id_tuple(every))
    ids = flat(take(every, pa.array(first_rows.astype(np.int64))))
    return ids, np.asarray(codes)
