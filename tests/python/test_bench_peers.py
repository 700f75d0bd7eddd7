"""The peers' benchmark (bench/bench_peers.py) at a small size: DuckDB's SQL and polars'
query of every level agree with clusterscore's tables (its own check, to 1e-9), so the
benchmark compares the same numbers and serves as an independent oracle of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_peers.py"


def test_the_peers_compute_the_same_tables():
    r = subprocess.run([sys.executable, str(BENCH), "--n", "30000", "--rounds", "1"],
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    assert "checked equal to clusterscore's" in r.stdout
    assert r.stdout.count("×") == 4, r.stdout  # two ratios on each thread count's row
