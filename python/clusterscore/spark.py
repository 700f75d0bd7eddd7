"""Clusterings held as Spark DataFrames (docs/spark.md): `evaluate`, `compare`, `diff`,
`sample_pairs` and `all_scores` with the in-process API's options and result objects.

Spark does what scales out: it gathers the inputs by item id and groups the items into
*units*, one row per (truth or Base cluster, each other clustering's cluster, slice values)
with the items' count, Σw and Σw². The levels of an evaluation and of a diff, a diff's flows
and the per-item values are made from the units where they are (_spark_levels): the core's
per-unit kernels inside Spark's workers, summed by Spark. For the rest (intervals, deltas,
the classic metrics, a sample) the units reach the driver, and the C++ core computes every
value from them, exactly as it does from the items they stand for. Per-item and
per-cluster tables and flows stay Spark DataFrames.

pyspark is imported only when one of these functions is called (`pip install
'clusterscore[spark]'`)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import _diff, _evaluate, _runs, _two_clusterings
from ._estimates import CommonScopeWarning, average_of, common_scope_caveat
from ._options import ScoreOptions
from ._spark_io import (
    _COUNT,
    _ITEM,
    _WEIGHT,
    _WEIGHT_SQ,
    _arrow_batches,
    _functions,
    _to_arrow,
    _written_batches,
    driver_reads_workers_files,
    engine_jobs,
    read,
    session,
)
from ._spark_levels import Levels
from ._spark_sample import affected_cells, sample_from_diff
from ._spark_units import _fingerprint, _Units

__all__ = [
    "SparkDiff",
    "SparkEvaluation",
    "all_scores",
    "compare",
    "diff",
    "evaluate",
    "read",
    "sample_from_diff",
    "sample_pairs",
    "session",
]


class _OnSpark(_two_clusterings.Comparison):
    """What an in-process result does differently when its units came from Spark: the
    items table's coverage and the inputs' fingerprints come from Spark, and the per-item
    table is a Spark DataFrame."""

    _spark: _Units
    _spark_roles: tuple[str, str]  # the roles of the two clusterings among _spark's
    _levels: Levels | None = None  # None: the in-process result on the collected units
    _materialized: bool  # whether the units came to the driver

    @functools.cached_property
    def input_fingerprints(self) -> dict[str, str]:
        """Per input, its fingerprint as clusterscore.evaluate or diff would give it."""
        u = self._spark
        out = {
            role: _fingerprint(u.frames[name], u.item_col, u.cluster_col, items=False)
            for role, name in zip(self.roles, self._spark_roles, strict=True)
        }
        if u.items_frame is not None:
            weight = u.weight_col if u.weighted else None
            out["items"] = _fingerprint(u.items_frame, u.item_col, weight, items=True)
        return out

    @property
    def coverage(self) -> dict[str, float | int]:
        """Item counts and weights of each side, the common items T, and what is missing:
        Spark's counts, or in-process ones with the items table's rows counted by Spark."""
        if self._levels is not None:
            return dict(self._levels.coverage)
        u = self._spark
        coverage = super().coverage
        if u.items_frame is None:  # the core's items table is the units: not the user's
            coverage.pop("items_table_rows", None)
            coverage.pop("items_table_unmatched", None)
        else:
            coverage["items_table_rows"] = u.items_table_rows
            coverage["items_table_unmatched"] = u.items_table_unmatched[self._spark_roles[1]]
        for role, name in zip(self.roles, self._spark_roles, strict=True):
            if name in u.cluster_counts:  # its clusters without truth items came as one
                coverage[f"{role}_clusters"] = u.cluster_counts[name]
        return coverage

    def _spark_levels(self, levels: Any) -> None:
        """Makes the levels with `levels(units, roles, names)`, in the engine's Spark jobs."""
        with engine_jobs(self._spark.session):
            self._levels = levels(self._spark, self._spark_roles, self.roles)
        self._roles_of = dict(zip(self.roles, self._spark_roles, strict=True))

    def _materialize(self) -> None:
        """Brings the units to the driver and sets up the in-process result of them."""
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        # Called for what only the in-process result holds (its core, its sources): made
        # the first time it is needed.
        if name.startswith("__") or self.__dict__.get("_materialized", True):
            raise AttributeError(name)
        self._materialized = True
        self._materialize()
        return getattr(self, name)

    def unpersist(self) -> None:
        """Frees what Spark keeps for this result's levels: the units and their per-unit
        sums (kept from the start on, for the levels asked for later)."""
        if self._levels is not None:
            self._levels.sums.unpersist()
        self._spark.frame.unpersist()

    def per_cluster(self, side: str) -> Any:
        """One row per cluster of `side` that meets the common items, as a Spark DataFrame
        (in no order): cluster_id, items, weight, then every value."""
        if side not in self.roles:
            raise ValueError(f"unknown side {side!r}; use one of: {', '.join(self.roles)}")
        if self._levels is None:
            return self._spark.session.createDataFrame(super().per_cluster_table(side))
        return self._levels.per_cluster(self._roles_of[side])

    def per_cluster_table(self, side: str) -> pa.Table:
        """per_cluster(side) collected to the driver, in the order of the cluster ids."""
        if self._levels is None:
            return super().per_cluster_table(side)
        return _to_arrow(self.per_cluster(side)).sort_by("cluster_id")

    def per_cluster_parts(self, side: str) -> Any:
        """per_cluster_table(side) as a writer takes it: Arrow batches in the order of the
        cluster ids, fetched a partition at a time (the driver never holds the table)."""
        if self._levels is None:
            return super().per_cluster_parts(side)
        return _arrow_batches(self.per_cluster(side), 1 << 20, self._most_rows, ["cluster_id"])

    @property
    def _most_rows(self) -> int:
        """At least the rows of any per-cluster table or flows table: the common items."""
        return int(self.coverage["common_items"])

    def picked_clusters(self, side: str, pick: Callable[[pd.DataFrame], pd.DataFrame]) -> Any:
        """The rows `pick` keeps of per_cluster_table(side), for display: picked in each
        Spark partition first, so that only those reach the driver (ties in the order of the
        cluster ids, as the collected table has them)."""
        if self._levels is None:
            return super().picked_clusters(side, pick)
        clusters = self.per_cluster(side)
        picked = clusters.mapInArrow(functools.partial(_picked, pick=pick), clusters.schema)
        return pick(_to_arrow(picked).sort_by("cluster_id").to_pandas())

    def summed_clusters(self, side: str, summed: Callable[[pd.DataFrame], pd.DataFrame]
                        ) -> pd.DataFrame:  # fmt: skip
        """`summed` of per_cluster_table(side), for display: each Spark partition's rows
        summed where they are, the parts' sums added on the driver (which never holds the
        table)."""
        if self._levels is None:
            return super().summed_clusters(side, summed)
        clusters = self.per_cluster(side)
        empty = summed(pd.DataFrame({c: pd.Series(dtype=t) for c, t in
                                     clusters.limit(0).toPandas().dtypes.items()}))  # fmt: skip
        schema = "size string, " + ", ".join(f"`{c}` double" for c in empty.columns if c != "size")
        parts = _to_arrow(clusters.mapInPandas(lambda frames: map(summed, frames), schema))
        total = parts.to_pandas().groupby("size", sort=False).sum()
        return total.reindex(empty["size"], fill_value=0.0).reset_index()

    def per_slice_table(self, column: str | Sequence[str]) -> pa.Table:
        """per_slice(column) as an Arrow table: heaviest first."""
        if self._levels is None:
            return super().per_slice_table(column)
        columns = [column] if isinstance(column, str) else list(column)
        if not columns:
            raise ValueError("per_slice needs at least one column")
        for c in columns:
            if c not in self._spark.slices:
                have = ", ".join(self._spark.slices) or "none"
                raise ValueError(f"items: no slice column {c!r} (slices: {have})")
        return self._levels.per_slice_table(columns)

    def per_item(self) -> Any:
        """One row per item in both clusterings, as a Spark DataFrame (in no order): the
        core's per-cell values joined to the items by Spark."""
        F = _functions()
        u = self._spark
        keys = [f"{role}_cluster" for role in self.roles]
        ca, cb = (u.cluster_cols[u.roles.index(r)] for r in self._spark_roles)
        items = u.items_in(self._spark_roles).select(
            F.col(_ITEM).alias(u.item_col),
            F.col(ca).alias(keys[0]),
            F.col(cb).alias(keys[1]),
            F.col(_WEIGHT).alias("weight"),
        )
        if self._levels is not None:  # the values made where the cells are
            cells = self._levels.cell_values(type(self)._item_columns)
            per_cell = cells.withColumnsRenamed({ca: keys[0], cb: keys[1]})
        else:  # one row per unit; the units of one cell (told apart by slices) share its values
            units = super().per_item_table().drop_columns([u.item_col, "weight"])
            local = units.to_pandas().drop_duplicates(subset=keys)
            per_cell = u.session.createDataFrame(pa.Table.from_pandas(local, preserve_index=False))
        joined = items.join(per_cell, keys, "inner")
        # The in-process per-item table's column order: id, both clusters, weight, values.
        values = [c for c in per_cell.columns if c not in keys]
        return joined.select(u.item_col, *keys, "weight", *values)

    def per_item_table(self) -> pa.Table:
        """per_item() collected to the driver as an Arrow table."""
        return _to_arrow(self.per_item())

    def per_item_batches(self, rows: int = 1 << 20) -> Any:
        """per_item() on the driver as Arrow batches of at most `rows` rows: on a local
        master written by Spark's writer to a temporary folder and read back a file at a
        time, else fetched a partition at a time. The driver never holds more than a file's
        row group (or a partition) and a batch."""
        if driver_reads_workers_files(self._spark.session):
            return _written_batches(self.per_item(), rows)
        return _arrow_batches(self.per_item(), rows, int(self.coverage["common_items"]))


