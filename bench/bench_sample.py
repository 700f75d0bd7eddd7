"""Benchmark: drawing pairs for judgement from a 1e7-item diff, after the diff is built.

    python bench/bench_sample.py [--n 10000000] [--pairs 1000000] [--repeat 3]

Base and Exp from bench/synth.py (5% of items moved). Times sample_from_diff: the C++ draw
of all pairs plus assembling the sample table with both items' attributes; and the C++
draw alone. The core on every core unless --threads N.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import synth  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="the core's threads (0: every core)")
    args = ap.parse_args()
    import clusterscore as cs
    from clusterscore import _core

    threads = cs.set_threads(args.threads)
    from clusterscore._sample import sample_from_diff

    base, exp, items = synth.make(args.n, moved=0.05)
    t0 = time.perf_counter()
    d = cs.diff(base, exp, items)
    built = time.perf_counter() - t0
    full = harness.measure("sample", args.n, args.repeat,
                           lambda: sample_from_diff(d, args.pairs, seed=1))  # fmt: skip

    def core_draw():
        return d._core.sample_pairs(args.pairs, 0, _core.SampleMode.plain, 1)

    core = harness.measure("core", args.n, args.repeat, core_draw)
    print(f"\ndiff of {args.n:,} items built in {built:.2f} s; {args.pairs:,} pairs, best of"
          f" {args.repeat}, {threads} thread(s)\n")  # fmt: skip
    print("| step | best (s) | first (s) | peak memory beyond the diff |")
    print("|---|---|---|---|")
    for name, r in (("C++ draw of every pair", core),
                    ("sample_pairs on the built diff (draw + sample table)", full)):  # fmt: skip
        mib = r["peak_bytes_per_item"] * args.n / 2**20
        print(f"| {name} | {r['best_s']:.2f} | {r['first_s']:.2f} | {mib:.0f} MiB |")


if __name__ == "__main__":
    main()
