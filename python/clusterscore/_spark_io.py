"""The Spark engine's reading: the inputs' schemas and rows checked in Spark, every input's
rows gathered by item and grouped into units, Arrow batches brought to the driver, and the
command line's session and files."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _two_clusterings

# Internal column names: never a user's column (slices keep their own names).
_ITEM, _WEIGHT, _ROW = "__cs_item", "__cs_weight", "__cs_row"
_COUNT, _WEIGHT_SQ = "__cs_count", "__cs_weight_sq"
_BAD, _SRC = "__cs_bad", "__cs_src"
_INTEGER_TYPES = {"tinyint", "smallint", "int", "bigint"}


def _functions() -> Any:
    try:
        from pyspark.sql import functions
    except ImportError:
        raise ImportError(
            "clusterscore.spark needs pyspark: pip install 'clusterscore[spark]'"
        ) from None
    return functions


def _require_frame(df: Any, role: str) -> None:
    if not (hasattr(df, "sparkSession") and hasattr(df, "groupBy")):
        raise ValueError(
            f"{role}: clusterscore.spark takes Spark DataFrames, not {type(df).__name__}"
        )


def _require_columns(df: Any, role: str, columns: Sequence[str]) -> None:
    for c in columns:
        if c not in df.columns:
            raise ValueError(f"{role}: no column {c!r} (columns: {', '.join(df.columns)})")


def _kind(df: Any, role: str, column: str) -> str:
    """'integer' or 'string': the kinds of id the core joins on."""
    t = dict(df.dtypes)[column]
    if t in _INTEGER_TYPES:
        return "integer"
    if t == "string":
        return "string"
    raise ValueError(f"{role}: column {column!r} holds {t}; ids must be integers or text")


def _first(df: Any) -> Any:
    rows = df.limit(1).collect()
    return rows[0] if rows else None


def _check_schemas(
    clusterings: Mapping[str, Any], items: Any, item_col: str, cluster_col: str, weight_col: str
) -> bool:
    """Checks what the inputs' schemas say (no Spark job): DataFrames, their columns, ids of
    one kind. Returns whether the items table has weights."""
    kinds = set()
    for role, df in clusterings.items():
        _require_frame(df, role)
        _require_columns(df, role, [item_col, cluster_col])
        kinds.add(_kind(df, role, item_col))
    weighted = False
    if items is not None:
        _require_frame(items, "items")
        _require_columns(items, "items", [item_col])
        kinds.add(_kind(items, "items", item_col))
        weighted = weight_col in items.columns
        if not weighted and weight_col != "weight":  # only the default may be absent
            _require_columns(items, "items", [weight_col])
    if len(kinds) > 1:
        raise ValueError("item ids must be all integers or all strings in every input")
    return weighted


def _bad_weight(w: Any) -> Any:
    """Whether a weight (a double column) is not a finite number > 0: the core's rule
    (src/detail/weight.h) as a Spark expression, since the rows never leave Spark to be
    checked (Spark's NaN compares above every number, so it is asked for by name)."""
    F = _functions()
    return w.isNull() | F.isnan(w) | (w <= 0) | (w == math.inf)


def _input_rows(
    clusterings: Mapping[str, Any], items: Any, item_col: str, cluster_col: str,
    weight_col: str, weighted: bool, slices: Sequence[str], cluster_cols: Sequence[str],
) -> Any:  # fmt: skip
    """Every input's rows in one DataFrame: the item id, the input's number (`_SRC`: the
    clusterings in order, then the items table), clustering k's cluster in cluster_cols[k],
    and the items table's weight (as a double) and slice columns; null where the row's
    input has no such column."""
    F = _functions()
    parts = [
        df.select(F.col(item_col).alias(_ITEM), F.lit(k).alias(_SRC),
                  F.col(cluster_col).alias(cluster_cols[k]))
        for k, df in enumerate(clusterings.values())
    ]  # fmt: skip
    if items is not None:
        cols = [F.col(item_col).alias(_ITEM), F.lit(len(cluster_cols)).alias(_SRC)]
        if weighted:
            cols.append(F.col(weight_col).cast("double").alias(_WEIGHT))
        parts.append(items.select(*cols, *[F.col(c) for c in slices]))
    rows = functools.reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), parts)
    if _WEIGHT not in rows.columns:
        rows = rows.withColumn(_WEIGHT, F.lit(None).cast("double"))
    return rows


