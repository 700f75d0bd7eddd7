"""Benchmark: the `clusterscore` command as a user runs it, end to end, on Parquet files:
reading, scoring, the printed report, and with --out the summary and every Parquet
table (per item included).

    python bench/bench_cli.py [--n 10000000] [--repeat 3]

Input (bench/synth.py): power-law clusters, 10% of items moved by splits and merges,
random int64 ids, random weights, one slice column. Each run is a fresh process: its wall
time includes starting Python and faulting in all the memory it uses.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402


def write_inputs(n: int, work: Path) -> list[Path]:
    import pyarrow.parquet as pq

    paths = []
    for name, table in zip(("truth", "actual", "items"), synth.make(n, moved=0.10), strict=True):
        paths.append(work / f"{name}.parquet")
        pq.write_table(table, paths[-1])
    return paths


def run_once(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident bytes of one run of `cmd` in its own process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss * 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        truth, actual, items = write_inputs(args.n, work)
        cli = [sys.executable, "-m", "clusterscore"]
        cases = {
            "evaluate, printed report only": [*cli, "evaluate", truth, actual, "--items", items,
                                              "--slice", "country"],
            "evaluate --out (summary + 4 Parquet tables)": [
                *cli, "evaluate", truth, actual, "--items", items, "--slice", "country",
                "--out", work / "eval_out"],
            "diff --out (summary + 5 Parquet tables)": [
                *cli, "diff", truth, actual, "--items", items, "--slice", "country",
                "--out", work / "diff_out"],
        }  # fmt: skip
        print(f"\nn = {args.n:,} items, {args.repeat} runs each, one process per run\n")
        print("| command | best (s) | all runs (s) | peak RSS | written |")
        print("|---|---|---|---|---|")
        for name, cmd in cases.items():
            runs = [run_once([str(c) for c in cmd]) for _ in range(args.repeat)]
            walls = [w for w, _ in runs]
            peak = max(p for _, p in runs)
            out = next((Path(c) for c in cmd if str(c).endswith("_out")), None)
            written = sum(f.stat().st_size for f in out.iterdir()) if out else 0
            print(f"| {name} | {min(walls):.2f} | {', '.join(f'{w:.2f}' for w in walls)} |"
                  f" {peak / 2**30:.2f} GiB | {written / 2**20:.0f} MiB |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
