"""The command line's truth-sample commands: draw-truth, truth-from-labels."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import _progress as progress
from . import _report as report
from . import _sheets as sheets
from ._cli_options import (
    ClusterColOpt,
    DelimiterOpt,
    ItemColOpt,
    JsonOpt,
    QuietOpt,
    ThreadsOpt,
    input_arg,
)
from ._truth_labels import truth_from_labels as labels_to_truth
from ._truth_sample import MOST_PER_GROUP, draw_truth_sample
from .cli import _after_commit, _stage, command, header, show_json

_SAMPLE_FILES = ("sample.json", "candidates.parquet", "records.parquet")


@command
def draw_truth(
    actual: Annotated[str, typer.Argument(help="The clustering to score: item_id, cluster_id.")],
    other_runs: Annotated[
        list[str] | None,
        typer.Argument(help="Other clusterings whose clusters also give candidates."),
    ] = None,
    records: Annotated[
        int,
        typer.Option(
            "--records", help="Seed records to draw, or expect (each one entity to label).", min=1
        ),
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Random seed: same seed, same draw.")] = 0,
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the sample (truth-from-labels reads it).")
    ] = Path("truth-sample"),
    page: Annotated[
        Path | None, typer.Option("--page", help="Also write the labelling page (HTML).")
    ] = None,
    items: Annotated[
        str | None,
        typer.Option("--items", help="Items table: item_id and the attributes labellers see."),
    ] = None,
    block_col: Annotated[
        str | None,
        typer.Option(
            "--block-col", help="A column of --items: records sharing its value are candidates."
        ),
    ] = None,
    by_cluster_size: Annotated[
        bool,
        typer.Option(
            "--by-cluster-size",
            help="Draw each record at a chance in proportion to its actual cluster's size"
            " (--records expected): for honest pair-metric intervals.",
        ),
    ] = False,
    weight_col: Annotated[
        str | None,
        typer.Option("--weight-col", help="A column of --items to draw records in proportion to."),
    ] = None,
    most_per_group: Annotated[
        int,
        typer.Option(
            "--most-per-group",
            help="A cluster or blocking value with more records adds no candidates.",
            min=1,
        ),
    ] = MOST_PER_GROUP,
    item_col: ItemColOpt = "item_id",
    cluster_col: ClusterColOpt = "cluster_id",
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    threads: ThreadsOpt = None,
    delimiter: DelimiterOpt = None,
) -> None:
    """Draw seed records to label, uniformly without replacement (or in proportion to the
    actual cluster's size or a weight column), and gather each one's candidates: the
    records any given clustering puts with it, and those sharing the blocking column's
    value. Label each seed's whole entity (--page writes the labelling
    page), then `truth-from-labels` gives the truth and its design weights 1/π for
    `evaluate --truth-scope entities --cluster-weights`."""
    folder = _stage().folder(out, _SAMPLE_FILES)
    page_tmp = None if page is None else _stage().file(page)
    with progress.step(f"drawing {records:,} seed records"):
        s = draw_truth_sample(input_arg(actual), [input_arg(r) for r in other_runs or []],
                              input_arg(items), records=records, seed=seed,
                              block_col=block_col, by_cluster_size=by_cluster_size,
                              weight_col=weight_col, item_col=item_col, cluster_col=cluster_col,
                              most_per_group=most_per_group)  # fmt: skip
    with progress.step(f"writing {out}"):
        s.save(folder)
        if page_tmp is not None:
            s.page(page_tmp, name=out.name)
    progress.done()
    m = s.meta
    shown = {"seed records": len(s.seeds), "of records": m["records"], "design": m["design"],
             "candidates": len(s.candidates), "groups too large": m["groups_too_large"],
             "seed": str(seed)}  # fmt: skip
    written = [str(out)] + ([] if page is None else [str(page)])
    if json_out:
        options = dict(records=records, seed=seed, block_col=block_col,
                       by_cluster_size=by_cluster_size, weight_col=weight_col,
                       most_per_group=most_per_group)  # fmt: skip
        show_json({**header("draw-truth", **options), **shown, "written": written})
        return
    console = report.console()
    console.print(report.kv_table("Truth sample", shown))
    if m["groups_too_large"]:
        console.print(f"{m['groups_too_large']:,} clusters or blocking values hold more than"
                      f" {most_per_group:,} records: they gave no candidates (labellers add"
                      " records by id)")  # fmt: skip
    _after_commit.append(lambda: console.print(f"wrote {' and '.join(written)}"))


@command
def truth_from_labels(
    labels: Annotated[
        list[Path], typer.Argument(help="Labels exported by the labelling page (one or more).")
    ],
    sample: Annotated[Path, typer.Option("--sample", help="The folder draw-truth wrote.")],
    out: Annotated[Path, typer.Option("--out", help="Truth to write: item_id, cluster_id.")],
    weights: Annotated[
        Path, typer.Option("--weights", help="Design weights to write: cluster_id, weight (1/π).")
    ],
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Turn the labels into a truth of complete entities (each seed with every record
    labelled its entity) and each entity's design weight 1/π, which `evaluate --truth-scope
    entities --cluster-weights` reads as they are."""
    result = labels_to_truth([str(p) for p in labels], sample)
    truth_tmp, weights_tmp = _stage().file(out), _stage().file(weights)
    import pyarrow as pa

    sheets.write(pa.Table.from_pandas(result.truth, preserve_index=False), truth_tmp,
                 every_column=False)  # fmt: skip
    sheets.write(pa.Table.from_pandas(result.weights, preserve_index=False), weights_tmp,
                 every_column=False)  # fmt: skip
    progress.done()
    shown = {"entities": len(result.weights), "records": len(result.truth)}
    if json_out:
        show_json({**header("truth-from-labels"), **shown, "written": [str(out), str(weights)]})
        return
    console = report.console()
    console.print(report.kv_table("Truth from labels", shown))
    _after_commit.append(lambda: console.print(f"wrote {out} and {weights}"))
