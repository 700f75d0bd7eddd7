"""Drawing the truth sample and turning labels into a truth: candidates against a brute-force
oracle, π against the binomial formula, every bad label reported, and a simulation: seed
records drawn from a population with known entities, each seed's entity labelled, the
entities-scope intervals cover the population's values."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLE

import clusterscore as cs

RUNS = [EXAMPLE / "actual.csv", EXAMPLE / "actual_v2.csv"]


def test_candidates_are_every_record_sharing_a_cluster_or_block_with_the_seed():
    items = pd.read_csv(EXAMPLE / "items.csv", dtype=str)
    items["block"] = items["item_id"].str[-2:]  # ~50 records per value
    s = cs.draw_truth_sample(RUNS[0], [RUNS[1]], items, records=30, seed=3, block_col="block")
    runs = [pd.read_csv(p, dtype=str).set_index("item_id")["cluster_id"] for p in RUNS]
    block = items.set_index("item_id")["block"]
    got = s.candidates
    assert len(s.seeds) == 30 and len(set(s.seeds)) == 30
    for seed, rows in got.groupby("seed", sort=False):
        want = {seed}
        for run in runs:
            if seed in run.index:
                want |= set(run.index[run == run[seed]])
        want |= set(block.index[block == block[seed]])
        assert set(rows["item_id"]) == want and rows["item_id"].iloc[0] == seed
    assert list(got["seed"].drop_duplicates()) == s.seeds
    assert list(got.columns) == ["seed", "item_id", "country", "source", "block"]
    again = cs.draw_truth_sample(RUNS[0], [RUNS[1]], items, records=30, seed=3, block_col="block")
    assert again.seeds == s.seeds


def test_saved_and_loaded_as_it_was(tmp_path):
    s = cs.draw_truth_sample(RUNS[0], records=12, seed=1, items=EXAMPLE / "items.csv")
    back = cs.load_truth_sample(s.save(tmp_path / "ts"))
    assert back.seeds == s.seeds and back.meta == s.meta
    assert back.candidates.equals(s.candidates)


def _labels(s: cs.TruthSample, truth: pd.Series) -> pd.DataFrame:
    """Each seed's candidates labelled from `truth` (a record outside it: alone)."""
    c = s.candidates
    same = [r == seed or (seed in truth.index and truth.get(r) == truth[seed])
            for seed, r in zip(c["seed"], c["item_id"], strict=True)]  # fmt: skip
    return c.assign(same_entity=np.where(same, "yes", "no"))[["seed", "item_id", "same_entity"]]


def test_weights_are_one_over_pi_of_the_labelled_size():
    truth = pd.read_csv(EXAMPLE / "truth.csv", dtype=str).set_index("item_id")["cluster_id"]
    s = cs.draw_truth_sample(RUNS[0], [RUNS[1]], EXAMPLE / "items.csv", records=40, seed=2)
    t = cs.truth_from_labels(_labels(s, truth), s)
    sizes = t.truth.groupby("cluster_id").size()
    n_records, n = s.meta["records"], 40
    for cluster, weight in zip(t.weights["cluster_id"], t.weights["weight"], strict=True):
        pi = 1 - math.comb(n_records - int(sizes[cluster]), n) / math.comb(n_records, n)
        assert weight == pytest.approx(1 / pi, rel=1e-13)
    assert set(t.weights["cluster_id"]) <= set(s.seeds) and t.truth["item_id"].is_unique


def test_two_seeds_of_one_entity_are_one_entity_and_labels_join_transitively():
    actual = {f"r{k}": f"c{k // 4}" for k in range(40)}
    s = cs.draw_truth_sample(actual, records=40, seed=0)
    first, second = s.seeds[0], s.seeds[1]
    labels = pd.DataFrame({"seed": s.seeds, "item_id": s.seeds, "same_entity": "yes"})
    extra = pd.DataFrame({"seed": [first], "item_id": [second], "same_entity": ["yes"]})
    t = cs.truth_from_labels(pd.concat([labels, extra]), s)
    assert len(t.weights) == 39 and t.truth.set_index("item_id")["cluster_id"][second] == first
    assert t.weights.set_index("cluster_id")["weight"][first] == pytest.approx(1.0)  # all drawn


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.assign(same_entity="maybe"), "same_entity 'maybe' is not yes or no"),
        (lambda d: d.assign(seed="nobody"), "is not a seed of the sample"),
        (lambda d: d.assign(item_id="nowhere"), "'nowhere' is not a record of the sample"),
        (lambda d: d.iloc[1:], "1 seed records have no label"),
        (lambda d: d.drop(columns="same_entity"), "no column 'same_entity'"),
    ],
)
def test_bad_labels_are_named(change, message, tmp_path):
    s = cs.draw_truth_sample(RUNS[0], records=5, seed=4)
    labels = pd.DataFrame({"seed": s.seeds, "item_id": s.seeds, "same_entity": "yes"})
    path = tmp_path / "labels.csv"
    change(labels).to_csv(path, index=False)
    with pytest.raises(ValueError, match=message):
        cs.truth_from_labels(path, s)


def test_a_record_labelled_no_that_other_labels_put_in_the_entity_is_an_error(tmp_path):
    actual = {f"r{k}": "c" for k in range(10)}
    s = cs.draw_truth_sample(actual, records=2, seed=0)
    a, b = s.seeds
    labels = pd.DataFrame({"seed": [a, b, a, b], "item_id": [a, b, "r9" if a != "r9" else "r8",
                           a], "same_entity": ["yes", "yes", "no", "yes"]})  # fmt: skip
    labels.loc[2, "item_id"] = b
    path = tmp_path / "labels.csv"
    labels.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"labels.csv line 4: labelled not the seed's entity"):
        cs.truth_from_labels(path, s)


