"""The command line's curve over match thresholds: `clusterscore curve`."""

from __future__ import annotations

from typing import Annotated, Any

import pandas as pd
import typer

from . import _progress as progress
from . import _report as report
from ._cli_options import (
    Average,
    AverageOpt,
    ClusterColOpt,
    ClusterWeightsOpt,
    ConfidenceOpt,
    DelimiterOpt,
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
    ThreadsOpt,
    WeightColOpt,
    input_arg,
)
from ._cli_score import named_runs
from ._curve import SPLINK_COLUMNS, ThresholdCurve, threshold_curve
from ._options import ScoreOptions
from ._output import file_part
from .cli import Outputs, command, header, put, show_json, staged, wrote

# The curve's columns shown on screen (every one is in the files).
SHOWN = ["threshold", "clusters", "precision", "recall", "f1", "f1_of_means", "pair_precision",
         "pair_recall", "pair_f1"]  # fmt: skip
SHOWN_ROWS = 12


def _thresholds(given: str | None, grid: int | None) -> Any:
    if given is not None and grid is not None:
        raise ValueError("--thresholds and --grid both choose the thresholds: give one")
    if grid is not None:
        return grid
    if given is None:
        return None
    values = []
    for part in given.split(","):
        try:
            values.append(float(part))
        except ValueError:
            raise ValueError(f"--thresholds: {part.strip()!r} is not a number") from None
    return values


@command
def curve(
    truth: Annotated[str, typer.Argument(help="Ground-truth clustering: item_id, cluster_id.")],
    pairs: Annotated[
        list[str],
        typer.Argument(
            help="Scored pairs (Splink's predictions: unique_id_l, unique_id_r,"
            " match_probability), PATH or NAME=PATH; several models side by side."
        ),
    ],
    items: ItemsOpt = None,
    thresholds: Annotated[
        str | None,
        typer.Option("--thresholds", help="Thresholds to score, comma-separated (0.5,0.7,0.9)."),
    ] = None,
    grid: Annotated[
        int | None,
        typer.Option("--grid", help="Score N thresholds evenly spaced from the lowest score up."),
    ] = None,
    max_points: Annotated[
        int,
        typer.Option("--max-points", help="Without --thresholds/--grid: at most this many rows."),
    ] = 1000,
    left_col: Annotated[str, typer.Option("--left-col", help="First item of a pair.")] = (
        SPLINK_COLUMNS[0]
    ),
    right_col: Annotated[str, typer.Option("--right-col", help="Second item of a pair.")] = (
        SPLINK_COLUMNS[1]
    ),
    score_col: Annotated[str, typer.Option("--score-col", help="The pair's score.")] = (
        SPLINK_COLUMNS[2]
    ),
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
    delimiter: DelimiterOpt = None,
) -> None:
    """Score the clustering at every match threshold of PAIRS against TRUTH: the
    clustering at threshold t links every pair scored t or more (connected components;
    items the items table lists and no pair names stay alone). Prints where f1,
    f1_of_means and pair_f1 are best, with their intervals there, and the curve; --out
    writes every row."""
    staging = staged(out)
    outputs = Outputs(report_path, png, json_out)
    named = named_runs(pairs)
    # The truth and items table: paths, then as the first curve read them (read once).
    read: tuple[Any, Any] = (input_arg(truth), input_arg(items))
    chosen = _thresholds(thresholds, grid)
    options = ScoreOptions(
        truth_scope=truth_scope.value, cluster_weights=cluster_weights, resamples=resamples,
        seed=seed, confidence=confidence, item_col=item_col, cluster_col=cluster_col,
        weight_col=weight_col, average=average.value,
    )  # fmt: skip
    curves: dict[str, ThresholdCurve] = {}
    best: dict[str, pd.DataFrame] = {}
    for name, path in named.items():
        with progress.step(f"curve of {name}"):
            curves[name] = threshold_curve(read[0], path, read[1], left_col=left_col,
                                           right_col=right_col, score_col=score_col,
                                           thresholds=chosen, max_points=max_points,
                                           **options.keywords())  # fmt: skip
        with progress.step(f"intervals at the best thresholds of {name}"):
            best[name] = curves[name].best_table()
        read = curves[name].inputs
    caveat = next(iter(curves.values())).caveat
    summary = {
        **header(
            "curve",
            thresholds=chosen,
            max_points=max_points,
            left_col=left_col,
            right_col=right_col,
            score_col=score_col,
            **options.keywords(),
        ),  # fmt: skip
        "inputs": {"truth": truth, "pairs": named, "items": items},
        "models": {
            name: {
                "pairs": c.pairs,
                "distinct_scores": c.distinct_scores,
                "rows": len(c.curve),
                "best": report.json_safe(best[name].to_dict("records")),
            }  # fmt: skip
            for name, c in curves.items()
        },
        "caveat": caveat,
    }
    progress.done()
    if json_out:
        show_json({**summary, "curves": {n: c.curve.to_dict("records") for n, c in curves.items()}})
    else:
        _show(curves, best, caveat, confidence)
    outputs.write(curves)
    if staging is not None:
        with progress.step(f"writing {out}"):
            put(staging, "summary.json", summary)
            for name, c in curves.items():
                put(staging, f"curve_{file_part(name)}.parquet", _arrow(c.curve))
        wrote(json_out, f"{out}/summary.json and a Parquet curve per model")


def _arrow(df: pd.DataFrame) -> Any:
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False)


def _show(curves: dict[str, ThresholdCurve], best: dict[str, pd.DataFrame], caveat: str | None,
          confidence: float) -> None:  # fmt: skip
    rows = pd.concat([b.assign(model=name) for name, b in best.items()], ignore_index=True)
    level = report.level(confidence)
    shown: list[Any] = [
        report.frame_table(f"Best thresholds ({level} intervals there)", rows,
                           ["model", "metric", "threshold", "clusters", "value", "ci_low",
                            "ci_high"], labels=["model", "metric"], group="pointwise"),
    ]  # fmt: skip
    for name, c in curves.items():
        df = c.curve
        step = max(1, len(df) // SHOWN_ROWS)
        part = df.iloc[::step]
        if part.index[-1] != df.index[-1]:
            part = pd.concat([part, df.iloc[[-1]]])
        title = (f"{name}: {c.pairs:,} pairs, {c.distinct_scores:,} distinct scores, "
                 f"{len(df):,} rows (every row in --out)")  # fmt: skip
        shown.append(report.frame_table(title, part, SHOWN, group="pointwise"))
    if caveat:
        shown.append(caveat)
    report.print_all(report.console(), *shown)
