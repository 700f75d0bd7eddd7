"""The Spark engine's pairs for judging: the core draws each pair down to its cells and
the position in a cell's weight; Spark takes each cell's items in id order and the core picks
the item there."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._spark_io import (
    _COUNT,
    _ITEM,
    _WEIGHT,
    _WEIGHT_SQ,
    _functions,
    _to_arrow,
    _unused_id,
    engine_jobs,
)
from ._spark_levels import changed_units
from ._spark_units import _Units

if TYPE_CHECKING:
    from ._diff import Diff
    from .spark import SparkDiff

_KIND, _DRAW, _AT = "__cs_kind", "__cs_draw", "__cs_at"


def sample_from_diff(
    d: SparkDiff, pairs: int, seed: int, stable_pairs: int | None = None, *,
    distance_only: bool = False, replicates: int = 50,
) -> Any:  # fmt: skip
    """sample_pairs on a diff already made by clusterscore.spark.diff (to draw many samples
    from one diff)."""
    from . import _sample

    n, stable, mode = _sample.sample_request(pairs, seed, stable_pairs, distance_only)
    replicates = _sample._count(replicates, "replicates")
    sampler, clusters = d.sampler
    try:
        raw = sampler.core.sample_unit_pairs(n, stable, _sample.mode_of(mode), int(seed))
    except ValueError as e:
        raise ValueError(f"base vs exp: {e}") from None
    item_i, item_j = _pick_items(d._spark, clusters, raw)
    # A unit's two draws may be one item: a self pair, as the in-process sampler says.
    kinds, code = raw.kind.copy(), _sample.KINDS.index
    kinds[(kinds == code("stable")) & pc.equal(item_i, item_j).to_numpy(zero_copy_only=False)] = (
        code("self")
    )
    drawn = pa.table(
        {
            "item_i": item_i, "item_j": item_j, "kind": _sample.kind_column(kinds),
            "stratum": raw.stratum.astype(np.int8), "U_i": raw.U_i, "B_i": raw.B_i,
            "E_i": raw.E_i, _DRAW: np.arange(len(item_i), dtype=np.int64),
        }
    )  # fmt: skip
    table = _with_attributes(d._spark, _distinct_pairs(drawn))
    meta = _sample.sample_meta(d, mode, n, stable, seed, replicates)
    return _sample.PairSample(table, meta)


def affected_cells(d: SparkDiff) -> tuple[Diff, dict[str, pa.ChunkedArray]]:
    """The in-process diff a sample of `d` is drawn from, and per side its units' clusters.
    Its units are the cells of common items that the diff affects (a Base cluster split or
    an Exp cluster merged), in the order of their clusters' ids, then the other common
    items as one unit in a cluster of its own on each side. Every pair lies in affected
    cells: a split or merge pair's j in the row or column of i's cell, whose cells the diff
    affects too; a stable pair's in i's cell. The other items keep T's weight, which every
    pair's weight divides by. So the draws are those of every cell (the same positions
    among the affected ones), and the driver holds what the diff changed, not the
    clusterings."""
    from . import _diff
    from ._two_clusterings import Units

    F = _functions()
    u = d._spark
    assert d._levels is not None
    base, exp = d._levels.keys
    sizes = [F.sum(c).alias(c) for c in (_COUNT, _WEIGHT, _WEIGHT_SQ)]
    changed = changed_units()
    with engine_jobs(u.session):
        sums = d._levels.sums
        cells = _to_arrow(sums.where(changed).groupBy(base, exp).agg(*sizes))
        rest = _to_arrow(sums.where(~changed).agg(*sizes))
    cells = cells.sort_by([(base, "ascending"), (exp, "ascending")])
    if (rest.column(_COUNT)[0].as_py() or 0) > 0:
        one = {base: [_unused_id(cells.column(base))], exp: [_unused_id(cells.column(exp))]}
        for c in (_COUNT, _WEIGHT, _WEIGHT_SQ):
            one[c] = rest.column(c).to_pylist()
        cells = pa.concat_tables([cells, pa.table(one, schema=cells.schema)])
    unit = pa.array(np.arange(cells.num_rows, dtype=np.int64))
    sized = {c: cells.column(c) for c in (_COUNT, _WEIGHT_SQ)}
    table = pa.table({u.item_col: unit, "weight": cells.column(_WEIGHT), **sized})
    clusters = {"base": cells.column(base), "exp": cells.column(exp)}
    base_side, exp_side = (pa.table({u.item_col: unit, u.cluster_col: clusters[r]})
                           for r in ("base", "exp"))  # fmt: skip
    diff = _diff.Diff(base_side, exp_side, Units(table, _COUNT, _WEIGHT_SQ), item_col=u.item_col,
                      cluster_col=u.cluster_col)  # fmt: skip
    return diff, clusters


def _distinct_pairs(drawn: pa.Table) -> pa.Table:
    """One row per distinct (item_i, item_j), in order of first draw, with its draws: as
    the in-process sampler records them."""
    counts = drawn.group_by(["item_i", "item_j"], use_threads=False).aggregate(
        [(_DRAW, "min"), (_DRAW, "count")]
    )
    first = counts.column(f"{_DRAW}_min").to_numpy()
    order = np.argsort(first, kind="stable")
    rows = drawn.take(first[order])
    return pa.table(
        {
            "item_i": rows.column("item_i"), "item_j": rows.column("item_j"),
            "kind": rows.column("kind"),
            "draws": counts.column(f"{_DRAW}_count").take(order).cast(pa.int64()),
            "stratum": rows.column("stratum"), "U_i": rows.column("U_i"),
            "B_i": rows.column("B_i"), "E_i": rows.column("E_i"),
        }
    )  # fmt: skip


def _pick_items(
    u: _Units, clusters: dict[str, pa.ChunkedArray], raw: Any
) -> tuple[pa.Array, pa.Array]:
    """The items the draws land on: each drawn unit's items (its cell's, `clusters` giving
    each unit's on each side) in the order of their ids, the core picking the one at the
    draw's position (in the Spark worker holding the cell)."""
    F = _functions()
    ca, cb = u.cluster_cols
    draws = len(raw.unit_i)
    units = np.concatenate([raw.unit_i, raw.unit_j]).astype(np.int64)
    wanted = pa.table(
        {
            ca: clusters["base"].take(units), cb: clusters["exp"].take(units),
            _KIND: pa.array(np.ones(len(units), np.int8)),
            _WEIGHT: pa.nulls(len(units), pa.float64()),
            _AT: np.concatenate([raw.at_i, raw.at_j]),
            _DRAW: np.arange(len(units), dtype=np.int64),
        }
    )  # fmt: skip
    item_type = u.items.schema[_ITEM].dataType.simpleString()
    asked = u.session.createDataFrame(wanted).withColumn(_ITEM, F.lit(None).cast(item_type))
    members = _cells_items(u, asked.select(ca, cb).distinct()).select(
        ca, cb, F.lit(0).cast("byte").alias(_KIND), _ITEM, _WEIGHT,
        F.lit(None).cast("double").alias(_AT), F.lit(None).cast("long").alias(_DRAW),
    )  # fmt: skip
    asked = asked.select(*members.columns)
    both = members.unionByName(asked).repartition(ca, cb)
    # Within each unit: its items by id first, then its draws.
    ordered = both.sortWithinPartitions(ca, cb, _KIND, _ITEM, _DRAW)
    picked = _to_arrow(
        ordered.mapInArrow(
            functools.partial(_pick_in_partition, keys=(ca, cb)),
            f"{_DRAW} long, {_ITEM} {item_type}",
        )
    )
    at = np.empty(len(units), dtype=np.int64)
    at[picked.column(_DRAW).to_numpy()] = np.arange(picked.num_rows)
    chosen = picked.column(_ITEM).take(pa.array(at))
    return chosen.slice(0, draws).combine_chunks(), chosen.slice(draws).combine_chunks()


