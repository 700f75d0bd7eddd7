"""Benchmark: what the first call in a fresh process pays, and whether that is the
library's time or the machine's price for memory new to the process.

    python bench/bench_first_call.py [--n 10000000] [--runs 2] [--pretouch-gib 1.5]

Each run starts two fresh processes that load the inputs (bench/synth.py, Arrow tables
in memory) and time `evaluate` with every level twice: the first call, then a second
that reuses the memory the first freed. The second process first has plain numpy
write one byte per 4 KiB page of `--pretouch-gib` GiB and free it, so that the calls
find pages the process has already used. If the first call is slow only in the first
process, and numpy's writing costs what the first call saved, the first call's extra
time is the operating system's (or the hypervisor's) price for new pages.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def evaluate_twice(n: int, pretouch: float) -> None:
    import numpy as np

    import clusterscore as cs
    import synth

    truth, actual, items = synth.make(n, moved=0.10)
    t0 = time.perf_counter()
    if pretouch > 0:
        pages = np.empty(int(pretouch * 2**30), np.uint8)
        pages[::4096] = 1
        del pages
    touched = time.perf_counter() - t0
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        e = cs.evaluate(truth, actual, items)
        e.overall  # noqa: B018 - computing it is the point
        e.per_cluster_table("truth")
        e.per_cluster_table("actual")
        e.per_slice_table("country")
        del e
        times.append(time.perf_counter() - t0)
    print(json.dumps({"touch": touched, "first": times[0], "second": times[1]}))


def child(n: int, pretouch: float) -> dict:
    cmd = [sys.executable, __file__, "--child", "--n", str(n), "--pretouch-gib", str(pretouch)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--pretouch-gib", type=float, default=1.5)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return evaluate_twice(args.n, args.pretouch_gib)
    print("| process | numpy writes (s) | first call (s) | second call (s) | first / second |")
    print("|---|---|---|---|---|")
    for _ in range(args.runs):
        for pretouch in (0.0, args.pretouch_gib):
            r = child(args.n, pretouch)
            what = f"numpy wrote {pretouch:g} GiB first" if pretouch else "fresh"
            print(
                f"| {what} | {r['touch']:.2f} | {r['first']:.2f} | {r['second']:.2f} | "
                f"{r['first'] / r['second']:.2f}× |"
            )


if __name__ == "__main__":
    main()
