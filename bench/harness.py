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


def every_level(result) -> None:
    """Computes an evaluation's or a diff's overall values and its tables per cluster of each
    side and per value of the synthetic data's slice ("country")."""
    result.overall  # noqa: B018 - computing it is the point
    for role in result.roles:
        result.per_cluster_table(role)
    result.per_slice_table("country")


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


def release_cached() -> None:
    """Memory a previous measurement in this process left in clusterscore's block cache
    would otherwise serve this one and hide its peak."""
    import clusterscore

    clusterscore.release_memory()


def measure(kind: str, n: int, repeat: int, run: Callable[[], object]) -> dict:
    gc.collect()
    release_cached()
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


def run_children(script: str, kinds: list[str], extra: list[str], threads: int = 1) -> list[dict]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               CLUSTERSCORE_THREADS=str(threads))  # fmt: skip
    rows = []
    for kind in kinds:
        cmd = [sys.executable, script, "--child", kind, *extra]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], file=sys.stderr)
    return rows


def parse_args(default_n: int = 10_000_000):
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=default_n)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", default=None)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--threads", type=int, default=1, help="the core's threads (0: every core)")
    return ap.parse_args()


def measure_tables_or_files(
    kind: str, n: int, repeat: int, workdir: str, tables: dict, fn: Callable[..., object]
) -> dict:
    """Times fn(*tables) for kind "memory"; for kind "parquet" writes the tables to
    workdir first and times fn(*paths), with the tables no longer in memory."""
    import pyarrow.parquet as pq

    if kind != "parquet":
        values = list(tables.values())
        return measure(kind, n, repeat, lambda: fn(*values))
    from pathlib import Path

    paths = []
    for name in list(tables):
        paths.append(Path(workdir) / f"{name}.parquet")
        pq.write_table(tables.pop(name), paths[-1])
    return measure(kind, n, repeat, lambda: fn(*paths))


def child_or_parent(script: str, args, kinds: list[str], child: Callable[..., dict]) -> list:
    """In a child process, prints one measurement; in the parent, runs one child a kind."""
    import tempfile

    if args.child:
        print(json.dumps(child(args.child, args.n, args.repeat, args.workdir)))
        return []
    with tempfile.TemporaryDirectory() as work:
        extra = ["--n", str(args.n), "--repeat", str(args.repeat), "--workdir", work]
        return run_children(script, kinds, extra, args.threads)
