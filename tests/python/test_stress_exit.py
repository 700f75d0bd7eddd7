"""Every command, and a short script reading CSV through the library, run many times
beside a busy core: each must end normally, never abort at exit ("terminate called
without an active exception", "Fatal Python error"). Arrow's CSV reader once held a
Python callable that one of its worker threads released during finalization.

CLUSTERSCORE_STRESS_RUNS sets the runs per command (default 8, to keep CI short; 500
for a thorough run)."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest
from conftest import EXAMPLE

RUNS = int(os.environ.get("CLUSTERSCORE_STRESS_RUNS", "8"))
CLI = [sys.executable, "-m", "clusterscore"]
SCRIPT = """
import clusterscore as cs
e = cs.evaluate("{d}/truth.csv", "{d}/actual.csv")
print(e.overall["precision"])
"""


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    d = tmp_path_factory.mktemp("stress")
    pd.DataFrame({"item_id": [1, 2, 3, 4], "cluster_id": ["a", "a", "b", "b"]}).to_csv(
        d / "truth.csv", index=False
    )
    pd.DataFrame({"item_id": [1, 2, 3, 4], "cluster_id": ["x", "y", "y", "y"]}).to_csv(
        d / "actual.csv", index=False
    )
    t, a, items = (str(EXAMPLE / f) for f in ("truth.csv", "actual.csv", "items.csv"))
    sample = d / "s.csv"
    subprocess.run([*CLI, "sample", t, a, "--pairs", "50", "--seed", "1", "--out", sample],
                   check=True, capture_output=True)  # fmt: skip
    raters = pd.read_csv(d / "s.raters.csv")
    raters.assign(verdict="same").to_csv(d / "v.csv", index=False)
    return {
        "script": [sys.executable, "-c", SCRIPT.format(d=d)],
        "evaluate": [*CLI, "evaluate", t, a, "--items", items, "--slice", "country"],
        "compare": [*CLI, "compare", t, a, a, "--resamples", "50"],
        "diff": [*CLI, "diff", t, a, "--items", items],
        "sample": [*CLI, "sample", t, a, "--pairs", "50", "--seed", "2", "--out", d / "o.csv"],
        "estimate": [*CLI, "estimate", sample, "--verdicts", d / "v.csv"],
        "plan": [*CLI, "plan", t, a, "--half-width", "0.05"],
    }


@pytest.fixture
def busy_core():
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    yield
    spin.kill()
    spin.wait()


@pytest.mark.parametrize(
    "name", ["script", "evaluate", "compare", "diff", "sample", "estimate", "plan"]
)
def test_no_abnormal_exit(commands, busy_core, name):
    def once(i):
        command = list(commands[name])
        if name == "sample":  # one writer per output: each run its own file
            command[-1] = command[-1].with_name(f"o{i}.csv")
        return subprocess.run(command, capture_output=True, text=True)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(once, range(RUNS)))
    bad = [r for r in results if r.returncode != 0 or "Fatal" in r.stderr
           or "terminate called" in r.stderr]  # fmt: skip
    assert not bad, f"{len(bad)} of {RUNS}: {bad[0].returncode} {bad[0].stderr[-300:]}"
