"""A real headless Chromium (Debian's) driven by Playwright, for the pages' tests: a
profile on disk, so that closing the browser and opening the page again is what a person
does; every console message, page error and request outside the page's own file is
collected for the test to check."""

from __future__ import annotations

import contextlib
import random
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Seen:
    console: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


def stored(page: Any, profile: Path, timeout: float = 120.0) -> None:
    """Waits until what the page has put in localStorage is on disk in `profile`.
    Chromium writes localStorage out about 5 s after a change (and at a clean exit, which a
    loaded machine can cut short): a test that closes the browser and opens the page again
    waits for it, as a person closing the browser seconds after the last answer does not
    test the page. A marker value written last is looked for in the storage's files.

    Chromium allows about one write a minute (a page's second write in its first minute
    waits until the minute is over), and a write can move the log into a compressed table
    (.ldb). The marker is therefore waited for past a minute, and is made of characters
    that compression leaves as they are: random CJK ideographs, stored as UTF-16, which
    nothing else in the storage repeats."""
    rng = random.Random(time.monotonic_ns())
    marker = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(48))
    page.evaluate("m => localStorage.setItem('clusterscore-test-marker', m)", marker)
    wanted = marker.encode("utf-16-le")
    files = profile / "Default" / "Local Storage" / "leveldb"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for f in [*files.glob("*.log"), *files.glob("*.ldb")]:
            with contextlib.suppress(FileNotFoundError):  # compacted away meanwhile
                if wanted in f.read_bytes():
                    return
        time.sleep(0.1)
    raise AssertionError(f"localStorage not written to {files} in {timeout} s")


@contextmanager
def opened(
    page_file: Path, profile: Path, seen: Seen | None = None, init: str | None = None
) -> Iterator[Any]:
    """The page `page_file` open in a browser whose profile is `profile` (created if
    missing); the browser closes, and the profile keeps what the page stored, on exit.
    `init`: a script run before the page's own."""
    from playwright.sync_api import sync_playwright

    assert BROWSER, "chromium is needed (scripts/setup.sh installs it)"
    seen = seen if seen is not None else Seen()
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=BROWSER, headless=True, accept_downloads=True,
            args=["--no-sandbox", "--proxy-server=http://127.0.0.1:9"],
            viewport={"width": 1280, "height": 800},
        )  # fmt: skip
        try:
            page = ctx.new_page()
            if init is not None:
                page.add_init_script(init)
            page.on("console", lambda m: seen.console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: seen.console.append(f"error: {e}"))
            own = page_file.resolve().as_uri()
            local = (own, "blob:", "data:")
            page.on("request", lambda r: r.url.startswith(local) or seen.requests.append(r.url))
            page.goto(own)
            yield page
        finally:
            ctx.close()


def download(page: Any, key: str, folder: Path) -> Path:
    """Presses `key` and saves the file the page offers under its suggested name."""
    with page.expect_download() as info:
        page.keyboard.press(key)
    d = info.value
    target = folder / d.suggested_filename
    d.save_as(target)
    return target
