"""What every reader shares: a table with where it came from, and errors kept to one line."""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import pyarrow as pa

DEFAULT_WEIGHT_COL = "weight"
_CSV = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
# The command line's --delimiter: every delimited file of the command read with it.
DELIMITER: contextvars.ContextVar[str | None] = contextvars.ContextVar("delimiter", default=None)


def delimiter_of(path: Any) -> str:
    """The delimiter a delimited file is read with: --delimiter if given, else its suffix's."""
    return DELIMITER.get() or _CSV.get(_suffix(path), ",")


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
        """Where 0-based data row `row` is, for a person: 'truth.csv line 8' (the file's
        line, header counted), 'actual.parquet row 7' or 'truth row 7' (rows counted from 1,
        as a spreadsheet or a DataFrame printed with its first row 1)."""
        return f"{self.name} {self.place(row)}"

    def place(self, row: int) -> str:
        """`where(row)` without the input's name: 'line 8' or 'row 7'."""
        if self.kind == "csv" and self.path is not None:
            return f"line {_csv_line_of_row(self.path, row)}"
        return f"row {row + 1}"


# The roles a column plays, as an input names its own columns for them (Renamed).
COLUMN_ROLES = ("item", "cluster", "weight")


@dataclass(frozen=True)
class Renamed:
    """An input whose columns have names of their own: `columns` maps a role of
    COLUMN_ROLES to the input's name for that column (the command line's
    `PATH:item=record,cluster=entity`). The reader checks the input under its own names (an
    error names its columns as written) and then calls them as the call does."""

    source: Any
    columns: tuple[tuple[str, str], ...]

    def own(self, role: str, default: str) -> str:
        """The input's name for the column of `role` (the call's name `default` if unset)."""
        return dict(self.columns).get(role, default)

    def require_roles(self, allowed: tuple[str, ...], what: str) -> None:
        """A ValueError when a role other than `allowed` is named (a weight for a clustering)."""
        extra = [r for r, _ in self.columns if r not in allowed]
        if extra:
            raise ValueError(
                f"{self.source}: {what} has no {extra[0]} column to name (it has"
                f" {' and '.join(allowed)})"
            )

    def renames(self, columns: Sequence[str], called: dict[str, str], name: Any) -> dict[str, str]:
        """The input's own column names that differ from the call's, each to the call's:
        `called` maps a role to the call's name for it, `columns` are the input's columns as
        read and `name` names the input in errors. A column of the input already named as
        the call names another is an error, not a second column of that name. Both engines'
        readers rename by it."""
        moved = {self.own(role, call): call for role, call in called.items()}
        moved = {own: call for own, call in moved.items() if own != call}
        for own, call in moved.items():
            if call in columns and call not in moved:
                raise ValueError(
                    f"{name}: holds a column {call!r} besides {own!r}, which it names for"
                    f" {call!r}: rename one of them"
                )
        return moved

    def as_called(self, src: Source, called: dict[str, str]) -> Source:
        """`src`, read under the input's names, with its columns renamed to the call's
        (renames())."""
        moved = self.renames(src.table.column_names, called, src.name)
        src.table = src.table.rename_columns([moved.get(c, c) for c in src.table.column_names])
        src.coded = {moved.get(c, c) for c in src.coded}
        return src


def _csv_line_of_row(path: Path, row: int) -> int:
    """1-based line where data row `row` (0-based) starts: blank lines skipped, the header
    counted, a quoted field's line breaks counted as the lines they are."""
    from ._io_csv import _records  # the CSV reader's own records: read here for errors only

    delimiter = delimiter_of(path)
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
