"""Turning results into what a person reads (rich tables) and what a program reads
(summary.json, Parquet tables). No metric is computed here."""

from __future__ import annotations

import json
import math
import os
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

from . import _format as F

# Where output is not a terminal (a file, a pipe, a CI log), rich would still cut tables
# to 80 columns, eliding digits and names ("jaccard…" for both Jaccard metrics).
_FILE_WIDTH = 160


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader of the output has gone (`| head`): the rest is dropped quietly and
        the command goes on (to write --out), where rich would exit with status 1."""
        silence_stdout()
        self.quiet = True


def console() -> Console:
    """The console reports print to: the terminal's width, or a wide one for files and
    pipes (unless COLUMNS says otherwise)."""
    c = _Console()
    if not c.is_terminal and "COLUMNS" not in os.environ:
        c = _Console(width=_FILE_WIDTH)
    return c


def kv_table(title: str, d: dict[str, Any], group: str | None = None) -> Table:
    """Name and value, each value in its metric's format (`group`: the registry's)."""
    t = Table(title=title, title_justify="left")
    t.add_column("metric")
    t.add_column("value", justify="right")
    for k, v in d.items():
        if isinstance(v, str):
            t.add_row(k, v)
        elif group is None and isinstance(v, int) and not isinstance(v, bool):
            t.add_row(k, F.count(v))  # a whole number outside the registry's groups: a count
        else:
            t.add_row(k, F.for_column(k, group)(v))
    return t


def level(confidence: float) -> str:
    return f"{confidence * 100:.3g}%"


def overall_table(result: Any, intervals: pa.Table | None) -> Table:
    """Every overall metric with its bootstrap standard error and interval (none asked
    for: the values alone)."""
    scope = "whole actual clustering" if result.truth_scope == "entities" else "common items"
    if intervals is None:
        return kv_table(f"Overall ({scope})", result.overall, "pointwise")
    conf = level(result.bootstrap.confidence)
    t = Table(title=f"Overall ({scope}; {conf} intervals, {result.bootstrap.resamples:,}"
              " resamples of the truth clusters)", title_justify="left")  # fmt: skip
    for c in ("metric", "value", "std error", f"{conf} interval"):
        t.add_column(c, justify="left" if c == "metric" else "right", no_wrap=True)
    by_metric = {r["metric"]: r for r in intervals.to_pylist()}
    for name, value in result.overall.items():
        r = by_metric.get(name, {})
        t.add_row(name, F.share(value), F.share(r.get("std_error")),
                  F.interval(r.get("ci_low"), r.get("ci_high")))  # fmt: skip
    t.caption = no_interval_caption(intervals.to_pylist())
    return t


def no_interval_caption(rows: list[dict[str, Any]], per_value: bool = False) -> str | None:
    """For rows without an interval: "no interval: precision, recall (no resample moves
    it)", or with `per_value` (a slice's rows) "—: no interval (12 rows: no resample moves
    it)"; None when every row has one."""
    why: dict[str, list[str]] = {}
    for r in rows:
        note = r.get("interval_note")
        if isinstance(note, str) and note:  # pandas holds a missing note as NaN
            why.setdefault(note, []).append(str(r["metric"]))
    if not why:
        return None
    if per_value:
        counts = ", ".join(f"{len(m):,} rows: {note}" for note, m in why.items())
        return f"—: no interval ({counts})"
    parts = [f"{', '.join(dict.fromkeys(m))} ({note})" for note, m in why.items()]
    return "no interval: " + "; ".join(parts)


# Slice tables on screen show the heaviest values; the files hold every one.
MAX_ROWS = 50


def heaviest(df: pd.DataFrame, rows: int = MAX_ROWS) -> tuple[pd.DataFrame, str | None]:
    """The `rows` heaviest groups of a per-slice table, and a note of how many more there
    are (None when all are shown)."""
    if len(df) <= rows:
        return df, None
    top = df.sort_values("weight", ascending=False, kind="stable").head(rows)
    more = len(df) - rows
    return top, f"and {more:,} more values, lighter ones (every value is in --out's tables)"


def first_values(
    df: pd.DataFrame, column: str, values: int = MAX_ROWS
) -> tuple[pd.DataFrame, str | None]:
    """The rows of the first `values` distinct values of `column`, and a note of how many
    more values there are (None when all are shown)."""
    distinct = pd.unique(df[column])
    if len(distinct) <= values:
        return df, None
    more = len(distinct) - values
    return df[df[column].isin(distinct[:values])], f"and {more:,} more values (all in --out)"


