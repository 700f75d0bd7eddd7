"""Arrow arrays → the tuples the C++ core reads, without copying row by row."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_STRING_TYPES = (pa.string(), pa.large_string())


def _flat(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr


def normalize_ids(arr: pa.Array | pa.ChunkedArray, as_string: bool = False) -> pa.Array:
    """Integers become int64 and everything else a string array (ids are opaque)."""
    arr = _flat(arr)
    t = arr.type
    if not as_string and (pa.types.is_integer(t) or pa.types.is_boolean(t)):
        return arr if t == pa.int64() else pc.cast(arr, pa.int64())
    if t in _STRING_TYPES:
        return arr
    if pa.types.is_string_view(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pc.cast(arr, pa.large_string())
    return pc.cast(arr, pa.string())


def is_integer(arr: pa.Array | pa.ChunkedArray) -> bool:
    t = arr.type.value_type if pa.types.is_dictionary(arr.type) else arr.type
    return pa.types.is_integer(t) or pa.types.is_boolean(t)


def id_tuple(arr: pa.Array, with_validity: bool = False) -> tuple:
    """The (kind, buffers...) tuple for an array from `normalize_ids`, views not copies."""
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


def float_array(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    arr = _flat(arr)
    if arr.type != pa.float64():
        arr = pc.cast(arr, pa.float64())
    return arr.to_numpy(zero_copy_only=False)
