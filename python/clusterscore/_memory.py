"""The core keeps big arrays it has freed, to reuse them in its next steps and calls:
memory fresh from the kernel must be faulted in and zeroed, which at 1e7 items costs as
much as a quarter of a call. What it keeps never exceeds the most it had in use at once,
the kernel may take it back under memory pressure, and it is returned after 30 s unused.

Which pages back those arrays is a trade: huge pages make calls that reuse them faster,
but are dearer to get fresh on virtual machines (the host backs memory as it is first
touched), where every process's first call pays for them. The default follows the
system's page policy (4 KiB pages on most Linux systems); set_huge_pages(True), or
CLUSTERSCORE_HUGE_PAGES=1 in the environment, asks for huge pages.
"""

from __future__ import annotations

from . import _core


def release_memory() -> int:
    """Returns the big arrays kept for reuse to the operating system now; returns how many
    bytes that was (0 if none were kept)."""
    return int(_core.release_memory())


def set_huge_pages(on: bool = True) -> bool:
    """Asks for transparent huge pages (2 MiB) for the big arrays mapped from now on (True),
    or leaves the system's page policy (False, the default). Huge pages suit a process that
    makes many calls, and very large inputs: the second and later calls ran 10-15% faster
    at 1e7 items, and a first call at 1e8 items 4-11% faster, while a first call at 1e7
    took about 1.5 times as long on a virtual machine that backs memory only as it is
    first touched. The environment variable
    CLUSTERSCORE_HUGE_PAGES (1 or 0), read when the core first loads, sets it the same way.
    Results never depend on it. Returns the setting now in use."""
    if not isinstance(on, bool):
        raise ValueError(f"set_huge_pages: on must be True or False, not {on!r}")
    _core.set_huge_pages(on)
    return bool(_core.huge_pages())
