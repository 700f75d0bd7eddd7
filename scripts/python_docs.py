"""Writes docs/python.md, the Python API reference, from the package's docstrings.

python scripts/python_docs.py            # rewrite docs/python.md
python scripts/python_docs.py --check    # exit 1 if docs/python.md is out of date
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import clusterscore
import clusterscore.metrics
import clusterscore.spark

OUT = Path(__file__).resolve().parent.parent / "docs" / "python.md"

INTRO = """# Python API

Generated from the docstrings by `python scripts/python_docs.py`; a test keeps it in step.
Inputs: a clustering is a path or URI (CSV, TSV, Parquet, a folder of Parquet files,
`s3://`, `gs://`, `hdfs://`, `file://`), a pandas or polars DataFrame (a polars LazyFrame
is collected), a pandas Series (index = item id, values = cluster id), a pyarrow Table,
RecordBatch, RecordBatchReader or Dataset, a DuckDB relation or any object with
`__arrow_c_stream__`, or a dict `{item: cluster}`. Bad input raises `ValueError` with one
line naming the input, the row and the value. The metrics are defined in
[metrics.md](metrics.md).
"""


def _doc(obj: object) -> str:
    return inspect.cleandoc(inspect.getdoc(obj) or "")


def _signature(name: str, obj: object) -> str:
    try:
        return f"{name}{inspect.signature(obj)}"  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return name


def _members(cls: type, only_from: str | None) -> list[str]:
    """The public members of `cls`; with `only_from`, those its classes from that module
    define (a subclass of an in-process result lists what it changes; the rest is
    documented with its base)."""
    own = [k for k in cls.__mro__ if only_from is None or k.__module__ == only_from]
    lines = []
    for name in sorted(dir(cls)):
        if name.startswith("_") or not any(name in vars(k) for k in own):
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, property) or hasattr(attr, "func"):  # properties, cached ones
            target = attr.fget if isinstance(attr, property) else attr.func
            lines += [f"#### `{cls.__name__}.{name}`", "", _doc(target), ""]
        elif inspect.isfunction(attr):
            lines += [f"#### `{cls.__name__}.{_signature(name, attr)}`", "", _doc(attr), ""]
    return lines


def _section(
    title: str, module: object, names: list[str], prefix: str, only_from: str | None = None
) -> list[str]:
    lines = [f"## {title}", ""]
    for name in names:
        obj = getattr(module, name)
        if inspect.isclass(obj):
            lines += [f"### class `{prefix}{name}`", "", _doc(obj), ""]
            lines += _members(obj, only_from)
        else:
            lines += [f"### `{prefix}{_signature(name, obj)}`", "", _doc(obj), ""]
    return lines


def render() -> str:
    top = clusterscore.__all__
    functions = [n for n in top if not inspect.isclass(getattr(clusterscore, n))]
    classes = [n for n in top if inspect.isclass(getattr(clusterscore, n))]
    lines = [INTRO]
    lines += _section("Functions", clusterscore, functions, "cs.")
    lines += _section("Results", clusterscore, classes, "cs.")
    lines += _section(
        "Classic metrics (`clusterscore.metrics`)",
        clusterscore.metrics,
        list(clusterscore.metrics.__all__),
        "M.",
    )
    spark = clusterscore.spark
    lines += _section(
        "Spark engine (`clusterscore.spark`, see [spark.md](spark.md))",
        spark,
        [n for n in spark.__all__ if not inspect.isclass(getattr(spark, n))]
        + [n for n in spark.__all__ if inspect.isclass(getattr(spark, n))],
        "css.",
        only_from=spark.__name__,
    )
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python scripts/python_docs.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
