"""compare's marks by slice hold their error rate: two runs of exactly equal quality in every
one of 40 slices, 200 truth samples of a quarter of the entities; a run with any ▼ among the
slices' precision, recall and f1 deltas is a false alarm. Unmarked by the adjustment nearly
every run has one; adjusted (Benjamini–Hochberg on Student's t p-values) at most 5%."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import clusterscore as cs


def _twins(rng: np.random.Generator, pairs: int = 3000, slices: int = 40):
    """Entities in twin pairs (same size, same slice). Run a errs on the first twins, run b
    the same way on the second ones: every slice's value is the same in both runs."""
    sizes = np.minimum(rng.zipf(2.0, pairs), 30)
    slice_of = rng.integers(0, slices, pairs)
    pair = np.repeat(np.arange(pairs), 2 * sizes)
    twin = np.concatenate([np.repeat([0, 1], s) for s in sizes])
    entity = 2 * pair + twin
    start = np.repeat(np.cumsum(2 * sizes) - 2 * sizes, 2 * sizes)
    last = (np.arange(len(entity)) - start) % sizes[pair] == sizes[pair] - 1
    split, merge = rng.random(pairs) < 0.3, rng.random(pairs) < 0.15
    partner = rng.permutation(pairs)
    n = len(entity)
    runs = []
    for side in (0, 1):
        mine = twin == side
        c = np.where(mine & split[pair] & last & (sizes[pair] > 1), 10**7 + np.arange(n), entity)
        runs.append(np.where(mine & merge[pair], 2 * partner[pair] + side, c))
    ids = np.array([f"r{k}" for k in range(n)])
    items = pd.DataFrame({"item_id": ids, "slice": slice_of[pair].astype(str)})
    frames = [pd.DataFrame({"item_id": ids, "cluster_id": c}) for c in (entity, *runs)]
    return items, *frames


def test_slice_marks_hold_their_error_rate_when_no_slice_differs():
    items, truth, a, b = _twins(np.random.default_rng(1))
    whole = cs.compare(truth, {"a": a, "b": b}, items, resamples=2, truth_scope="entities")
    assert whole.deltas("slice")["delta"].abs().max() == 0.0  # no slice truly differs
    entities = truth["cluster_id"].unique()
    runs, raw, adjusted = 200, 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rep in range(runs):
            drawn = np.random.default_rng(100 + rep).choice(entities, len(entities) // 4,
                                                            replace=False)  # fmt: skip
            rc = cs.compare(truth[truth["cluster_id"].isin(drawn)], {"a": a, "b": b}, items,
                            resamples=300, seed=rep, truth_scope="entities")  # fmt: skip
            d = rc.deltas("slice")
            d = d[d["metric"].isin(["precision", "recall", "f1"])]
            worse = d["ci_high"] < 0  # every metric here: higher is better
            raw += bool(worse.any())
            adjusted += bool((worse & d["significant"]).any())
    assert raw / runs > 0.5, raw  # unadjusted, false ▼ in most runs
    assert adjusted / runs <= 0.05, adjusted
