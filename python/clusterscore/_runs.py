"""Several actual clusterings scored against one truth (docs/metrics.md): the delta of every
metric between each pair of runs, with a paired bootstrap over truth clusters."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _arrays, _core, _engine
from ._estimates import (
    BootstrapOptions,
    group_batches,
    interval_notes,
    most_interval_groups,
)
from ._evaluate import Evaluation, bootstrap_rows, groups_of, interval_key, values_table
from ._io import load_clustering, load_items
from ._notebook import headline, result_html
from ._options import ScoreOptions
from ._progress import step
from ._two_clusterings import reading

# The metrics whose deltas the terminal and the report show by slice.
SLICE_METRICS = ["precision", "recall", "f1"]
_COLUMNS = ["value_a", "value_b", "delta", "std_error", "ci_low", "ci_high", "resamples"]


_DATA_SUFFIXES = {".csv", ".tsv", ".tab", ".parquet", ".pq", ".gz", ".bz2", ".zst", ".lz4"}


def _stem(path: str | Path) -> str:
    """A file's name without its data extensions: model.v1.csv.gz → model.v1."""
    name = Path(path).name
    while (suffix := Path(name).suffix.lower()) in _DATA_SUFFIXES and suffix:
        name = name[: -len(suffix)]
    return name or Path(path).name


def run_names(runs: Any, least: int = 2) -> dict[str, Any]:
    """{name: clustering}: a mapping as given; a sequence of paths named by their file
    names without data extensions (with their folder where two share a name), else run1,
    run2...; at least `least` of them."""
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
    elif isinstance(runs, Sequence) and not isinstance(runs, str | bytes):
        names = [_stem(r) if isinstance(r, str | Path) else f"run{i}" for i, r in
                 enumerate(runs, 1)]  # fmt: skip
        for i, run in enumerate(runs):
            if names.count(names[i]) > 1 and isinstance(run, str | Path) and Path(run).parent.name:
                names[i] = f"{Path(run).parent.name}/{names[i]}"
        named = {}
        for i, (name, run) in enumerate(zip(names, runs, strict=True), 1):
            while name in named:
                name = f"{name}_{i}"
            named[name] = run
    else:
        raise ValueError("runs must be a dict {name: clustering} or a list of clusterings")
    if len(named) < least:
        raise ValueError(f"comparing runs needs at least two; got {len(named)}")
    return named


