import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"


@pytest.fixture
def figure2():
    """docs/metrics.md's worked example."""
    truth = {"i1": "T1", "i2": "T1", "i3": "T2"}
    actual = {"i1": "A1", "i3": "A1", "i2": "A2"}
    weights = {"i1": 1.0, "i2": 2.0, "i3": 3.0}
    return truth, actual, weights


def random_clustering(rng: np.random.Generator, items: list, shape: str) -> dict:
    """Random clusterings of many shapes: power-law, singletons, one giant cluster."""
    n = len(items)
    if shape == "singletons":
        labels = np.arange(n)
    elif shape == "giant":
        labels = np.zeros(n, dtype=int)
    elif shape == "few":
        labels = rng.integers(0, 3, n)
    else:
        labels = rng.integers(0, max(1, n // int(rng.integers(1, 6))), n)
    return {i: int(c) for i, c in zip(items, labels, strict=True)}


SHAPES = ["powerlaw", "singletons", "giant", "few"]


@pytest.fixture
def run_cli():
    """Runs the installed `clusterscore` command the way a user would."""
    import subprocess

    def run(*args, **kw):
        cmd = [sys.executable, "-m", "clusterscore", *map(str, args)]
        return subprocess.run(cmd, capture_output=True, text=True, **kw)

    return run


@pytest.fixture(scope="session")
def spark():
    """A local Spark session on two cores (pyspark and Java come with the test set-up)."""
    import os

    from pyspark.sql import SparkSession

    # Workers run this interpreter, which has clusterscore (the core runs in mapInArrow).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("clusterscore-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
