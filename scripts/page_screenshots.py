"""Draws the screenshots of the judging and labelling pages in docs/images/ from the bundled
example, in headless Chromium (Debian's), as a rater and a labeller see them.

    python scripts/page_screenshots.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import clusterscore as cs

ROOT = Path(__file__).resolve().parents[1]
DATA, IMAGES = ROOT / "examples" / "data", ROOT / "docs" / "images"


def _shoot(page_file: Path, name: str, keys: list[str], target: Path, profile: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=shutil.which("chromium"), headless=True,
            viewport={"width": 1100, "height": 560},
        )  # fmt: skip
        page = ctx.new_page()
        page.goto(page_file.as_uri())
        page.fill("#rater", name)
        page.keyboard.press("Enter")
        for key in keys:
            page.keyboard.press(key)
        page.screenshot(path=str(target))
        ctx.close()


def main() -> None:
    IMAGES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        s = cs.sample_pairs(DATA / "actual.csv", DATA / "truth.csv", pairs=500, stable_pairs=200,
                            seed=7, items=DATA / "items.csv")  # fmt: skip
        judge = s.page(d / "pairs.html")
        _shoot(judge, "ana", ["s", "d", "s"], IMAGES / "judge-page.png", d / "p1")
        ts = cs.draw_truth_sample(DATA / "actual.csv", [DATA / "actual_v2.csv"],
                                  DATA / "items.csv", records=200, seed=7)  # fmt: skip
        label = ts.page(d / "truth-sample.html")
        _shoot(label, "ana", ["j", "x", "j", "j", "x"], IMAGES / "label-page.png", d / "p2")
    print(f"wrote {IMAGES / 'judge-page.png'} and {IMAGES / 'label-page.png'}")


if __name__ == "__main__":
    main()
