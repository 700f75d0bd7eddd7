"""Measurement harness shared by the benchmarks: each case runs in a fresh process that
builds its seeded input, resets the peak-RSS counter, then times the call `repeat` times.
Reported: best and first wall time, and peak memory beyond the input in bytes per item."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def measure(kind: str, n: int, repeat: int, run: Callable[[], object]) -> dict:
    gc.collect()
    before = rss_bytes()
    times, peaks = [], []
    for _ in range(repeat):
        reset_peak()
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        peaks.append(peak_bytes() - before)
        gc.collect()
    return {"kind": kind, "n": n, "best_s": min(times), "first_s": times[0],
            "peak_bytes_per_item": min(peaks) / n}  # fmt: skip


def run_children(script: str, kinds: list[str], extra: list[str]) -> list[dict]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    rows = []
    for kind in kinds:
        cmd = [sys.executable, script, "--child", kind, *extra]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], file=sys.stderr)
    return rows
