"""The command line's scoring commands: evaluate, compare, diff."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import pyarrow as pa
import typer

from . import _gates as gates
from . import _progress as progress
from . import _report as report
from ._cli_options import (
    Average,
    AverageOpt,
    ClusterColOpt,
    ClusterWeightsOpt,
    ConfidenceOpt,
    DelimiterOpt,
    Engine,
    EngineOpt,
    ItemColOpt,
    ItemsOpt,
    JsonOpt,
    OutOpt,
    PngOpt,
    QuietOpt,
    ReportOpt,
    ResamplesOpt,
    Scope,
    ScopeOpt,
    SeedOpt,
    SliceOpt,
    SparkMasterOpt,
    ThreadsOpt,
    VerboseOpt,
    WeightColOpt,
    spark_reader,
)
from ._diff import Diff
from ._diff import diff as diff_on
from ._estimates import common_scope_caveat
from ._evaluate import Evaluation
from ._evaluate import evaluate as evaluate_on
from ._options import ScoreOptions
from ._output import file_part
from ._runs import SLICE_METRICS, RunComparison, run_names
from ._runs import compare as compare_on
from .cli import (
    Outputs,
    _after_commit,
    _per_item,
    _write,
    command,
    for_lake,
    header,
    inputs,
    put,
    show_json,
    staged,
    wrote,
)

if TYPE_CHECKING:
    import pandas as pd


@command
def evaluate(
    truth: Annotated[str, typer.Argument(help="Ground-truth clustering: item_id, cluster_id.")],
    actual: Annotated[str, typer.Argument(help="Clustering to score: item_id, cluster_id.")],
    items: ItemsOpt = None,
    slice_: SliceOpt = None,
    out: OutOpt = None,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    classic: Annotated[
        bool,
        typer.Option(
            "--classic",
            help="Also compute the classic metrics (ARI, NMI, V-measure, clustering error...)"
            " on the common items.",
        ),
    ] = False,
    truth_scope: ScopeOpt = Scope.common,
    cluster_weights: ClusterWeightsOpt = None,
    average: AverageOpt = Average.items,
    confidence: ConfidenceOpt = 0.95,
    resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    intervals_on: Annotated[
        bool,
        typer.Option(
            "--intervals/--no-intervals",
            help="Bootstrap intervals beside the overall and per-slice values. They cost"
            " O(resamples × truth clusters), in the common scope O(resamples × cells): seconds"
            " for a truth of 1e6 items, minutes for 1e7.",
        ),
    ] = True,
    require: Annotated[
        list[str] | None,
        typer.Option(
            "--require",
            help="A gate, METRIC>=X or METRIC<=X (repeatable): exit status 1 when the metric's"
            " interval lies wholly below X (above, for <=).",
        ),
    ] = None,
    json_out: JsonOpt = False,
    report_path: ReportOpt = None,
    png: PngOpt = None,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    delimiter: DelimiterOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Score ACTUAL against TRUTH: coverage, overall metrics (precision, recall, F1, pair
    metrics...) with bootstrap intervals, per-slice tables, and the truth and actual
    clusters that lose the most."""
    requirements = gates.parse_requirements(require)
    outputs = Outputs(report_path, png, json_out)
    options = ScoreOptions(
        truth_scope=truth_scope.value, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average.value,
    )  # fmt: skip
    read = spark_reader(
        engine, spark_master, (item_col, cluster_col), [truth, actual, items],
        weight_col, verbose,
    )  # fmt: skip
    staging = staged(out, engine)
    result = evaluate_on(read(truth), read(actual), read(items, items=True), engine=engine.value,
                         slices=slice_ or [], **options.keywords())  # fmt: skip
    estimation = report.estimation_summary(result)
    with _per_item_meanwhile(staging, result) as per_item_written:
        if intervals_on:  # overall and every slice from one bootstrap
            result.prepare_intervals([None, *(slice_ or [])])
        intervals = result.intervals_table() if intervals_on else None
        slices, slice_intervals = {}, {}
        for s in slice_ or []:  # a slice's table, then its intervals: one grouping
            slices[s] = result.per_slice_table(s)
            slice_intervals[s] = result.intervals_table(s) if intervals_on else None
        clusters = _collected_clusters(result, staging)
        summary = {
            **header(
                "evaluate",
                engine=engine,
                item_col=item_col,
                cluster_col=cluster_col,
                weight_col=weight_col,
                slices=list(slices),
                classic=classic,
                intervals=intervals_on,
                **estimation.pop("options"),
            ),
            "inputs": inputs(
                {"truth": truth, "actual": actual, "items": items}, result.input_fingerprints
            ),  # fmt: skip
            **_evaluation_summary(result, estimation, slices, intervals, slice_intervals, classic),
        }
        checked = gates.check_requirements(requirements, result, intervals)
        if checked:
            summary["gates"] = checked
        progress.done()
        if json_out:
            show_json(summary)
        else:
            _show_evaluation(result, slices, intervals, slice_intervals, clusters, classic)
            _show_gates(checked)
        outputs.write(result, slices)
        if staging is not None:
            with progress.step(f"writing {out}"):
                tables = {} if per_item_written else {"per_item": _per_item_out(result, staging)}
                _write(staging, summary, tables, clusters, slices)
                if per_item_written:
                    per_item_written()
    if staging is not None:
        wrote(json_out, f"{out}/summary.json and Parquet tables")
    _fail_on(checked)


