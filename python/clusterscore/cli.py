"""The `clusterscore` command."""

from __future__ import annotations

import functools
import gc
import sys
import warnings
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.table import Table

from . import _progress as progress
from . import _report as report
from ._diff import Diff
from ._evaluate import Evaluation
from ._output import StagedDir, StagedFiles
from ._plan import plan_pairs
from ._runs import RunComparison
from ._sample import estimate as estimate_pairs
from ._sample import load_sample, sample_from_diff
from ._terms import command_line
from ._two_clusterings import Comparison


class _Command(typer.core.TyperCommand):
    """A command whose usage line names its arguments as the help's text does
    (`TRUTH ACTUAL`, `[RUN]...`), where typer writes `{truth}`."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, typer.core.TyperArgument) and param.name:
                name = param.name.upper() + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        return pieces


app = typer.Typer(
    help="Fast, exact evaluation of clusterings.",
    no_args_is_help=True,
    # Plain help: paragraphs rewrapped to the terminal, flags without a type label.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ItemsOpt = Annotated[
    str | None,
    typer.Option(
        "--items",
        help="Items table (CSV/TSV/Parquet): item_id, optional weight (default 1), and any"
        " other columns, each usable with --slice.",
    ),
]
SliceOpt = Annotated[
    list[str] | None,
    typer.Option("--slice", help="An items-table column to report per value; repeat for several."),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Directory to write summary.json and Parquet tables to (created if needed)."
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", help="No progress lines on stderr (they appear only on a terminal)."
    ),
]


class Scope(str, Enum):
    common = "common"
    entities = "entities"


ScopeOpt = Annotated[
    Scope,
    typer.Option(
        "--truth-scope",
        help="common: score the items in both clusterings. entities: each truth cluster is a"
        " complete entity; estimate the whole actual clustering (false merges with items"
        " outside the truth count).",
    ),
]
ClusterWeightsOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster-weights",
        help="Design weights of the truth clusters (entities scope): uniform (drawn with equal"
        " probability), inverse_size (drawn in proportion to size), or a file with columns"
        " cluster_id, weight (1 / inclusion probability).",
    ),
]
ConfidenceOpt = Annotated[
    float, typer.Option("--confidence", help="Level of the intervals, in (0, 1).")
]
ResamplesOpt = Annotated[
    int, typer.Option("--resamples", help="Bootstrap resamples of the truth clusters (>= 1).")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the resampling.")]
ItemColOpt = Annotated[str, typer.Option("--item-col", help="Name of the item id column.")]
ClusterColOpt = Annotated[str, typer.Option("--cluster-col", help="Name of the cluster id column.")]
WeightColOpt = Annotated[
    str, typer.Option("--weight-col", help="Name of the weight column of the items table.")
]


F = TypeVar("F", bound=Callable[..., Any])


def command(fn: F) -> F:
    """A subcommand that shows its progress unless --quiet, and that ends on Ctrl-C with
    status 130 and one line, having removed whatever it was writing."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            with command_line(), progress.shown(not kwargs.get("quiet", False)):
                return fn(*args, **kwargs)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            raise SystemExit(130) from None

    return app.command(fn.__name__, cls=_Command)(run)  # type: ignore[return-value]


def staged(out: Path | None) -> StagedDir | None:
    """--out, checked now (before the work) and written out of sight until complete."""
    return None if out is None else StagedDir(out)


