"""Benchmark: what the Spark engine's driver holds as the data grows, beside the in-process
engine's whole job.

    python bench/bench_spark_driver.py [--n 10000000 100000000] [--master local[2]]
        [--driver-memory 1g] [--data DIR] [--commands evaluate diff sample] [--partitions N]

Inputs: for each `--n`, parts of 1e7 items (bench/synth.py: power-law truth clusters, an
actual clustering with 10% of the items moved by splits and merges, weights and a country
slice; each part's ids and clusters its own), written once as folders of Parquet files
(kept in `--data` if given, to be read again). Each job runs in a fresh process, from the
files:

- `evaluate spark`: `clusterscore.spark.evaluate(..., slices=["country"])`, its overall
  values, its per-country table, and both per-cluster tables written by Spark (Parquet);
- `evaluate in-process`: `clusterscore.evaluate` of the same files, the same levels (its
  per-cluster tables made, not written); run for n up to `--local-max`;
- `diff spark`: `clusterscore.spark.diff` of the truth (as Base) and the actual clustering
  (as Exp), slices=["country"]: its overall values, its per-country table, the ten
  largest flows, and both per-cluster tables and the flows written by Spark;
- `diff in-process`: `clusterscore.diff` of the same files, the same levels (its tables
  made, not written);
- `sample spark`: `clusterscore.spark.sample_pairs`' work on the same Base and Exp with the
  items table, 2,000 diff pairs and 500 stable pairs (its pairs' table on the driver),
  and how many units the driver held for it (the cells the diff affects, and one more);
- `sample in-process`: `clusterscore.sample_pairs` of the same files.

Printed per job: seconds, the driver's Python peak RSS, and the JVM's (local mode: the
driver's JVM runs the executors too, its heap capped by `--driver-memory`). Spark's own
settings otherwise (200 shuffle partitions unless `--partitions`, adaptive execution
coalescing them).
"""

from __future__ import annotations

import argparse
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

PART = 10_000_000


def write_inputs(n: int, folder: Path) -> None:
    """Writes truth/, actual/ and items/ for `n` items, in parts of at most PART items."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    import synth

    for name in ("truth", "actual", "items"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    for k, start in enumerate(range(0, n, PART)):
        t, a, items = synth.make(min(PART, n - start), seed=k)
        # Each part's ids and clusters apart from every other part's: ids numbered from
        # `start` (by their rank), clusters shifted by k·2^40.
        ranked = np.sort(t.column("item_id").to_numpy())

        def own(table, ranked=ranked, start=start):
            rank = np.searchsorted(ranked, table.column("item_id").to_numpy())
            return table.set_column(0, "item_id", pa.array(rank + start))

        t, a, items = own(t), own(a), own(items)
        for name, table in (("truth", t), ("actual", a)):
            clusters = table.column("cluster_id").to_numpy() + (np.int64(k) << 40)
            table = table.set_column(1, "cluster_id", pa.array(clusters))
            pq.write_table(table, folder / name / f"part-{k:04d}.parquet")
        pq.write_table(items, folder / "items" / f"part-{k:04d}.parquet")


def jvm_peak_bytes(spark) -> int:
    """The driver JVM's peak resident set (VmHWM), read from /proc."""
    pid = spark.sparkContext._gateway.proc.pid
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def in_process(command: str, data: Path) -> None:
    """The in-process engine's job `command` on the files in `data`."""
    import clusterscore as cs

    paths = [str(data / n) for n in ("truth", "actual", "items")]
    if command == "sample":
        cs.sample_pairs(paths[0], paths[1], 2000, 1, paths[2], stable_pairs=500).table  # noqa: B018
        return
    result = cs.evaluate(*paths) if command == "evaluate" else cs.diff(*paths)
    result.overall  # noqa: B018 - computing it is the point
    result.per_slice_table("country")
    for side in result.roles:
        result.per_cluster_table(side)
    if command == "diff":
        result.flows_table()


def on_spark(command: str, read: list, out: dict[str, float]) -> None:
    """The Spark engine's job `command` on the DataFrames `read` (truth, actual, items)."""
    import clusterscore.spark as css

    if command == "sample":
        d = css.diff(*read, slices=[])
        css.sample_from_diff(d, 2000, 1, stable_pairs=500).table  # noqa: B018
        out["units"] = len(d.sampler[0].sources[2].table)
        return
    run = css.evaluate if command == "evaluate" else css.diff
    result = run(*read, slices=["country"])
    result.overall  # noqa: B018 - computing it is the point
    result.per_slice_table("country")
    with tempfile.TemporaryDirectory() as tmp:
        for side in result.roles:
            result.per_cluster(side).write.parquet(f"{tmp}/{side}")
        if command == "diff":
            result.largest_flows(10)
            result.flows().write.parquet(f"{tmp}/flows")


def child(job: str, data: Path, master: str, driver_memory: str, partitions: int | None) -> None:
    """Runs one job and prints its measures as JSON."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    out: dict[str, float] = {}
    command, engine = job.split(" ", 1)
    if engine == "in-process":
        start = time.perf_counter()
        in_process(command, data)
        out["seconds"] = time.perf_counter() - start
    else:
        from pyspark.sql import SparkSession

        builder = (
            SparkSession.builder.master(master)
            .config("spark.driver.memory", driver_memory)
            .config("spark.ui.enabled", "false")
        )
        if partitions:
            builder = builder.config("spark.sql.shuffle.partitions", str(partitions))
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        read = [spark.read.parquet(str(data / n)) for n in ("truth", "actual", "items")]
        start = time.perf_counter()
        on_spark(command, read, out)
        out["seconds"] = time.perf_counter() - start
        out["jvm_peak"] = jvm_peak_bytes(spark)
        spark.stop()
    out["python_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))


def run(job: str, data: Path, args: argparse.Namespace) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--child", job, "--data", str(data),
           "--master", args.master, "--driver-memory", args.driver_memory]  # fmt: skip
    if args.partitions:
        cmd += ["--partitions", str(args.partitions)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{job} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[10_000_000, 100_000_000])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--local-max", type=int, default=10_000_000)
    ap.add_argument("--data", type=Path)
    ap.add_argument("--commands", nargs="+", default=["evaluate", "diff", "sample"],
                    choices=["evaluate", "diff", "sample"])  # fmt: skip
    ap.add_argument("--partitions", type=int)
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.data, args.master, args.driver_memory, args.partitions)
        return
    gib = 1 << 30
    with tempfile.TemporaryDirectory() as tmp:
        root = args.data or Path(tmp)
        for n in args.n:
            data = root / f"n{n}"
            if not (data / "items").exists():
                write_inputs(n, data)
            for job in [f"{c} {e}" for c in args.commands for e in ("spark", "in-process")]:
                if job.endswith("in-process") and n > args.local_max:
                    continue
                m = run(job, data, args)
                jvm = f", JVM peak {m['jvm_peak'] / gib:.2f} GiB" if "jvm_peak" in m else ""
                units = f", {m['units']:,} units on the driver" if "units" in m else ""
                print(f"n = {n:,} {job}: {m['seconds']:.1f} s, Python peak"
                      f" {m['python_peak'] / gib:.2f} GiB{jvm}{units}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
