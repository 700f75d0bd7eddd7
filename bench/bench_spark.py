"""Benchmark: the Spark engine on local[N] beside the in-process engine, in the same run,
taking turns, on the same Parquet files.

    python bench/bench_spark.py [--n 10000000] [--repeat 2] [--master local[2]]

Inputs: `--n` items with power-law truth clusters, an actual clustering with 10% of the
items moved by splits and merges and a further 5% moved one record at a time to random
clusters, weights and a country slice (bench/synth.py), written once as Parquet, and a
truth that is a sample of 1% of the entities, labelled in full. Each turn times, from the
files: `evaluate` (overall, per cluster of both sides, per country) against the whole
truth and against the sample (with the units the driver then holds), and `diff` (the same
levels) with each engine. Spark's session starts once, before the turns,
and its start-up is reported on its own.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import synth  # noqa: E402


def write_inputs(n: int, folder: Path) -> dict[str, str]:
    truth, actual, items = synth.make(n, moved=0.10)
    rng = np.random.default_rng(7)
    moved = synth.random_moves(rng, actual.column("cluster_id").to_numpy(), 0.05)
    actual = actual.set_column(1, "cluster_id", [moved])
    clusters = truth.column("cluster_id").to_numpy()
    sampled = np.isin(clusters, np.unique(clusters)[::100])  # 1% of the entities
    sample = truth.filter(sampled)
    paths = {}
    for name, table in (("truth", truth), ("sample", sample), ("actual", actual), ("items", items)):
        paths[name] = str(folder / f"{name}.parquet")
        pq.write_table(table, paths[name])
    return paths


def levels(result, sides) -> None:
    result.overall  # noqa: B018 - computing it is the point
    for side in sides:
        result.per_cluster_table(side)
    result.per_slice_table("country")


def held(result) -> None:
    levels(result, ("truth", "actual"))
    collected = vars(result._spark).get("_collected")  # made only when a result needs it
    units = 0 if collected is None else len(collected.table)
    print(f"  units on the driver: {units:,}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="8g")
    args = ap.parse_args()
    from pyspark.sql import SparkSession

    import clusterscore as cs
    import clusterscore.spark as css

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        p = write_inputs(args.n, Path(tmp))
        start = time.perf_counter()
        spark = (
            SparkSession.builder.master(args.master)
            .config("spark.driver.memory", args.driver_memory)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "16")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        print(f"spark start-up: {time.perf_counter() - start:.1f} s", flush=True)

        def read(name: str):
            return spark.read.parquet(p[name])

        calls = {
            "evaluate in-process": lambda: levels(
                cs.evaluate(p["truth"], p["actual"], p["items"]), ("truth", "actual")
            ),
            "evaluate spark": lambda: levels(
                css.evaluate(read("truth"), read("actual"), read("items"), slices=["country"]),
                ("truth", "actual"),
            ),
            "evaluate-sample in-process": lambda: levels(
                cs.evaluate(p["sample"], p["actual"], p["items"]), ("truth", "actual")
            ),
            "evaluate-sample spark": lambda: held(
                css.evaluate(read("sample"), read("actual"), read("items"), slices=["country"])
            ),
            "diff in-process": lambda: levels(
                cs.diff(p["truth"], p["actual"], p["items"]), ("base", "exp")
            ),
            "diff spark": lambda: levels(
                css.diff(read("truth"), read("actual"), read("items"), slices=["country"]),
                ("base", "exp"),
            ),
        }
        times: dict[str, list[float]] = {k: [] for k in calls}
        for _ in range(args.repeat):
            for name, call in calls.items():
                t = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - t)
                print(f"{name}: {times[name][-1]:.2f} s", flush=True)
        print(f"\nn = {args.n:,}, master {args.master}, best of {args.repeat}:")
        for job in ("evaluate", "evaluate-sample", "diff"):
            a, b = min(times[f"{job} in-process"]), min(times[f"{job} spark"])
            print(f"  {job}: in-process {a:.2f} s, spark {b:.2f} s ({b / a:.1f}x)")
        spark.stop()


if __name__ == "__main__":
    main()
