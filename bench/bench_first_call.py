"""Benchmark: what the first call in a fresh process pays against later ones, with the
system's pages (the default) and with huge pages (CLUSTERSCORE_HUGE_PAGES=1).

    python bench/bench_first_call.py [--n 10000000] [--runs 3] [--pretouch-gib 0]

Each run starts one fresh process per call and page policy, in turns, that loads the
inputs (bench/synth.py, Arrow tables in memory) and times the call three times: the first
call, then two that reuse the memory the first freed. Calls: `evaluate` and `diff` with
every level, and `metrics.all_scores`. With --pretouch-gib G, each process first has plain
numpy write one byte per 4 KiB page of G GiB and free it, so that the calls find pages the
process has already used: if the first call is then as fast as the others, its extra time
is the operating system's (or the hypervisor's) price for memory new to the process.
Target: a first call within 1.5x of a warm one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CALLS = ("evaluate", "diff", "all_scores")
PAGES = {"system": "0", "huge": "1"}


def time_calls(n: int, call: str, pretouch: float) -> None:
    import numpy as np

    import clusterscore as cs
    import harness
    import synth
    from clusterscore import metrics as M

    truth, actual, items = synth.make(n, moved=0.10)
    labels = truth.column("cluster_id").to_numpy()
    moved = synth.random_moves(np.random.default_rng(8), labels, 0.05)

    run = {
        "evaluate": lambda: harness.every_level(cs.evaluate(truth, actual, items)),
        "diff": lambda: harness.every_level(cs.diff(truth, actual, items)),
        "all_scores": lambda: M.all_scores(labels, moved),
    }[call]
    if pretouch > 0:
        pages = np.empty(int(pretouch * 2**30), np.uint8)
        pages[::4096] = 1
        del pages
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    print(json.dumps(times))


def child(n: int, call: str, pages: str, pretouch: float) -> list[float]:
    cmd = [sys.executable, __file__, "--child", call, "--n", str(n), "--pretouch-gib",
           str(pretouch)]  # fmt: skip
    env = dict(os.environ, CLUSTERSCORE_HUGE_PAGES=PAGES[pages])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pretouch-gib", type=float, default=0.0)
    ap.add_argument("--child", choices=CALLS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return time_calls(args.n, args.child, args.pretouch_gib)
    rows: dict[tuple[str, str], list[list[float]]] = {}
    for _ in range(args.runs):
        for call in CALLS:
            for pages in PAGES:
                times = child(args.n, call, pages, args.pretouch_gib)
                rows.setdefault((call, pages), []).append(times)
    touched = f", numpy wrote {args.pretouch_gib:g} GiB first" if args.pretouch_gib else ""
    print(f"\nn = {args.n:,}, {args.runs} fresh processes each{touched}; ranges over them\n")
    print("| call | pages | first (s) | second (s) | third (s) | first / second |")
    print("|---|---|---|---|---|---|")

    def span(values: list[float], fmt: str) -> str:
        return f"{min(values):{fmt}}–{max(values):{fmt}}"

    for (call, pages), runs in rows.items():
        cols = [span([r[i] for r in runs], ".2f") for i in range(3)]
        ratio = span([r[0] / r[1] for r in runs], ".2f")
        print(f"| {call} | {pages} | {' | '.join(cols)} | {ratio}× |")


if __name__ == "__main__":
    main()