def _picked(batches: Any, pick: Callable[[pd.DataFrame], pd.DataFrame]) -> Any:
    """A partition's rows of a per-cluster table that `pick` keeps (in a Spark worker)."""
    batches = list(batches)
    if batches:
        part = pa.Table.from_batches(batches).sort_by("cluster_id")
        yield from part.take(pick(part.to_pandas()).index.to_numpy()).to_batches()


class SparkEvaluation(_OnSpark, _evaluate.Evaluation):
    """An Evaluation whose inputs were Spark DataFrames: the same values and methods;
    `per_item()` and `per_cluster(side)` are Spark DataFrames.

    The levels (overall, per cluster, per slice) and the coverage are made by Spark and the
    core where the units are (docs/spark.md): the driver receives only what is shown. What
    needs the truth's clusters on the driver (intervals, the classic metrics, given design
    weights) brings the units there the first time it is asked for, and runs in-process.
    The units and their per-unit sums stay cached in Spark until `unpersist()`."""

    def __init__(self, units: _Units, roles: tuple[str, str], options: ScoreOptions) -> None:
        """Scores clustering `roles[1]` of `units` against `roles[0]`."""
        self._spark, self._spark_roles, self._options = units, roles, options
        self._materialized = False
        self.truth_scope, self.bootstrap = options.truth_scope, options.bootstrap
        self.average = average_of(options.average, options.truth_scope)
        design = options.cluster_weights
        if design is None or (isinstance(design, str) and design in ("uniform", "inverse_size")):
            self.cluster_weights = design or "uniform"
            # inverse_size in the common scope is refused by the in-process check, below.
            if self.truth_scope != "common" or self.cluster_weights != "inverse_size":
                entities = self.average == "entities"
                self._spark_levels(functools.partial(Levels, scope=self.truth_scope,
                                                     design=self.cluster_weights,
                                                     per_entity=entities))  # fmt: skip
                if (caveat := common_scope_caveat(self)) is not None:
                    warnings.warn(caveat, CommonScopeWarning, stacklevel=3)
                return
        self._materialized = True
        self._materialize()

    def _materialize(self) -> None:
        truth, run = self._spark_roles
        u = self._spark
        with warnings.catch_warnings():
            if self._levels is not None:  # the caveat was given when the levels were made
                warnings.simplefilter("ignore", CommonScopeWarning)
            _evaluate.Evaluation.__init__(self, u.sides[truth], u.sides[run], u.units(),
                                          **_on_units(u, self._options).keywords())  # fmt: skip

    @property
    def overall(self) -> dict[str, float | None]:
        """Every metric over all scored items (weighted means, and the pair metrics);
        None where a metric is undefined."""
        return super().overall if self._levels is None else dict(self._levels.overall)