def _check_rows(
    rows: Any, clusterings: Mapping[str, Any], items: Any, item_col: str, cluster_col: str,
    weight_col: str, weighted: bool, cluster_cols: Sequence[str],
) -> None:  # fmt: skip
    """Names an item without an id or a cluster, listed twice, or with a weight that is not
    a finite number > 0, in the inputs' `rows` (_input_rows)."""
    F = _functions()
    roles = [*clusterings, "items"]
    src = F.col(_SRC)
    bad = functools.reduce(
        lambda a, b: a | b,
        [(src == k) & F.col(c).isNull() for k, c in enumerate(cluster_cols)],
        (src == len(cluster_cols)) & (_bad_weight(F.col(_WEIGHT)) if weighted else F.lit(False)),
    )
    found = _first(
        rows.groupBy(_SRC, _ITEM)
        .agg(F.count(F.lit(1)).alias("n"), F.max(bad.cast("int")).alias("bad"))
        .where(F.col(_ITEM).isNull() | (F.col("n") > 1) | (F.col("bad") == 1))
    )
    if found is None:
        return
    role, item = roles[found[_SRC]], found[_ITEM]
    df = items if role == "items" else clusterings[role]
    if item is None:
        raise ValueError(f"{role}: missing value in column {item_col!r}")
    if found["n"] > 1:
        raise ValueError(f"{role}: item {item!r} appears {found['n']} times")
    if role != "items":
        raise ValueError(f"{role}: missing value in column {cluster_col!r} (item {item!r})")
    value = _first(df.where(F.col(item_col) == item))[weight_col]
    raise ValueError(f"items: weight {value!r} of item {item!r} is not a finite number > 0")


def _by_item(rows: Any, weighted: bool, slices: Sequence[str], cluster_cols: Sequence[str]) -> Any:
    """The inputs' `rows` (_input_rows) gathered by item id in one shuffle (where joins
    would shuffle every input again): per item its cluster in each clustering (null where
    it is not listed), its weight, slice values and items-table rows, and whether an input
    lists it wrongly (twice, without a cluster, without an id, with a weight that is not a
    finite number > 0)."""
    F = _functions()
    src = F.col(_SRC)
    table = len(cluster_cols)  # the items table's source number
    aggs = []
    for k, col in enumerate(cluster_cols):
        listed = F.sum((src == k).cast("int"))
        aggs.append(F.max(col).alias(col))  # its one cluster, if listed once
        aggs.append(((listed > 1) | (listed > F.count(col))).alias(f"__cs_bad{k}"))
    w = F.col(_WEIGHT)
    aggs += [
        F.sum((src == table).cast("int")).alias(_ROW),
        F.max((src == table) & (_bad_weight(w) if weighted else F.lit(False))).alias(
            "__cs_bad_weight"
        ),
        F.max(w).alias(_WEIGHT),
        *[F.max(c).alias(c) for c in slices],
    ]
    by_item = rows.groupBy(_ITEM).agg(*aggs)
    flags = [F.col(f"__cs_bad{k}") for k in range(len(cluster_cols))]
    flags += [F.col(_ROW) > 1, F.coalesce(F.col("__cs_bad_weight"), F.lit(False))]
    bad = functools.reduce(lambda a, b: a | b, flags, F.col(_ITEM).isNull())
    return by_item.select(_ITEM, *cluster_cols, _ROW, _WEIGHT, *slices, bad.alias(_BAD))


def _unused_id(ids: Any) -> Any:
    """An id of the type of `ids` (integers or text) that is not among them."""
    if pa.types.is_integer(ids.type):
        top, low = pc.max(ids).as_py(), pc.min(ids).as_py()
        if top is None:
            return 0
        # Every value of the type cannot be held: one end or the other is free.
        return top + 1 if top < np.iinfo(ids.type.to_pandas_dtype()).max else low - 1
    name = "(clusters without truth items)"
    # Compared where the ids are (millions of them, as a diff's affected cells can hold):
    # no Python set of them.
    while pc.any(pc.equal(ids, pa.scalar(name, ids.type))).as_py():
        name += "'"
    return name


# Spark's setting for the engine's own jobs: an aggregation straight after the shuffle,
# without a partial one before it. Grouping the inputs' rows by item reduces nothing before
# the shuffle (an item's rows come from different inputs), and the partial aggregation's
# hash tables cost a third of the job (30 s against 19 s at 1e7 items, 1 GiB of driver
# memory). Spark versions without the setting ignore it.
_BYPASS_PARTIAL = "spark.sql.execution.bypassPartialAggregation"


def kept(df: Any) -> Any:
    """`df` cached for the engine's later jobs, on the workers' disks only: the operating
    system's page cache keeps recently written blocks in memory anyway, and the JVM's heap
    (in local mode shared by the executors and the driver) is not spent on them. With
    memory then disk, 1e8 items did not finish on local[2] with 1 GiB (the heap ran out
    reading a cached block back into memory); on disk only it did, and at 1e7 it was no
    slower (docs/performance.md)."""
    from pyspark import StorageLevel

    return df.persist(StorageLevel.DISK_ONLY)