class RunComparison:
    """Runs scored against one truth. `.evaluations` holds each run's Evaluation;
    `.deltas()` and `.deltas(column)` give, per pair of runs (run_b − run_a) and metric,
    overall or per slice value: both values, the delta, its bootstrap standard error and
    confidence interval, and how many resamples defined it. Every run is resampled with
    the same draws of truth clusters (in the common scope each draw's scores are
    recomputed: which clusters are sampled together decides the false merges seen)."""

    def __repr__(self) -> str:
        runs = "; ".join(headline(name, e.overall, ("f1", "pair_f1"))
                         for name, e in self.evaluations.items())  # fmt: skip
        return f"RunComparison({runs})"

    def _repr_html_(self) -> str:
        return result_html(self)

    def __init__(
        self,
        truth: Any,
        runs: Any,
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
        average: str = "items",
    ) -> None:
        options = ScoreOptions(
            truth_scope=truth_scope, cluster_weights=cluster_weights, confidence=confidence,
            resamples=resamples, seed=seed, item_col=item_col, cluster_col=cluster_col,
            weight_col=weight_col, average=average,
        )  # fmt: skip
        named = run_names(runs)
        # Read once, then shared: with files, every run would read the truth and items again.
        with reading(truth, "truth"):
            truth = load_clustering(truth, "truth", item_col, cluster_col)
        with reading(items, "items"):
            items = None if items is None else load_items(items, item_col, weight_col)
        evaluations = {
            name: Evaluation(truth, run, items, **options.keywords()) for name, run in named.items()
        }
        self._hold(evaluations, truth_scope, options.bootstrap)

    def _hold(
        self, evaluations: dict[str, Evaluation], truth_scope: str, bootstrap: BootstrapOptions
    ) -> None:
        self.evaluations = evaluations
        _warn_same_runs(evaluations)
        self.truth_scope = truth_scope
        self.bootstrap = bootstrap
        self.clusters_resampled: int | None = None  # truth clusters the last bootstrap drew from
        self._deltas: dict[tuple[str, ...] | None, pa.Table] = {}  # by slice column(s)

    @classmethod
    def of(
        cls, evaluations: dict[str, Evaluation], truth_scope: str, bootstrap: BootstrapOptions
    ) -> RunComparison:
        """The comparison of evaluations already made against one truth, whose truth
        clusters are numbered alike (e.g. by the Spark engine, from one table of units)."""
        c = cls.__new__(cls)
        c._hold(evaluations, truth_scope, bootstrap)
        return c

    @property
    def runs(self) -> list[str]:
        """The runs' names, in the order given."""
        return list(self.evaluations)

    @property
    def estimand(self) -> str:
        """What the deltas and their intervals estimate, in words."""
        first = next(iter(self.evaluations.values()))
        return f"the difference between runs in {first.estimand}"

    def deltas(self, column: str | Sequence[str] | None = None) -> pd.DataFrame:
        """For each pair of runs (run_a, run_b) and each metric (and each value of the
        items-table column(s) `column`): value_a, value_b, delta = value_b − value_a, its
        bootstrap std_error, ci_low and ci_high at the comparison's confidence (within
        [-1, 1], holding the delta; null where the group holds fewer than two truth
        clusters or no resample moves the delta, `interval_note` saying which), and how
        many resamples defined it. By a column of more values than ~400 MB of resamples
        holds, only its heaviest values get rows (a warning says how many do not)."""
        return self.deltas_table(column).to_pandas()

    def deltas_table(self, column: str | Sequence[str] | None = None) -> pa.Table:
        """`deltas()` as an Arrow table (computed once per `column`: the command line
        prints, writes and reports the same table)."""
        key = None if column is None else interval_key(column)
        self.prepare_deltas([key])
        return self._deltas[key]

    def prepare_deltas(self, columns: Sequence[str | Sequence[str] | None]) -> None:
        """Computes `deltas(column)` for each of `columns` at once: one bootstrap draws the
        resamples for all of them (each table is the same as its own call gives), within
        the memory its resamples may hold; a column already computed is not drawn again."""
        keys = list(dict.fromkeys(None if c is None else interval_key(c) for c in columns))
        todo = [k for k in keys if k not in self._deltas]
        evals = list(self.evaluations.values())
        most = most_interval_groups(self.bootstrap.resamples, len(evals))
        parts = [None if k is None else self._groupings(list(k), most) for k in todo]
        sizes = [1 if p is None else int(p[0][0].n_groups) for p in parts]
        for batch in group_batches(sizes, most):
            self._paired_deltas([todo[j] for j in batch], [parts[j] for j in batch], most)

    def _groupings(self, column: list[str], most: int) -> list[tuple[Any, Any]]:
        """Each run's interval grouping by `column`, in the first run's order: a group's
        code names the same value in every run (the paired bootstrap pairs them by code)."""
        evals = list(self.evaluations.values())
        first = evals[0].interval_grouping(column, most)
        return [first] + [e.interval_grouping(column, most, like=first[0]) for e in evals[1:]]

    def _paired_deltas(
        self, keys: list[tuple[str, ...] | None], parts: list[Any], most: int
    ) -> None:
        """One paired bootstrap of the runs by the groupings `parts` (per key, None or each
        run's (grouping, labels)), stacked; each key's delta rows kept as its deltas."""
        evals = list(self.evaluations.values())
        sums = [
            _core.stacked_sums(e.core, [None if p is None else p[run][0] for p in parts])
            for run, e in enumerate(evals)
        ]
        with step(f"bootstrap ({self.bootstrap.resamples:,} resamples)"):
            # The runs share the truth, and so its clusters' order.
            rank = evals[0].cluster_rank
            share = evals[0].sampled_share
            result = _core.paired_bootstrap(sums, *self.bootstrap.args(), rank)
        self.clusters_resampled = result.clusters
        first = 0
        for key, p in zip(keys, parts, strict=True):
            n = 1 if p is None else int(p[0][0].n_groups)
            values = groups_of(bootstrap_rows(result), first, n)
            d = groups_of(bootstrap_rows(result, deltas=True), first, n)
            first += n
            # Each run's values came from the same resamples as its own bootstrap would
            # draw: kept as its intervals, unless the grouping was cut to fewer values
            # than its own.
            if p is None or all(int(g.n_groups) < most for g, _ in p):
                labels_of = None if p is None else p[0][1]
                for run, e in enumerate(evals):
                    if e.bootstrap == self.bootstrap and e.sampled_share == share:
                        table = values_table(values, labels_of, run)
                        e.hold_intervals(key, table, result.clusters)
            self._deltas[key] = self._delta_rows(d, None if p is None else p[0][1])

    def _delta_rows(self, d: dict[str, Any], labels_of: Any) -> pa.Table:
        # Every run groups the same items table the same way: the first run's labels serve.
        labels = {} if labels_of is None else labels_of(d["group"])
        names = self.runs
        cols: dict[str, Any] = {
            "run_a": pa.array([names[i] for i in d["run_a"]]),
            "run_b": pa.array([names[i] for i in d["run_b"]]),
            **labels,
            "metric": pa.array(d["metric"], pa.string()),
        }
        for c in _COLUMNS:
            cols[c] = d[c].astype("int64") if c == "resamples" else _arrays.nan_as_null(d[c])
        cols["interval_note"] = interval_notes(d["no_interval"])
        cols["p_value"], cols["significant"] = self._significance(d, labels_of is not None)
        return pa.table(cols)

    def _significance(self, d: dict[str, Any], many: bool) -> tuple[pa.Array, pa.Array]:
        """Each delta's two-sided p-value (Student's t from its standard error, with the
        group's truth clusters less one as degrees of freedom) and whether it
        is significant: its interval excludes 0, and, in a table by slice (`many`), it also
        stays so by Benjamini–Hochberg at 1 − confidence over that pair of runs' deltas of
        SLICE_METRICS (the ones shown by slice, read together: dozens of them would
        otherwise mark some by luck), and apart over those of the other metrics."""
        delta, se = (np.ascontiguousarray(d[c], np.float64) for c in ("delta", "std_error"))
        units = np.ascontiguousarray(d["units"], np.uint32)
        level = 1.0 - self.bootstrap.confidence
        p = np.full(len(delta), np.nan)
        kept = np.zeros(len(delta), bool)
        pair = np.asarray(d["run_a"], np.int64) * len(self.runs) + np.asarray(d["run_b"])
        # The deltas shown by slice (terminal, report) are read together; the rest apart.
        shown = np.isin(np.asarray(d["metric"], dtype=object), SLICE_METRICS)
        pair = pair * 2 + shown
        for key in np.unique(pair):
            rows = np.flatnonzero(pair == key)
            got: Any = _core.marked_deltas(delta[rows], se[rows], units[rows], level)
            p[rows], kept[rows] = got[0], np.asarray(got[1], bool)
        lo, hi = (np.asarray(d[c], np.float64) for c in ("ci_low", "ci_high"))
        with np.errstate(invalid="ignore"):
            excludes = (lo > 0) | (hi < 0)
        significant = excludes & (kept if many else True)
        return _arrays.nan_as_null(p), pa.array(significant)


