"""The `clusterscore` command's entry point, kept light. Until a command starts its work,
Ctrl-C ends the process at once with the one line `interrupted` and status 130: the
libraries take about a second to load, and a KeyboardInterrupt raised among their imports
can be swallowed (raised inside a callback) or leave a traceback. Once a command runs, it
answers Ctrl-C itself (cli.command), removing what it was writing."""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    os.write(2, b"interrupted\n")
    os._exit(130)  # nothing is written yet: nothing to clean up


def main() -> None:
    signal.signal(signal.SIGINT, _interrupted_while_starting)
    try:
        from .cli import main as run
    except ImportError as e:
        # The core refuses to load with a bad CLUSTERSCORE_THREADS or
        # CLUSTERSCORE_HUGE_PAGES: a usage error.
        if not str(e).startswith(("CLUSTERSCORE_THREADS=", "CLUSTERSCORE_HUGE_PAGES=")):
            raise
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    run()
