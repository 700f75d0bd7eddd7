"""Benchmark: `diff` with every level and the flows, Base vs Exp = Base with 5% of items
moved (splits and merges), from memory and from Parquet.

    python bench/bench_diff.py [--n 10000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
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
    import pyarrow.parquet as pq

    import clusterscore as cs

    base, exp, items = synth.make(n, moved=0.05)
    if kind == "parquet":
        paths = [Path(workdir) / f"{name}.parquet" for name in ("base", "exp", "items")]
        for p, t in zip(paths, (base, exp, items), strict=True):
            pq.write_table(t, p)
        del base, exp, items  # the input is the files now, not tables in memory
        return from_files(kind, n, repeat, paths)
    return harness.measure(kind, n, repeat, lambda: all_levels(cs.diff(base, exp, items)))


def from_files(kind: str, n: int, repeat: int, paths: list[Path]) -> dict:
    import clusterscore as cs

    return harness.measure(kind, n, repeat, lambda: all_levels(cs.diff(*paths)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", default=None)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n, args.repeat, args.workdir)))
        return
    with tempfile.TemporaryDirectory() as work:
        extra = ["--n", str(args.n), "--repeat", str(args.repeat), "--workdir", work]
        rows = harness.run_children(__file__, ["memory", "parquet"], extra)
    print(f"\nn = {args.n:,} items, 5% moved, best of {args.repeat}, one thread\n")
    print("| run | best (s) | first (s) | peak memory beyond input |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| diff, all levels + flows, {r['kind']} | {r['best_s']:.2f} | {r['first_s']:.2f} |"
              f" {r['peak_bytes_per_item']:.0f} B/item |")  # fmt: skip


if __name__ == "__main__":
    main()
