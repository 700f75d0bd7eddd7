"""Threads: every result the same, to the last bit, on 1, 2 or 3 threads (the join's
partitions, the classic metrics' parallel parts, the bootstrap's resamples), on inputs
big enough for each parallel path; and the ways to set the number, with their errors."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLE

import clusterscore as cs
from clusterscore import metrics as M

THREADS = [1, 2, 3]


@pytest.fixture(autouse=True)
def every_core_afterwards():
    yield
    cs.set_threads(0)


def inputs(string_ids: bool):
    """~1e5 items in ~2e4 entities (the join splits them into several partitions), some
    moved at random, weights, a slice, items missing on either side."""
    rng = np.random.default_rng(5)
    n = 100_000
    ids = rng.permutation(np.arange(n) * 7919 + 13)
    entity = rng.integers(0, 20_000, n)
    moved = rng.random(n) < 0.05
    actual = np.where(moved, rng.integers(0, 20_000, n), entity)
    keys = ids.astype(str) if string_ids else ids
    truth = pd.DataFrame({"item_id": keys, "cluster_id": entity})[rng.random(n) < 0.6]
    act = pd.DataFrame({"item_id": keys, "cluster_id": actual})[rng.random(n) < 0.97]
    items = pd.DataFrame(
        {"item_id": keys, "weight": rng.uniform(0.1, 3, n), "country": rng.choice(list("ABCD"), n)}
    )
    return truth, act, items


def each_thread_count(compute):
    out = []
    for t in THREADS:
        assert cs.set_threads(t) == t
        out.append(compute())
    return out


def same(frames):
    for f in frames[1:]:
        pd.testing.assert_frame_equal(f, frames[0], check_exact=True)


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("scope", ["common", "entities"])
def test_evaluate_is_the_same_on_any_number_of_threads(string_ids, scope):
    truth, actual, items = inputs(string_ids)

    def run():
        e = cs.evaluate(truth, actual, items, truth_scope=scope, resamples=200, seed=4)
        return [
            pd.DataFrame([e.overall]),
            e.per_item().reset_index(drop=True),
            e.per_cluster("truth"),
            e.per_cluster("actual"),
            e.per_slice("country"),
            e.intervals(),
            e.intervals("country"),
        ]

    for tables in zip(*each_thread_count(run), strict=True):
        same(list(tables))


def test_long_inputs_take_every_stretched_path_with_the_same_bits():
    """2.5e6 items: past 2^20 units the sums run in stretches, past 2^21 rows a slice
    column whose values repeat is interned in parts, and the join finds A's rows again a
    stretch at a time; evaluate, diff and the classic metrics equal on 1 and 2 threads."""
    rng = np.random.default_rng(11)
    n = 2_500_000
    ids = rng.permutation(n).astype(np.int64) * 31 + 7
    entity = rng.integers(0, 400_000, n)
    actual = np.where(rng.random(n) < 0.05, rng.integers(0, 400_000, n), entity)
    truth = pd.DataFrame({"item_id": ids, "cluster_id": entity})
    act = pd.DataFrame({"item_id": ids, "cluster_id": actual})
    items = pd.DataFrame(
        {"item_id": ids, "weight": rng.uniform(0.1, 3, n), "country": rng.choice(list("ABCDEF"), n)}
    )

    def run():
        e = cs.evaluate(truth, act, items)
        d = cs.diff(truth, act, items)
        return [
            pd.DataFrame([e.overall]),
            e.per_cluster("truth"),
            e.per_cluster("actual"),
            e.per_slice("country"),
            pd.DataFrame([d.overall]),
            d.per_cluster("exp"),
            d.per_slice("country"),
            pd.DataFrame([M.all_scores(entity, actual)]),
        ]

    out = []
    for t in (1, 2):
        cs.set_threads(t)
        out.append(run())
    for tables in zip(*out, strict=True):
        same(list(tables))


def test_compare_diff_and_classic_metrics_are_the_same_on_any_number_of_threads():
    truth, actual, items = inputs(False)
    other = actual.assign(cluster_id=np.where(actual.item_id % 3 == 0, 0, actual.cluster_id))

    def run():
        c = cs.compare(truth, {"a": actual, "b": other}, items, resamples=300, seed=9)
        d = cs.diff(actual, other, items)
        t = truth.merge(actual, on="item_id")
        return [
            c.deltas(),
            c.deltas("country"),
            pd.DataFrame([d.overall]),
            d.per_cluster("base"),
            d.flows_table().to_pandas(),
            pd.DataFrame([M.all_scores(t.cluster_id_x, t.cluster_id_y)]),
        ]

    for tables in zip(*each_thread_count(run), strict=True):
        same(list(tables))


def test_a_sample_is_the_same_on_any_number_of_threads():
    truth, actual, _ = inputs(False)
    other = actual.assign(cluster_id=np.where(actual.item_id % 5 == 0, 1, actual.cluster_id))
    # 200,000 draws: four blocks of draws, made on several threads.
    samples = each_thread_count(
        lambda: cs.sample_pairs(actual, other, pairs=200_000, seed=2).pairs.reset_index(drop=True)
    )
    same(samples)
    assert samples[0].draws.sum() == 200_000


def test_set_threads_refuses_what_is_not_a_count():
    assert cs.set_threads(0) == os.cpu_count()
    assert cs.set_threads(None) == cs.threads()
    for bad in (-1, 1025, 1.5, "2", True):
        with pytest.raises(ValueError, match="set_threads"):
            cs.set_threads(bad)


def cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "clusterscore", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_cli_threads_option_and_environment_give_the_same_output():
    args = ["evaluate", str(EXAMPLE / "truth.csv"), str(EXAMPLE / "actual.csv"), "--json"]
    outputs = [cli(*args, "--threads", "1"), cli(*args, "--threads", "2"),
               cli(*args, env={"CLUSTERSCORE_THREADS": "3"})]  # fmt: skip
    assert all(r.returncode == 0 for r in outputs), [r.stderr for r in outputs]
    assert outputs[0].stdout == outputs[1].stdout == outputs[2].stdout
    check = "import clusterscore as cs; print(cs.threads())"
    shown = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                           env={**os.environ, "CLUSTERSCORE_THREADS": "3"})  # fmt: skip
    assert shown.stdout.strip() == "3", shown.stderr


@pytest.mark.parametrize("value", ["two", "-1", "1.5", "99999999"])
def test_a_bad_environment_value_is_one_line_naming_it(value):
    args = ["evaluate", str(EXAMPLE / "truth.csv"), str(EXAMPLE / "actual.csv")]
    r = cli(*args, env={"CLUSTERSCORE_THREADS": value})
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: CLUSTERSCORE_THREADS='{value}': give a whole number of threads (0: one per core)"
    ]


def test_more_threads_than_the_most_is_one_line_not_a_silent_cap():
    args = ["evaluate", str(EXAMPLE / "truth.csv"), str(EXAMPLE / "actual.csv")]
    r = cli(*args, env={"CLUSTERSCORE_THREADS": "5000"})
    assert r.returncode == 2
    said = r.stderr.strip().splitlines()
    assert said == ["error: CLUSTERSCORE_THREADS='5000': at most 1024 threads"]


def test_cli_threads_out_of_range_is_a_usage_error():
    r = cli("evaluate", str(EXAMPLE / "truth.csv"), str(EXAMPLE / "actual.csv"), "--threads", "-2")
    assert r.returncode == 2 and "--threads" in r.stderr
