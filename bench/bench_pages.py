"""Benchmark: how long the judging page of a 10,000-pair sample and the labelling page of
1,000 seed records take to open and show their first pair or seed in headless Chromium.

    python bench/bench_pages.py [--pairs 10000] [--seeds 1000] [--repeat 3]

Input: two clusterings of 200,000 items in power-law entities (bench/synth.py), the second
moving 10% of the items; a sample of enough draws to give --pairs pairs to judge, with
five text attributes per item; a truth sample of --seeds seed records. Each page is opened
in a fresh browser profile, the rater's name typed, and the clock stopped when the first
pair (or seed) is on screen. Target: < 2 s for each page at these sizes. The figures also
give the page's size and how long writing it took.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "python"))

from browser import opened  # noqa: E402

import synth  # noqa: E402


def _inputs(n: int, folder: Path) -> tuple[Path, Path, Path]:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    labels = synth.power_law_labels(rng, n)
    moved = np.where(rng.random(n) < 0.1, rng.integers(0, labels.max() + 1, n), labels)
    ids = np.array([f"rec-{k:07d}" for k in range(n)])
    paths = folder / "base.parquet", folder / "exp.parquet", folder / "items.parquet"
    pd.DataFrame({"item_id": ids, "cluster_id": labels}).to_parquet(paths[0])
    pd.DataFrame({"item_id": ids, "cluster_id": moved}).to_parquet(paths[1])
    words = np.array(["north", "south", "east", "west", "centre", "harbour", "hill"])
    items = {"item_id": ids, "name": [f"{w} {k % 977}" for k, w in enumerate(words[labels % 7])],
             "city": words[rng.integers(0, 7, n)], "postcode": [f"{k % 9999:04d}" for k in labels],
             "phone": [f"+44 20 {k:07d}" for k in rng.integers(0, 10**7, n)],
             "source": np.where(rng.random(n) < 0.5, "crawl", "feed")}  # fmt: skip
    pd.DataFrame(items).to_parquet(paths[2])
    return paths


def _time_to_first(page_file: Path, profile: Path, shown: str) -> float:
    with opened(page_file, profile) as page:
        start = time.perf_counter()
        page.reload()
        page.fill("#rater", "bench")
        page.keyboard.press("Enter")
        page.wait_for_selector(shown, state="visible")
        return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--seeds", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import clusterscore as cs

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        base, exp, items = _inputs(200_000, d)
        s = cs.sample_pairs(base, exp, pairs=int(args.pairs * 1.1), seed=1, items=items)
        start = time.perf_counter()
        judge = s.page(d / "judge.html")
        wrote_judge = time.perf_counter() - start
        tasks = s.raters_table().num_rows
        ts = cs.draw_truth_sample(base, [exp], items, records=args.seeds, seed=1)
        start = time.perf_counter()
        label = ts.page(d / "label.html")
        wrote_label = time.perf_counter() - start
        rows = []
        for name, page_file, shown, wrote in (
            (f"judge, {tasks:,} pairs", judge, "#pair tbody tr", wrote_judge),
            (f"label, {args.seeds:,} seeds", label, "#candidates tbody tr", wrote_label),
        ):  # fmt: skip
            times = [_time_to_first(page_file, d / f"profile-{name[:5]}-{k}", shown)
                     for k in range(args.repeat)]  # fmt: skip
            rows.append((name, page_file.stat().st_size / 1e6, wrote, min(times), max(times)))
        print(f"{'page':<24}{'MB':>7}{'write s':>9}{'first shown s (min)':>21}{'max':>7}")
        for name, mb, wrote, lo, hi in rows:
            print(f"{name:<24}{mb:>7.2f}{wrote:>9.2f}{lo:>21.2f}{hi:>7.2f}")


if __name__ == "__main__":
    main()
