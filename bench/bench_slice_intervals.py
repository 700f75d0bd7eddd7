"""Benchmark: intervals by a slice of many values, the time and the peak memory.

    python bench/bench_slice_intervals.py [--n 1000000] [--values 200000] [--resamples 10]

Input: n items in clusters of five on average, 5% moved to another cluster, a slice
column of `values` values spread uniformly over the items. Intervals by a slice keep
every resample of every value given one; a slice of more values than INTERVAL_DOUBLES
allows gets intervals for its heaviest values (and a warning). Target: time and memory in
proportion to the resamples and the values kept, not to the slice's values.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=float, default=1e6)
    p.add_argument("--values", type=float, default=2e5)
    p.add_argument("--resamples", type=int, default=10)
    a = p.parse_args()
    import numpy as np
    import pandas as pd

    import clusterscore as cs

    n, rng = int(a.n), np.random.default_rng(0)
    ids = np.arange(n)
    truth = rng.integers(0, n // 5, n)
    actual = np.where(rng.random(n) < 0.05, rng.integers(0, n // 5, n), truth)
    items = pd.DataFrame({"item_id": ids, "s": rng.integers(0, int(a.values), n)})
    ev = cs.evaluate(pd.DataFrame({"item_id": ids, "cluster_id": truth}),
                     pd.DataFrame({"item_id": ids, "cluster_id": actual}), items,
                     resamples=a.resamples)  # fmt: skip
    ev.overall  # noqa: B018 - the cells, before the clock starts
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        rows = ev.intervals_table("s").num_rows
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    kept = len({r for r in ev.intervals_table("s").column("s").to_pylist()})
    print(f"n={n:,} values={int(a.values):,} resamples={a.resamples}: {took:.2f} s,"
          f" peak {peak:.2f} GiB, {rows:,} rows for {kept:,} values"
          + (f" ({len(said)} warning)" if said else ""))  # fmt: skip


if __name__ == "__main__":
    main()
