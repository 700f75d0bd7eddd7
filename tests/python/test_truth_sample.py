"""Drawing the truth sample and turning labels into a truth: candidates against a brute-force
oracle, π against the binomial formula, every bad label reported, and a simulation: seed
records drawn from a population with known entities, each seed's entity labelled, the
entities-scope intervals cover the population's values."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

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


def test_drawn_by_cluster_size_each_record_at_its_chance_and_pi_from_the_chances():
    """Chances in proportion to the actual cluster's size summing to the records asked
    (a cluster too large for its share: every record certain); each record drawn at its
    chance over many seeds; 1/π = 1 / (1 − Π (1 − chance)) over the labelled entity."""
    actual = {f"r{k}": f"c{k // 4}" if k < 40 else f"s{k}" for k in range(100)}
    actual.update({f"r{k}": "big" for k in range(100, 112)})
    size = pd.Series(actual).map(pd.Series(actual).value_counts())
    s = cs.draw_truth_sample(actual, records=60, seed=0, by_cluster_size=True)
    chance = pd.Series(s.chances, index=s.records.to_pylist())
    assert chance.sum() == pytest.approx(60) and (chance[size == 12] == 1).all()
    rest = chance[size < 12] / size[size < 12]
    assert rest.max() == pytest.approx(rest.min(), rel=1e-12)  # in proportion to the size
    runs = 3000
    hits = pd.Series(0, index=chance.index)
    for seed in range(runs):
        drawn = cs.draw_truth_sample(actual, records=60, seed=seed, by_cluster_size=True).seeds
        assert len(set(drawn)) == len(drawn)
        hits[drawn] += 1
    sd = np.sqrt(chance * (1 - chance) / runs)
    assert ((hits / runs - chance).abs() <= 5 * sd + 1e-12).all()
    truth = pd.Series({r: c for r, c in actual.items() if c != "big"})
    t = cs.truth_from_labels(_labels(s, truth), s)
    entity = t.truth.set_index("item_id")["cluster_id"]
    for cluster, weight in zip(t.weights["cluster_id"], t.weights["weight"], strict=True):
        records = entity.index[entity == cluster]
        pi = 1 - np.prod(1 - chance[records])
        assert weight == pytest.approx(1 / pi, rel=1e-13)


def test_drawn_in_proportion_to_a_weight_column_saved_and_loaded(tmp_path):
    actual = {f"r{k}": f"c{k // 3}" for k in range(60)}
    items = pd.DataFrame({"item_id": list(actual), "w": np.arange(1, 61) / 7})
    s = cs.draw_truth_sample(actual, items=items, records=10, seed=5, weight_col="w")
    chance = pd.Series(s.chances, index=s.records.to_pylist())
    assert (chance / items.set_index("item_id")["w"]).std() < 1e-12
    assert s.meta["design"] == "weight_col" and s.meta["weight_col"] == "w"
    back = cs.load_truth_sample(s.save(tmp_path / "ts"))
    assert back.seeds == s.seeds and back.meta == s.meta
    assert np.array_equal(back.chances, s.chances)
    assert cs.draw_truth_sample(actual, records=10, seed=5).chances is None


@pytest.mark.parametrize(
    "weights, message",
    [
        ([0.0, 1.0, 1.0], r"items.csv line 2: w 0.0 is not a finite number > 0"),
        ([1.0, -2.0, 1.0], r"items.csv line 3: w -2.0 is not a finite number > 0"),
        ([1.0, "x", 1.0], r"items.csv line 3: w 'x' is not a number"),
        ([1.0, None, 1.0], r"items.csv line 3: .*w"),
    ],
)
def test_bad_draw_weights_are_named(weights, message, tmp_path):
    items = tmp_path / "items.csv"
    pd.DataFrame({"item_id": ["a", "b", "c"], "w": weights}).to_csv(items, index=False)
    actual = {"a": "1", "b": "1", "c": "2"}
    with pytest.raises(ValueError, match=message):
        cs.draw_truth_sample(actual, items=items, records=1, seed=0, weight_col="w")


def test_draw_weights_for_every_record_once_and_one_design(tmp_path):
    actual = {"a": "1", "b": "1", "c": "2"}
    items = tmp_path / "items.csv"
    pd.DataFrame({"item_id": ["a", "b"], "w": [1, 2]}).to_csv(items, index=False)
    with pytest.raises(ValueError, match=r"items.csv: record 'c' of a clustering has no row"):
        cs.draw_truth_sample(actual, items=items, records=1, seed=0, weight_col="w")
    pd.DataFrame({"item_id": ["a", "b", "c", "a"], "w": [1, 2, 3, 4]}).to_csv(items, index=False)
    with pytest.raises(ValueError, match=r"items.csv line 5: record 'a' is listed twice"):
        cs.draw_truth_sample(actual, items=items, records=1, seed=0, weight_col="w")
    with pytest.raises(
        ValueError, match="by_cluster_size or in proportion to weight_col, not both"
    ):
        cs.draw_truth_sample(actual, items=items, records=1, seed=0, weight_col="w",
                             by_cluster_size=True)  # fmt: skip
    with pytest.raises(ValueError, match="weight_col 'w' is a column of the items table"):
        cs.draw_truth_sample(actual, records=1, seed=0, weight_col="w")
    with pytest.raises(ValueError, match="no column 'v'"):
        cs.draw_truth_sample(actual, items=items, records=1, seed=0, weight_col="v")


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
PAIRS = ["pair_precision", "pair_recall", "pair_f1"]


def _coverage(runs: int, metrics: list[str], **draw: Any) -> dict[str, float]:
    """Over `runs` draws from _population, each seed's whole entity labelled from the known
    truth: how often each metric's 95% interval holds the population value."""
    truth, actual, entity = _population(np.random.default_rng(0))
    whole = cs.evaluate(truth, actual, resamples=1).overall
    members = truth.groupby(entity)["item_id"].agg(list)
    hits = dict.fromkeys(metrics, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rep in range(runs):
            s = cs.draw_truth_sample(actual, seed=rep, **draw)
            rows = [(seed, m) for seed in s.seeds for m in members[entity[int(seed[1:])]]]
            labels = pd.DataFrame(rows, columns=["seed", "item_id"]).assign(same_entity="yes")
            t = cs.truth_from_labels(labels, s)
            iv = cs.evaluate(t.truth, actual, truth_scope="entities", cluster_weights=t.weights,
                             resamples=400, seed=rep).intervals().set_index("metric")  # fmt: skip
            for m in metrics:
                hits[m] += iv.loc[m, "ci_low"] <= whole[m] <= iv.loc[m, "ci_high"]
    return {m: h / runs for m, h in hits.items()}


def test_entities_scope_intervals_from_drawn_seeds_cover_the_population():
    """300 uniform draws of 400 seed records (~330 entities): every per-item metric's 95%
    interval covers the population value 93-97% of the time (a binomial 99.9% band around
    95% at 300 draws is ±4.1%: 93-97% holds the expected rate with room for the interval's
    own error). The pair metrics need the draw by cluster size (below): drawn uniformly,
    pair_precision covers about 87%, as the few small entities merged into large clusters
    that carry much of its denominator are missed by most samples."""
    coverage = _coverage(300, POINTWISE, records=400)
    assert all(0.93 <= c <= 0.97 for c in coverage.values()), coverage


def test_every_interval_covers_when_drawn_by_cluster_size():
    """1,000 draws of 400 seed records expected in proportion to their actual cluster's
    size (~160 entities): every metric's interval, the pair metrics' included, covers 93-97%
    (at 1,000 draws the binomial sd is 0.7%; the measured rates are 93.3-94.7%)."""
    coverage = _coverage(1000, POINTWISE + PAIRS, records=400, by_cluster_size=True)
    assert all(0.93 <= c <= 0.97 for c in coverage.values()), coverage


def test_cli_draws_by_cluster_size_and_its_weights_reach_evaluate(run_cli, tmp_path):
    """draw-truth --by-cluster-size, the labels, truth-from-labels: the weights written are
    1/π of the sample's chances, and evaluate reads them as they are."""
    out = tmp_path / "ts"
    r = run_cli("draw-truth", str(RUNS[0]), "--records", "40", "--seed", "3",
                "--by-cluster-size", "--out", str(out), "--json", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)
    assert shown["design"] == "cluster_size" and shown["options"]["by_cluster_size"] is True
    s = cs.load_truth_sample(out)
    assert shown["seed records"] == len(s.seeds) and s.chances is not None
    truth = pd.read_csv(EXAMPLE / "truth.csv", dtype=str).set_index("item_id")["cluster_id"]
    _labels(s, truth).to_csv(tmp_path / "labels.csv", index=False)
    t_csv, w_csv = tmp_path / "truth.csv", tmp_path / "weights.csv"
    r = run_cli("truth-from-labels", str(tmp_path / "labels.csv"), "--sample", str(out),
                "--out", str(t_csv), "--weights", str(w_csv), "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    want = cs.truth_from_labels(_labels(s, truth), s).weights
    got = pd.read_csv(w_csv, dtype={"cluster_id": str})
    assert np.allclose(got["weight"], want["weight"], rtol=1e-15, atol=0)
    r = run_cli("evaluate", str(t_csv), str(RUNS[0]), "--truth-scope", "entities",
                "--cluster-weights", str(w_csv), "--json", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--by-cluster-size", "--weight-col", "country"], "not both"),
        (["--weight-col", "country"], "items.csv line 2: country 'US' is not a number"),
        (["--weight-col", "nope"], "no column 'nope'"),
    ],
)
def test_cli_bad_draw_designs_are_one_line(run_cli, tmp_path, args, message):
    r = run_cli("draw-truth", str(RUNS[0]), "--records", "5", "--items",
                str(EXAMPLE / "items.csv"), *args, "--out", str(tmp_path / "t"))  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr and not (tmp_path / "t").exists()


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