def slice_table(result: Any, name: str, table: pa.Table, intervals: pa.Table | None) -> Table:
    """Per value of a slice, the heaviest 50: items, weight, and precision, recall and f1
    with intervals (if asked for)."""
    df, note = heaviest(table.to_pandas())
    conf = level(result.bootstrap.confidence)
    if intervals is None:
        cols = [name, "items", "weight", "precision", "recall", "f1", "jaccard_index"]
        t = frame_table(f"Per {name}", df, cols, labels=[name], group="pointwise")
        t.caption = note
        return t
    iv = intervals.to_pandas()
    t = Table(title=f"Per {name} (values with {conf} intervals)", title_justify="left",
              show_edge=False, pad_edge=False)  # fmt: skip
    # The values say which row is which: on a narrow terminal the intervals give way.
    t.add_column(name, min_width=min(12, max(len(name), 4)), no_wrap=True)
    # No weight column: with three intervals, it would not fit in 100 columns.
    for c in ("items", "precision", "recall", "f1"):
        t.add_column(c, justify="right", no_wrap=True)
    key: dict[str, dict[Any, tuple[Any, Any]]] = {m: {} for m in ("precision", "recall", "f1")}
    # Rows as dicts: a slice column's name ("country-code", "class") need not be a
    # Python identifier.
    for r in iv.to_dict("records"):
        if r["metric"] in key:
            key[r["metric"]][_key(r[name])] = (r["ci_low"], r["ci_high"])
    for r in df.to_dict("records"):
        v = r[name]
        cells = [f"{F.share(r[m])} {F.interval(*key[m].get(_key(v), (None, None)))}"
                 for m in ("precision", "recall", "f1")]  # fmt: skip
        t.add_row(F.label(v), F.count(r["items"]), *cells)
    t.caption = note
    return t


def _key(value: Any) -> Any:
    return None if F.missing(value) else value


def estimation_summary(result: Any) -> dict[str, Any]:
    """What summary.json says of the scope, the design and the bootstrap."""
    b = result.bootstrap
    return {
        "truth_scope": result.truth_scope,
        "cluster_weights": result.cluster_weights,
        "average": result.average,
        "estimand": result.estimand,
        "options": {"confidence": b.confidence, "resamples": b.resamples, "seed": b.seed},
    }


def coverage_table(cov: dict[str, Any], roles: tuple[str, str]) -> Table:
    ra, rb = roles
    t = Table(title="Coverage", title_justify="left")
    for c in ("set", "items", "weight", "clusters"):
        t.add_column(c, justify="left" if c == "set" else "right")
    n, w = F.count, F.weight
    t.add_row(ra, n(cov[f"{ra}_items"]), w(cov[f"{ra}_weight"]), n(cov[f"{ra}_clusters"]))
    t.add_row(rb, n(cov[f"{rb}_items"]), w(cov[f"{rb}_weight"]), n(cov[f"{rb}_clusters"]))
    t.add_row(
        "common (scored)",
        n(cov["common_items"]),
        w(cov["common_weight"]),
        f"{n(cov[f'{ra}_clusters_common'])} / {n(cov[f'{rb}_clusters_common'])}",
    )
    t.add_row(f"only in {ra}", n(cov[f"{ra}_only_items"]), w(cov[f"{ra}_only_weight"]), "")
    t.add_row(f"only in {rb}", n(cov[f"{rb}_only_items"]), w(cov[f"{rb}_only_weight"]), "")
    if "items_table_unmatched" in cov:
        t.caption = (
            f"items table: {n(cov['items_table_rows'])} rows, "
            f"{n(cov['items_table_unmatched'])} naming items in neither clustering"
        )
    return t


def runs_coverage_table(coverage: dict[str, dict[str, Any]]) -> Table:
    """What of the truth each run covers: deltas between runs that score different items
    mix the change of clustering with the change of coverage."""
    t = Table(title="Coverage of the truth by each run", title_justify="left")
    for title in ("run", "items scored", "weight scored", "truth items missed", "run-only items",
                  "truth clusters scored"):  # fmt: skip
        t.add_column(title, justify="left" if title == "run" else "right")
    n, w = F.count, F.weight
    for name, c in coverage.items():
        t.add_row(
            name,
            f"{n(c['common_items'])} / {n(c['truth_items'])}",
            f"{w(c['common_weight'])} / {w(c['truth_weight'])}",
            n(c["truth_only_items"]),
            n(c["actual_only_items"]),
            f"{n(c['truth_clusters_common'])} / {n(c['truth_clusters'])}",
        )
    return t


