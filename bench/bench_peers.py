"""Benchmark: `evaluate` with every level against what a user writes today, the contingency
trick as DuckDB SQL and as a polars query, computing the same outputs from the same Parquet
files: coverage, the overall values, a table per truth cluster, per actual cluster and per
slice value, each with every pointwise metric, f1_of_means and the pair metrics.

    python bench/bench_peers.py [--n 10000000] [--rounds 3] [--threads 1,2]

Each tool runs in a fresh process, in turns (round 1: clusterscore, DuckDB, polars; round
2: the same...), timed from reading the files to the last table in Arrow. The first round's
tables are checked against clusterscore's (relative 1e-9: the peers sum in their own
order), so every ratio compares the same numbers. Printed: the median per tool and thread
count, the ratios, and the load average before and after.

Input (bench/synth.py): power-law clusters, 10% of the items moved by splits and merges,
random int64 ids, random weights, a five-value slice column.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TOOLS = ("clusterscore", "duckdb", "polars")
LEVELS = ("overall", "truth", "actual", "country")
METRICS = ("precision", "recall", "f1", "accuracy", "jaccard_index", "jaccard_distance",
           "over_merge_rate", "under_merge_rate", "f1_of_means", "pair_precision",
           "pair_recall", "pair_f1")  # fmt: skip

# Per item of the common items: its weight w, its cell's weight x, its truth cluster's b
# and its actual cluster's e (on the common items), and the total W. Each level is a
# weighted mean of these per-item values, and the pair sums Σw·(x − w) over Σw·(e − w)
# (precision) or Σw·(b − w) (recall): an item alone in its cluster adds an exact 0.
_SQL_ITEMS = """
CREATE TEMP TABLE p AS
WITH j AS (
  SELECT t.cluster_id AS tc, a.cluster_id AS ac, coalesce(i.weight, 1.0) AS w, i.country
  FROM read_parquet('{truth}') t JOIN read_parquet('{actual}') a USING (item_id)
  LEFT JOIN read_parquet('{items}') i USING (item_id)
), cell AS (SELECT tc, ac, sum(w) AS x FROM j GROUP BY tc, ac),
b AS (SELECT tc, sum(x) AS b FROM cell GROUP BY tc),
e AS (SELECT ac, sum(x) AS e FROM cell GROUP BY ac)
SELECT j.tc, j.ac, j.country, j.w, cell.x, b.b, e.e
FROM j JOIN cell USING (tc, ac) JOIN b USING (tc) JOIN e USING (ac)
"""
_SQL_LEVEL = """
WITH m AS (
  SELECT {key} count(*) AS items, sum(w) AS weight,
    sum(w * x / e) / sum(w) AS precision, sum(w * x / b) / sum(w) AS recall,
    sum(w * 2 * x / (b + e)) / sum(w) AS f1,
    sum(w * (1 - (b + e - 2 * x) / total)) / sum(w) AS accuracy,
    sum(w * x / (b + e - x)) / sum(w) AS jaccard_index,
    sum(w * (x - w)) / nullif(sum(w * (e - w)), 0) AS pair_precision,
    sum(w * (x - w)) / nullif(sum(w * (b - w)), 0) AS pair_recall
  FROM p, (SELECT sum(w) AS total FROM p) {group}
)
SELECT *, 1 - jaccard_index AS jaccard_distance, 1 - precision AS over_merge_rate,
  1 - recall AS under_merge_rate,
  CASE WHEN precision + recall = 0 THEN 0
       ELSE 2 * precision * recall / (precision + recall) END AS f1_of_means,
  CASE WHEN pair_precision + pair_recall = 0 THEN 0
       ELSE 2 * pair_precision * pair_recall / (pair_precision + pair_recall) END AS pair_f1
FROM m
"""
_SQL_COVERAGE = """
SELECT (SELECT count(*) FROM read_parquet('{truth}')) AS truth_items,
  (SELECT count(*) FROM read_parquet('{actual}')) AS actual_items,
  count(*) AS common_items, sum(w) AS common_weight,
  count(DISTINCT tc) AS truth_clusters_common, count(DISTINCT ac) AS actual_clusters_common
