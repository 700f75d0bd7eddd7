"""How many threads the core uses. Every result is the same, to the last bit, whatever
the number: the core splits its work by key and combines it in a fixed order."""

from __future__ import annotations

from . import _core

MOST = int(_core.MOST_THREADS)


def set_threads(n: int | None = None) -> int:
    """Uses up to `n` threads (1 to 1024) in every later call; None or 0: one per core,
    the default. The environment variable CLUSTERSCORE_THREADS, read when the core first
    loads, sets the number the same way. Returns the number now in use."""
    if n is None:
        n = 0
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MOST:
        raise ValueError(f"set_threads: n must be a whole number from 0 (one per core) to {MOST},"
                         f" not {n!r}")  # fmt: skip
    _core.set_threads(n)
    return threads()


def threads() -> int:
    """The number of threads the core uses."""
    return int(_core.threads())
