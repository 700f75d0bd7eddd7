"""Benchmark: `evaluate` with every level, against scikit-learn's
contingency_matrix(sparse=True) on the same labels, in the same run.

    python bench/bench_evaluate.py [--n 10000000] [--repeat 3]

Input (bench/synth.py): power-law clusters, 10% of items moved by splits and merges,
random int64 ids, random weights, one slice column; the "strings" run has the same
clusterings with string item and cluster ids, and the "small-truth" run scores the whole
actual clustering against whole truth clusters covering ~2% of the items, as job 1 does
(its peak memory is per item of the actual clustering). One thread unless --threads N
(scikit-learn has one).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import synth  # noqa: E402


def all_levels(result) -> None:
    result.overall  # noqa: B018 - computing it is the point
    result.coverage  # noqa: B018
    result.per_cluster_table("truth")
    result.per_cluster_table("actual")
    result.per_slice_table("country")


def aligned_labels(truth, actual):
    """Actual's labels in truth's item order: scikit-learn cannot join, so it gets this free."""
    import numpy as np

    a_ids = actual.column("item_id").to_numpy()
    t_ids = truth.column("item_id").to_numpy()
    pos = np.argsort(a_ids)
    pred = actual.column("cluster_id").to_numpy()[pos[np.searchsorted(a_ids[pos], t_ids)]]
    return truth.column("cluster_id").to_numpy(), pred


def child(kind: str, n: int, repeat: int, workdir: str) -> dict:
    import clusterscore as cs

    truth, actual, items = synth.make(n, moved=0.10)
    if kind == "small-truth":
        truth = synth.small_truth(truth)
    if kind == "strings":
        truth, actual, items = synth.with_string_ids(truth, actual, items)
    if kind == "sklearn":
        from sklearn.metrics.cluster import contingency_matrix

        labels_true, labels_pred = aligned_labels(truth, actual)
        return harness.measure(
            kind, n, repeat, lambda: contingency_matrix(labels_true, labels_pred, sparse=True)
        )
    tables = {"truth": truth, "actual": actual, "items": items}
    del truth, actual, items
    return harness.measure_tables_or_files(
        kind, n, repeat, workdir, tables, lambda *x: all_levels(cs.evaluate(*x))
    )


def main() -> None:
    args = harness.parse_args()
    rows = harness.child_or_parent(
        __file__, args, ["memory", "parquet", "strings", "small-truth", "sklearn"], child
    )
    if not rows:
        return
    sk = next(r for r in rows if r["kind"] == "sklearn")["best_s"]
    names = {
        "memory": "clusterscore evaluate, all levels, Arrow tables in memory",
        "parquet": "clusterscore evaluate, all levels, from Parquet files",
        "strings": "clusterscore evaluate, all levels, string ids, in memory",
        "small-truth": "clusterscore evaluate, all levels, truth of ~2% of the items, in memory",
        "sklearn": "sklearn contingency_matrix(sparse=True), labels pre-aligned",
    }
    threads = args.threads or "every core"
    print(f"\nn = {args.n:,} items, best of {args.repeat}, threads: {threads}\n")
    print("| run | best (s) | first (s) | speed vs sklearn | peak memory beyond input |")
    print("|---|---|---|---|---|")
    for r in rows:
        # A small truth is a smaller problem than scikit-learn's: no ratio.
        same = r["kind"] in ("memory", "parquet", "strings")
        ratio = f"{sk / r['best_s']:.2f}×" if same else "—"
        print(f"| {names[r['kind']]} | {r['best_s']:.2f} | {r['first_s']:.2f} | {ratio} |"
              f" {r['peak_bytes_per_item']:.0f} B/item |")  # fmt: skip


if __name__ == "__main__":
    main()
