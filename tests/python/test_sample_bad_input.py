"""Bad input to sampling and estimation: each a clear error naming what is wrong."""

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

import clusterscore as cs

BASE = {i: i // 4 for i in range(24)}
EXP = {i: i // 3 for i in range(24)}


@pytest.fixture
def sample():
    return cs.sample_pairs(BASE, EXP, pairs=300, seed=1)


def verdicts_for(sample, word="same"):
    return sample.pairs[["item_i", "item_j"]].assign(verdict=word)


def test_unknown_pair(sample):
    v = pd.concat([verdicts_for(sample), pd.DataFrame({"item_i": [0], "item_j": [23],
                                                       "verdict": ["same"]})])  # fmt: skip
    with pytest.raises(ValueError, match=r"verdicts row \d+: pair \(0, 23\) is not in the sample"):
        cs.estimate(sample, v)


def test_conflicting_verdicts(sample):
    v = verdicts_for(sample)
    first = v.iloc[[0]].assign(verdict="different")
    with pytest.raises(ValueError, match="has two different verdicts"):
        cs.estimate(sample, pd.concat([v, first]))
    # the same verdict twice is no conflict
    cs.estimate(sample, pd.concat([v, v.iloc[[0]]]))


def test_unknown_verdict_word(sample, tmp_path):
    v = verdicts_for(sample)
    v.loc[v.index[2], "verdict"] = "maybe"
    path = tmp_path / "judged.csv"
    v.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"judged.csv line 4: unknown verdict 'maybe'"):
        cs.estimate(sample, path)


def test_missing_verdict_column(sample):
    with pytest.raises(ValueError, match="no column 'verdict'"):
        cs.estimate(sample, sample.pairs[["item_i", "item_j"]])


def test_unjudged_pairs_are_allowed(sample):
    est = cs.estimate(sample, verdicts_for(sample).iloc[:10])
    assert est["jaccard_distance"]["exact"]


def test_truncated_parquet(sample, tmp_path):
    path = tmp_path / "pairs.parquet"
    sample.save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="pairs.parquet: not a readable Parquet file"):
        cs.load_sample(path)


def test_rows_removed_from_a_csv_sample(sample, tmp_path):
    path = tmp_path / "pairs.csv"
    sample.save(path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-3]) + "\n")
    with pytest.raises(ValueError, match="truncated or was edited"):
        cs.load_sample(path)


def test_hand_edited_sample(sample, tmp_path):
    path = tmp_path / "pairs.csv"
    sample.save(path)
    df = pd.read_csv(path)
    df.loc[0, "U_i"] = df.loc[0, "U_i"] * 2
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match="do not match the checksum"):
        cs.load_sample(path)
    df.loc[0, "kind"] = "weird"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"unknown pair kind\(s\) \['weird'\]"):
        cs.load_sample(path)


def test_not_a_sample_file(tmp_path):
    pq.write_table(_plain_table(), tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="no clusterscore metadata"):
        cs.load_sample(tmp_path / "x.parquet")
    (tmp_path / "y.csv").write_text("item_i,item_j\n1,2\n")
    with pytest.raises(ValueError, match="y.csv.meta.json beside it"):
        cs.load_sample(tmp_path / "y.csv")
    (tmp_path / "y.csv.meta.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        cs.load_sample(tmp_path / "y.csv")
    (tmp_path / "y.csv.meta.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(ValueError, match="unknown sample format"):
        cs.load_sample(tmp_path / "y.csv")
    with pytest.raises(ValueError, match="no such file"):
        cs.load_sample(tmp_path / "nope.parquet")


def _plain_table():
    import pyarrow as pa

    return pa.table({"a": [1]})


def test_bad_sampling_arguments():
    with pytest.raises(ValueError, match="pairs must be a whole number"):
        cs.sample_pairs(BASE, EXP, pairs=-1, seed=1)
    with pytest.raises(ValueError, match="seed must be an integer"):
        cs.sample_pairs(BASE, EXP, pairs=5, seed="x")
    with pytest.raises(ValueError, match="exclude each other"):
        cs.sample_pairs(BASE, EXP, pairs=5, seed=1, stable_pairs=3, distance_only=True)
    with pytest.raises(ValueError, match="no pairs to draw"):
        cs.sample_pairs(BASE, {i: f"x{c}" for i, c in BASE.items()}, pairs=5, seed=1)
    with pytest.raises(ValueError, match="no attribute 'country'"):
        cs.sample_pairs(BASE, EXP, pairs=5, seed=1).contributions(by="country")


def test_cli_sample_and_estimate(tmp_path, run_cli):
    pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())}).to_csv(
        tmp_path / "base.csv", index=False
    )
    pd.DataFrame({"item_id": list(EXP), "cluster_id": list(EXP.values())}).to_csv(
        tmp_path / "exp.csv", index=False
    )
    out = tmp_path / "pairs.parquet"
    p = run_cli("sample", tmp_path / "base.csv", tmp_path / "exp.csv", "--pairs", 400,
                "--stable-pairs", 100, "--seed", 3, "--out", out)  # fmt: skip
    assert p.returncode == 0, p.stderr
    raters = pd.read_csv(tmp_path / "pairs.raters.csv", keep_default_na=False, dtype=str)
    raters["verdict"] = "different"
    raters.to_csv(tmp_path / "judged.csv", index=False)
    p = run_cli("estimate", out, "--verdicts", tmp_path / "judged.csv", "--json")
    assert p.returncode == 0, p.stderr
    est = json.loads(p.stdout)
    assert est["bad_merge_distance"]["estimate"] == pytest.approx(est["merge_distance"]["estimate"])
    p = run_cli("estimate", out, "--verdicts", tmp_path / "judged.csv")
    assert p.returncode == 0 and "good_split_distance" in p.stdout
    raters.loc[0, "verdict"] = "perhaps"
    raters.to_csv(tmp_path / "judged.csv", index=False)
    p = run_cli("estimate", out, "--verdicts", tmp_path / "judged.csv")
    assert p.returncode == 2 and "judged.csv line 2: unknown verdict 'perhaps'" in p.stderr
    p = run_cli("sample", tmp_path / "base.csv", tmp_path / "exp.csv", "--pairs", 0, "--seed", 1,
                "--out", out)  # fmt: skip
    assert p.returncode == 2