# A diff's flows on the driver: largest weight first, ties in the order of the cluster ids.
_FLOWS_ORDER = [("weight", "descending"), ("base_cluster", "ascending"),
                ("exp_cluster", "ascending")]  # fmt: skip


def _flows_order() -> list[Any]:
    """_FLOWS_ORDER as Spark's sort expressions."""
    F = _functions()
    return [F.desc(c) if how == "descending" else F.asc(c) for c, how in _FLOWS_ORDER]


class SparkDiff(_OnSpark, _diff.Diff):
    """A Diff whose inputs were Spark DataFrames: the same values and methods;
    `per_item()`, `per_cluster(side)` and `flows()` are Spark DataFrames.

    The levels, the summary, the coverage, the flows and the per-item values are made by
    Spark and the core where the units are (docs/spark.md). A sample of pairs brings the
    cells the diff affects to the driver the first time it is asked for (`sampler`). The
    units and their per-unit sums stay cached in Spark until `unpersist()`."""

    def __init__(self, units: _Units) -> None:
        """The difference from `units`' base clustering to its exp one."""
        self._spark, self._spark_roles = units, ("base", "exp")
        self._materialized = False
        self._spark_levels(functools.partial(Levels, scope="common", design="uniform",
                                             per_entity=False, impact=True))  # fmt: skip

    def _materialize(self) -> None:
        u = self._spark
        _diff.Diff.__init__(self, u.sides["base"], u.sides["exp"], u.units(),
                            item_col=u.item_col, cluster_col=u.cluster_col)  # fmt: skip

    @property
    def columns(self) -> tuple[str, str, str]:
        """The names of the item id, cluster id and weight columns."""
        u = self._spark
        return u.item_col, u.cluster_col, u.weight_col

    @functools.cached_property
    def sampler(self) -> tuple[_diff.Diff, dict[str, pa.ChunkedArray]]:
        """What a sample of pairs is drawn from: an in-process diff of the cells that this
        one affects (the other common items as one unit), and per side its units' clusters
        (_spark_sample.affected_cells). Made the first time a sample asks for it."""
        return affected_cells(self)

    @functools.cached_property
    def sample_totals(self) -> dict[str, Any]:
        """The population totals a pair sample's estimates need, from the sampler's diff."""
        return self.sampler[0].sample_totals

    def draws_needed(self, mode: str) -> dict[str, Any]:
        """The judged draws each stratum of a sample drawn in `mode` ("plain",
        "stratified", "distance_only") needs, from the sampler's diff."""
        return self.sampler[0].draws_needed(mode)

    @property
    def overall(self) -> dict[str, float | None]:
        """The overall impact: distances, rates, Jaccard indices, affected items and
        weight, and the numbers of Base clusters split and Exp clusters merged."""
        levels = self._levels
        if levels is None:
            return super().overall
        return _diff.overall_of(levels.overall, levels.impact_summary)

    def flows(self) -> Any:
        """Where the weight of each changed cluster went, as a Spark DataFrame (in no
        order): one row per (Base cluster, Exp cluster) pair sharing items where either
        cluster changed."""
        assert self._levels is not None
        return self._levels.flows()

    def flows_table(self) -> pa.Table:
        """flows() collected to the driver: largest weight first, ties in the order of the
        Base, then the Exp cluster ids."""
        return _to_arrow(self.flows()).sort_by(_FLOWS_ORDER)

    def flows_parts(self) -> Any:
        """flows_table() as a writer takes it: Arrow batches in its order, fetched a
        partition at a time (the driver never holds the table)."""
        return _arrow_batches(self.flows(), 1 << 20, self._most_rows, _flows_order())

    def flows_of(self, base: pa.Array) -> pa.Table:
        """The flows of the Base clusters `base`, in flows_table()'s order: only those
        reach the driver."""
        F = _functions()
        wanted = F.col("base_cluster").isin(base.to_pylist())
        return _to_arrow(self.flows().where(wanted)).sort_by(_FLOWS_ORDER)

    def largest_flows(self, n: int) -> tuple[pa.Table, int]:
        """The `n` largest flows, in flows_table()'s order, and how many flows there are:
        only those `n` reach the driver."""
        flows = self.flows()
        return _to_arrow(flows.orderBy(*_flows_order()).limit(n)), flows.count()