def _version(value: bool) -> None:
    if value:
        from . import __version__

        print(f"clusterscore {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Fast, exact evaluation of clusterings. Files are CSV, TSV or Parquet (by extension)
    with columns item_id and cluster_id (see --item-col, --cluster-col)."""


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
    quiet: QuietOpt = False,
) -> None:
    """Score ACTUAL against TRUTH: coverage, overall metrics (precision, recall, F1, pair
    metrics...) with bootstrap intervals, per-slice tables, and the truth and actual
    clusters that lose the most."""
    staging = staged(out)
    result = Evaluation(
        truth,
        actual,
        items,
        truth_scope=truth_scope.value,
        cluster_weights=cluster_weights,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        item_col=item_col,
        cluster_col=cluster_col,
        weight_col=weight_col,
    )
    slices = {s: result.per_slice_table(s) for s in slice_ or []}
    intervals = result.intervals_table() if intervals_on else None
    slice_intervals = {s: result.intervals_table(s) if intervals_on else None for s in slices}
    console = report.console()
    shown: list[Any] = [
        report.coverage_table(result.coverage, result.roles),
        report.overall_table(result, intervals),
    ]
    if (note := report.scope_note(result)) is not None:
        shown.append(note)
    if classic:
        shown.append(report.kv_table("Classic metrics (common items, unweighted)", result.classic))
    for name, table in slices.items():
        shown.append(report.slice_table(result, name, table, slice_intervals[name]))
    clusters = {side: result.per_cluster_table(side) for side in result.roles}
    truth_df = clusters["truth"].to_pandas()
    actual_df = clusters["actual"].to_pandas()
    shown.append(
        report.frame_table(
            "Worst truth clusters by recall (weight lost = weight × (1 − recall))",
            report.worst(truth_df, "under_merge_rate"),
            ["cluster_id", "items", "weight", "recall", "weight_lost"],
            labels=["cluster_id"],
        )
    )
    shown.append(
        report.frame_table(
            "Worst actual clusters by precision (weight lost = weight × (1 − precision))",
            report.worst(actual_df, "over_merge_rate"),
            ["cluster_id", "items", "weight", "precision", "weight_lost"],
            labels=["cluster_id"],
        )
    )
    progress.done()
    report.print_all(console, *shown)
    if staging is not None:
        extra: dict[str, Any] = report.estimation_summary(result)
        if intervals is not None:
            extra["intervals"] = report.records(intervals)
            extra["slice_intervals"] = {
                n: report.records(t) for n, t in slice_intervals.items() if t is not None
            }
        if classic:
            extra["classic"] = result.classic
        with staging as tmp, progress.step(f"writing {out}"):
            _write(tmp, result, slices, {"per_item": result.per_item_batches()}, clusters, extra)
        console.print(f"wrote {out}/summary.json and Parquet tables")


@command
def compare(
    truth: Annotated[str, typer.Argument(help="Ground-truth clustering: item_id, cluster_id.")],
    runs: Annotated[
        list[str], typer.Argument(help="Two or more clusterings to score and compare.")
    ],
    items: ItemsOpt = None,
    slice_: SliceOpt = None,
    out: OutOpt = None,
    truth_scope: ScopeOpt = Scope.common,
    cluster_weights: ClusterWeightsOpt = None,
    resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    confidence: ConfidenceOpt = 0.95,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    quiet: QuietOpt = False,
) -> None:
    """Score every RUN against TRUTH and compare each pair: the delta (second − first) of
    every overall and per-slice metric, with a standard error and an interval from a
    paired bootstrap that resamples the truth's clusters (the same draws for every run)."""
    staging = staged(out)
    result = RunComparison(
        truth,
        [str(r) for r in runs],
        items,
        truth_scope=truth_scope.value,
        cluster_weights=cluster_weights,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        item_col=item_col,
        cluster_col=cluster_col,
        weight_col=weight_col,
    )
    overall = result.deltas_table()
    slices = {s: result.deltas_table(s) for s in slice_ or []}
    coverage = {name: e.coverage for name, e in result.evaluations.items()}
    shown: list[Any] = [report.runs_coverage_table(coverage)]
    shown.append(f"Intervals estimate {result.estimand} ({truth_scope.value} scope).")
    level = f"{confidence:.0%}".replace("%", " %")
    cols = ["metric", "value_a", "value_b", "delta", "std_error", "ci_low", "ci_high"]
    # Four decimals and no outer border: the table fits in 80 columns.
    compact = {"number": report.fmt4, "show_edge": False, "pad_edge": False}
    df = overall.to_pandas()
    for (a, b), part in df.groupby(["run_a", "run_b"], sort=False):
        title = f"{b} − {a}, overall ({level} intervals, {resamples} resamples)"
        shown.append(report.frame_table(title, part, cols, labels=["metric"], **compact))
    for name, table in slices.items():
        sliced = table.to_pandas().query("metric in ['precision', 'recall', 'f1']")
        for (a, b), part in sliced.groupby(["run_a", "run_b"], sort=False):
            title = f"{b} − {a}, per {name}: precision, recall, f1"
            shown.append(
                report.frame_table(title, part, [name, *cols], labels=[name, "metric"], **compact)
            )
    console = report.console()
    progress.done()
    report.print_all(console, *shown)
    if staging is not None:
        summary = {
            "runs": result.runs,
            **report.estimation_summary(next(iter(result.evaluations.values()))),
            "estimand": result.estimand,
            "overall": {name: e.overall for name, e in result.evaluations.items()},
            "coverage": coverage,
            "deltas": report.records(overall),
            "slices": {name: report.records(t) for name, t in slices.items()},
        }
        with staging as tmp, progress.step(f"writing {out}"):
            report.write_json(tmp / "summary.json", summary)
            report.write_parquet(tmp / "deltas.parquet", overall)
            for name, table in slices.items():
                report.write_parquet(tmp / f"deltas_{name}.parquet", table)
        console.print(f"wrote {out}/summary.json and Parquet tables")


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
    quiet: QuietOpt = False,
) -> None:
    """Measure exactly how EXP differs from BASE: coverage, split and merge distances and
    rates, affected items, per-slice tables, and the clusters that changed the most."""
    staging = staged(out)
    result = Diff(
        base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col
    )
    slices = {s: result.per_slice_table(s) for s in slice_ or []}
    metric_cols = ["items", "weight", "split_distance", "merge_distance", "affected_weight"]
    shown = [
        report.coverage_table(result.coverage, result.roles),
        report.kv_table("Overall impact (common items)", result.overall),
    ]
    # No outer border: with it, the table is wider than 80 columns and rich cuts
    # "affected_weight" short.
    compact = {"show_edge": False, "pad_edge": False}
    for name, table in slices.items():
        df = table.to_pandas()
        shown.append(
            report.frame_table(f"Per {name}", df, [name, *metric_cols], labels=[name], **compact)
        )
    clusters = {side: result.per_cluster_table(side) for side in result.roles}
    for side in ("base", "exp"):
        df = clusters[side].to_pandas()
        top = df.nlargest(10, "affected_weight").query("affected_weight > 0")
        cols = ["cluster_id", "items", "weight", "affected_weight", "split_rate", "merge_rate"]
        shown.append(
            report.frame_table(
                f"{side} clusters with the most affected weight", top, cols, labels=["cluster_id"]
            )
        )
    flows = result.flows()
    shown.append(
        report.frame_table(
            f"Largest flows between changed clusters ({len(flows):,} in all)",
            flows.head(10),
            list(flows.columns),
            labels=["base_cluster", "exp_cluster"],
        )
    )
    progress.done()
    report.print_all(console := report.console(), *shown)
    if staging is not None:
        with staging as tmp, progress.step(f"writing {out}"):
            tables = {"per_item": result.per_item_batches(), "flows": result.flows_table()}
            _write(tmp, result, slices, tables, clusters)
        console.print(f"wrote {out}/summary.json and Parquet tables")