def test_a_pair_drawn_in_both_orders_is_one_pair_to_judge(sample, tmp_path):
    pairs = sample.pairs
    keys = set(zip(pairs.item_i, pairs.item_j, strict=True))
    both = {(i, j) for i, j in keys if i != j and (j, i) in keys}
    assert both  # this sample draws many pairs in both orders
    shown = sample.raters_table().to_pandas()
    first = shown[shown["copy"] == 1]
    unordered = {frozenset(k) for k in zip(first.item_i, first.item_j, strict=True)}
    assert len(unordered) == len(first)  # one row per pair
    assert unordered == {frozenset((i, j)) for i, j in keys if i != j}
    # Copy 2 repeats the most-drawn pairs (all of them here: fewer than 50) for a second rater.
    second = shown[shown["copy"] == 2]
    assert len(second) == len(first) and list(shown["copy"]) == [1] * len(first) + [2] * len(first)
    # One verdict per row of the raters' file serves both orders: the same estimates as a
    # verdict written for every order drawn.
    truth = dict(BASE)
    word = ["same" if truth[i] == truth[j] else "different" for i, j in
            zip(shown.item_i, shown.item_j, strict=True)]  # fmt: skip
    once = cs.estimate(sample, shown[["item_i", "item_j"]].assign(verdict=word))
    every = pairs[pairs.kind != "self"][["item_i", "item_j"]]
    word = ["same" if truth[i] == truth[j] else "different" for i, j in
            zip(every.item_i, every.item_j, strict=True)]  # fmt: skip
    assert once == cs.estimate(sample, every.assign(verdict=word))


def test_two_verdicts_on_one_pair_in_either_order_name_both_lines(sample, tmp_path):
    shown = sample.raters_table().to_pandas()[["item_i", "item_j"]]
    shown = shown[shown.item_i != shown.item_j].reset_index(drop=True)
    v = shown.assign(verdict="same")
    flipped = v.iloc[[3]].rename(columns={"item_i": "item_j", "item_j": "item_i"})
    path = tmp_path / "judged.csv"
    pd.concat([v, flipped.assign(verdict="different")]).to_csv(path, index=False)
    last = len(v) + 2
    with pytest.raises(ValueError, match=rf"judged.csv line 5 and line {last}: pair .* has two"):
        cs.estimate(sample, path)


def test_every_bad_line_is_reported_at_once(sample, tmp_path):
    v = verdicts_for(sample)
    v.loc[v.index[2], "verdict"] = "maybe"
    v.loc[v.index[5], "verdict"] = "smae"
    extra = pd.DataFrame({"item_i": [0], "item_j": [23], "verdict": ["same"]})
    path = tmp_path / "judged.csv"
    pd.concat([v, extra]).to_csv(path, index=False)
    with pytest.raises(ValueError) as e:
        cs.estimate(sample, path)
    message = str(e.value)
    assert "\n" not in message
    assert "judged.csv: 3 bad lines: line 4: unknown verdict 'maybe'" in message
    assert "line 7: unknown verdict 'smae'" in message
    assert f"line {len(v) + 2}: pair ('0', '23') is not in the sample" in message
    # Past ten, the rest are counted.
    v["verdict"] = "nope"
    v.to_csv(path, index=False)
    with pytest.raises(ValueError, match=rf"{len(v)} bad lines: .*; and {len(v) - 10} more$"):
        cs.estimate(sample, path)


def test_pairs_without_a_verdict_are_counted_per_class(sample):
    shown = sample.raters_table().to_pandas().query("copy == 1")
    v = shown[["item_i", "item_j"]].assign(verdict="same").iloc[:5]
    with pytest.warns(UserWarning, match=rf"no verdict on {len(shown) - 5} of the {len(shown)}"
                      r" pairs to judge \(split \d+ of \d+, merge \d+ of \d+"):  # fmt: skip
        cs.estimate(sample, v)
