"""What a long command is doing, on stderr: one line per step, with a bar that fills as
the step advances (a pulsing bar while its length is unknown, a CSV file being parsed)
and its time. The library marks its steps with `step()` and reports how far they have
come with `advance()`; the core reports its long loops the same way (the join's
partitions, the bootstrap's resamples, the sampler's draws). They are shown only inside
`shown()`, which the command line enters when stderr is a terminal and --quiet is not
given. Elsewhere (pipes, files, the Python API) `step()` and `advance()` do nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column

_current: Progress | None = None
_running: list[TaskID] = []  # the steps under way, innermost last
_names: list[str] = []  # their names, shown or not (a failure names the step it hit)
_failed: str | None = None

if TYPE_CHECKING:
    import pyarrow as pa


@contextmanager
def shown(enabled: bool) -> Iterator[None]:
    """Shows the steps taken inside the block if `enabled` and stderr is a terminal."""
    global _current
    if not enabled or not sys.stderr.isatty() or _current is not None:
        yield
        return
    from . import _core

    progress = Progress(
        SpinnerColumn(finished_text="✓"),
        # The name takes what the bar, percentage and time leave, cut short if need be.
        TextColumn(
            "{task.description}",
            table_column=Column(ratio=1, max_width=60, no_wrap=True, overflow="ellipsis"),
        ),
        BarColumn(bar_width=24),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        expand=True,
    )
    _current = progress
    _core.show_progress(advance)
    try:
        with progress:
            yield
    finally:
        _core.show_progress(None)
        _current = None
        _running.clear()


@contextmanager
def step(what: str) -> Iterator[None]:
    """Marks the block as one step of the work, named `what` ("reading truth.csv")."""
    global _failed
    _names.append(what)
    try:
        with _shown_step(what):
            yield
    except BaseException:
        _failed = _failed or what  # the innermost step sees it first
        raise
    finally:
        _names.pop()


def failed_step() -> str | None:
    """The innermost step an exception left ("reading truth.csv"), else the one under way;
    None outside every step."""
    return _failed or (_names[-1] if _names else None)


@contextmanager
def _shown_step(what: str) -> Iterator[None]:
    progress = _current
    if progress is None:
        yield
        return
    if not progress.live.is_started:  # restarted after done(), e.g. to write files
        progress.start()
    task = progress.add_task(what, total=None)
    _running.append(task)
    try:
        yield
    finally:
        _running.remove(task)
        total = progress.tasks[task].total or 1
        progress.update(task, total=total, completed=total)
        progress.stop_task(task)


def advance(done: int, total: int) -> None:
    """The innermost step under way has done `done` of `total` units."""
    if _current is not None and _running and total > 0:
        _current.update(_running[-1], completed=done, total=total)


def counted(batches: Iterable[pa.RecordBatch], total: int) -> Iterator[pa.RecordBatch]:
    """Record `batches` as they come, advancing the step under way by each one's rows out
    of `total`."""
    done = 0
    for batch in batches:
        yield batch
        done += batch.num_rows
        advance(done, total)


def done() -> None:
    """Ends the display before results are printed, so that they do not interleave."""
    if _current is not None:
        _current.stop()
