"""Benchmark: `evaluate` (or `diff`) with every level from Parquet files with string ids,
at a size that tests memory (1e8 items), beside the same at a tenth of it, each in a fresh
process.

    python bench/bench_scale.py [--n 100000000] [--call evaluate|diff] [--threads 0]
        [--workdir DIR]

Input: bench/synth.py's shape written in chunks of 1e7 items (clusters do not cross
chunks), item ids "item-<n>" and cluster ids "cluster-<n>", weights and a country per item
in a third file. Reported per size: wall time of the call (Parquet reading included), time
per item, the process's processor time in user space and in the kernel, and its peak memory
(resident, the whole process: inputs read from Parquet count). Targets: peak under 20 GiB at
1e8 on a 24 GiB machine; time per item at 1e8 within 1.5x of the tenth's.

The kernel's time is mostly page faults: the first write to each page of memory the
process takes. It grows with the memory a size needs, and on a virtual machine whose host
backs memory only when the guest first touches it, it costs several times more per page
than the user-space work: the user-space time per item is the measure of the work itself.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import synth  # noqa: E402

CHUNK = 10_000_000


def write_inputs(n: int, workdir: Path) -> list[Path]:
    """truth, actual and items Parquet files of n items, written a chunk at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    paths = [workdir / f"{name}.parquet" for name in ("truth", "actual", "items")]
    writers: list[pq.ParquetWriter] = []
    offset = 0
    for chunk, start in enumerate(range(0, n, CHUNK)):
        tables = list(synth.make(min(CHUNK, n - start), moved=0.10, seed=chunk))
        for i in (0, 1):  # clusters of different chunks are different clusters
            shifted = pc.add(tables[i].column("cluster_id"), pa.scalar(offset, pa.int64()))
            tables[i] = tables[i].set_column(1, "cluster_id", shifted)
        offset += int(pc.max(tables[0].column("cluster_id")).as_py()) + 1
        tables = list(synth.with_string_ids(*tables))
        if not writers:
            writers = [pq.ParquetWriter(p, t.schema) for p, t in zip(paths, tables, strict=True)]
        for w, t in zip(writers, tables, strict=True):
            w.write_table(t, row_group_size=1 << 20)
    for w in writers:
        w.close()
    return paths


def child(call: str, paths: list[str]) -> dict:
    import clusterscore as cs

    before = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    result = cs.evaluate(*paths) if call == "evaluate" else cs.diff(*paths)
    result.overall  # noqa: B018 - computing it is the point
    result.coverage  # noqa: B018
    for side in result.roles:
        result.per_cluster_table(side)
    result.per_slice_table("country")
    seconds = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread's, over the call
    return {
        "seconds": seconds,
        "user_seconds": usage.ru_utime - before.ru_utime,
        "system_seconds": usage.ru_stime - before.ru_stime,
        "peak_bytes": harness.peak_bytes(),
    }


def measure(n: int, workdir: Path, threads: int, call: str) -> dict:
    paths = write_inputs(n, workdir)
    env = dict(os.environ, CLUSTERSCORE_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--child", call, *map(str, paths)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    for p in paths:
        p.unlink()
    return {"n": n, **row}


def main() -> None:
    import argparse

    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(sys.argv[2], sys.argv[3:])))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000_000)
    ap.add_argument("--call", choices=("evaluate", "diff"), default="evaluate")
    ap.add_argument("--threads", type=int, default=0, help="the core's threads (0: every core)")
    ap.add_argument("--workdir", default=None, help="where the Parquet files go (default: /tmp)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        rows = [measure(n, Path(work), args.threads, args.call) for n in (args.n // 10, args.n)]
    threads = args.threads or "all"
    print(f"\n{args.call}, every level, from Parquet, string ids, threads: {threads}\n")
    print("| items | seconds | ns/item | user s | system s | peak memory (GiB) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:,} | {r['seconds']:.1f} | {r['seconds'] / r['n'] * 1e9:.0f} "
              f"| {r['user_seconds']:.1f} | {r['system_seconds']:.1f} "
              f"| {r['peak_bytes'] / 2**30:.1f} |")  # fmt: skip
    small, big = rows
    against = f"{big['n']:,} against {small['n']:,}"
    for what, key in (("time", "seconds"), ("user time", "user_seconds"),
                      ("system time", "system_seconds")):  # fmt: skip
        per = (big[key] / big["n"]) / (small[key] / small["n"])
        target = " (target <= 1.5x)" if key == "seconds" else ""
        print(f"{what} per item, {against}: {per:.2f}x{target}")


if __name__ == "__main__":
    main()