def _cells_items(u: _Units, cells: Any) -> Any:
    """The items of `cells` (a small Spark DataFrame of Base and Exp cluster pairs): id,
    both clusters and weight, read from the inputs where they lie. Each input is first cut
    to the clusters named (a broadcast), so that only the drawn cells' items are shuffled,
    not every input gathered by item again."""
    F = _functions()
    sides = []
    for role, c in zip(u.roles, u.cluster_cols, strict=True):
        rows = u.frames[role].select(F.col(u.item_col).alias(_ITEM), F.col(u.cluster_col).alias(c))
        sides.append(rows.join(F.broadcast(cells.select(c).distinct()), c, "left_semi"))
    members = sides[0].join(sides[1], _ITEM).join(F.broadcast(cells), list(u.cluster_cols),
                                                  "left_semi")  # fmt: skip
    if u.items_frame is None or not u.weighted:
        return members.withColumn(_WEIGHT, F.lit(1.0))
    weights = u.items_frame.select(F.col(u.item_col).alias(_ITEM),
                                   F.col(u.weight_col).cast("double").alias(_WEIGHT))  # fmt: skip
    found = weights.join(F.broadcast(members.select(_ITEM)), _ITEM, "left_semi")
    # An item without an items-table row weighs 1, as everywhere.
    weight = F.coalesce(F.col(_WEIGHT), F.lit(1.0)).alias(_WEIGHT)
    return members.join(found, _ITEM, "left").select(_ITEM, *u.cluster_cols, weight)