def _warn_same_runs(evaluations: dict[str, Evaluation]) -> None:
    """A warning for runs that are one clustering (one file given twice, a copy): their
    deltas are 0 by construction, which reads like a finding."""
    seen: dict[Any, str] = {}
    for name, e in evaluations.items():
        key = e.input_fingerprints.get("actual")
        if key is None:
            continue
        if key in seen:
            what = (f"runs {seen[key]!r} and {name!r} are the same clustering (the same items"
                    " in the same clusters): their deltas are 0")  # fmt: skip
            warnings.warn(what, stacklevel=4)
        else:
            seen[key] = name


def compare(
    truth: Any,
    runs: Any,
    items: Any = None,
    *,
    engine: str | None = None,
    slices: Sequence[str] | None = None,
    **options: Any,
) -> RunComparison:
    """Scores each of `runs` (a dict {name: clustering} or a list) against `truth`, for
    their pairwise deltas with a paired bootstrap. `options`: evaluate's (truth_scope,
    cluster_weights, confidence=0.95, resamples=1000, seed=0, item_col, cluster_col,
    weight_col, average); `engine` and `slices` as for evaluate (on Spark every run is
    scored on the same groups of items and resampled alike)."""
    named = run_names(runs)
    if _engine.on_spark(engine, truth, items, options.get("cluster_weights"), *named.values()):
        from . import spark

        ids = [options.get("item_col", "item_id"), options.get("cluster_col", "cluster_id")]
        truth, items, *frames = _engine.spark_inputs(ids, truth, items, *named.values())
        runs = dict(zip(named, frames, strict=True))
        return spark.compare(truth, runs, items, slices=slices, **options)
    return RunComparison(truth, runs, items, **options)
