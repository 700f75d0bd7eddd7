"""Benchmark: the core on 2 threads against 1, in the same process and the same run,
taking turns (1, 2, 1, 2, …) so that a machine's drift affects both alike.

    python bench/bench_threads.py [--n 10000000] [--repeat 3] [--threads 2]

Calls: `evaluate` with every level (Arrow tables in memory, as bench_evaluate.py), `diff`
with every level, `metrics.all_scores` on labels with 5% of the records moved to random
clusters (bench_metrics.py's hardest shape for the matching), and drawing 1e6 pairs from
the diff (as bench_sample.py). Target: at least
1.6× on a 2-core machine for each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import harness  # noqa: E402
import synth  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="the count to set against 1")
    args = ap.parse_args()
    import clusterscore as cs
    from clusterscore import metrics as M
    from clusterscore._sample import sample_from_diff

    truth, actual, items = synth.make(args.n, moved=0.10)
    rng = np.random.default_rng(7)
    exp = actual.set_column(
        1, "cluster_id", [synth.random_moves(rng, actual.column("cluster_id").to_numpy(), 0.05)]
    )
    labels = truth.column("cluster_id").to_numpy()
    moved = synth.random_moves(np.random.default_rng(8), labels, 0.05)

    built = cs.diff(actual, exp, items)
    calls = {
        "evaluate": lambda: harness.every_level(cs.evaluate(truth, actual, items)),
        "diff": lambda: harness.every_level(cs.diff(actual, exp, items)),
        "all_scores": lambda: M.all_scores(labels, moved),
        "sample 1e6 pairs": lambda: sample_from_diff(built, 1_000_000, seed=1),
    }
    best = {(name, t): float("inf") for name in calls for t in (1, args.threads)}
    for _ in range(args.repeat):
        for name, call in calls.items():
            for t in (1, args.threads):
                cs.set_threads(t)
                t0 = time.perf_counter()
                call()
                best[name, t] = min(best[name, t], time.perf_counter() - t0)
    print(f"\nn = {args.n:,} items, best of {args.repeat} turns\n")
    print(f"| call | 1 thread (s) | {args.threads} threads (s) | speed-up (target ≥ 1.6×) |")
    print("|---|---|---|---|")
    for name in calls:
        one, many = best[name, 1], best[name, args.threads]
        print(f"| {name} | {one:.3f} | {many:.3f} | {one / many:.2f}× |")


if __name__ == "__main__":
    main()