@command
def sample(
    base: Annotated[str, typer.Argument(help="Baseline clustering: item_id, cluster_id.")],
    exp: Annotated[str, typer.Argument(help="Experiment clustering: item_id, cluster_id.")],
    pairs: Annotated[
        int, typer.Option("--pairs", help="Pairs to draw (diff pairs when stratified).", min=1)
    ],
    seed: Annotated[int, typer.Option("--seed", help="Random seed: same seed, same sample.")],
    out: Annotated[Path, typer.Option("--out", help="Sample file to write (.parquet or .csv).")],
    stable_pairs: Annotated[
        int | None,
        typer.Option(
            "--stable-pairs", help="Also draw this many stable pairs (stratified).", min=0
        ),
    ] = None,
    distance_only: Annotated[
        bool, typer.Option("--distance-only", help="Draw diff pairs only (explore the distance).")
    ] = False,
    items: ItemsOpt = None,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    quiet: QuietOpt = False,
) -> None:
    """Draw pairs of items to judge, in proportion to their weight in the difference between
    BASE and EXP. Writes the sample (OUT) and, beside it, OUT-stem.raters.csv: both items'
    attributes side by side and an empty verdict column (same / different / unsure)."""
    raters = out.with_name(out.stem + ".raters.csv")
    written = [out, raters]
    if out.suffix.lower() == ".csv":
        written.append(Path(str(out) + ".meta.json"))
    staging = StagedFiles(*written)
    d = Diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    with progress.step(f"drawing {pairs:,} pairs"):
        s = sample_from_diff(d, pairs, seed, stable_pairs, distance_only=distance_only)
    with staging as tmp, progress.step(f"writing {out}"):
        s.save(tmp[0], meta_path=tmp[2] if len(tmp) > 2 else None)
        s.save_for_raters(tmp[1])
    progress.done()
    console = report.console()
    console.print(
        report.kv_table(
            "Sample",
            {"mode": s.meta["mode"], "draws": s.meta["pairs"] + s.meta["stable_pairs"],
             "distinct pairs": len(s), "to judge (no self pairs)": s.raters_table().num_rows,
             "seed": seed, **{k: v for k, v in s.meta["totals"].items()}},
        )
    )  # fmt: skip
    console.print(f"wrote {out} and {raters}")


