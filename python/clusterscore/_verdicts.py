"""Verdict files (docs/metrics.md, judging): every rater's answer on a sample's pairs, counted per
unordered pair as the core reads them: how many raters said same or different, and how many of
those said same. Verdicts may come in several files (rounds, raters); a `rater` column names who
judged a line, else each file's `copy` (1, or 2 for a replicate's second copy) is one rater."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _arrays, _core
from ._io import Source, clip, load_table, revive_ids

# A rater's answers, as verdict files spell them (the core counts same and different).
VERDICTS = ("same", "different", "unsure")
_NONE = _core.NONE
_MOST_REPORTED = 10  # bad lines named in the one-line error
_COPIES = ("1", "2")


@dataclass
class Counts:
    """Per row of the sample (both orders of a pair alike): the raters who said same or
    different (`votes`), those who said same, and whether any rater answered (unsure too)."""

    same: np.ndarray
    votes: np.ndarray
    answered: np.ndarray


def verdict_counts(sample: Any, verdicts: Any) -> Counts:
    """`verdicts`: one table or file (item_i, item_j, verdict, optional rater and copy), or a
    list of them. A verdict on (i, j) serves the pair in both orders; raters' verdicts on one
    pair are replicates. Every bad line (an unknown verdict or copy, a pair not in the sample,
    one rater's two different verdicts on a pair) is reported at once, in one error."""
    sources = _sources(verdicts)
    unit = sample.units()
    n = len(sample)
    same = np.zeros(n, np.uint32)
    votes = np.zeros(n, np.uint32)
    answered = np.zeros(n, bool)
    given: dict[tuple[int, Any], tuple[str, Source, int]] = {}  # (unit, rater) → first line
    bad: list[tuple[list[tuple[Source, int]], str]] = []
    for number, src in enumerate(sources):
        words, pairs, raters = _read(sample, src, number, bad)
        vi, vj = src.table.column("item_i"), src.table.column("item_j")
        for row, (pair, word, rater) in enumerate(zip(pairs, words, raters, strict=True)):
            if pair == _NONE or not word:
                continue
            u = int(unit[pair])
            first = given.get((u, rater))
            if first is not None:
                if first[0] != word:
                    who = f" from rater {clip(repr(rater), 40)}" if isinstance(rater, str) else ""
                    name = f"pair ({vi[row].as_py()!r}, {vj[row].as_py()!r})"
                    bad.append(([first[1:], (src, row)], f"{name} has two different verdicts{who}"))
                continue  # the same verdict twice from one rater is one verdict
            given[(u, rater)] = (word, src, row)
            answered[u] = True
            if word != "unsure":
                votes[u] += 1
                same[u] += word == "same"
    if bad:
        raise ValueError(bad_lines(bad))
    return Counts(same[unit], votes[unit], answered[unit])


def _sources(verdicts: Any) -> list[Source]:
    many = verdicts if isinstance(verdicts, (list, tuple)) else [verdicts]
    if not many:
        raise ValueError("no verdicts given")
    sources = [load_table(v, "verdicts", ("item_i", "item_j", "verdict", "rater", "copy"))
               for v in many]  # fmt: skip
    for src in sources:  # the raters' file as written (or its like): its ids made inert
        revive_ids(src, ("item_i", "item_j"))
    paths = [s.path.resolve() for s in sources if s.path is not None]
    twice = sorted({str(p) for p in paths if paths.count(p) > 1})
    if twice:
        raise ValueError(f"{twice[0]}: given twice as verdicts (its raters would count twice)")
    for src in sources:
        names = src.table.column_names
        for c in ("item_i", "item_j", "verdict"):
            if c not in names:
                raise ValueError(f"{src.name}: no column {c!r} (columns: {', '.join(names)})")
    return sources


def _read(
    sample: Any, src: Source, number: int, bad: list
) -> tuple[list[str], np.ndarray, list[Any]]:
    """One file's verdict words, the sample row each line names (NONE if none) and the
    rater of each line; its bad lines appended to `bad`."""
    t = src.table
    words = [_text(v).lower() for v in t.column("verdict").to_pylist()]
    copies = [_text(v) or "1" for v in _column(t, "copy")]
    names = [_text(v) for v in _column(t, "rater")]
    vi, vj = t.column("item_i"), t.column("item_j")  # as written (load_table revived them)
    pairs = match_rows(sample, vi, vj)
    raters: list[Any] = []
    for row in range(t.num_rows):
        raters.append(names[row] or (number, copies[row]))
        w = words[row]
        if w and w not in VERDICTS:
            bad.append(([(src, row)], f"unknown verdict {clip(repr(w), 40)} (use same, different"
                                      " or unsure)"))  # fmt: skip
            words[row] = ""
        elif copies[row] not in _COPIES:
            bad.append(([(src, row)], f"copy {clip(repr(copies[row]), 40)} is not 1 or 2"))
            words[row] = ""
        elif pairs[row] == _NONE:
            name = f"pair ({vi[row].as_py()!r}, {vj[row].as_py()!r})"
            bad.append(([(src, row)], f"{name} is not in the sample"))
    return words, pairs, raters


def _column(t: Any, name: str) -> list[Any]:
    return t.column(name).to_pylist() if name in t.column_names else [None] * t.num_rows


def _text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)  # a copy column read as numbers with blanks
    return "" if v is None else str(v).strip()


def match_rows(sample: Any, vi: Any, vj: Any) -> np.ndarray:
    """Per pair (vi[r], vj[r]), the sample row of that pair in either order (NONE if none)."""
    si, sj = sample.table.column("item_i"), sample.table.column("item_j")
    as_string = not all(_arrays.is_integer(c) for c in (si, sj, vi, vj))
    ids = [_arrays.id_tuple(_arrays.normalize_ids(c, as_string)) for c in (si, sj, vi, vj)]
    match: Any = _core.match_pairs(*ids)  # a uint32 array
    swapped: Any = _core.match_pairs(ids[0], ids[1], ids[3], ids[2])
    return np.where(match == _NONE, swapped, match)


def bad_lines(bad: list[tuple[list[tuple[Source, int]], str]]) -> str:
    """One line naming the first _MOST_REPORTED of `bad` (lines, what is wrong); the file
    named once in front when every line is of one file."""
    files = {id(src) for lines, _ in bad for src, _ in lines}
    one = next(iter(bad))[0][0][0] if len(files) == 1 else None

    def at(src: Source, row: int) -> str:
        where = src.where(row)
        return where.removeprefix(f"{src.name} ") if one is not None else where

    def lines(rows: list[tuple[Source, int]]) -> str:
        return " and ".join(at(src, row) for src, row in rows)

    shown = "; ".join(f"{lines(rows)}: {what}" for rows, what in bad[:_MOST_REPORTED])
    more = f"; and {len(bad) - _MOST_REPORTED:,} more" if len(bad) > _MOST_REPORTED else ""
    head = one.name if one is not None else "verdicts"
    if len(bad) == 1:
        return f"{head} {shown}" if one is not None else shown
    return f"{head}: {len(bad):,} bad lines: {shown}{more}"
