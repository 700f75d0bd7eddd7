"""Bad scope, design-weight and bootstrap options: one line naming the file, line and
value; ValueError from Python, exit status 2 from the CLI."""

from __future__ import annotations

import pandas as pd
import pytest

import clusterscore as cs

TRUTH = {"a": 1, "b": 1, "c": 2}
ACTUAL = {"a": "x", "b": "y", "c": "y", "d": "y"}


def _error(**options) -> str:
    with pytest.raises(ValueError) as e:
        cs.evaluate(TRUTH, ACTUAL, **options)
    message = str(e.value)
    assert "\n" not in message and len(message) < 300, message
    return message


@pytest.mark.parametrize(
    "options, fragments",
    [
        ({"truth_scope": "everything"}, ["truth_scope", "'everything'", "common", "entities"]),
        ({"truth_scope": None}, ["truth_scope"]),
        ({"confidence": 1.0}, ["confidence", "1.0"]),
        ({"confidence": 0}, ["confidence"]),
        ({"confidence": float("nan")}, ["confidence"]),
        ({"resamples": 0}, ["resamples", "0"]),
        ({"resamples": 2.5}, ["resamples"]),
        ({"seed": -1}, ["seed"]),
        ({"cluster_weights": "inverse_size"}, ["truth_scope='entities'"]),
        ({"truth_scope": "entities", "cluster_weights": "by_size"}, ["'by_size'", "uniform"]),
        ({"truth_scope": "entities", "cluster_weights": {1: 2.0, 2: 1.0, 3: 1.0}},
         ["cluster_weights row 3", "3", "not in truth"]),
        ({"truth_scope": "entities", "cluster_weights": {1: 2.0}},
         ["cluster_weights", "no weight for cluster 2", "1 of its 2"]),
        ({"truth_scope": "entities", "cluster_weights": {1: 2.0, 2: 0.0}},
         ["cluster_weights row 2", "0.0", "finite number > 0"]),
        ({"truth_scope": "entities", "cluster_weights": {1: float("inf"), 2: 1.0}},
         ["cluster_weights row 1", "inf"]),
        ({"truth_scope": "entities", "cluster_weights": {1: "heavy", 2: 1.0}},
         ["cluster_weights"]),
    ],
)  # fmt: skip
def test_bad_options_are_one_line_errors(options, fragments):
    message = _error(**options)
    for f in fragments:
        assert f in message, (f, message)


def test_bad_weights_files_name_the_line(tmp_path):
    cases = {
        "unknown.csv": ("cluster_id,weight\n1,2\n2,1\n7,1\n", ["unknown.csv line 4", "7"]),
        "twice.csv": ("cluster_id,weight\n1,2\n2,1\n1,3\n", ["twice.csv line 4", "twice"]),
        "negative.csv": ("cluster_id,weight\n1,2\n2,-1\n", ["negative.csv line 3", "-1"]),
        "text.csv": ("cluster_id,weight\n1,2\n2,lots\n", ["text.csv line 3", "'lots'"]),
        "blank.csv": ("cluster_id,weight\n1,2\n2,\n", ["blank.csv line 3", "missing"]),
        "columns.csv": ("cluster,w\n1,2\n", ["columns.csv", "cluster_id"]),
    }
    for name, (text, fragments) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        message = _error(truth_scope="entities", cluster_weights=str(path))
        for f in fragments:
            assert f in message, (name, f, message)


def test_string_cluster_ids_match_integer_weights_files(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("cluster_id,weight\nT1,2\nT2,1\n")
    truth = {"a": "T1", "b": "T1", "c": "T2"}
    ev = cs.evaluate(truth, ACTUAL, truth_scope="entities", cluster_weights=str(path))
    same = cs.evaluate(truth, ACTUAL, truth_scope="entities", cluster_weights={"T1": 2, "T2": 1})
    assert ev.overall == same.overall
    table = pd.DataFrame({"cluster_id": [1, 2], "weight": [2.0, 1.0]})
    ints = cs.evaluate(TRUTH, ACTUAL, truth_scope="entities", cluster_weights=table)
    assert ints.overall["precision"] == pytest.approx(same.overall["precision"])


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--truth-scope", "all"], ["--truth-scope", "all"]),
        (["--confidence", "1.5"], ["--confidence", "1.5"]),
        (["--resamples", "0"], ["--resamples", "0"]),
        (["--cluster-weights", "inverse_size"], ["--cluster-weights", "--truth-scope entities"]),
        (["--truth-scope", "entities", "--cluster-weights", "WEIGHTS"], ["w.csv line 3", "'x'"]),
    ],
)
def test_cli_bad_options_exit_2(tmp_path, run_cli, args, fragments):
    truth, actual, weights = tmp_path / "t.csv", tmp_path / "a.csv", tmp_path / "w.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\n")
    actual.write_text("item_id,cluster_id\na,x\nb,y\nc,y\nd,y\n")
    weights.write_text("cluster_id,weight\n1,1\n2,x\n")
    args = [str(weights) if a == "WEIGHTS" else a for a in args]
    proc = run_cli("evaluate", truth, actual, *args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    err = " ".join(proc.stderr.split())
    for f in fragments:
        assert f in err, (f, err)


def test_cli_entities_scope_end_to_end(tmp_path, run_cli):
    truth, actual, weights = tmp_path / "t.csv", tmp_path / "a.csv", tmp_path / "w.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\n")
    actual.write_text("item_id,cluster_id\na,x\nb,y\nc,y\nd,y\n")
    weights.write_text("cluster_id,weight\n1,0.5\n2,1\n")
    out = tmp_path / "out"
    proc = run_cli("evaluate", truth, actual, "--truth-scope", "entities", "--cluster-weights",
                   weights, "--resamples", "50", "--out", out)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "whole actual clustering" in proc.stdout and "pair_precision" in proc.stdout
    assert "lie outside the truth" not in proc.stdout  # the common scope's note
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["truth_scope"] == "entities" and summary["cluster_weights"] == "given"
    ev = cs.evaluate(str(truth), str(actual), truth_scope="entities",
                     cluster_weights=str(weights))  # fmt: skip
    assert summary["overall"]["precision"] == pytest.approx(ev.overall["precision"])
    common = run_cli("evaluate", truth, actual, "--resamples", "50")
    assert "1 actual items lie outside the truth" in " ".join(common.stdout.split())


def test_cli_no_intervals_prints_values_alone(tmp_path, run_cli):
    truth, actual = tmp_path / "t.csv", tmp_path / "a.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\n")
    actual.write_text("item_id,cluster_id\na,x\nb,y\nc,y\nd,y\n")
    out = tmp_path / "out"
    proc = run_cli("evaluate", truth, actual, "--no-intervals", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "95% interval" not in proc.stdout and "precision" in proc.stdout
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert "intervals" not in summary and summary["truth_scope"] == "common"
