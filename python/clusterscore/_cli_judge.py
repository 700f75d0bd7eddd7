"""The command line's judging commands: sample, estimate, plan."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Annotated

import typer

from . import _progress as progress
from . import _report as report
from ._cli_options import (
    ClusterColOpt,
    ConfidenceOpt,
    DelimiterOpt,
    Engine,
    EngineOpt,
    ItemColOpt,
    JsonOpt,
    JudgeItemsOpt,
    PngOpt,
    QuietOpt,
    ReportOpt,
    SparkMasterOpt,
    ThreadsOpt,
    VerboseOpt,
    WeightColOpt,
    input_arg,
    spark_reader,
)
from ._diff import diff as diff_on
from ._plan import plan_pairs
from ._sample import continued, load_sample, sample_from_diff
from ._sample import estimate as estimate_pairs
from .cli import (
    Outputs,
    _after_commit,
    _stage,
    command,
    header,
    inputs,
    show_json,
)


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
    page: Annotated[
        Path | None,
        typer.Option(
            "--page",
            help="Also write the judging page (HTML): one pair at a time, verdicts kept in the"
            " browser and exported per rater.",
        ),
    ] = None,
    items: JudgeItemsOpt = None,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    delimiter: DelimiterOpt = None,
    engine: EngineOpt = Engine.local,
    spark_master: SparkMasterOpt = None,
    verbose: VerboseOpt = False,
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
    if page is not None:
        written.append(page)
    tmp = [_stage().file(p) for p in written]
    columns = dict(item_col=item_col, cluster_col=cluster_col, weight_col=weight_col)
    read = spark_reader(
        engine, spark_master, (item_col, cluster_col), [base, exp, items],
        weight_col, verbose,
    )  # fmt: skip
    d = diff_on(
        read(base), read(exp), read(items, items=True), engine=engine.value, slices=[], **columns
    )
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
        s.save(tmp[0], meta_path=tmp[2] if out.suffix.lower() == ".csv" else None)
        shown_raters = s.save_for_raters(tmp[1], since=previous)
        if page is not None:
            s.page(tmp[-1], since=previous, name=out.stem)
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
        "written": [str(p) for p in written],
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
    names = ", ".join(map(str, written[:-1])) + f" and {written[-1]}"
    _after_commit.append(lambda: console.print(f"wrote {names}"))


@command
def page(
    sample_file: Annotated[Path, typer.Argument(help="Sample written by `clusterscore sample`.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="The page to write (default: the sample's name, .html)."),
    ] = None,
    since: Annotated[
        Path | None,
        typer.Option(
            "--since", help="The sample this one continues: only the pairs new in this round."
        ),
    ] = None,
    quiet: QuietOpt = False,
) -> None:
    """Write the judging page of a sample: one self-contained HTML file that shows raters one
    pair at a time (blind to its kind and to the clusterings), keeps their verdicts in the
    browser as they are given, and exports each rater's verdicts as a file that `estimate`
    reads. Replicated pairs' second copies wait for another rater."""
    s = load_sample(sample_file)
    previous = None if since is None else load_sample(since)
    target = out if out is not None else sample_file.with_suffix(".html")
    with progress.step(f"writing {target}"):
        s.page(_stage().file(target), since=previous, name=sample_file.stem)
    progress.done()
    _after_commit.append(lambda: print(f"wrote {target}"))


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
    delimiter: DelimiterOpt = None,
) -> None:
    """Estimate how good the difference is from judged pairs: good and bad split and merge
    distances, affected good/bad index, delta precision and ABCDE rates, each with a standard
    error and a 95% confidence interval, and how often the raters disagreed on pairs judged
    twice."""
    outputs = Outputs(report_path, png, json_out)
    s = load_sample(sample_file)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = estimate_pairs(s, list(verdicts))
    progress.done()
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if json_out:
        # The envelope every command's JSON opens with, then the estimates by metric.
        show_json({**header("estimate"), "sample": str(sample_file), **result,
                   "raters": result.raters})  # fmt: skip
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
    items: JudgeItemsOpt = None,
    json_out: JsonOpt = False,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    weight_col: WeightColOpt = "weight",
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    delimiter: DelimiterOpt = None,
) -> None:
    """How many pairs to draw (`clusterscore sample --pairs N --stable-pairs M`) and judge so
    that each metric's interval half-width is at most H: from the diff's exact multipliers
    and the worst-case proportions, or those of a judged pilot sample (and then how many
    more draws each stratum of a stratified pilot needs: `sample --continue`)."""
    if (pilot_sample is None) != (pilot_verdicts is None):
        raise ValueError("--pilot-sample and --pilot-verdicts go together")
    pilot = None if pilot_sample is None else (str(pilot_sample), list(pilot_verdicts or []))
    result = plan_pairs(
        input_arg(base), input_arg(exp), input_arg(items), half_width=half_width,
        confidence=confidence, metrics=metric, pilot=pilot, item_col=item_col,
        cluster_col=cluster_col, weight_col=weight_col,
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
