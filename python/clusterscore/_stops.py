"""How a command stops on a signal: SIGINT (Ctrl-C), SIGTERM and SIGHUP each raise
Stopped, a KeyboardInterrupt that the core's loops poll for, so the command removes what it
was writing and exits with status 128 + the signal's number. While outputs are put in
place or removed, a signal waits (`held()`): Python runs signal handlers in the main thread
whichever thread the kernel gave the signal to, so blocking it in one thread would not do;
the handler itself defers."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_held = 0  # depth of held() blocks
_pending: int | None = None  # a signal that came while held
_stopping = False  # a Stopped was raised: later signals are ignored


class Stopped(KeyboardInterrupt):
    """A stopping signal while a command works."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _handler(signum: int, frame: Any) -> None:
    global _pending, _stopping
    if _stopping:
        return  # the first one's cleanup runs to its end
    if _held:
        _pending = _pending or signum
        return
    _stopping = True
    raise Stopped(signum)


def install() -> None:
    """From here every stopping signal raises Stopped (once)."""
    global _pending, _stopping
    _pending, _stopping = None, False
    for s in STOPPING:
        signal.signal(s, _handler)


def reclaim() -> None:
    """Puts the command's handler back for SIGINT where a library took it (Spark's context
    installs one that cancels its jobs through the JVM, from inside whatever call the main
    thread is in, and raises): the command then stops as on any other signal, and its
    cleanup cancels what it started. Only while the command's handlers are installed."""
    if signal.getsignal(signal.SIGTERM) is _handler:
        signal.signal(signal.SIGINT, _handler)


def ignore() -> None:
    """From here stopping signals are ignored: the command's work is done or given up,
    and the process only exits (where Python would restore their default action, death
    by the signal, for its teardown)."""
    for s in STOPPING:
        signal.signal(s, signal.SIG_IGN)


def signal_number(e: KeyboardInterrupt) -> int:
    """The signal behind `e` (a KeyboardInterrupt of another origin is SIGINT's)."""
    return e.signum if isinstance(e, Stopped) else int(signal.SIGINT)


@contextlib.contextmanager
def held(drop: bool) -> Iterator[None]:
    """Stopping signals wait until the block ends; with `drop`, one that came meanwhile
    is dropped (the work it would stop is done), otherwise it stops the command then."""
    global _held, _pending
    _held += 1
    try:
        yield
    finally:
        _held -= 1
        signum, _pending = _pending, None
        if signum is not None and not drop and not _held:
            _handler(signum, None)
