"""docs/metrics.md's rules for estimates from judged pairs: no verdict, no estimate; few judged
draws are named; a multiplier of 0 is known exactly; older sample files are named."""

from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

import clusterscore as cs

BASE = {i: i // 4 for i in range(40)}
EXP = {i: i // 3 for i in range(40)}


def _judged(sample, word="same"):
    pairs = sample.raters_table().to_pandas()[["item_i", "item_j"]]
    return pairs.assign(verdict=word)


def test_no_verdict_is_an_error_not_an_estimate_from_self_pairs():
    s = cs.sample_pairs(BASE, EXP, pairs=200, seed=1)
    blank = _judged(s).assign(verdict="")
    with pytest.raises(ValueError, match=r"no verdict on any of the sample's [\d,]+ pairs"):
        cs.estimate(s, blank)
    unsure = _judged(s, "unsure")
    with pytest.raises(ValueError, match="fill the verdict column"):
        cs.estimate(s, unsure)


def test_cli_refuses_a_blank_raters_file_and_warns_of_few_judgements(tmp_path, run_cli):
    base, exp = tmp_path / "base.csv", tmp_path / "exp.csv"
    pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())}).to_csv(
        base, index=False
    )
    pd.DataFrame({"item_id": list(EXP), "cluster_id": list(EXP.values())}).to_csv(exp, index=False)
    out = tmp_path / "pairs.parquet"
    proc = run_cli("sample", base, exp, "--pairs", "300", "--seed", "3", "--out", out)
    assert proc.returncode == 0, proc.stderr
    raters = tmp_path / "pairs.raters.csv"
    proc = run_cli("estimate", out, "--verdicts", raters)
    assert proc.returncode == 2 and "no verdict on any" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    judged = pd.read_csv(raters)
    judged["verdict"] = "same"
    judged.loc[judged.index[5:], "verdict"] = None  # only 5 pairs judged
    judged.to_csv(raters, index=False)
    proc = run_cli("estimate", out, "--verdicts", raters)
    assert proc.returncode == 0, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.startswith("warning: only")]
    assert lines and all("judged draws of" in x for x in lines), proc.stderr


def test_a_merge_only_change_has_exact_zero_split_estimates():
    base = {i: i for i in range(30)}  # singletons
    exp = {i: i // 3 for i in range(30)}  # merged in threes: no split at all
    s = cs.sample_pairs(base, exp, pairs=200, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cs.estimate(s, _judged(s, "same"))
    for name in ("good_split_distance", "bad_split_distance"):
        e = est[name]
        assert e["estimate"] == 0 and e["ci_low"] == 0 and e["ci_high"] == 0 and e["exact"]
    assert est["good_distance"]["estimate"] == pytest.approx(est["good_merge_distance"]["estimate"])
    assert est["good_distance"]["ci_high"] > est["good_distance"]["ci_low"]


def test_every_interval_lies_within_its_metrics_range():
    s = cs.sample_pairs(BASE, EXP, pairs=60, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cs.estimate(s, _judged(s, "different"))
    t = s.meta["totals"]
    tops = {"split": t["split_distance"], "merge": t["merge_distance"]}
    for name, e in est.items():
        if e["estimate"] is None:
            continue
        assert e["ci_low"] <= e["estimate"] <= e["ci_high"], name
        if name == "delta_precision":
            assert e["ci_low"] >= -1 and e["ci_high"] <= 1
        elif name.endswith("_rate"):
            assert e["ci_low"] >= 0 and e["ci_high"] <= 1, name
        elif "split_distance" in name or "merge_distance" in name:
            top = tops["split" if "split" in name else "merge"]
            assert e["ci_low"] >= 0 and e["ci_high"] <= top + 1e-15, name
        if not e.get("exact"):
            assert e["ci_high"] > e["ci_low"], name


def test_an_older_sample_file_says_how_to_redraw_it(tmp_path):
    s = cs.sample_pairs(BASE, EXP, pairs=50, seed=1)
    path = tmp_path / "pairs.csv"
    s.save(path)
    meta_path = tmp_path / "pairs.csv.meta.json"
    meta = json.loads(meta_path.read_text())
    meta["format"] = "clusterscore-pair-sample/2"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="older clusterscore .* same inputs, sizes and seed"):
        cs.load_sample(path)
