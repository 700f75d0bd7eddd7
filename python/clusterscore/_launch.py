"""The `clusterscore` command's entry point, kept light. Until a command starts its work,
Ctrl-C ends the process at once with the one line `interrupted` and status 130 (SIGTERM
and SIGHUP likewise, with 143 and 129): the
libraries take about a second to load, and a KeyboardInterrupt raised among their imports
can be swallowed (raised inside a callback) or leave a traceback. Once a command runs, it
answers Ctrl-C itself (cli.command), removing what it was writing."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    words = "interrupted" if signum == signal.SIGINT else f"stopped by {name}"
    with contextlib.suppress(OSError):  # no terminal any more (SIGHUP)
        os.write(2, words.encode() + b"\n")
    os._exit(128 + signum)  # nothing is written yet: nothing to clean up


def main() -> None:
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _interrupted_while_starting)
    try:
        from .cli import main as run
    except ImportError as e:
        # The core refuses to load with a bad CLUSTERSCORE_THREADS or
        # CLUSTERSCORE_HUGE_PAGES: a usage error.
        if not str(e).startswith(("CLUSTERSCORE_THREADS=", "CLUSTERSCORE_HUGE_PAGES=")):
            raise
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    try:
        run()
    finally:
        # Only the exit is left: a signal now is ignored, where Python's teardown would
        # restore its default action (death by the signal, after the work was done).
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
