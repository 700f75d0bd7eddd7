"""Raters and rounds through the API and the command line (docs/metrics.md, judging): replicate
rows for a second rater, verdicts from several raters and files, one rater's conflicting
verdicts, continuing a sample, and intervals marked unreliable where a tail is unseen."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import clusterscore as cs

BASE = {i: i // 4 for i in range(40)}
EXP = {i: i // 5 for i in range(40)}
TRUTH = {i: i // 4 for i in range(40)}


def truly(i, j):
    return "same" if TRUTH[int(i)] == TRUTH[int(j)] else "different"


@pytest.fixture
def sample():
    return cs.sample_pairs(BASE, EXP, pairs=400, seed=2, replicates=10)


def judged(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(verdict=[truly(i, j) for i, j in zip(table.item_i, table.item_j,
                                                             strict=True)])  # fmt: skip


def test_replicate_rows_are_the_most_drawn_pairs_again(sample):
    t = sample.raters_table().to_pandas()
    first, second = t[t["copy"] == 1], t[t["copy"] == 2]
    assert len(second) == 10 and (t["verdict"] == "").all()  # blind: no verdict shown
    drawn = sample.pairs.set_index(["item_i", "item_j"])["draws"]

    def draws(i, j):  # both orders of the pair
        return int(drawn.get((i, j), 0)) + (int(drawn.get((j, i), 0)) if i != j else 0)

    ranked = sorted((draws(i, j) for i, j in zip(first.item_i, first.item_j, strict=True)),
                    reverse=True)  # fmt: skip
    assert sorted((draws(i, j) for i, j in zip(second.item_i, second.item_j, strict=True)),
                  reverse=True) == ranked[:10]  # fmt: skip
    assert len(cs.sample_pairs(BASE, EXP, pairs=400, seed=2, replicates=0).raters_table()) == len(
        first
    )
    with pytest.raises(ValueError, match="replicates must be a whole number"):
        cs.sample_pairs(BASE, EXP, pairs=400, seed=2, replicates=-1)


def test_two_raters_are_replicates_and_measure_the_raters(sample):
    t = judged(sample.raters_table().to_pandas())
    est = cs.estimate(sample, t)
    assert est.raters["measured"] and est.raters["noise"] == 0
    # The second copies answered the other way: every replicated pair disagrees.
    flipped = t.copy()
    two = flipped["copy"] == 2
    flipped.loc[two, "verdict"] = flipped.loc[two, "verdict"].map(
        {"same": "different", "different": "same"}
    )
    raters = cs.estimate(sample, flipped).raters
    assert raters["noise"] == pytest.approx(0.5)  # (1 − 1/2) / (2 − 1) per pair
    for c in raters["classes"].values():
        assert c["disagreement"] in (None, 1.0)
    assert sum(c["replicated_pairs"] for c in raters["classes"].values()) == 10
    # Without the copy column the two rows are one rater's: a conflict naming both lines.
    with pytest.raises(ValueError, match=r"row \d+ and row \d+: pair .* two different verdicts"):
        cs.estimate(sample, flipped.drop(columns="copy"))


def test_a_rater_column_names_who_judged(sample):
    t = judged(sample.raters_table().to_pandas().query("copy == 1")).drop(columns="copy")
    again = t.iloc[:5].assign(rater="bo")
    est = cs.estimate(sample, pd.concat([t.assign(rater="ann"), again]))
    assert est.raters["measured"]
    clash = again.assign(verdict=np.where(again.verdict == "same", "different", "same"))
    clash["rater"] = "ann"
    with pytest.raises(ValueError, match="two different verdicts from rater 'ann'"):
        cs.estimate(sample, pd.concat([t.assign(rater="ann"), clash]))


def test_without_replicates_the_output_says_so(sample, tmp_path, run_cli):
    t = judged(sample.raters_table().to_pandas().query("copy == 1"))
    assert not cs.estimate(sample, t).raters["measured"]
    sample.save(tmp_path / "pairs.parquet")
    t.to_csv(tmp_path / "judged.csv", index=False)
    p = run_cli("estimate", tmp_path / "pairs.parquet", "--verdicts", tmp_path / "judged.csv")
    assert p.returncode == 0, p.stderr
    assert "Raters' agreement not measured" in p.stdout
    p = run_cli("estimate", tmp_path / "pairs.parquet", "--verdicts", tmp_path / "judged.csv",
                "--json")  # fmt: skip
    assert json.loads(p.stdout)["raters"]["measured"] is False


def test_verdicts_in_several_files(sample, tmp_path, run_cli):
    t = judged(sample.raters_table().to_pandas())
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    t[t["copy"] == 1].to_csv(one, index=False)
    t[t["copy"] == 2].to_csv(two, index=False)
    whole = cs.estimate(sample, t)
    assert cs.estimate(sample, [one, two]) == whole
    sample.save(tmp_path / "pairs.parquet")
    p = run_cli("estimate", tmp_path / "pairs.parquet", "--verdicts", one, "--verdicts", two,
                "--json")  # fmt: skip
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["raters"]["measured"] is True
    assert got["good_split_distance"]["estimate"] == pytest.approx(
        whole["good_split_distance"]["estimate"]
    )
    p = run_cli("estimate", tmp_path / "pairs.parquet", "--verdicts", one, "--verdicts", one)
    assert p.returncode == 2 and "given twice" in p.stderr and p.stderr.count("\n") == 1


def test_bad_copy_values_are_reported(sample):
    t = judged(sample.raters_table().to_pandas())
    t["copy"] = t["copy"].astype(str)
    t.loc[t.index[1], "copy"] = "3"
    with pytest.raises(ValueError, match=r"row 2: copy '3' is not 1 or 2"):
        cs.estimate(sample, t)


def test_a_continued_sample_is_the_larger_first_draw(tmp_path, run_cli):
    first = cs.sample_pairs(BASE, EXP, pairs=300, seed=4, stable_pairs=100)
    more = cs.continue_sample(first, BASE, EXP, pairs=200, stable_pairs=50)
    whole = cs.sample_pairs(BASE, EXP, pairs=500, seed=4, stable_pairs=150)
    assert more.table.equals(whole.table) and more.meta == whole.meta
    # The new round shows only what the first did not.
    new = more.raters_table(since=first).to_pandas()
    shown = first.raters_table().to_pandas()
    before = {frozenset(p) for p in zip(shown.item_i, shown.item_j, strict=True)}
    assert not {frozenset(p) for p in zip(new.item_i[new["copy"] == 1], new.item_j[new["copy"]
                                                                                   == 1],
                                          strict=True)} & before  # fmt: skip
    # Through the command line, from the saved first round.
    pd.DataFrame({"item_id": list(BASE), "cluster_id": list(BASE.values())}).to_csv(
        tmp_path / "base.csv", index=False
    )
    pd.DataFrame({"item_id": list(EXP), "cluster_id": list(EXP.values())}).to_csv(
        tmp_path / "exp.csv", index=False
    )
    b, e = tmp_path / "base.csv", tmp_path / "exp.csv"
    p = run_cli("sample", b, e, "--pairs", 300, "--stable-pairs", 100, "--seed", 4,
                "--out", tmp_path / "r1.parquet")  # fmt: skip
    assert p.returncode == 0, p.stderr
    p = run_cli("sample", b, e, "--continue", tmp_path / "r1.parquet", "--pairs", 200,
                "--stable-pairs", 50, "--out", tmp_path / "r2.parquet")  # fmt: skip
    assert p.returncode == 0, p.stderr
    r2 = cs.load_sample(tmp_path / "r2.parquet")
    assert r2.pairs.equals(cs.load_sample(tmp_path / "r2.parquet").pairs)
    assert r2.pairs.draws.sum() == 650 and r2.meta["seed"] == 4
    raters = pd.read_csv(tmp_path / "r2.raters.csv", keep_default_na=False)
    assert len(raters) == len(r2.raters_table(since=cs.load_sample(tmp_path / "r1.parquet")))
    # Both rounds' verdicts estimate the continued sample.
    r1_file = judged(pd.read_csv(tmp_path / "r1.raters.csv", keep_default_na=False))
    r2_file = judged(raters)
    r1_file.to_csv(tmp_path / "v1.csv", index=False)
    r2_file.to_csv(tmp_path / "v2.csv", index=False)
    est = cs.estimate(r2, [tmp_path / "v1.csv", tmp_path / "v2.csv"])
    assert est["good_split_distance"]["pairs"] == int(
        r2.pairs.draws[r2.pairs.kind == "split"].sum()
    )
    for args, words in (
        (["--seed", 5], "differs from the seed"),
        (["--distance-only"], "keeps its mode"),
    ):
        p = run_cli("sample", b, e, "--continue", tmp_path / "r1.parquet", "--pairs", 10,
                    "--out", tmp_path / "x.parquet", *args)  # fmt: skip
        assert p.returncode == 2 and words in p.stderr, p.stderr
    p = run_cli("sample", b, b, "--continue", tmp_path / "r1.parquet", "--pairs", 10,
                "--out", tmp_path / "x.parquet")  # fmt: skip
    assert p.returncode == 2 and "inputs differ" in p.stderr
    p = run_cli("sample", b, e, "--pairs", 10, "--out", tmp_path / "x.parquet")
    assert p.returncode == 2 and "--seed is required" in p.stderr


def test_plain_samples_continue_without_stable_pairs():
    first = cs.sample_pairs(BASE, EXP, pairs=100, seed=7)
    with pytest.raises(ValueError, match="stable_pairs continues a stratified sample"):
        cs.continue_sample(first, BASE, EXP, pairs=10, stable_pairs=5)
    assert cs.continue_sample(first, BASE, EXP, pairs=50).table.equals(
        cs.sample_pairs(BASE, EXP, pairs=150, seed=7).table
    )


def test_an_unseen_tail_is_marked_unreliable(tmp_path, run_cli):
    """One big entity's stable pairs carry labels far from the rest: 20 stable draws cannot
    see them, and delta_precision says how many it would need."""
    rng = np.random.default_rng(0)
    n = 400
    base = {i: i // 4 for i in range(n)}
    exp = {i: (i // 8 if i < 200 else i // 4) for i in range(n)}
    w = rng.lognormal(0, 2, n)
    items = pd.DataFrame({"item_id": range(n), "weight": w})
    s = cs.sample_pairs(base, exp, pairs=500, stable_pairs=20, seed=1, items=items)
    need = s.meta["draws_needed"]["delta_precision"][1]
    assert need > 20
    est = cs.estimate(s, judged_with(s, base))
    row = est["delta_precision"]
    assert row["draws_needed"] == need and "judged draws of stable pairs" in row["unreliable"]
    assert "unreliable" not in est["good_split_distance"]
    path = tmp_path / "pairs.parquet"
    s.save(path)
    judged_with(s, base).to_csv(tmp_path / "v.csv", index=False)
    p = run_cli("estimate", path, "--verdicts", tmp_path / "v.csv")
    assert p.returncode == 0 and "unreliable" in p.stdout.lower() and f"{need:,}" in p.stdout


def judged_with(s, truth):
    t = s.raters_table().to_pandas()
    same = [truth[int(i)] == truth[int(j)] for i, j in zip(t.item_i, t.item_j, strict=True)]
    return t.assign(verdict=np.where(same, "same", "different"))


def test_old_samples_without_replicates_still_load(tmp_path):
    s = cs.sample_pairs(BASE, EXP, pairs=50, seed=1)
    meta = {k: v for k, v in s.meta.items() if k not in ("replicates", "draws_needed")}
    from clusterscore._sample import PairSample

    old = PairSample(s.table, meta)
    old.save(tmp_path / "old.parquet")
    back = cs.load_sample(tmp_path / "old.parquet")
    assert len(back.replicated()) == 0
    assert pq.read_schema(tmp_path / "old.parquet").metadata


def test_reversed_conflicting_and_blank_verdicts_on_the_command_line(tmp_path, run_cli):
    s = cs.sample_pairs(BASE, EXP, pairs=400, seed=3, replicates=0)
    path = tmp_path / "pairs.parquet"
    s.save(path)
    t = judged(s.raters_table().to_pandas())
    # Written in the other order, every verdict still serves its pair.
    t.rename(columns={"item_i": "item_j", "item_j": "item_i"}).to_csv(tmp_path / "r.csv",
                                                                       index=False)  # fmt: skip
    t.to_csv(tmp_path / "v.csv", index=False)
    a = run_cli("estimate", path, "--verdicts", tmp_path / "r.csv", "--json")
    b = run_cli("estimate", path, "--verdicts", tmp_path / "v.csv", "--json")
    assert a.returncode == 0 and json.loads(a.stdout) == json.loads(b.stdout)
    # One rater's two different verdicts: both lines named, one line, exit 2.
    clash = t.iloc[[2]].assign(verdict=lambda x: np.where(x.verdict == "same", "different",
                                                          "same"))  # fmt: skip
    pd.concat([t, clash]).to_csv(tmp_path / "c.csv", index=False)
    p = run_cli("estimate", path, "--verdicts", tmp_path / "c.csv")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert f"c.csv line 4 and line {len(t) + 2}: pair" in p.stderr
    # Blank verdicts are counted per class in a warning.
    blank = t.assign(verdict=[""] * 5 + list(t.verdict[5:]))
    blank.to_csv(tmp_path / "b.csv", index=False)
    p = run_cli("estimate", path, "--verdicts", tmp_path / "b.csv")
    assert p.returncode == 0 and f"no verdict on 5 of the {len(t)} pairs to judge" in p.stderr


def test_a_pilot_whose_verdicts_agree_still_plans_draws():
    """All verdicts agree: the normal variance is 0, but the estimate's Wilson interval has a
    width that only more draws narrow, so the plan asks for them (and says how many more)."""
    pilot = cs.sample_pairs(BASE, EXP, pairs=40, stable_pairs=20, seed=5)
    shown = pilot.raters_table().to_pandas()
    plan = cs.plan_pairs(BASE, EXP, half_width=0.01, pilot=(pilot, shown.assign(verdict="same")))
    assert plan["pairs"] > 40 and plan["stable_pairs"] > 20
    assert plan["more_pairs"] == plan["pairs"] - 40
    assert plan["more_stable_pairs"] == plan["stable_pairs"] - 20
    # Drawn and judged as planned, the intervals come out about as narrow as asked.
    s = cs.sample_pairs(BASE, EXP, pairs=plan["pairs"], stable_pairs=plan["stable_pairs"], seed=6)
    est = cs.estimate(s, s.raters_table().to_pandas().assign(verdict="same"))
    for k in ("good_merge_distance", "affected_good_index"):
        assert est[k]["ci_high"] - est[k]["ci_low"] <= 0.012, (k, est[k])


def test_a_hostile_rater_name_stays_on_one_line(sample):
    t = judged(sample.raters_table().to_pandas().query("copy == 1")).drop(columns="copy")
    name = '=HYPERLINK("x")\n<script>alert(1)</script>'
    clash = t.iloc[[0]].assign(verdict=np.where(t.verdict.iloc[:1] == "same", "different",
                                                "same"))  # fmt: skip
    with pytest.raises(ValueError) as e:
        cs.estimate(sample, pd.concat([t, clash]).assign(rater=name))
    assert "\n" not in str(e.value) and "two different verdicts from rater" in str(e.value)
