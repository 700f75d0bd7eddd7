"""What a long command is doing, on stderr: one line per step with a spinner while it
runs and its time once done. The library marks its steps with `step()`; they are shown
only inside `shown()`, which the command line enters when stderr is a terminal and
--quiet is not given. Elsewhere (pipes, files, the Python API) `step()` does nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

_current: Progress | None = None


@contextmanager
def shown(enabled: bool) -> Iterator[None]:
    """Shows the steps taken inside the block if `enabled` and stderr is a terminal."""
    global _current
    if not enabled or not sys.stderr.isatty() or _current is not None:
        yield
        return
    progress = Progress(
        SpinnerColumn(finished_text="✓"),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    )
    _current = progress
    try:
        with progress:
            yield
    finally:
        _current = None


@contextmanager
def step(what: str) -> Iterator[None]:
    """Marks the block as one step of the work, named `what` ("reading truth.csv")."""
    progress = _current
    if progress is None:
        yield
        return
    if not progress.live.is_started:  # restarted after done(), e.g. to write files
        progress.start()
    task = progress.add_task(what, total=None)
    try:
        yield
    finally:
        progress.update(task, total=1, completed=1)
        progress.stop_task(task)


def done() -> None:
    """Ends the display before results are printed, so that they do not interleave."""
    if _current is not None:
        _current.stop()