@command
def estimate(
    sample_file: Annotated[Path, typer.Argument(help="Sample written by `clusterscore sample`.")],
    verdicts: Annotated[
        Path,
        typer.Option("--verdicts", help="Judged pairs: item_i, item_j, verdict (CSV/TSV/Parquet)."),
    ],
    json_out: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of a table.")
    ] = False,
    quiet: QuietOpt = False,
) -> None:
    """Estimate how good the difference is from judged pairs: good and bad split and merge
    distances, affected good/bad index, delta precision and ABCDE rates, each with a standard
    error and a 95% confidence interval."""
    s = load_sample(sample_file)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = estimate_pairs(s, verdicts)
    progress.done()
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if json_out:
        import json

        print(json.dumps(report.json_safe(result), indent=2, allow_nan=False))
        return
    t = Table(title=f"Estimates from {verdicts} ({s.meta['mode']} sample)",
                     title_justify="left")  # fmt: skip
    for c in ("metric", "estimate", "std error", "95% interval", "judged draws"):
        t.add_column(c, justify="left" if c == "metric" else "right", no_wrap=True)
    for name, r in result.items():
        interval = ("exact" if r.get("exact") else "—" if r["ci_low"] is None
                    else f"[{report.fmt(r['ci_low'])}, {report.fmt(r['ci_high'])}]")  # fmt: skip
        t.add_row(name, report.fmt(r["estimate"]), report.fmt(r["std_error"]), interval,
                  report.fmt(r["pairs"]))  # fmt: skip
    report.console().print(t)


@command
def plan(
    base: Annotated[str, typer.Argument(help="Baseline clustering: item_id, cluster_id.")],
    exp: Annotated[str, typer.Argument(help="Experiment clustering: item_id, cluster_id.")],
    half_width: Annotated[
        float, typer.Option("--half-width", help="Largest interval half-width wanted, > 0.")
    ],
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            help="A metric to plan for; repeat for several (default: good and bad split and"
            " merge distances, affected good and bad index).",
        ),
    ] = None,
    pilot_sample: Annotated[
        Path | None, typer.Option("--pilot-sample", help="A pilot sample already judged.")
    ] = None,
    pilot_verdicts: Annotated[
        Path | None, typer.Option("--pilot-verdicts", help="The pilot sample's verdicts.")
    ] = None,
    confidence: ConfidenceOpt = 0.95,
    items: ItemsOpt = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of a table.")
    ] = False,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    quiet: QuietOpt = False,
) -> None:
    """How many pairs to draw (`clusterscore sample --pairs N --stable-pairs M`) and judge so
    that each metric's interval half-width is at most H: from the diff's exact multipliers
    and the worst-case proportions, or those of a judged pilot sample."""
    if (pilot_sample is None) != (pilot_verdicts is None):
        raise ValueError("--pilot-sample and --pilot-verdicts go together")
    pilot = None if pilot_sample is None else (str(pilot_sample), pilot_verdicts)
    result = plan_pairs(
        base, exp, items, half_width=half_width, confidence=confidence, metrics=metric,
        pilot=pilot, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
    )  # fmt: skip
    progress.done()
    if json_out:
        import json

        print(json.dumps(report.json_safe(result), indent=2, allow_nan=False))
        return
    console = report.console()
    console.print(
        report.kv_table(
            f"Predicted {report.level(confidence)} half-width per metric",
            result["predicted_half_width"],
        )
    )
    basis = "the pilot's proportions" if pilot else "the worst case (proportions of 1/2)"
    console.print(
        f"Draw {result['pairs']:,} diff pairs and {result['stable_pairs']:,} stable pairs"
        f" (clusterscore sample ... --pairs {result['pairs']} --stable-pairs"
        f" {result['stable_pairs']}): at most {result['judgements']:,} human judgements"
        f" (self pairs need none; a pair drawn twice is judged once). Based on {basis}."
    )


def _write(
    out: Path,
    result: Comparison,
    slices: dict,
    tables: dict,
    clusters: dict,
    extra: dict | None = None,
) -> None:
    """summary.json, then one Parquet file per table, per cluster of each side, per slice."""
    out.mkdir(parents=True, exist_ok=True)
    summary = {
        "coverage": result.coverage,
        "overall": result.overall,
        "slices": {name: report.records(t) for name, t in slices.items()},
    }
    summary.update(extra or {})
    report.write_json(out / "summary.json", summary)
    for name, table in tables.items():
        report.write_parquet(out / f"{name}.parquet", table)
    for side, table in clusters.items():
        report.write_parquet(out / f"per_{side}_cluster.parquet", table)
    for name, table in slices.items():
        report.write_parquet(out / f"per_slice_{name}.parquet", table)


def main() -> None:
    """Entry point: bad input is one line on stderr and exit status 2, no traceback."""
    try:
        app(prog_name="clusterscore")  # standalone: usage errors print a message and exit 2
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)  # one line, never wrapped
    else:
        return
    # The error's traceback keeps the command's frames, and the Arrow data they hold, in
    # reference cycles: freed in the interpreter's teardown, Arrow sometimes aborted there
    # ("terminate called without an active exception", 6 runs of 600 under load) instead
    # of exiting with status 2. So they are collected now, outside the handler (inside
    # it, SystemExit would keep the traceback as its context): 0 runs of 600.
    gc.collect()
    sys.exit(2)
