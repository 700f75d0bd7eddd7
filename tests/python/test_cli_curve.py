"""`clusterscore curve` as a user runs it: the bundled example's pairs, several models,
the files --out writes, JSON without NaN, and one-line errors with exit status 2."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE

import clusterscore as cs

TRUTH, PAIRS, ITEMS = (str(EXAMPLE / f) for f in ("truth.csv", "pairs.csv", "items.csv"))


def test_best_thresholds_with_intervals_and_every_row_in_out(tmp_path, run_cli):
    coarse = tmp_path / "coarse.csv"
    pd.read_csv(PAIRS).round({"match_probability": 1}).to_csv(coarse, index=False)
    out = tmp_path / "out"
    proc = run_cli("curve", TRUTH, f"fine={PAIRS}", f"coarse={coarse}", "--items", ITEMS,
                   "--resamples", "100", "--out", out, "--quiet")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Best thresholds (95% intervals there)" in proc.stdout
    assert "fine: 6,379 pairs" in proc.stdout and "coarse: 6,379 pairs" in proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["models"]) == {"fine", "coarse"}
    fine = pq.read_table(out / "curve_fine.parquet").to_pandas()
    direct = cs.threshold_curve(TRUTH, PAIRS, ITEMS).curve
    pd.testing.assert_frame_equal(fine, direct)
    best = {b["metric"]: b for b in summary["models"]["fine"]["best"]}
    assert set(best) == {"f1", "f1_of_means", "pair_f1"}
    f1 = best["f1"]
    assert f1["threshold"] == fine.threshold[fine.f1.idxmax()]
    assert f1["ci_low"] <= f1["value"] <= f1["ci_high"]
    coarse_rows = pq.read_table(out / "curve_coarse.parquet").num_rows
    assert coarse_rows == summary["models"]["coarse"]["distinct_scores"] == 11


def test_json_has_no_nan_and_thresholds_as_given(run_cli):
    proc = run_cli("curve", TRUTH, PAIRS, "--thresholds", "0.9,0.5,0.2", "--resamples", "50",
                   "--json", "--quiet")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)  # strict JSON: NaN would not parse as null here
    rows = d["curves"]["pairs"]
    assert [r["threshold"] for r in rows] == [0.9, 0.5, 0.2]
    assert "NaN" not in proc.stdout


def test_grid(run_cli):
    proc = run_cli("curve", TRUTH, PAIRS, "--grid", "5", "--resamples", "20", "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    thresholds = [r["threshold"] for r in json.loads(proc.stdout)["curves"]["pairs"]]
    scores = pd.read_csv(PAIRS).match_probability
    assert len(thresholds) == 5
    assert thresholds[0] == scores.max() and thresholds[-1] == scores.min()


@pytest.mark.parametrize(
    ("rows", "args", "message"),
    [
        ("a,b,0.5\nb,b,0.4\n", [], "pairs.csv line 3: the pair names one item twice"),
        ("a,b,0.5\nb,c,\n", [], "pairs.csv line 3: missing value in column 'match_probability'"),
        ("a,b,0.5\nb,c,high\n", [], "pairs.csv line 3: match_probability 'high' is not a number"),
        ("a,b,0.5\n", ["--thresholds", "0.5,x"], "--thresholds: 'x' is not a number"),
        ("a,b,0.5\n", ["--thresholds", "0.5", "--grid", "3"],
         "--thresholds and --grid both choose the thresholds"),
        ("a,b,0.5\n", ["--score-col", "p"], "pairs.csv: no column 'p'"),
        ("a,b,0.5\n", ["--max-points", "2"], "max_points must be at least 6"),
    ],
)  # fmt: skip
def test_errors_are_one_line_with_status_2(tmp_path, run_cli, rows, args, message):
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\n")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("unique_id_l,unique_id_r,match_probability\n" + rows)
    proc = run_cli("curve", truth, pairs, *args, "--quiet")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