def _collected(options: ScoreOptions) -> ScoreOptions:
    """`options` with design weights given as a Spark DataFrame collected (once, for every
    run): one row per truth cluster."""
    weights = options.cluster_weights
    if weights is not None and hasattr(weights, "sparkSession"):
        return options.but(cluster_weights=_to_arrow(weights))
    return options


def _on_units(u: _Units, options: ScoreOptions) -> ScoreOptions:
    """`options` for the units' table, whose columns are the units' own (the weight is
    their Σw)."""
    return options.but(item_col=u.item_col, cluster_col=u.cluster_col,
                       weight_col=ScoreOptions.weight_col)  # fmt: skip


def _keep(truth_scope: str) -> str:
    """The units an evaluation in `truth_scope` needs on the driver (_Units' `keep`)."""
    return "touched" if truth_scope == "entities" else "truth"


def evaluate(
    truth: Any,
    actual: Any,
    items: Any = None,
    *,
    truth_scope: str = "common",
    cluster_weights: Any = None,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    slices: Sequence[str] | None = None,
    average: str = "items",
) -> SparkEvaluation:
    """clusterscore.evaluate on Spark DataFrames. `slices`: the items-table columns that
    per_slice() and intervals(by) may group by (default: all but the id and the weight;
    name fewer when some have very many values: the driver holds one row per distinct
    combination in each cell). `cluster_weights` may also be a Spark DataFrame."""
    options = ScoreOptions(
        truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average,
    )  # fmt: skip
    u = _Units({"truth": truth, "actual": actual}, items, item_col, cluster_col, weight_col,
               slices, _keep(truth_scope))  # fmt: skip
    return SparkEvaluation(u, ("truth", "actual"), _collected(options))