# And adaptive execution's coalescing of small partitions inside the plans the engine
# caches (the units, their per-unit sums), as in every other plan: by default a cached
# plan keeps spark.sql.shuffle.partitions (200), and each later job read it in 200 tasks.
# `diff` at 1e6 on local[2] with Spark's defaults, in one process each, the per-item table
# written after: 90.0 s and 17.4 s without, 15.5 s and 8.6 s with.
_CACHED_COALESCED = "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning"
_ENGINE_SETTINGS = {_BYPASS_PARTIAL: "true", _CACHED_COALESCED: "true"}


@contextlib.contextmanager
def engine_jobs(session: Any) -> Iterator[None]:
    """Runs the engine's jobs with its settings, the session's own restored after."""
    before = {k: session.conf.get(k, None) for k in _ENGINE_SETTINGS}
    for k, v in _ENGINE_SETTINGS.items():
        session.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                session.conf.unset(k)
            else:
                session.conf.set(k, v)


def _to_arrow(df: Any) -> pa.Table:
    return df.toArrow() if hasattr(df, "toArrow") else pa.Table.from_pandas(df.toPandas())


# Rows per partition when a table comes to the driver a partition at a time: a partition's
# result passes through the driver's block manager whole, and results of a few hundred MB
# (1e6 per-item rows in two partitions, as Spark's adaptive execution coalesced them) were
# lost there under the default 1 GiB of driver memory.
_ROWS_PER_PARTITION = 1 << 17


