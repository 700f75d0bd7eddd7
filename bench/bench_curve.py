"""Benchmark: the curve over every match threshold against one evaluate of the final
clustering, in the same run.

    python bench/bench_curve.py [--n 10000000] [--repeat 3] [--threads 0]

Input: n items in power-law entities (bench/synth.py) with random 63-bit ids; 3n scored
pairs: each entity's records chained (scores ~ Beta(5, 2)) and random pairs of records
(scores ~ Beta(2, 5), enough to join most items into one component at low thresholds),
every score distinct. The final clustering links them all. Cases, each in a fresh
process: `evaluate` (the final clustering's overall values), `curve` (every distinct
score, 1,000 rows kept), `grid` (100 thresholds). Targets: curve <= 5x evaluate, grid <= 2x,
peak memory <= 2x.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import synth  # noqa: E402


def make_inputs(n: int, seed: int = 0):
    """(truth, scored pairs, the final clustering) as Arrow tables."""
    import numpy as np
    import pyarrow as pa
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(seed)
    ids = np.unique(rng.integers(0, 2**63 - 1, size=n, dtype=np.int64))
    rng.shuffle(ids)
    n = len(ids)
    labels = synth.power_law_labels(rng, n)
    order = np.argsort(labels, kind="stable")
    chained = labels[order][1:] == labels[order][:-1]
    left, right = order[:-1][chained], order[1:][chained]
    noise = 3 * n - len(left)
    a, b = rng.integers(0, n, noise), rng.integers(0, n, noise)
    a, b = a[a != b], b[a != b]
    score = np.concatenate([rng.beta(5, 2, len(left)), rng.beta(2, 5, len(a))])
    left, right = np.concatenate([left, a]), np.concatenate([right, b])
    truth = pa.table({"item_id": ids, "cluster_id": labels})
    pairs = pa.table({"unique_id_l": ids[left], "unique_id_r": ids[right],
                      "match_probability": score})  # fmt: skip
    graph = coo_matrix((np.ones(len(left), np.int8), (left, right)), shape=(n, n))
    final = pa.table({"item_id": ids, "cluster_id": connected_components(graph, directed=False)[1]})
    return truth, pairs, final


def run(kind: str, truth, pairs, final) -> None:
    import warnings

    import clusterscore as cs

    warnings.simplefilter("ignore", cs.CommonScopeWarning)
    if kind == "evaluate":
        cs.evaluate(truth, final).overall  # noqa: B018 - computing it is the point
    else:
        cs.threshold_curve(truth, pairs, thresholds=100 if kind == "grid" else None).curve  # noqa: B018


def child(kind: str, n: int, repeat: int, workdir: str) -> dict:
    truth, pairs, final = make_inputs(n)
    return harness.measure(kind, n, repeat, lambda: run(kind, truth, pairs, final))


def main() -> None:
    args = harness.parse_args()
    rows = harness.child_or_parent(__file__, args, ["evaluate", "curve", "grid"], child)
    if not rows:
        return
    by = {r["kind"]: r for r in rows}
    print(f"\nn = {args.n:,} items, {3 * args.n:,} scored pairs, best of {args.repeat},"
          f" threads {args.threads or 'all'}\n")  # fmt: skip
    print("| case | best (s) | first (s) | peak memory beyond input | time / evaluate |")
    print("|---|---|---|---|---|")
    for r in rows:
        ratio = r["best_s"] / by["evaluate"]["best_s"]
        print(f"| {r['kind']} | {r['best_s']:.2f} | {r['first_s']:.2f} |"
              f" {r['peak_bytes_per_item']:.0f} B/item | {ratio:.2f}x |")  # fmt: skip
    mem = by["curve"]["peak_bytes_per_item"] / by["evaluate"]["peak_bytes_per_item"]
    base = by["evaluate"]["best_s"]
    curve, grid = by["curve"]["best_s"] / base, by["grid"]["best_s"] / base
    print(f"\ncurve / evaluate: {curve:.2f}x (target <= 5x); grid: {grid:.2f}x (<= 2x);"
          f" memory: {mem:.2f}x (<= 2x)")  # fmt: skip


if __name__ == "__main__":
    main()