def frame_table(
    title: str,
    df: pd.DataFrame,
    columns: list[str],
    labels: Collection[str] = (),
    group: str | None = None,
    **options: Any,
) -> Table:
    """`columns` of `df` as a table: numbers in their column's format (the registry's
    for metrics of `group`), right-justified; the `labels` columns (ids, slice values) as
    they are, left-justified. `options` go to Table."""
    t = Table(title=title, title_justify="left", **options)
    write = [F.label if c in labels else F.for_column(c, group) for c in columns]
    for c in columns:
        numeric = c not in labels and pd.api.types.is_numeric_dtype(df[c])
        t.add_column(c, justify="right" if numeric else "left")
    for row in df[columns].itertuples(index=False):
        values = (v.item() if hasattr(v, "item") else v for v in row)
        t.add_row(*(w(v) for w, v in zip(write, values, strict=True)))
    return t


def runs_metrics_table(overall: dict[str, dict[str, Any]]) -> Table:
    """Every overall metric (rows) of every run (columns), side by side."""
    t = Table(title="Overall metrics by run", title_justify="left")
    t.add_column("metric")
    for run in overall:
        t.add_column(run, justify="right")
    names = list(next(iter(overall.values())))
    for name in names:
        t.add_row(name, *(F.share(values.get(name)) for values in overall.values()))
    return t


def deltas_table(
    title: str, df: pd.DataFrame, labels: list[str], confidence: float, footnote: str | None = None
) -> Table:
    """Deltas between two runs, each marked ▲ (better) or ▼ (worse) when its interval
    excludes 0, by the metric's direction; unmarked deltas may be the luck of the sample.
    `footnote`: a caveat the marks carry, added to the caption."""
    t = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for c in labels:
        t.add_column(c)
    # No standard-error column (--out, --json and --report have it): with it, a per-slice
    # table does not fit in 80 columns.
    for c in ("value_a", "value_b", "delta", f"{level(confidence)} interval"):
        t.add_column(c, justify="right", no_wrap=True)
    for r in df.to_dict("records"):
        sign = F.mark(r["ci_low"], r["ci_high"], F.better(r["metric"], "pointwise"))
        sign = sign if r.get("significant", True) else ""
        t.add_row(
            *(F.label(r[c]) for c in labels), F.share(r["value_a"]), F.share(r["value_b"]),
            f"{F.delta(r['delta'])} {sign or ' '}", F.interval(r["ci_low"], r["ci_high"], F.delta),
        )  # fmt: skip
    t.caption = "▲ better, ▼ worse: the interval excludes 0"
    if len(labels) > 1:  # a slice's deltas, read together
        t.caption = "▲ better, ▼ worse: significant among all the table's (Benjamini–Hochberg)"
    if footnote:
        t.caption += f" ({footnote})"
    per_value = len(labels) > 1  # a slice's values, each with its metrics
    if (none := no_interval_caption(df.to_dict("records"), per_value)) is not None:
        t.caption += f"; {none}"
    return t


def estimate_table(title: str, result: dict[str, dict[str, Any]]) -> Table:
    """Estimates from judged pairs with their standard errors and intervals."""
    t = Table(title=title, title_justify="left")
    for c in ("metric", "estimate", "std error", "95% interval", "judged draws"):
        t.add_column(c, justify="left" if c == "metric" else "right", no_wrap=True)
    for name, r in result.items():
        shown = "exact" if r.get("exact") else F.interval(r["ci_low"], r["ci_high"])
        if r.get("unreliable"):
            shown += " unreliable"
        t.add_row(name, F.share(r["estimate"]), F.share(r["std_error"]), shown,
                  F.count(r["pairs"]))  # fmt: skip
    return t


def unreliable_line(result: dict[str, dict[str, Any]]) -> str | None:
    """Which intervals the sample's draws cannot trust, and what would make them so."""
    marked = [f"{name} {r['unreliable']}" for name, r in result.items() if r.get("unreliable")]
    if not marked:
        return None
    return ("Unreliable (a tail of large labels the judged draws may miss): "
            + "; ".join(marked) + ".")  # fmt: skip