FROM p
"""


def run_duckdb(files: dict[str, str], threads: int) -> dict:
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute(_SQL_ITEMS.format(**files))
    keys = {"overall": "", "truth": "tc AS cluster_id,", "actual": "ac AS cluster_id,",
            "country": "country,"}  # fmt: skip
    out = {}
    for level, key in keys.items():
        group = "" if not key else f"GROUP BY {key.split(' AS ')[0].rstrip(',')}"
        out[level] = con.execute(_SQL_LEVEL.format(key=key, group=group)).to_arrow_table()
    out["coverage"] = con.execute(_SQL_COVERAGE.format(**files)).to_arrow_table()
    return out


def _harmonic(a: str, b: str):
    """2ab/(a + b), 0 where a + b is 0 (as the core's f1_of_means and pair_f1)."""
    import polars as pl

    total = pl.col(a) + pl.col(b)
    return pl.when(total == 0).then(0.0).otherwise(2 * pl.col(a) * pl.col(b) / total)


def run_polars(files: dict[str, str], threads: int) -> dict:
    import polars as pl  # POLARS_MAX_THREADS is set before the import (child())

    truth = pl.scan_parquet(files["truth"]).rename({"cluster_id": "tc"})
    actual = pl.scan_parquet(files["actual"]).rename({"cluster_id": "ac"})
    items = pl.scan_parquet(files["items"])
    j = (truth.join(actual, on="item_id").join(items, on="item_id", how="left")
         .with_columns(pl.col("weight").fill_null(1.0).alias("w")))  # fmt: skip
    cell = j.group_by("tc", "ac").agg(pl.col("w").sum().alias("x"))
    b = cell.group_by("tc").agg(pl.col("x").sum().alias("b"))
    e = cell.group_by("ac").agg(pl.col("x").sum().alias("e"))
    p = (j.join(cell, on=["tc", "ac"]).join(b, on="tc").join(e, on="ac")
         .select("tc", "ac", "country", "w", "x", "b", "e").collect())  # fmt: skip
    total = p["w"].sum()
    w, x, bb, ee = (pl.col(c) for c in ("w", "x", "b", "e"))

    def mean(expr: pl.Expr) -> pl.Expr:
        return (w * expr).sum() / w.sum()

    def ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
        d = (w * den).sum()
        return pl.when(d != 0).then((w * num).sum() / d)

    aggs = [pl.len().alias("items"), w.sum().alias("weight"),
            mean(x / ee).alias("precision"), mean(x / bb).alias("recall"),
            mean(2 * x / (bb + ee)).alias("f1"),
            mean(1 - (bb + ee - 2 * x) / total).alias("accuracy"),
            mean(x / (bb + ee - x)).alias("jaccard_index"),
            ratio(x - w, ee - w).alias("pair_precision"),
            ratio(x - w, bb - w).alias("pair_recall")]  # fmt: skip
    derived = [(1 - pl.col("jaccard_index")).alias("jaccard_distance"),
               (1 - pl.col("precision")).alias("over_merge_rate"),
               (1 - pl.col("recall")).alias("under_merge_rate"),
               _harmonic("precision", "recall").alias("f1_of_means"),
               _harmonic("pair_precision", "pair_recall").alias("pair_f1")]  # fmt: skip
    lazy = p.lazy()
    out = {"overall": lazy.select(aggs).with_columns(derived).collect().to_arrow()}
    for level, key in {"truth": "tc", "actual": "ac", "country": "country"}.items():
        t = lazy.group_by(key).agg(aggs).with_columns(derived).collect()
        out[level] = t.rename({key: "cluster_id"} if key != "country" else {}).to_arrow()
    count = pl.scan_parquet(files["truth"]).select(pl.len()).collect().item()
    count_a = pl.scan_parquet(files["actual"]).select(pl.len()).collect().item()
    out["coverage"] = pl.DataFrame({
        "truth_items": [count], "actual_items": [count_a], "common_items": [len(p)],
        "common_weight": [total], "truth_clusters_common": [p["tc"].n_unique()],
        "actual_clusters_common": [p["ac"].n_unique()],
    }).to_arrow()  # fmt: skip
    return out


def run_clusterscore(files: dict[str, str], threads: int) -> dict:
    import pyarrow as pa

    import clusterscore as cs

    cs.set_threads(threads)
    ev = cs.evaluate(files["truth"], files["actual"], files["items"])
    cov = ev.coverage
    names = ("truth_items", "actual_items", "common_items", "common_weight",
             "truth_clusters_common", "actual_clusters_common")  # fmt: skip
    return {
        "overall": pa.table({k: [v] for k, v in ev.overall.items()}),
        "truth": ev.per_cluster_table("truth"),
        "actual": ev.per_cluster_table("actual"),
        "country": ev.per_slice_table("country"),
        "coverage": pa.table({k: [cov[k]] for k in names}),
    }


RUNNERS = {"clusterscore": run_clusterscore, "duckdb": run_duckdb, "polars": run_polars}


def child(tool: str, workdir: str, threads: int, check_dir: str | None) -> None:
    """One timed run, its seconds as JSON on stdout; with `check_dir`, its tables written
    there (after the clock stops) for the parent to check."""
    if tool == "polars":
        os.environ["POLARS_MAX_THREADS"] = str(threads)
    files = {k: str(Path(workdir) / f"{k}.parquet") for k in ("truth", "actual", "items")}
    import importlib

    # The clock starts with each tool loaded (clusterscore loads its Python half, pandas
    # among it, on first use of the API: bench_first_call.py measures that).
    module = importlib.import_module(tool)
    if tool == "clusterscore":
        module.evaluate  # noqa: B018 - loading it is the point
    t0 = time.perf_counter()
    out = RUNNERS[tool](files, threads)
    seconds = time.perf_counter() - t0
    if check_dir is not None:
        import pyarrow.parquet as pq

        for name, table in out.items():
            pq.write_table(table, Path(check_dir) / f"{name}.parquet")
    print(json.dumps({"seconds": seconds}))


def _sorted(table, key: str | None):
    frame = table.to_pandas()
    return frame.sort_values(key).reset_index(drop=True) if key else frame


def check(dirs: dict[str, Path]) -> None:
    """Every peer's tables equal clusterscore's: the same rows, each value to 1e-9."""
    import numpy as np
    import pyarrow.parquet as pq

    want_dir = dirs["clusterscore"]
    for tool, d in dirs.items():
        if tool == "clusterscore":
            continue
        for name in (*LEVELS, "coverage"):
            key = {"truth": "cluster_id", "actual": "cluster_id", "country": "country"}.get(name)
            want = _sorted(pq.read_table(want_dir / f"{name}.parquet"), key)
            got = _sorted(pq.read_table(d / f"{name}.parquet"), key)
            assert len(want) == len(got), (tool, name, len(want), len(got))
            for col in want.columns:
                a = want[col].to_numpy(dtype=float, na_value=np.nan) if col != key else None
                if a is None:
                    assert (want[col].to_numpy() == got[col].to_numpy()).all(), (tool, name)
                    continue
                b = got[col].to_numpy(dtype=float, na_value=np.nan)
                same = np.isclose(a, b, rtol=1e-9, atol=1e-12) | (np.isnan(a) & np.isnan(b))
                assert same.all(), (tool, name, col, a[~same][:3], b[~same][:3])


def parent(args: argparse.Namespace) -> None:
    import pyarrow.parquet as pq

    import synth

    threads = [int(t) for t in args.threads.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as workdir:
        truth, actual, items = synth.make(args.n, moved=0.10)
        for name, table in {"truth": truth, "actual": actual, "items": items}.items():
            pq.write_table(table, Path(workdir) / f"{name}.parquet")
        del truth, actual, items
        load_before = os.getloadavg()
        times: dict[tuple[str, int], list[float]] = {}
        for r in range(args.rounds):
            for t in threads:
                dirs = {}
                for tool in TOOLS:
                    check_dir = None
                    if r == 0 and t == threads[0]:
                        dirs[tool] = Path(workdir) / f"check-{tool}"
                        dirs[tool].mkdir()
                        check_dir = str(dirs[tool])
                    cmd = [sys.executable, __file__, "--child", tool, "--workdir", workdir,
                           "--threads", str(t)]  # fmt: skip
                    cmd += ["--check-dir", check_dir] if check_dir else []
                    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                    if done.returncode != 0:
                        raise SystemExit(f"{tool} failed: {done.stderr[-2000:]}")
                    times.setdefault((tool, t), []).append(json.loads(done.stdout)["seconds"])
                if dirs:
                    check(dirs)
        load_after = os.getloadavg()
    print(f"\nn = {args.n:,} items; median of {args.rounds} rounds in turns, fresh processes;"
          f" every peer's tables checked equal to clusterscore's (1e-9)")  # fmt: skip
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}\n")
    print("| threads | clusterscore (s) | DuckDB (s) | polars (s) | vs DuckDB | vs polars |")
    print("|---|---|---|---|---|---|")
    for t in threads:
        m = {tool: statistics.median(times[(tool, t)]) for tool in TOOLS}
        cs = m["clusterscore"]
        print(f"| {t} | {cs:.2f} | {m['duckdb']:.2f} | {m['polars']:.2f} |"
              f" {m['duckdb'] / cs:.1f}× | {m['polars'] / cs:.1f}× |")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--child", choices=TOOLS)
    ap.add_argument("--workdir")
    ap.add_argument("--check-dir")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.workdir, int(args.threads), args.check_dir)
    else:
        parent(args)


if __name__ == "__main__":
    main()
