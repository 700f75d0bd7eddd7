"""Gates for pipelines: compare --fail-if-worse exits 1 only when a later run is
significantly worse than the first (not when it is worse within the noise, nor better);
evaluate --require exits 1 only when the interval lies wholly beyond the bound; the
outputs are written either way; bad gates are one line with exit status 2."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import EXAMPLE

TRUTH, ACTUAL, V2 = (str(EXAMPLE / f) for f in ("truth.csv", "actual.csv", "actual_v2.csv"))


@pytest.fixture(scope="module")
def slightly_worse(tmp_path_factory) -> str:
    """actual.csv with one truth item moved into another truth entity's cluster: worse, by
    a hair."""
    d = tmp_path_factory.mktemp("gates")
    actual = pd.read_csv(ACTUAL, dtype=str)
    truth = pd.read_csv(TRUTH, dtype=str)
    mover = truth["item_id"].iloc[0]
    other = actual.loc[actual["item_id"] == truth["item_id"].iloc[-1], "cluster_id"].iloc[0]
    actual.loc[actual["item_id"] == mover, "cluster_id"] = other
    path = d / "slightly_worse.csv"
    actual.to_csv(path, index=False)
    return str(path)


def _compare(run_cli, first: str, later: str, *more: str):
    return run_cli("compare", TRUTH, first, later, "--fail-if-worse", "f1,recall",
                   "--resamples", "300", "-q", *more)  # fmt: skip


def test_significantly_worse_fails_with_status_1_and_says_which(run_cli, tmp_path):
    r = _compare(run_cli, V2, ACTUAL, "--out", str(tmp_path / "out"))
    assert r.returncode == 1, r.stderr
    assert "gate recall of actual not worse than actual_v2:" in r.stdout
    assert "FAILED (significantly worse)" in r.stdout
    assert (tmp_path / "out" / "summary.json").exists()  # the outputs are written all the same
    gates = json.loads((tmp_path / "out" / "summary.json").read_text())["gates"]
    assert {g["metric"]: g["failed"] for g in gates} == {"recall": True, "f1": False}


def test_worse_within_the_noise_passes(run_cli, slightly_worse):
    r = _compare(run_cli, ACTUAL, slightly_worse, "--json")
    assert r.returncode == 0, r.stderr
    gates = json.loads(r.stdout)["gates"]
    assert [g["delta"] < 0 for g in gates] == [True, True]  # worse, yet not significantly
    assert not any(g["failed"] for g in gates)


def test_better_passes(run_cli):
    r = _compare(run_cli, ACTUAL, V2)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(": passed") == 2


def test_require_fails_only_when_the_interval_lies_beyond_the_bound(run_cli):
    common = ["evaluate", TRUTH, ACTUAL, "--resamples", "300", "-q"]
    r = run_cli(*common, "--require", "f1>=0.95", "--require", "jaccard_distance<=0.2")
    assert r.returncode == 0 and r.stdout.count(": passed") == 2, r.stdout  # f1 0.94 [.., 0.955]
    r = run_cli(*common, "--require", "f1>=0.97", "--json")
    assert r.returncode == 1
    (gate,) = json.loads(r.stdout)["gates"]
    assert gate["failed"] and gate["ci_high"] < 0.97 and gate["reason"] == "interval below 0.97"
    r = run_cli(*common, "--require", "jaccard_distance<=0.01", "--no-intervals")
    assert r.returncode == 1 and "FAILED (estimate above 0.01)" in r.stdout


@pytest.mark.parametrize(
    "args, says",
    [
        (["evaluate", TRUTH, ACTUAL, "--require", "f1=>0.9"], "write METRIC>=X or METRIC<=X"),
        (["evaluate", TRUTH, ACTUAL, "--require", "fone>=0.9"], "'fone' is not a metric"),
        (["evaluate", TRUTH, ACTUAL, "--require", "f1>=0.9.9"], "'0.9.9' is not a number"),
        (["compare", TRUTH, ACTUAL, V2, "--fail-if-worse", "f1,accurcy"], "'accurcy' is not"),
    ],
)
def test_bad_gates_are_one_line_with_status_2(run_cli, args, says):
    r = run_cli(*args)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert says in r.stderr