def raters_line(raters: dict[str, Any]) -> str:
    """What pairs judged twice said of the raters, or that none was."""
    if not raters["measured"]:
        return ("Raters' agreement not measured (no pair has two verdicts): the intervals take"
                " the conservative form. Judge the copy-2 rows too.")  # fmt: skip
    shown = ", ".join(
        f"{name} {100 * c['disagreement']:.1f}% of {F.count(c['replicated_pairs'])} pairs"
        for name, c in raters["classes"].items()
        if c["replicated_pairs"]
    )
    return f"Raters disagreed on pairs judged twice: {shown}."


def most_changed(df: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The n clusters of a diff whose weight changed most: weight × jaccard_distance (a
    big cluster that lost one item changed little, however many items it holds)."""
    changed = df["weight"] * df["jaccard_distance"]
    order = changed.sort_values(ascending=False, kind="stable").index[:n]
    return df.loc[order].assign(changed_weight=changed.loc[order]).query("changed_weight > 0")


def worst(df: pd.DataFrame, rate: str, n: int = 10) -> pd.DataFrame:
    """The n groups losing the most weight to `rate` (weight × rate), for display."""
    lost = df["weight"] * df[rate]
    order = lost.sort_values(ascending=False, kind="stable").index[:n]
    return df.loc[order].assign(weight_lost=lost.loc[order]).query("weight_lost > 0")


def json_safe(value: Any) -> Any:
    """Plain JSON values; NaN and infinities become null (JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def records(table: pa.Table) -> list[dict[str, Any]]:
    return json_safe(table.to_pylist())


def json_text(data: dict[str, Any]) -> str:
    """summary.json's text: JSON safe (no NaN), indented."""
    return json.dumps(json_safe(data), indent=2, allow_nan=False) + "\n"


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json_text(data))


def ahead(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Yields `batches` in order, building the next one on a worker thread while the
    caller writes the last (both release the GIL; at 1e7 items the per-item table takes
    ~0.7 s to build and ~4.5 s to write)."""
    it = iter(batches)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(next, it, None)
        while (batch := pending.result()) is not None:
            pending = pool.submit(next, it, None)
            yield batch


def write_parquet(path: Path, data: pa.Table | Iterable[pa.RecordBatch]) -> None:
    """One Parquet file, from a table or from batches written as they come (one row
    group each), so that a table too big for memory never exists whole. A write that
    fails leaves no partial file behind."""
    if isinstance(data, pa.Table):
        pq.write_table(data, path)
        return
    writer = None
    try:
        for batch in ahead(data):
            if writer is None:
                writer = pq.ParquetWriter(path, batch.schema)
            writer.write_batch(batch)
        if writer is None:
            raise ValueError(f"{path}: no rows to write")
        writer.close()
    except BaseException:
        if writer is not None:
            writer.close()
            path.unlink(missing_ok=True)
        raise


class _Abandoned(Exception):
    """A write beside a block that failed, stopped between two batches."""


@contextmanager
def parquet_meanwhile(
    path: Path, batches: Iterable[pa.RecordBatch]
) -> Iterator[Callable[[], None]]:
    """Writes `batches` to `path` (as write_parquet) on a thread while the block runs: a
    write waits on the disk and on one core, which the block's work (the bootstrap, whose
    C++ releases the GIL) takes meanwhile. The block calls the function it is given to
    wait for the write, which raises the write's failure. A block that raises (Ctrl-C
    among them) stops the write at its next batch, leaving no file, and its exception is
    the one raised."""
    stop = threading.Event()
    failure: list[BaseException] = []

    def until_stopped() -> Iterator[pa.RecordBatch]:
        for batch in batches:
            if stop.is_set():
                raise _Abandoned
            yield batch

    def work() -> None:
        try:
            write_parquet(path, until_stopped())
        except BaseException as e:  # noqa: BLE001 - raised on the caller's thread
            failure.append(e)

    thread = threading.Thread(target=work, name=f"writing {path.name}", daemon=True)
    thread.start()

    def finished() -> None:
        while thread.is_alive():  # a join that a signal's exception can break
            thread.join(0.1)
        if failure and not isinstance(failure[0], _Abandoned):
            raise failure[0]

    try:
        yield finished
    except BaseException:
        stop.set()
        thread.join()
        raise
    finished()


def print_all(console: Console, *renderables: Any) -> None:
    for r in renderables:
        console.print(r)
        console.print()


def silence_stdout() -> None:
    """Points standard output at /dev/null, so that later prints and the flush at exit
    do not fail on a closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