def _arrow_batches(df: Any, rows: int, total: int, order: Sequence[Any] = ()) -> Any:
    """The `total` rows (or at most `total`) of `df` on the driver as Arrow batches of at
    most `rows` rows, one partition at a time, in `order` (sort columns or expressions;
    none: in no order). Each partition's Arrow batches travel as Arrow IPC bytes in rows
    of their own, and toLocalIterator() runs one job per partition, so that neither the
    driver nor a worker holds the whole table. Checks `rows` at once, as in-process."""
    _two_clusterings.check_batch_rows(rows)
    parts = max(1, -(-total // _ROWS_PER_PARTITION))
    # Ranges of the order, each sorted, come partition after partition: the whole order.
    df = df.repartitionByRange(parts, *order).sortWithinPartitions(*order) if order else (
        df.repartition(parts)
    )  # fmt: skip

    def to_ipc(batches: Any) -> Any:
        for batch in batches:
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, batch.schema) as writer:
                writer.write_batch(batch)
            yield pa.record_batch([pa.array([sink.getvalue().to_pybytes()], pa.binary())],
                                  names=["ipc"])  # fmt: skip

    def batches() -> Any:
        for row in df.mapInArrow(to_ipc, "ipc binary").toLocalIterator():
            yield from pa.ipc.open_stream(pa.py_buffer(row.ipc))

    return _rechunked(batches(), rows)


def _rechunked(batches: Iterable[pa.RecordBatch], rows: int) -> Iterator[pa.RecordBatch]:
    """`batches` as batches of `rows` rows each but the last: a file written from them
    has row groups of `rows`, whatever sizes Spark's partitions gave."""
    held: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        held.append(batch)
        count += batch.num_rows
        if count >= rows:  # whole batches of `rows` out; the rest waits for more
            table = pa.Table.from_batches(held).combine_chunks()
            whole = count - count % rows
            yield from table.slice(0, whole).to_batches(max_chunksize=rows)
            held = table.slice(whole).to_batches()
            count -= whole
    if count:
        yield from pa.Table.from_batches(held).combine_chunks().to_batches(max_chunksize=rows)


def driver_reads_workers_files(session: Any) -> bool:
    """Whether files Spark's workers write are files the driver can read: a local
    master's workers are the driver's own process."""
    return str(session.sparkContext.master).startswith("local")


def _written_batches(df: Any, rows: int) -> Iterator[pa.RecordBatch]:
    """`df`'s rows (in no order) on the driver as Arrow batches of `rows` rows but the
    last, written by Spark's own writer into a temporary folder that the driver reads back
    a file at a time and removes at the end (or when the batches are abandoned): no
    task's result passes through the driver's JVM, whose 1 GiB ran out fetching a
    per-item table of 1e7 rows a partition at a time. Only where
    driver_reads_workers_files(). Checks `rows` at once, as in-process."""
    import shutil
    import tempfile

    import pyarrow.parquet as pq

    _two_clusterings.check_batch_rows(rows)

    def read(folder: Path) -> Iterator[pa.RecordBatch]:
        for part in sorted(folder.glob("part-*.parquet")):
            for batch in pq.ParquetFile(part).iter_batches(batch_size=rows):
                yield batch.replace_schema_metadata(None)  # Spark's, not the table's

    def batches() -> Iterator[pa.RecordBatch]:
        folder = Path(tempfile.mkdtemp(prefix="clusterscore-rows-"))
        try:
            df.write.mode("overwrite").parquet(str(folder / "rows"))
            yield from _rechunked(read(folder / "rows"), rows)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return batches()


def session(master: str | None = None, verbose: bool = False) -> Any:
    """The Spark session the command line runs on: `master` (e.g. local[4],
    spark://host:7077, yarn), else the one spark-submit gives, else local[*]. Quiet unless
    `verbose` (the command line's -v): then Spark's own log (warnings and errors) and the
    JVM's start-up notices go to stderr."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ImportError(
            "--engine spark needs pyspark: pip install 'clusterscore[spark]'"
        ) from None
    # pyspark warns on every pandas conversion that it has not been tested with pandas 3;
    # clusterscore's tests run it with the pandas installed.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    # Local workers run this interpreter, which has clusterscore; a cluster's are set up by
    # its own configuration (docs/spark.md).
    if master is None or master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Quiet: the terminal shows clusterscore's own progress, tables and one-line errors.
    # Spark's log is off from the JVM's start (its configuration file, not a level set
    # once the default profile has printed its banner).
    config = resources.files("clusterscore") / "spark_log4j2.properties"
    builder = SparkSession.builder.appName("clusterscore").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if master is not None:
        builder = builder.master(master)
    if verbose:
        return builder.config("spark.log.level", "WARN").getOrCreate()
    builder = builder.config("spark.log.level", "OFF").config(
        "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{config}"
    )
    import tempfile

    # The JVM's start-up notices (an incubator module in use, the host's address) are not
    # clusterscore's to show: its standard error goes to a file, which the JVM keeps as
    # its own, and which is shown if the start fails.
    with tempfile.NamedTemporaryFile(prefix="clusterscore-spark-", delete=False) as f:
        log = Path(f.name)
    try:
        with _stderr_to(log):
            spark = builder.getOrCreate()
    except Exception:
        sys.stderr.write(log.read_text(errors="replace")[-4000:])
        raise
    finally:
        log.unlink(missing_ok=True)  # the JVM writes on to it, unnamed
    _quiet_query_context_logs()
    return spark


def _quiet_query_context_logs() -> None:
    """pyspark logs an analysis error's query context as a JSON line on stderr beside the
    exception it raises; the command line says each failure in one line of its own."""
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # pyspark before 4.0 logs no query context
        return
    # Made through PySparkLogger, the class pyspark calls them with (its keyword fields).
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """File descriptor 2 (what a child process inherits) in `path` meanwhile."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(path, "wb") as sink:
            os.dup2(sink.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def active_session() -> Any:
    """The Spark session already running in this process (the command line's, started on
    its --spark-master), or None (also without pyspark: session() then says how to get it)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return None
    return SparkSession.getActiveSession()


_PARQUET = {".parquet", ".pq"}
_TAB = {".tsv", ".tab"}


def require_exists(path: str | None) -> None:
    """A local path (no scheme) that names nothing is an error; a URL is Spark's to read."""
    import os

    if path is not None and "://" not in str(path) and not os.path.exists(path):
        raise ValueError(f"{path}: no such file or folder")


def read(spark: Any, path: str | None, text_columns: Sequence[str] = ()) -> Any:
    """A CSV, TSV or Parquet file, or a folder of them, as a Spark DataFrame (None for
    None). CSV and TSV have a header; as the in-process reader does, `text_columns` (the
    ids) are read as text, so that ids like '007' stay exact, and other types are
    inferred."""
    if path is None:
        return None
    import os
    from pathlib import PurePath

    require_exists(path)
    local = "://" not in path
    if local and os.path.isdir(path):
        names = [n for n in os.listdir(path) if not n.startswith((".", "_"))]
        kind = ".parquet" if any(PurePath(n).suffix in _PARQUET for n in names) else ".csv"
    else:
        suffixes = [s.lower() for s in PurePath(path).suffixes]
        kind = next((s for s in reversed(suffixes) if s in {*_PARQUET, *_TAB, ".csv"}), "")
        if not kind:
            raise ValueError(f"{path}: not a .csv, .tsv or .parquet file")
    if kind in _PARQUET:
        return spark.read.parquet(path)
    sep = "\t" if kind in _TAB else ","
    from pyspark.sql.types import StringType, StructField, StructType

    inferred = spark.read.csv(path, header=True, inferSchema=True, sep=sep).schema
    schema = StructType(
        [StructField(f.name, StringType()) if f.name in text_columns else f for f in inferred]
    )
    return spark.read.csv(path, header=True, schema=schema, sep=sep)
