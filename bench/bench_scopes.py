"""Benchmark: the entities scope beside the common scope, in the same run.

    python bench/bench_scopes.py [--n 10000000] [--repeat 3]

Input (bench/synth.py): n actual items in power-law clusters, 10% moved by splits and
merges; a truth of 2% of the entities, whole, as teams label them.
Each run evaluates every level (overall, per truth and actual cluster, per slice) and
the overall intervals from 1,000 bootstrap resamples. Target: the entities scope within
2x the common scope's time. One thread.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import synth  # noqa: E402


def scored(truth, actual, items, scope: str) -> None:
    import clusterscore as cs

    ev = cs.evaluate(truth, actual, items, truth_scope=scope, resamples=1000)
    ev.overall  # noqa: B018 - computing it is the point
    ev.per_cluster_table("truth")
    ev.per_cluster_table("actual")
    ev.per_slice_table("country")
    ev.intervals_table()


def child(kind: str, n: int, repeat: int, workdir: str) -> dict:
    truth, actual, items = synth.make(n, moved=0.10)
    import pyarrow.compute as pc

    entities = pc.count_distinct(truth.column("cluster_id")).as_py()
    truth = synth.small_truth(truth, clusters=int(0.02 * entities))
    return harness.measure(kind, n, repeat, lambda: scored(truth, actual, items, kind))


def main() -> None:
    args = harness.parse_args()
    rows = harness.child_or_parent(__file__, args, ["common", "entities"], child)
    if not rows:
        return
    best = {r["kind"]: r["best_s"] for r in rows}
    print(f"\nn = {args.n:,} actual items, truth of 2% of the entities,", end=" ")
    print(f"best of {args.repeat}, one thread\n")
    print("| scope | best (s) | first (s) | peak memory beyond input |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['kind']} | {r['best_s']:.2f} | {r['first_s']:.2f} |"
              f" {r['peak_bytes_per_item']:.0f} B/item |")  # fmt: skip
    print(f"\nentities / common: {best['entities'] / best['common']:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
