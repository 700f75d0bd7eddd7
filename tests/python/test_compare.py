"""compare(): several runs against one truth (docs/metrics.md), its deltas and bootstrap, and the
`compare` command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLE
from typer.testing import CliRunner

import clusterscore as cs
from clusterscore.cli import app

METRICS = ["precision", "recall", "f1", "jaccard_index", "jaccard_distance", "f1_of_means"]


def _data(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    items = np.arange(n)
    truth = rng.integers(0, 60, n)
    runs = {}
    # Moved items join a cluster shared by four truth clusters: 15 linked groups.
    for name, p in (("base", 0.2), ("exp", 0.35), ("other", 0.1)):
        moved = rng.random(n) < p
        runs[name] = pd.DataFrame(
            {"item_id": items, "cluster_id": np.where(moved, 1000 + truth // 4, truth)}
        )
    t = pd.DataFrame({"item_id": items, "cluster_id": truth})
    extra = pd.DataFrame(
        {
            "item_id": items,
            "weight": rng.uniform(0.5, 3, n),
            "country": rng.choice(["US", "DE", "FR"], n),
        }
    )
    return t, runs, extra


def test_deltas_are_the_evaluations_differences_overall_and_per_slice():
    t, runs, extra = _data(1)
    c = cs.compare(t, runs, extra, resamples=50, seed=3)
    assert c.runs == ["base", "exp", "other"]
    d = c.deltas()
    assert len(d) == 3 * 12 and set(zip(d.run_a, d.run_b, strict=True)) == {
        ("base", "exp"), ("base", "other"), ("exp", "other")
    }  # fmt: skip
    for row in d.itertuples():
        a = cs.evaluate(t, runs[row.run_a], extra).overall[row.metric]
        b = cs.evaluate(t, runs[row.run_b], extra).overall[row.metric]
        assert row.value_a == pytest.approx(a, rel=1e-12, abs=1e-15)
        assert row.delta == pytest.approx(b - a, rel=1e-9, abs=1e-14)
        assert row.ci_low <= row.ci_high and row.resamples == 50
    s = c.deltas("country")
    base = cs.evaluate(t, runs["base"], extra).per_slice("country").set_index("country")
    exp = cs.evaluate(t, runs["exp"], extra).per_slice("country").set_index("country")
    for row in s[(s.run_a == "base") & (s.run_b == "exp")].itertuples():
        want = exp.loc[row.country, row.metric] - base.loc[row.country, row.metric]
        assert row.delta == pytest.approx(want, rel=1e-9, abs=1e-14)


def test_identical_runs_have_zero_deltas_and_no_interval_that_claims_certainty():
    t, runs, extra = _data(2)
    d = cs.compare(t, {"a": runs["base"], "b": runs["base"]}, extra, resamples=40).deltas()
    assert (d.delta == 0).all()
    # No resample moves a delta of a run with itself: no interval, and the reason, rather
    # than a zero-width [0, 0] that would claim the delta known exactly.
    assert d.std_error.isna().all() and d.ci_low.isna().all() and d.ci_high.isna().all()
    assert (d.interval_note == "no resample moves it").all()


def test_a_seed_repeats_the_intervals():
    t, runs, extra = _data(3)
    one = cs.compare(t, runs, extra, resamples=30, seed=9).deltas()
    two = cs.compare(t, runs, extra, resamples=30, seed=9).deltas()
    other = cs.compare(t, runs, extra, resamples=30, seed=10).deltas()
    pd.testing.assert_frame_equal(one, two)
    assert not np.array_equal(one.ci_low.to_numpy(), other.ci_low.to_numpy())


def test_the_interval_covers_a_true_delta_of_clusters_drawn_from_a_population():
    # The truth is a sample of a population's clusters: the population's delta (both runs
    # scored on every cluster) should fall inside the 90% interval most of the time.
    rng = np.random.default_rng(0)
    pop = 3000
    sizes = rng.integers(1, 6, pop)
    cluster = np.repeat(np.arange(pop), sizes)
    n = len(cluster)
    items = np.arange(n)
    a = np.where(rng.random(n) < 0.2, rng.integers(0, pop, n), cluster)
    b = np.where(rng.random(n) < 0.3, cluster // 2, cluster)

    def frame(keep, labels):
        return pd.DataFrame({"item_id": items[keep], "cluster_id": labels[keep]})

    every = np.ones(n, bool)
    full = cs.compare(
        frame(every, cluster), {"a": frame(every, a), "b": frame(every, b)}, resamples=1
    )
    true = full.deltas().set_index("metric").delta
    hits, trials = 0, 40
    for trial in range(trials):
        keep = np.isin(cluster, rng.choice(pop, 150, replace=False))
        runs = {"a": frame(keep, a), "b": frame(keep, b)}
        d = cs.compare(
            frame(keep, cluster), runs, resamples=200, seed=trial, confidence=0.9
        ).deltas()
        r = d.set_index("metric").loc["recall"]
        hits += r.ci_low <= true["recall"] <= r.ci_high
    assert hits >= 0.75 * trials


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"resamples": 0}, "resamples"),
        ({"resamples": 2.5}, "resamples"),
        ({"confidence": 1.0}, "confidence"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_options_are_errors(kwargs, message):
    t, runs, extra = _data(4)
    with pytest.raises(ValueError, match=message):
        cs.compare(t, runs, extra, **kwargs)


def test_fewer_than_two_runs_or_no_slice_column_are_errors():
    t, runs, extra = _data(5)
    with pytest.raises(ValueError, match="at least two"):
        cs.compare(t, {"base": runs["base"]}, extra)
    with pytest.raises(ValueError, match="dict"):
        cs.compare(t, runs["base"], extra)
    with pytest.raises(ValueError, match="no slice column 'region'"):
        cs.compare(t, runs, extra, resamples=5).deltas("region")


def test_cli_compare_prints_and_writes_deltas(tmp_path):
    t, runs, extra = _data(6)
    paths = []
    for name, df in {"truth": t, **runs, "items": extra}.items():
        paths.append(tmp_path / f"{name}.csv")
        df.to_csv(paths[-1], index=False)
    out = tmp_path / "out"
    args = ["compare", str(paths[0]), str(paths[1]), str(paths[2]), "--items", str(paths[-1])]
    r = CliRunner().invoke(
        app, [*args, "--slice", "country", "--resamples", "20", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "exp − base, overall" in r.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == ["base", "exp"]
    assert {d["metric"] for d in summary["deltas"]} >= set(METRICS)
    assert pd.read_parquet(out / "deltas_country.parquet").country.nunique() == 3


def _two_runs_missing_items(tmp_path):
    (tmp_path / "truth.csv").write_text("item_id,cluster_id\n1,a\n2,a\n3,b\n4,b\n5,c\n")
    (tmp_path / "full.csv").write_text("item_id,cluster_id\n1,x\n2,x\n3,x\n4,y\n5,y\n9,z\n")
    (tmp_path / "part.csv").write_text("item_id,cluster_id\n1,x\n2,y\n3,z\n")
    return [str(tmp_path / f) for f in ("truth.csv", "full.csv", "part.csv")]


def test_cli_compare_shows_what_of_the_truth_each_run_scores(tmp_path):
    r = CliRunner().invoke(app, ["compare", *_two_runs_missing_items(tmp_path), "--resamples", "9"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "Coverage of the truth by each run" in lines[0]
    row = {line.split()[1]: line.split()[2:] for line in lines if line.startswith("│ ")}
    # items scored, weight scored, truth items missed, run-only items, truth clusters scored
    assert row["full"] == ["│", "5", "/", "5", "│", "5.00", "/", "5.00", "│", "0", "│", "1", "│",
                           "3", "/", "3", "│"]  # fmt: skip
    assert row["part"] == ["│", "3", "/", "5", "│", "3.00", "/", "5.00", "│", "2", "│", "0", "│",
                           "2", "/", "3", "│"]  # fmt: skip


def _compare_output(args: list[str], monkeypatch, columns: str | None) -> str:
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    r = CliRunner().invoke(app, ["compare", *args, "--resamples", "9"])
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("columns", ["80", None])
def test_cli_compare_tables_keep_whole_names_and_four_decimals(tmp_path, monkeypatch, columns):
    """At 80 columns (a terminal) or wider (output to a file), no metric name or number is
    cut short."""
    out = _compare_output(_two_runs_missing_items(tmp_path), monkeypatch, columns)
    assert "…" not in out.split("overall (95% intervals")[1]
    names = [line.split()[0] for line in out.splitlines() if "│" in line and "┃" not in line]
    assert {"jaccard_index", "jaccard_distance", "under_merge_rate", "f1_of_means"} <= set(names)
    lines = [line.strip() for line in out.splitlines()]
    precision = next(line for line in lines if line.startswith("precision "))
    # full's precision (8/15) and part's (1), four decimals
    assert [v.strip() for v in precision.split("│")[1:3]] == ["0.5333", "1.0000"]
    if columns:
        assert max(len(line) for line in out.splitlines()[9:]) <= 80


def test_cli_compare_of_the_example_fits_80_columns(monkeypatch):
    """The bundled example, with two slice columns: every delta table whole at 80 columns
    (its values reach 8 characters in 6 significant digits, which did not fit)."""
    ex = [str(EXAMPLE / f) for f in ("truth.csv", "actual.csv", "truth.csv")]
    items = ["--items", str(EXAMPLE / "items.csv"), "--slice", "country", "--slice", "source"]
    out = _compare_output([*ex, *items], monkeypatch, "80")
    deltas = out.split("Coverage of the truth by each run")[1].split("\n\n", 1)[1]
    assert "…" not in deltas
    assert max(len(line) for line in deltas.splitlines()) <= 80
    assert deltas.count(" − actual, per ") == 2


def test_cli_compare_with_one_run_exits_2(tmp_path):
    t, runs, _ = _data(7)
    t.to_csv(tmp_path / "truth.csv", index=False)
    runs["base"].to_csv(tmp_path / "base.csv", index=False)
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "clusterscore", "compare", str(tmp_path / "truth.csv"),
         str(tmp_path / "base.csv")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.strip() == "error: comparing runs needs at least two; got 1"


def test_errors_in_the_shared_truth_and_items_name_their_file_and_line(tmp_path):
    (tmp_path / "truth.csv").write_text("item_id,cluster_id\na,1\nb,1\na,2\n")
    (tmp_path / "run.csv").write_text("item_id,cluster_id\na,1\nb,2\n")
    (tmp_path / "items.csv").write_text("item_id,weight\na,1\nb,0\n")
    run = tmp_path / "run.csv"
    with pytest.raises(ValueError, match=r"truth\.csv line 4: item 'a' appears twice"):
        cs.compare(tmp_path / "truth.csv", [run, run])
    (tmp_path / "truth.csv").write_text("item_id,cluster_id\na,1\nb,1\n")
    with pytest.raises(ValueError, match=r"items\.csv line 3: weight 0 of item 'b'"):
        cs.compare(tmp_path / "truth.csv", [run, run], tmp_path / "items.csv")
