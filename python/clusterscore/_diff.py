"""Comparing two clusterings of the same items: ABCDE impact metrics (docs/metrics.md, diff)."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import _arrays, _core, _engine
from ._notebook import headline, result_html
from ._two_clusterings import Comparison

_MEANS = (
    "split_distance",
    "merge_distance",
    "jaccard_distance",
    "jaccard_index",
    "split_rate",
    "merge_rate",
)
_SUMMARY = (
    "affected_items",
    "affected_weight",
    "affected_jaccard_index",
    "unaffected_jaccard_index",
    "base_clusters_split",
    "exp_clusters_merged",
)


class Diff(Comparison):
    """Exp compared with Base on their common items: split and merge distances and rates,
    which items are affected, and which clusters were split or merged.

    `.overall` and `.coverage` are dicts; `.per_item()`, `.per_cluster("base" | "exp")`,
    `.per_slice(column)` and `.flows()` are pandas DataFrames.
    """

    def __repr__(self) -> str:
        return headline("Diff", self.overall, ("split_distance", "merge_distance",
                                               "jaccard_distance"))  # fmt: skip

    def _repr_html_(self) -> str:
        return result_html(self)

    roles = ("base", "exp")
    _family = _core.MetricFamily.impact

    @property
    def overall(self) -> dict[str, float | None]:
        """The overall impact: distances, rates, Jaccard indices, affected items and
        weight, and the numbers of Base clusters split and Exp clusters merged."""
        return overall_of(super().overall, self._core.impact())

    @staticmethod
    def _item_columns(d: dict[str, np.ndarray]) -> dict[str, Any]:
        affected = d.pop("affected") != 0.0
        return {"affected": affected, **d}

    def flows(self) -> pd.DataFrame:
        """Where the weight of each changed cluster went: one row per (Base cluster, Exp
        cluster) pair sharing items where either cluster changed, largest weight first."""
        return self.flows_table().to_pandas()

    def flows_table(self) -> pa.Table:
        """`flows()` as an Arrow table."""
        f = self._core.flows()
        return pa.table(
            {
                "base_cluster": _arrays.take(
                    self._a.table.column(self._cluster_col), f.a_cluster_row
                ),
                "exp_cluster": _arrays.take(
                    self._b.table.column(self._cluster_col), f.b_cluster_row
                ),
                "items": f.items.astype(np.int64),
                "weight": f.weight,
                "share_of_base": f.share_of_base,
                "share_of_exp": f.share_of_exp,
            }
        )

    def flows_parts(self) -> pa.Table | Iterator[pa.RecordBatch]:
        """flows_table() as a writer takes it: here the table itself (an engine whose
        tables are elsewhere gives batches, in the same order)."""
        return self.flows_table()

    def flows_of(self, base: pa.Array) -> pa.Table:
        """The flows of the Base clusters `base`, in flows_table()'s order."""
        flows = self.flows_table()
        column = flows.column("base_cluster")
        return flows.filter(pc.is_in(column, value_set=base.cast(column.type)))

    def largest_flows(self, n: int) -> tuple[pa.Table, int]:
        """The `n` largest flows (flows_table()'s first rows) and how many flows there are."""
        flows = self.flows_table()
        return flows.slice(0, n), flows.num_rows

    @functools.cached_property
    def sample_totals(self) -> dict[str, Any]:
        """The population totals a pair sample's estimates need (SampleTotals): the
        distances, the masses of each pair class, the self pairs' known part."""
        return self._core.sample_totals()

    def draws_needed(self, mode: str) -> dict[str, Any]:
        """The judged draws each stratum of a sample drawn in `mode` ("plain",
        "stratified", "distance_only") needs to see its tails."""
        return self._core.draws_needed(getattr(_core.SampleMode, mode))

    @functools.cached_property
    def fingerprint(self) -> str:
        """Order-independent hashes of Base, Exp and the items table, as given (an
        integer id and its text are different inputs): a judged sample names its diff."""
        return "-".join(self.input_fingerprints.values())


def overall_of(means: dict[str, float | None], summary: Any) -> dict[str, float | None]:
    """A diff's overall values: its means over T and its summary (the core's ImpactSummary)."""
    out: dict[str, float | None] = {k: means[k] for k in _MEANS}
    for k in _SUMMARY:
        out[k] = getattr(summary, k)
    return out


def diff(
    base: Any,
    exp: Any,
    items: Any = None,
    *,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    engine: str | None = None,
    slices: Sequence[str] | None = None,
) -> Diff:
    """Compares `exp` with `base` (each a path, DataFrame, Arrow table or dict
    {item: cluster}); `items` optionally gives weights and slice columns. `engine` and
    `slices` as for evaluate."""
    columns = dict(item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    if _engine.on_spark(engine, base, exp, items):
        from . import spark

        frames = _engine.spark_inputs([item_col, cluster_col], base, exp, items)
        return spark.diff(*frames, slices=slices, **columns)
    return Diff(base, exp, items, **columns)
