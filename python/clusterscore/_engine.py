"""Which engine runs a call. `evaluate`, `compare`, `diff` and `sample_pairs` take
`engine=`: "local" reads the inputs and computes in this process; "spark" has Spark read,
join and group the items and hands the groups to the same core (clusterscore.spark).
Unset, the inputs choose: Spark DataFrames go to Spark, anything else stays local."""

from __future__ import annotations

import os
from typing import Any

ENGINES = ("local", "spark")


def is_spark_frame(value: Any) -> bool:
    """Whether `value` is a Spark DataFrame (asked by its type's name: pyspark is optional
    and slow to import)."""
    kind = type(value)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pyspark.sql")


def on_spark(engine: str | None, *inputs: Any) -> bool:
    """Whether the call runs on Spark: asked for by name, or given Spark DataFrames.
    Raises ValueError for an unknown engine, or Spark DataFrames with engine="local"."""
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    frames = any(is_spark_frame(x) for x in inputs)
    if engine == "local" and frames:
        raise ValueError("engine='local' cannot read Spark DataFrames: use engine='spark'")
    return engine == "spark" or frames


def spark_inputs(ids: list[str], *inputs: Any) -> list[Any]:
    """The inputs as Spark DataFrames: a path (or URI) read by the active Spark session
    (started if there is none), its `ids` columns as text; a DataFrame as it is; None
    stays None. Anything else is a ValueError naming what Spark cannot take."""
    from . import _spark_io as spark

    session = None
    out = []
    for value in inputs:
        if value is None or is_spark_frame(value):
            out.append(value)
            continue
        if not isinstance(value, (str, os.PathLike)):
            raise ValueError(
                f"engine='spark' takes Spark DataFrames or paths, not {type(value).__name__}"
            )
        spark.require_exists(str(value))
        session = session or spark.active_session() or spark.session()
        out.append(spark.read(session, str(value), ids))
    return out
