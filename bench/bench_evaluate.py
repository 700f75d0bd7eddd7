"""Benchmark: `evaluate` with every level at 1e7 items, against scikit-learn's
contingency_matrix(sparse=True) on the same labels, in the same run.

    python bench/bench_evaluate.py [--n 10000000] [--repeat 3]

Each measurement runs in a fresh process: it builds the seeded input (bench/synth.py),
resets the peak-RSS counter, then times the call. Reported: the best and first wall time,
and peak memory beyond the input (bytes per item). One thread throughout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def all_levels(result) -> None:
    result.overall  # noqa: B018 - the point is to compute it
    result.coverage  # noqa: B018
    result.per_cluster_table("truth")
    result.per_cluster_table("actual")
    result.per_slice_table("country")


def child(kind: str, n: int, repeat: int, workdir: str) -> dict:
    sys.path.insert(0, str(HERE))
    import pyarrow.parquet as pq

    import clusterscore as cs
    import synth

    truth, actual, items = synth.make(n)
    paths = [Path(workdir) / f"{name}.parquet" for name in ("truth", "actual", "items")]
    if kind == "parquet" and not paths[0].exists():
        for p, t in zip(paths, (truth, actual, items), strict=True):
            pq.write_table(t, p)
    if kind == "sklearn":
        from sklearn.metrics.cluster import contingency_matrix

        # scikit-learn needs the labels aligned by item already: give it that for free.
        labels_true = truth.column("cluster_id").to_numpy()
        order = {v: i for i, v in enumerate(actual.column("item_id").to_numpy())}
        del order  # alignment by dict would dominate; sort instead
        import numpy as np

        a_ids = actual.column("item_id").to_numpy()
        t_ids = truth.column("item_id").to_numpy()
        pos = np.argsort(a_ids)
        labels_pred = actual.column("cluster_id").to_numpy()[
            pos[np.searchsorted(a_ids[pos], t_ids)]
        ]

        def run():
            contingency_matrix(labels_true, labels_pred, sparse=True)

    elif kind == "memory":

        def run():
            all_levels(cs.evaluate(truth, actual, items))

    else:
        del truth, actual, items

        def run():
            all_levels(cs.evaluate(*paths))

    import gc

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
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for kind in ("memory", "parquet", "sklearn"):
            cmd = [sys.executable, __file__, "--child", kind, "--n", str(args.n),
                   "--repeat", str(args.repeat), "--workdir", work]  # fmt: skip
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(rows[-1], file=sys.stderr)
    sk = next(r for r in rows if r["kind"] == "sklearn")["best_s"]
    print(f"\n`evaluate`, every level, n = {args.n:,} (best of {args.repeat}; one thread)\n")
    print(
        "| run | best (s) | first (s) | vs sklearn contingency_matrix | peak memory beyond input |"
    )
    print("|---|---|---|---|---|")
    names = {"memory": "clusterscore, Arrow tables in memory",
             "parquet": "clusterscore, from Parquet files",
             "sklearn": "sklearn contingency_matrix(sparse=True), labels pre-aligned"}  # fmt: skip
    for r in rows:
        ratio = "1.0×" if r["kind"] == "sklearn" else f"{sk / r['best_s']:.1f}× faster"
        print(f"| {names[r['kind']]} | {r['best_s']:.2f} | {r['first_s']:.2f} | {ratio} |"
              f" {r['peak_bytes_per_item']:.0f} B/item |")  # fmt: skip


if __name__ == "__main__":
    main()
