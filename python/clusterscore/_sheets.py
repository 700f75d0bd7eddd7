"""CSV files that people open in a spreadsheet (the raters' file, a sample saved as CSV).

Ids and attributes come from other people's files. A spreadsheet evaluates a cell that
starts with "=", "+", "-", "@", a tab or a carriage return as a formula, so such a cell is
written with a leading apostrophe, as OWASP's CSV-injection guidance describes: the
spreadsheet shows the text as it is and runs nothing. A cell that starts with an apostrophe
gets one more, so that reading a file back (verdicts, a CSV sample) removes exactly one
and every value returns as it was. Parquet files keep values untouched."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

# Starts a formula (or hides one) in a spreadsheet; "'" is escaped so reading is exact.
ACTIVE = r"^[=+\-@\t\r']"
_QUOTED = r"^'[=+\-@\t\r']"


def as_text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Any column as the text a CSV would hold."""
    t = column.type
    if pa.types.is_dictionary(t):
        column, t = column.cast(t.value_type), t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return column
    if pa.types.is_nested(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.chunked_array(
            [pa.array([None if v is None else str(v) for v in column.to_pylist()], pa.string())]
        )
    return column.cast(pa.string())


def inert(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """`column` as text, every cell a spreadsheet would evaluate prefixed with "'"."""
    text = as_text(column)
    if len(text) == 0:
        return text
    active = pc.fill_null(pc.match_substring_regex(text, ACTIVE), False)
    quote, nothing = pa.scalar("'", text.type), pa.scalar("", text.type)
    return pc.if_else(active, pc.binary_join_element_wise(quote, text, nothing), text)


def revive(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """The values inert() was given, from a text column read back; other columns as they
    are (a number was never a quoted cell)."""
    t = column.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)) or len(column) == 0:
        return column
    if not pc.any(pc.starts_with(column, "'")).as_py():  # the usual case, at a byte a row
        return column
    quoted = pc.fill_null(pc.match_substring_regex(column, _QUOTED), False)
    if not pc.any(quoted).as_py():
        return column
    return pc.if_else(quoted, pc.utf8_slice_codeunits(column, 1), column)


def revive_table(table: pa.Table) -> pa.Table:
    """revive() on every column of `table`."""
    for k, name in enumerate(table.column_names):
        table = table.set_column(k, name, revive(table.column(k)))
    return table


def write(table: pa.Table, path: Path, *, every_column: bool) -> None:
    """Writes `table` as CSV for people: text columns made inert; with `every_column`, the
    numbers too (a negative number becomes quoted text), for a file only people read."""
    cols = []
    for c in table.columns:
        text = pa.types.is_string(c.type) or pa.types.is_large_string(c.type)
        text = text or pa.types.is_dictionary(c.type)
        cols.append(inert(c) if every_column or text else c)
    pacsv.write_csv(pa.table(cols, names=table.column_names), path)