def compare(
    truth: Any,
    runs: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    slices: Sequence[str] | None = None,
    **options: Any,
) -> _runs.RunComparison:
    """clusterscore.compare on Spark DataFrames (`runs`: a dict {name: DataFrame} or a
    list; `options`: evaluate's truth_scope, cluster_weights, confidence, resamples,
    seed and average). One Spark job groups the items by their truth cluster, every run's
    cluster and their slice values, so every run is scored on the same units and resampled
    alike."""
    named = _runs.run_names(runs)
    if "truth" in named:
        raise ValueError("a run may not be named 'truth'")
    checked = ScoreOptions(**options)
    u = _Units({"truth": truth, **named}, items, item_col, cluster_col, weight_col, slices,
               _keep(checked.truth_scope))  # fmt: skip
    checked = _collected(checked)
    evaluations: dict[str, _evaluate.Evaluation] = {
        name: SparkEvaluation(u, ("truth", name), checked) for name in named
    }
    first = next(iter(evaluations.values()))
    return _runs.RunComparison.of(evaluations, first.truth_scope, first.bootstrap)


def diff(
    base: Any,
    exp: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    slices: Sequence[str] | None = None,
) -> SparkDiff:
    """clusterscore.diff on Spark DataFrames (`slices` as for evaluate)."""
    u = _Units({"base": base, "exp": exp}, items, item_col, cluster_col, weight_col, slices)
    return SparkDiff(u)


def all_scores(
    truth: Any,
    actual: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> dict[str, float | None]:
    """clusterscore.metrics.all_scores of the items in both clusterings, truth's clusters
    as the true labels: weighted when `items` has weights (the adjusted metrics are then
    None, as with sample_weight). Spark counts the cells; the core scores them."""
    from . import metrics

    u = _Units({"truth": truth, "actual": actual}, items, item_col, cluster_col, weight_col, [],
               "truth")  # fmt: skip
    truth_of, actual_of = u.clusters["truth"], u.clusters["actual"]
    both = pc.and_(pc.is_valid(truth_of), pc.is_valid(actual_of))
    t = u.table.filter(both)
    rows, cols = (_codes(c.filter(both)) for c in (truth_of, actual_of))
    counts = t.column(_COUNT).to_numpy()
    if u.weighted:
        w, w2 = t.column("weight").to_numpy(), t.column(_WEIGHT_SQ).to_numpy()
        scores = metrics.scores_from_cells(rows, cols, counts, w, w2)
    else:
        scores = metrics.scores_from_cells(rows, cols, counts)
    scores.pop("pair_confusion_matrix")
    return scores


def _codes(labels: Any) -> np.ndarray:
    """Labels as indices of their distinct values."""
    return pc.index_in(labels, pc.unique(labels)).to_numpy()


def sample_pairs(
    base: Any,
    exp: Any,
    pairs: int,
    seed: int,
    items: Any = None,
    stable_pairs: int | None = None,
    *,
    distance_only: bool = False,
    replicates: int = 50,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
) -> Any:
    """clusterscore.sample_pairs on Spark DataFrames: the same population, weights and
    PairSample. The core draws every pair down to the cells of its two items and where in
    each cell's weight the item lies; Spark takes each cell's items in the order of their
    ids and the core picks the item there (in mapInArrow). So a seed gives the same pairs
    whatever the partitioning (other pairs than in-process, which orders a cell's items as
    it read them)."""
    d = diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
             slices=[])  # fmt: skip
    return sample_from_diff(
        d, pairs, seed, stable_pairs, distance_only=distance_only, replicates=replicates
    )
