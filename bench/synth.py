"""Seeded synthetic clusterings for benchmarks: power-law cluster sizes, random 63-bit
int64 item ids, random weights, one slice column, and a second clustering derived by
moving a fraction of items through random splits and merges, or single items to random
clusters."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def power_law_labels(rng: np.random.Generator, n: int, exponent: float = 2.0) -> np.ndarray:
    sizes = np.minimum(rng.zipf(exponent, size=n), 10_000)
    sizes = sizes[np.cumsum(sizes) <= n]
    sizes = np.append(sizes, n - sizes.sum()) if sizes.sum() < n else sizes
    labels = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return rng.permutation(labels)


def perturb(rng: np.random.Generator, labels: np.ndarray, moved: float) -> np.ndarray:
    """About `moved` of the items change cluster: half by splits (a random part of a
    cluster gets a new id), half by merges (a whole cluster joins another)."""
    out = labels.copy()
    n, k = len(labels), int(labels.max()) + 1
    target = int(moved * n)
    # splits: items picked at random move to one fresh cluster per source cluster
    split_items = rng.choice(n, size=target // 2, replace=False)
    out[split_items] = k + labels[split_items]
    # merges: whole clusters (by label) join a random other cluster until enough moved
    sizes = np.bincount(labels)
    order = rng.permutation(k)
    cum = np.cumsum(sizes[order])
    chosen = order[: int(np.searchsorted(cum, target // 2)) + 1]
    remap = np.arange(2 * k, dtype=np.int64)
    remap[chosen] = rng.integers(0, k, size=len(chosen))
    return remap[out]


def random_moves(rng: np.random.Generator, labels: np.ndarray, moved: float) -> np.ndarray:
    """About `moved` of the items, picked at random, each go to a cluster picked at random:
    the most common entity-resolution error (a record linked to the wrong entity). It
    joins the cell graph into one giant component, unlike whole-cluster splits and merges."""
    out = labels.copy()
    idx = rng.choice(len(labels), size=int(moved * len(labels)), replace=False)
    out[idx] = rng.integers(0, int(labels.max()) + 1, size=len(idx))
    return out


def make(n: int, moved: float = 0.10, seed: int = 0):
    """Returns (truth table, actual table, items table) as Arrow tables."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)  # collisions negligible
    ids = np.unique(ids)
    rng.shuffle(ids)
    n = len(ids)
    truth = power_law_labels(rng, n)
    actual = perturb(rng, truth, moved)
    order = rng.permutation(n)  # the two files list items in different orders
    t = pa.table({"item_id": ids, "cluster_id": truth})
    a = pa.table({"item_id": ids[order], "cluster_id": actual[order]})
    items = pa.table(
        {
            "item_id": ids[rng.permutation(n)],
            "weight": rng.uniform(0.5, 2.0, n),
            "country": rng.choice(np.array(["US", "DE", "FR", "JP", "BR"]), n),
        }
    )
    return t, a, items


def small_truth(truth: pa.Table, clusters: int = 30_000, seed: int = 1) -> pa.Table:
    """A truth as people make one: whole clusters picked at random (30,000 of ~1.5e6 at
    1e7 items, ~2% of the items), to score against a whole clustering."""
    rng = np.random.default_rng(seed)
    labels = truth.column("cluster_id").to_numpy()
    picked = rng.choice(int(labels.max()) + 1, size=clusters, replace=False)
    return truth.filter(pa.array(np.isin(labels, picked)))


def with_string_ids(truth: pa.Table, actual: pa.Table, items: pa.Table):
    """The same tables with string ids, as many real datasets have them: item ids
    "item-<n>" (~24 bytes) and cluster ids "cluster-<n>" (~14 bytes)."""
    import pyarrow.compute as pc

    def named(prefix: str, column: pa.ChunkedArray) -> pa.ChunkedArray:
        return pc.binary_join_element_wise(prefix, pc.cast(column, pa.string()), "")

    def convert(table: pa.Table, columns: dict) -> pa.Table:
        for name, prefix in columns.items():
            i = table.schema.get_field_index(name)
            table = table.set_column(i, name, named(prefix, table.column(name)))
        return table

    ids = {"item_id": "item-", "cluster_id": "cluster-"}
    return convert(truth, ids), convert(actual, ids), convert(items, {"item_id": "item-"})