def _per_item_out(result: Any, staging: Any) -> Any:
    """The per-item table as --out writes it: for a lake path a Spark DataFrame (written by
    Spark's writer), else its batches."""
    return result.per_item() if for_lake(staging) else _per_item(result)


def _per_item_meanwhile(staging: Any, result: Any) -> Any:
    """With --out and the in-process engine, the per-item table written on a thread
    while the bootstrap and the other tables are made (report.parquet_meanwhile), whose
    function to wait for it is given; else None, and the table is written with the
    others."""
    if staging is None or type(result) is not Evaluation:  # Spark's: a DataFrame's rows
        return contextlib.nullcontext(None)
    return report.parquet_meanwhile(staging / "per_item.parquet", result.per_item_batches())


def _show_gates(checked: list[dict[str, Any]]) -> None:
    for line in gates.lines(checked):
        print(line, flush=True)


def _fail_on(checked: list[dict[str, Any]]) -> None:
    """Exit status 1 once the outputs are in place, when a gate failed."""
    if any(g["failed"] for g in checked):
        _after_commit.append(lambda: sys.exit(1))


def _evaluation_summary(
    result: Evaluation,
    estimation: dict[str, Any],
    slices: dict,
    intervals: Any,
    slice_intervals: dict,
    classic: bool,
) -> dict[str, Any]:
    """summary.json of `evaluate`: coverage, overall, slices, scope and bootstrap
    (`estimation`: report.estimation_summary's without its options), the intervals asked
    for, the classic metrics if asked for."""
    summary: dict[str, Any] = {
        "coverage": result.coverage,
        "overall": result.overall,
        "slices": {name: report.records(t) for name, t in slices.items()},
        **estimation,
    }
    if intervals is not None:
        summary["intervals"] = report.records(intervals)
        summary["slice_intervals"] = {
            n: report.records(t) for n, t in slice_intervals.items() if t is not None
        }
    if classic:
        summary["classic"] = result.classic
    return summary


def _show_evaluation(
    result: Evaluation, slices: dict, intervals: Any, slice_intervals: dict, clusters: dict,
    classic: bool,
) -> None:  # fmt: skip
    shown: list[Any] = [
        report.coverage_table(result.coverage, result.roles),
        report.overall_table(result, intervals),
    ]
    if (note := common_scope_caveat(result)) is not None:
        shown.append(note)
    if classic:
        shown.append(
            report.kv_table("Classic metrics (common items, unweighted)", result.classic, "classic")
        )
    for name, table in slices.items():
        shown.append(report.slice_table(result, name, table, slice_intervals[name]))
    for side, rate, metric in (("truth", "under_merge_rate", "recall"),
                               ("actual", "over_merge_rate", "precision")):  # fmt: skip
        shown.append(
            report.frame_table(
                f"Worst {side} clusters by {metric} (weight lost = weight × (1 − {metric}))",
                _shown_clusters(result, clusters, side, functools.partial(report.worst, rate=rate)),
                ["cluster_id", "items", "weight", metric, "weight_lost"],
                labels=["cluster_id"],
                group="pointwise",
            )
        )
    report.print_all(report.console(), *shown)


