"""The judgement planner (docs/metrics.md, judging): drawing what the plan says and judging from
the known truth gives intervals of the half-width asked for."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_estimate_simulation import world

import clusterscore as cs
from clusterscore._sample import sample_from_diff

METRICS = ["good_split_distance", "bad_split_distance", "good_merge_distance",
           "bad_merge_distance", "affected_good_index", "affected_bad_index"]  # fmt: skip


@pytest.fixture(scope="module")
def setting():
    ideal, d, _ = world()
    return ideal, d


def _judge(ideal, s):
    p = s.pairs
    same = ideal[p.item_i.to_numpy()] == ideal[p.item_j.to_numpy()]
    return p[["item_i", "item_j"]].assign(verdict=np.where(same, "same", "different"))


def _half_widths(ideal, d, plan, seeds):
    widths = {m: [] for m in METRICS}
    for seed in range(seeds):
        s = sample_from_diff(d, plan["pairs"], 1000 + seed, stable_pairs=plan["stable_pairs"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cs.estimate(s, _judge(ideal, s))
        for m in METRICS:
            widths[m].append((est[m]["ci_high"] - est[m]["ci_low"]) / 2)
    return {m: float(np.median(w)) for m, w in widths.items()}


def test_without_a_pilot_the_plan_reaches_the_half_width(setting):
    ideal, d = setting
    h = 0.01
    plan = cs.plan_pairs(d._a, d._b, d._items, half_width=h)
    assert set(plan["predicted_half_width"]) == set(METRICS)
    assert all(v <= h for v in plan["predicted_half_width"].values())
    got = _half_widths(ideal, d, plan, 100)
    assert all(w <= h for w in got.values()), got


def test_with_a_pilot_the_plan_is_close_to_the_half_width(setting):
    ideal, d = setting
    h = 0.01
    pilot = sample_from_diff(d, 300, 7, stable_pairs=300)
    plan = cs.plan_pairs(d._a, d._b, d._items, half_width=h, pilot=(pilot, _judge(ideal, pilot)))
    worst = cs.plan_pairs(d._a, d._b, d._items, half_width=h)
    assert plan["pairs"] + plan["stable_pairs"] < worst["pairs"] + worst["stable_pairs"]
    got = _half_widths(ideal, d, plan, 100)
    # Each stratum is sized by its widest metric: that one lands on h, the rest below.
    for stratum in (METRICS[:4], METRICS[4:]):
        widest = max(got[m] for m in stratum)
        assert 0.8 * h <= widest <= 1.2 * h, got


@pytest.mark.parametrize(
    "options, message",
    [
        ({"half_width": 0}, "half_width"),
        ({"half_width": "wide"}, "half_width"),
        ({"half_width": 0.1, "confidence": 1.2}, "confidence"),
        ({"half_width": 0.1, "metrics": ["delta_precision"]}, "cannot plan for metric"),
        ({"half_width": 0.1, "pilot": "pilot.parquet"}, "pilot must be"),
    ],
)
def test_bad_plan_options_are_one_line_errors(options, message):
    base = {i: i // 4 for i in range(40)}
    exp = {i: i // 3 for i in range(40)}
    with pytest.raises(ValueError, match=message) as e:
        cs.plan_pairs(base, exp, **options)
    assert "\n" not in str(e.value)


def test_cli_plan_prints_the_draws_and_judgements(tmp_path, run_cli):
    base, exp = tmp_path / "b.csv", tmp_path / "e.csv"
    base.write_text("item_id,cluster_id\n" + "".join(f"{i},{i // 4}\n" for i in range(80)))
    exp.write_text("item_id,cluster_id\n" + "".join(f"{i},{i // 3}\n" for i in range(80)))
    proc = run_cli("plan", base, exp, "--half-width", "0.02", "--json")
    assert proc.returncode == 0, proc.stderr
    import json

    plan = json.loads(proc.stdout)
    assert {"pairs", "stable_pairs", "predicted_half_width"} <= set(plan)
    proc = run_cli("plan", base, exp, "--half-width", "0.02", "--metric", "good_distance")
    assert proc.returncode == 0 and "human judgements" in " ".join(proc.stdout.split())
    proc = run_cli("plan", base, exp, "--half-width", "0.02", "--pilot-sample", base)
    assert proc.returncode == 2 and "go together" in proc.stderr
