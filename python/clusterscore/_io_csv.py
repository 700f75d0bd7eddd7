"""Reading CSV and TSV files: ids read as text, and a file that does not parse told by its
first bad line."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from ._io_source import _CSV, DELIMITER, Source, _suffix, clip, short


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
    if DELIMITER.get() is not None:
        return ""  # the delimiter was chosen: the file's is not guessed at
    expected = _CSV.get(_suffix(src.path), ",")
    for other, name in _DELIMITERS.items():
        if other != expected and other in header:
            return (
                f"; its header looks separated by {name}, but a {_suffix(src.path)} file is"
                " read with "
                + _DELIMITERS[expected]
                + {"\t": ": rename it .tsv", ",": ": rename it .csv"}.get(
                    other, f": give --delimiter '{other}'"
                )
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
