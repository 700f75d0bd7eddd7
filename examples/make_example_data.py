"""Writes the bundled example: a small entity-resolution evaluation.

Business records (items) from two sources in four countries; a human-made truth for a
sample of 2,000 of them; an actual clustering of all 5,000 with a realistic mix of
errors: some true entities split in two, some merged with a neighbour, a few records
misplaced, and a few truth records missing from the actual run; and a second run of the
same records (actual_v2.csv), better in some ways and worse in others; and a matching
model's scored candidate pairs (pairs.csv, as Splink writes its predictions), to choose a
match threshold with `clusterscore curve`. Deterministic (seeds 7, 8 and 9).

    python examples/make_example_data.py examples/data
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd


def main(out: Path) -> None:
    rng = np.random.default_rng(7)
    n = 5000
    sizes = []
    while sum(sizes) < n:
        sizes.append(int(min(rng.zipf(2.2), 60)))
    entity = np.repeat(np.arange(len(sizes)), sizes)[:n]
    rng.shuffle(entity)
    n_entities = entity.max() + 1
    actual = entity.copy()
    next_id = n_entities
    for e in rng.choice(n_entities, size=n_entities // 12, replace=False):  # splits
        members = np.flatnonzero(actual == e)
        if len(members) >= 2:
            actual[members[rng.random(len(members)) < 0.4]] = next_id
            next_id += 1
    for e in rng.choice(n_entities, size=n_entities // 5, replace=False):  # merges
        actual[actual == e] = rng.integers(n_entities)
    moved = rng.random(n) < 0.02  # misplaced records
    actual[moved] = rng.integers(next_id, size=moved.sum())

    items = pd.DataFrame(
        {
            "item_id": [f"rec-{i:05d}" for i in range(n)],
            "weight": np.round(rng.lognormal(0.0, 0.8, n), 3),
            "country": rng.choice(["US", "DE", "FR", "JP"], n, p=[0.4, 0.25, 0.2, 0.15]),
            "source": rng.choice(["crawl", "feed"], n, p=[0.7, 0.3]),
        }
    )
    truth_entities = rng.choice(n_entities, size=n_entities // 3, replace=False)
    in_truth = np.isin(entity, truth_entities)
    truth = pd.DataFrame(
        {"item_id": items.item_id[in_truth], "cluster_id": [f"ent-{e}" for e in entity[in_truth]]}
    )
    truth = truth.iloc[:2000]
    keep = rng.random(n) > 0.01  # a few records the actual run never saw
    run = pd.DataFrame({"item_id": items.item_id[keep], "cluster_id": actual[keep]})
    out.mkdir(parents=True, exist_ok=True)
    truth.to_csv(out / "truth.csv", index=False)
    run.to_csv(out / "actual.csv", index=False)
    items.to_csv(out / "items.csv", index=False)
    second_run(actual, entity, moved, keep, items, next_id).to_csv(
        out / "actual_v2.csv", index=False
    )
    scored_pairs(entity, items).to_csv(out / "pairs.csv", index=False)


def second_run(actual, entity, moved, keep, items, next_id) -> pd.DataFrame:
    """A second run of the same records, to compare with the first: it puts every
    misplaced record back with its entity and mends some splits, but merges more
    clusters by mistake."""
    rng = np.random.default_rng(8)  # its own stream: the first run's files stay the same
    v2 = actual.copy()
    v2[moved] = entity[moved]
    split_off = (v2 >= entity.max() + 1) & ~moved
    mended = split_off & (rng.random(len(v2)) < 0.5)
    v2[mended] = entity[mended]
    clusters = np.unique(v2)
    for c in rng.choice(clusters, size=len(clusters) // 10, replace=False):
        v2[v2 == c] = rng.choice(clusters)
    return pd.DataFrame({"item_id": items.item_id[keep], "cluster_id": v2[keep]})


def scored_pairs(entity, items) -> pd.DataFrame:
    """Candidate pairs as a matching model scores them: each entity's records linked in a
    chain plus a few more pairs, mostly scored high; pairs of records of one country
    (blocking), mostly scored low, some of them high (the model's mistakes)."""
    rng = np.random.default_rng(9)  # its own stream: the other files stay the same
    ids = items.item_id.to_numpy()
    order = np.argsort(entity, kind="stable")
    chained = entity[order][1:] == entity[order][:-1]
    skip = entity[order][2:] == entity[order][:-2]  # pairs two apart in the chain
    extra = skip & (rng.random(len(skip)) < 0.5)
    left = np.concatenate([order[:-1][chained], order[:-2][extra]])
    right = np.concatenate([order[1:][chained], order[2:][extra]])
    true_score = rng.beta(5, 2, len(left))
    country = items.country.to_numpy()
    a = rng.integers(0, len(ids), 8000)
    b = rng.integers(0, len(ids), 8000)
    keep = (country[a] == country[b]) & (entity[a] != entity[b])
    false_score = rng.beta(2, 5, keep.sum())
    pairs = pd.DataFrame(
        {
            "unique_id_l": ids[np.concatenate([left, a[keep]])],
            "unique_id_r": ids[np.concatenate([right, b[keep]])],
            "match_probability": np.round(np.concatenate([true_score, false_score]), 4),
        }
    )
    return pairs[pairs.unique_id_l != pairs.unique_id_r].sample(frac=1.0, random_state=9)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "examples/data"))
