"""The core keeps big arrays it has freed, to reuse them in its next steps and calls:
memory fresh from the kernel must be faulted in and zeroed, which at 1e7 items costs as
much as a quarter of a call. What it keeps never exceeds the most it had in use at once,
the kernel may take it back under memory pressure, and it is returned after 30 s unused.
"""

from __future__ import annotations

from . import _core


def release_memory() -> int:
    """Returns the big arrays kept for reuse to the operating system now; returns how many
    bytes that was (0 if none were kept)."""
    return int(_core.release_memory())