def _pick_in_partition(batches: Any, keys: tuple[str, str]) -> Any:
    """In a Spark worker: a partition's units, each as its items (by id) then its draws;
    yields each draw's item, picked by the core."""
    from . import _core

    t = pa.Table.from_batches(list(batches))
    if t.num_rows == 0:
        return
    t = t.combine_chunks()
    n = t.num_rows
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in keys:
        col = t.column(k)
        new[1:] |= pc.not_equal(col.slice(1), col.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    group = (np.cumsum(new) - 1).astype(np.uint32)
    is_draw = t.column(_KIND).to_numpy() == 1
    member_rows = np.flatnonzero(~is_draw)
    weights = t.column(_WEIGHT).to_numpy(zero_copy_only=False)[member_rows].astype(np.float64)
    at = t.column(_AT).to_numpy(zero_copy_only=False)[is_draw].astype(np.float64)
    pick: Any = _core.pick_by_weight(group[member_rows], weights, group[is_draw], at)
    items = t.column(_ITEM).take(pa.array(member_rows[pick]))
    drawn = t.column(_DRAW).filter(pa.array(is_draw))
    yield from pa.table({_DRAW: drawn, _ITEM: items}).to_batches()


def _with_attributes(u: _Units, pairs: pa.Table) -> pa.Table:
    """The items table's other columns for both items of each pair (`<column>_i`,
    `<column>_j`), as the in-process sample has them."""
    items, item_col = u.items_frame, u.item_col
    if items is None:
        return pairs
    attrs = [c for c in items.columns if c != item_col]
    ids = pc.unique(pa.concat_arrays([pairs.column("item_i").combine_chunks(),
                                      pairs.column("item_j").combine_chunks()]))  # fmt: skip
    wanted = u.session.createDataFrame(pa.table({item_col: ids}))
    found = _to_arrow(items.join(wanted, item_col, "inner"))
    cols = {c: pairs.column(c) for c in pairs.column_names}
    for side in ("i", "j"):
        at = pc.index_in(pairs.column(f"item_{side}"), found.column(item_col))
        for c in attrs:
            cols[f"{c}_{side}"] = found.column(c).take(at)
    return pa.table(cols)