def test_bad_draws_and_folders(tmp_path):
    with pytest.raises(ValueError, match="20 asked, but there are 10 records"):
        cs.draw_truth_sample({f"r{k}": "c" for k in range(10)}, records=20, seed=0)
    with pytest.raises(ValueError, match="records must be a whole number"):
        cs.draw_truth_sample(RUNS[0], records=0, seed=0)
    with pytest.raises(ValueError, match="block_col 'country' is a column of the items table"):
        cs.draw_truth_sample(RUNS[0], records=3, seed=0, block_col="country")
    with pytest.raises(ValueError, match="not a truth sample"):
        cs.load_truth_sample(tmp_path)


def test_cli_errors_are_one_line(run_cli, tmp_path):
    items = str(EXAMPLE / "items.csv")
    r = run_cli("draw-truth", str(RUNS[0]), "--records", "10", "--items", items,
                "--block-col", "nope", "--out", str(tmp_path / "t"))  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "nope" in r.stderr and not (tmp_path / "t").exists()
    r = run_cli("truth-from-labels", str(tmp_path / "x.csv"), "--sample", str(tmp_path),
                "--out", str(tmp_path / "t.csv"), "--weights", str(tmp_path / "w.csv"))  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def _population(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """~7,000 records in entities of 1 to 40 (Zipf sizes); the actual clustering merges 15%
    of the entities into a neighbour and splits 8% of the records off alone."""
    sizes = np.minimum(rng.zipf(2.2, 3000), 40)
    entity = np.repeat(np.arange(len(sizes)), sizes)
    n = len(entity)
    ids = np.array([f"r{k}" for k in range(n)])
    merged = np.where((rng.random(len(sizes)) < 0.15)[entity], entity + 1, entity)
    actual = np.where(rng.random(n) < 0.08, 10**6 + np.arange(n), merged)
    return (pd.DataFrame({"item_id": ids, "cluster_id": entity.astype(str)}),
            pd.DataFrame({"item_id": ids, "cluster_id": actual.astype(str)}), entity)  # fmt: skip


POINTWISE = ["precision", "recall", "f1", "jaccard_index", "f1_of_means"]


def test_entities_scope_intervals_from_drawn_seeds_cover_the_population():
    """300 draws of 400 seed records; each seed's whole entity labelled from the known
    truth. Every per-item metric's 95% interval covers the population value 93-97% of the
    time (a binomial 99.9% band around 95% at 300 draws is ±4.1%: 93-97% holds the
    expected rate with room for the interval's own error)."""
    truth, actual, entity = _population(np.random.default_rng(0))
    whole = cs.evaluate(truth, actual, resamples=1).overall
    members = truth.groupby(entity)["item_id"].agg(list)
    hits = dict.fromkeys(POINTWISE, 0)
    runs = 300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rep in range(runs):
            s = cs.draw_truth_sample(actual, records=400, seed=rep)
            rows = [(seed, m) for seed in s.seeds for m in members[entity[int(seed[1:])]]]
            labels = pd.DataFrame(rows, columns=["seed", "item_id"]).assign(same_entity="yes")
            t = cs.truth_from_labels(labels, s)
            iv = cs.evaluate(t.truth, actual, truth_scope="entities", cluster_weights=t.weights,
                             resamples=400, seed=rep).intervals().set_index("metric")  # fmt: skip
            for m in POINTWISE:
                hits[m] += iv.loc[m, "ci_low"] <= whole[m] <= iv.loc[m, "ci_high"]
    coverage = {m: h / runs for m, h in hits.items()}
    assert all(0.93 <= c <= 0.97 for c in coverage.values()), coverage


def test_truth_and_weights_written_for_a_spreadsheet_read_back_exactly(run_cli, tmp_path):
    """Ids a spreadsheet would run are written with a leading apostrophe, and evaluate reads
    the files back as the ids they were: every labelled record is found in the run."""
    names = ["=1+1", "+2", "-3", "@SUM(A1)", "'quoted", "plain", "=HYPERLINK(x)", "tab\there"]
    actual = pd.DataFrame({"item_id": names, "cluster_id": ["=c", "=c", "+d", "+d", "'e", "'e",
                                                            "f", "f"]})  # fmt: skip
    actual.to_csv(tmp_path / "actual.csv", index=False)
    s = cs.draw_truth_sample(tmp_path / "actual.csv", records=4, seed=0)
    s.save(tmp_path / "ts")
    labels = pd.DataFrame({"seed": s.seeds, "item_id": s.seeds, "same_entity": "yes"})
    labels.to_parquet(tmp_path / "labels.parquet")
    truth, weights = tmp_path / "truth.csv", tmp_path / "weights.csv"
    r = run_cli("truth-from-labels", str(tmp_path / "labels.parquet"), "--sample",
                str(tmp_path / "ts"), "--out", str(truth), "--weights", str(weights))  # fmt: skip
    assert r.returncode == 0, r.stderr
    written = pd.read_csv(truth, dtype=str, keep_default_na=False)
    assert not written["item_id"].str.match(r"[=+\-@\t]").any()
    r = run_cli("evaluate", str(truth), str(tmp_path / "actual.csv"), "--truth-scope",
                "entities", "--cluster-weights", str(weights), "--json", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    coverage = json.loads(r.stdout)["coverage"]
    assert coverage["truth_only_items"] == 0 and coverage["truth_items"] == 4
