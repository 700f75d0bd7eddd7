"""Items grouped into units the way another engine's group-by hands them over (one row per
(truth cluster, every run's cluster, slice values) with count, Σw and Σw²), done the dumbest
way, in pandas: the oracle the units path and the Spark engine are compared with."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from clusterscore._two_clusterings import Units


def random_items(seed: int, n: int = 400, *, weights: bool = True) -> dict[str, pd.DataFrame]:
    """Truth, two runs and an items table over overlapping item sets, with clusters of
    every size, lognormal weights, a slice with nulls and items only on one side."""
    rng = np.random.default_rng(seed)
    ids = np.arange(n)
    truth_ids = ids[rng.random(n) < 0.8]
    run_ids = [ids[rng.random(n) < 0.85] for _ in range(2)]
    truth = pd.DataFrame(
        {"item_id": truth_ids, "cluster_id": rng.integers(0, n // 6, len(truth_ids))}
    )
    runs = [
        pd.DataFrame(
            {"item_id": r, "cluster_id": [f"c{x}" for x in rng.integers(0, n // 5, len(r))]}
        )
        for r in run_ids
    ]
    items = pd.DataFrame({"item_id": ids[rng.random(n) < 0.9]})
    if weights:
        items["weight"] = rng.lognormal(0.0, 1.0, len(items))
    region = rng.choice(["north", "south", "east"], len(items)).astype(object)
    region[rng.random(len(items)) < 0.1] = None
    items["region"] = region
    items["source"] = rng.integers(0, 3, len(items))
    return {"truth": truth, "base": runs[0], "exp": runs[1], "items": items}


def units_of(
    a: pd.DataFrame, runs: list[pd.DataFrame], items: pd.DataFrame | None, slices: list[str]
) -> tuple[pd.DataFrame, list[pd.DataFrame], Units]:
    """(truth units, each run's units, the units table): every clustering's table names
    units by a dense id, as the Spark engine builds them."""
    j = a.rename(columns={"cluster_id": "a"})
    names = [f"b{k}" for k in range(len(runs))]
    for name, r in zip(names, runs, strict=True):
        j = j.merge(r.rename(columns={"cluster_id": name}), on="item_id", how="outer")
    if items is not None:
        j = j.merge(items, on="item_id", how="left")
    # Integer columns with holes stay integers (as Arrow keeps them), not floats.
    for c in j.columns:
        if c != "weight" and pd.api.types.is_float_dtype(j[c]):
            j[c] = j[c].astype("Int64")
    w = j["weight"].fillna(1.0) if "weight" in j else pd.Series(1.0, index=j.index)
    j = j.assign(_w=w, _w2=w * w, _n=1)
    keys = ["a", *names, *slices]
    g = j.groupby(keys, dropna=False, sort=True).agg(
        count=("_n", "sum"), weight=("_w", "sum"), weight_sq=("_w2", "sum")
    )
    g = g.reset_index()
    g.insert(0, "item_id", np.arange(len(g)))

    def side(col: str) -> pd.DataFrame:
        part = g[g[col].notna()]
        return pd.DataFrame({"item_id": part["item_id"], "cluster_id": part[col]})

    table = pa.Table.from_pandas(
        g[["item_id", "weight", "count", "weight_sq", *slices]], preserve_index=False
    )
    return side("a"), [side(n) for n in names], Units(table)