@command
def compare(
    truth: Annotated[str, typer.Argument(help="Ground-truth clustering: item_id, cluster_id.")],
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Two or more clusterings to score and compare, each PATH or NAME=PATH"
            " (named by the file name without its extension otherwise)."
        ),
    ],
    items: ItemsOpt = None,
    slice_: SliceOpt = None,
    out: OutOpt = None,
    truth_scope: ScopeOpt = Scope.common,
    cluster_weights: ClusterWeightsOpt = None,
    average: AverageOpt = Average.items,
    resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    confidence: ConfidenceOpt = 0.95,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    fail_if_worse: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-if-worse",
            help="Metrics (comma-separated, repeatable) gating the later runs: exit status 1"
            " when one is significantly worse than the first run's (its delta marked ▼).",
        ),
    ] = None,
    json_out: JsonOpt = False,
    report_path: ReportOpt = None,
    png: PngOpt = None,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    delimiter: DelimiterOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Score every RUN against TRUTH and compare each pair: the delta (second − first) of
    every overall and per-slice metric, with a standard error and an interval from a
    paired bootstrap that resamples the truth's clusters (the same draws for every run).
    Deltas whose interval excludes 0 are marked ▲ (better) or ▼ (worse)."""
    gated = gates.parse_metrics(fail_if_worse)
    outputs = Outputs(report_path, png, json_out)
    named = named_runs(runs)
    options = ScoreOptions(
        truth_scope=truth_scope.value, cluster_weights=cluster_weights, resamples=resamples,
        seed=seed, confidence=confidence, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average.value,
    )  # fmt: skip
    read = spark_reader(
        engine, spark_master, (item_col, cluster_col), [truth, *named.values(), items],
        weight_col, verbose,
    )  # fmt: skip
    staging = staged(out, engine)
    frames = {name: read(path) for name, path in named.items()}
    result = compare_on(read(truth), frames, read(items, items=True), engine=engine.value,
                        slices=slice_ or [], **options.keywords())  # fmt: skip
    result.prepare_deltas([None, *(slice_ or [])])  # one bootstrap for all
    overall = result.deltas_table()
    slices = {s: result.deltas_table(s) for s in slice_ or []}
    coverage = {name: e.coverage for name, e in result.evaluations.items()}
    first = next(iter(result.evaluations.values()))
    estimation = report.estimation_summary(first)
    summary = {
        **header(
            "compare",
            engine=engine,
            item_col=item_col,
            cluster_col=cluster_col,
            weight_col=weight_col,
            slices=list(slices),
            **estimation.pop("options"),
        ),
        "inputs": {
            "truth": inputs({"truth": truth}, first.input_fingerprints)["truth"],
            **{
                name: inputs({"actual": named[name]}, e.input_fingerprints)["actual"]
                for name, e in result.evaluations.items()
            },  # fmt: skip
            **({} if items is None else inputs({"items": items}, first.input_fingerprints)),
        },
        "runs": result.runs,
        **estimation,
        "estimand": result.estimand,
        "overall": {name: e.overall for name, e in result.evaluations.items()},
        "coverage": coverage,
        "deltas": report.records(overall),
        "slices": {name: report.records(t) for name, t in slices.items()},
    }
    checked = gates.check_worse(gated, overall.to_pandas(), result.runs[0])
    if checked:
        summary["gates"] = checked
    progress.done()
    if json_out:
        show_json(summary)
    else:
        _show_comparison(result, overall, slices, coverage, truth_scope.value, confidence)
        _show_gates(checked)
    outputs.write(result, slices)
    if staging is not None:
        with progress.step(f"writing {out}"):
            put(staging, "summary.json", summary)
            put(staging, "deltas.parquet", overall)
            for name, table in slices.items():
                put(staging, f"deltas_{file_part(name)}.parquet", table)
        wrote(json_out, f"{out}/summary.json and Parquet tables")
    _fail_on(checked)


def named_runs(runs: list[str]) -> dict[str, str]:
    """{name: path} from PATH or NAME=PATH arguments (a NAME holds no path separator and
    names no existing file)."""
    pairs: list[tuple[str | None, str]] = []
    for arg in runs:
        name, eq, path = arg.partition("=")
        if eq and name and "/" not in name and os.sep not in name and not Path(arg).exists():
            pairs.append((name, path))
        else:
            pairs.append((None, arg))
    names = list(run_names([p for _, p in pairs], least=1))
    named: dict[str, str] = {}
    for (given, path), default in zip(pairs, names, strict=True):
        name = given or default
        if name in named:
            raise ValueError(f"two runs are named {name!r}: name them with NAME=PATH")
        named[name] = path
    return named


def _show_comparison(
    result: RunComparison, overall: Any, slices: dict, coverage: dict, scope: str,
    confidence: float,
) -> None:  # fmt: skip
    shown: list[Any] = [
        report.runs_coverage_table(coverage),
        report.runs_metrics_table({name: e.overall for name, e in result.evaluations.items()}),
        f"Intervals estimate {result.estimand} ({scope} scope).",
    ]
    level = report.level(confidence)
    resamples = f"{result.bootstrap.resamples:,} resamples"
    # Marks on precision-type deltas read the common items only when a run has items the
    # truth does not (the coverage above says how many).
    outside = any(common_scope_caveat(e) for e in result.evaluations.values())
    footnote = "precision-type deltas: common items only" if outside else None
    for (a, b), part in overall.to_pandas().groupby(["run_a", "run_b"], sort=False):
        title = f"{b} − {a}, overall ({level} intervals, {resamples})"
        shown.append(report.deltas_table(title, part, ["metric"], confidence, footnote))
    for name, table in slices.items():
        sliced = table.to_pandas()
        sliced = sliced[sliced["metric"].isin(SLICE_METRICS)]
        for (a, b), part in sliced.groupby(["run_a", "run_b"], sort=False):
            top, note = report.first_values(part, name)
            title = f"{b} − {a}, per {name}: precision, recall, f1"
            t = report.deltas_table(title, top, [name, "metric"], confidence, footnote)
            if note:
                t.caption = f"{t.caption}; {note}"
            shown.append(t)
    report.print_all(report.console(), *shown)


@command
def diff(
    base: Annotated[str, typer.Argument(help="Baseline clustering: item_id, cluster_id.")],
    exp: Annotated[str, typer.Argument(help="Experiment clustering: item_id, cluster_id.")],
    items: ItemsOpt = None,
    slice_: SliceOpt = None,
    out: OutOpt = None,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    json_out: JsonOpt = False,
    report_path: ReportOpt = None,
    png: PngOpt = None,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    delimiter: DelimiterOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Measure exactly how EXP differs from BASE: coverage, split and merge distances and
    rates, affected items, per-slice tables, and the clusters that changed the most."""
    outputs = Outputs(report_path, png, json_out)
    columns = dict(item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    read = spark_reader(
        engine, spark_master, (item_col, cluster_col), [base, exp, items],
        weight_col, verbose,
    )  # fmt: skip
    staging = staged(out, engine)
    result = diff_on(read(base), read(exp), read(items, items=True), engine=engine.value,
                     slices=slice_ or [], **columns)  # fmt: skip
    slices = {s: result.per_slice_table(s) for s in slice_ or []}
    clusters = _collected_clusters(result, staging)
    summary = {
        **header(
            "diff",
            engine=engine,
            item_col=item_col,
            cluster_col=cluster_col,
            weight_col=weight_col,
            slices=list(slices),
        ),
        "inputs": inputs({"base": base, "exp": exp, "items": items}, result.input_fingerprints),
        "coverage": result.coverage,
        "overall": result.overall,
        "slices": {name: report.records(t) for name, t in slices.items()},
    }
    progress.done()
    if json_out:
        show_json(summary)
    else:
        _show_diff(result, slices, clusters)
    outputs.write(result, slices)
    if staging is not None:
        with progress.step(f"writing {out}"):
            flows = result.flows() if for_lake(staging) else result.flows_parts()
            tables = {"per_item": _per_item_out(result, staging), "flows": flows}
            _write(staging, summary, tables, clusters, slices)
        wrote(json_out, f"{out}/summary.json and Parquet tables")


def _collected_clusters(result: Any, staging: Any) -> dict[str, Any]:
    """Both sides' per-cluster tables as --out writes them (per_cluster_parts: tables, or
    batches fetched as they are written), else none: the terminal shows a few rows of each
    (_shown_clusters)."""
    if staging is None:
        return {}
    if for_lake(staging):  # Spark DataFrames, for Spark's writer
        return {side: result.per_cluster(side) for side in result.roles}
    return {side: result.per_cluster_parts(side) for side in result.roles}


def _shown_clusters(result: Any, clusters: dict[str, Any], side: str,
                    pick: Callable[[pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:  # fmt: skip
    """The rows `pick` keeps of `side`'s per-cluster table: of `clusters` when they are
    tables on hand, else picked where the table is (a Spark result's, in its partitions)."""
    if isinstance(clusters.get(side), pa.Table):
        return pick(clusters[side].to_pandas())
    return result.picked_clusters(side, pick)


def _show_diff(result: Diff, slices: dict, clusters: dict) -> None:
    shown: list[Any] = [
        report.coverage_table(result.coverage, result.roles),
        report.kv_table("Overall impact (common items)", result.overall, "impact"),
    ]
    metric_cols = ["items", "weight", "split_distance", "merge_distance", "affected_weight"]
    # No outer border: with it, the table is wider than 80 columns and rich cuts
    # "affected_weight" short.
    compact = {"show_edge": False, "pad_edge": False}
    for name, table in slices.items():
        df, note = report.heaviest(table.to_pandas())
        t = report.frame_table(f"Per {name}", df, [name, *metric_cols], labels=[name],
                               group="impact", **compact)  # fmt: skip
        t.caption = note
        shown.append(t)
    for side in result.roles:
        top = _shown_clusters(result, clusters, side, report.most_changed)
        cols = ["cluster_id", "items", "weight", "split_rate", "merge_rate", "changed_weight"]
        title = (
            f"{side} clusters that changed the most (changed weight = weight × jaccard_distance)"
        )
        shown.append(report.frame_table(title, top, cols, labels=["cluster_id"], group="impact"))
    flows, n_flows = result.largest_flows(10)
    shown.append(
        report.frame_table(
            f"Largest flows between changed clusters ({n_flows:,} in all)",
            flows.to_pandas(),
            flows.column_names,
            labels=["base_cluster", "exp_cluster"],
        )
    )
    report.print_all(report.console(), *shown)
