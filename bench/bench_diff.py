"""Benchmark: `diff` with every level and the flows, Base vs Exp = Base with 5% of items
moved (splits and merges), from memory and from Parquet.

    python bench/bench_diff.py [--n 10000000] [--repeat 3]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import synth  # noqa: E402


def all_levels(d) -> None:
    d.overall  # noqa: B018 - computing it is the point
    d.coverage  # noqa: B018
    d.per_cluster_table("base")
    d.per_cluster_table("exp")
    d.per_slice_table("country")
    d.flows_table()


def child(kind: str, n: int, repeat: int, workdir: str) -> dict:
    import clusterscore as cs

    base, exp, items = synth.make(n, moved=0.05)
    tables = {"base": base, "exp": exp, "items": items}
    del base, exp, items
    return harness.measure_tables_or_files(
        kind, n, repeat, workdir, tables, lambda *x: all_levels(cs.diff(*x))
    )


def main() -> None:
    args = harness.parse_args()
    rows = harness.child_or_parent(__file__, args, ["memory", "parquet"], child)
    if not rows:
        return
    print(f"\nn = {args.n:,} items, 5% moved, best of {args.repeat}, one thread\n")
    print("| run | best (s) | first (s) | peak memory beyond input |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| diff, all levels + flows, {r['kind']} | {r['best_s']:.2f} | {r['first_s']:.2f} |"
              f" {r['peak_bytes_per_item']:.0f} B/item |")  # fmt: skip


if __name__ == "__main__":
    main()
