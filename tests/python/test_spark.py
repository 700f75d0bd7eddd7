"""The Spark engine (clusterscore.spark) on local[2]: every metric at every level equal to
the in-process result, whatever the partitioning, and its errors."""

from __future__ import annotations

import functools
import json
import math
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from conftest import EXAMPLE
from reference import abcde_pairs
from test_sampling import chi_square, small_case
from test_units import SLICES, assert_same, assert_same_dict
from units_oracle import random_items, units_of

import clusterscore as cs
import clusterscore.spark as css
from clusterscore import _spark_io, metrics


def frames(spark, d: dict[str, pd.DataFrame], partitions: int = 3) -> dict:
    """The pandas inputs as Spark DataFrames cut into `partitions` parts."""
    out = {}
    for k, df in d.items():
        df = df.astype(object).where(df.notna(), None)
        out[k] = spark.createDataFrame(df).repartition(partitions)
    return out


@pytest.mark.parametrize(
    ("seed", "scope", "weights"),
    [(1, "common", True), (2, "entities", True), (3, "common", False), (4, "entities", False)],
)
def test_evaluate_equals_in_process(spark, seed: int, scope: str, weights: bool) -> None:
    d = random_items(seed, weights=weights)
    s = frames(spark, d)
    design = "inverse_size" if scope == "entities" else None
    opts = dict(truth_scope=scope, cluster_weights=design, resamples=60, seed=seed)
    want = cs.evaluate(d["truth"], d["exp"], d["items"], **opts)
    got = css.evaluate(s["truth"], s["exp"], s["items"], **opts)
    assert got.coverage == pytest.approx(want.coverage, rel=1e-12)
    assert_same_dict(want.overall, got.overall)
    per_item = got.per_item().toPandas()
    assert "_collected" not in vars(got._spark)  # the per-item values made where cells are
    expected = want.per_item()
    assert list(per_item.columns) == list(expected.columns)
    assert_same(expected, per_item, ["item_id", "truth_cluster", "actual_cluster"])
    assert_same_dict(want.classic, got.classic)
    for side in ("truth", "actual"):
        assert_same(want.per_cluster(side), got.per_cluster(side).toPandas(), ["cluster_id"])
    for by in (["region"], ["source"], SLICES):
        assert_same(want.per_slice(by), got.per_slice(by), by)
    assert_same(want.intervals(), got.intervals(), ["metric"])
    assert_same(want.intervals("region"), got.intervals("region"), ["metric", "region"])


def sampled_truth(seed: int) -> dict[str, pd.DataFrame]:
    """random_items with the truth cut to the items of a few of its clusters (a labelled
    sample of entities): most clusters of each run then hold no truth item."""
    d = random_items(seed, n=1200)
    t = d["truth"]
    d["truth"] = t[t["cluster_id"].isin(t["cluster_id"].unique()[:12])]
    return d


@pytest.mark.parametrize("scope", ["common", "entities"])
def test_a_sampled_truth_leaves_the_other_units_in_spark(spark, scope: str) -> None:
    """Only the units that hold truth items (and in the entities scope, those of the runs'
    clusters that do) reach the driver; the others still count in the coverage."""
    d = sampled_truth(21)
    s = frames(spark, d)
    opts = dict(truth_scope=scope, resamples=40, seed=4)
    runs = {"base": d["base"], "exp": d["exp"]}
    want = cs.compare(d["truth"], runs, d["items"], **opts)
    got = css.compare(s["truth"], {"base": s["base"], "exp": s["exp"]}, s["items"], **opts)
    for run in runs:
        w, g = want.evaluations[run], got.evaluations[run]
        assert g.coverage == pytest.approx(w.coverage, rel=1e-12)
        assert g.coverage["actual_clusters"] > 3 * g.coverage["actual_clusters_common"]
        assert_same_dict(w.overall, g.overall)
        assert_same_dict(w.classic, g.classic)
        for side in ("truth", "actual"):
            assert_same(w.per_cluster(side), g.per_cluster(side).toPandas(), ["cluster_id"])
        assert_same(w.per_slice("region"), g.per_slice("region"), ["region"])
        assert_same(w.intervals("source"), g.intervals("source"), ["metric", "source"])
    assert_same(want.deltas(), got.deltas(), ["run_a", "run_b", "metric"])
    held = len(got.evaluations["base"]._spark.table)
    truth_units = len(d["truth"])  # at most one unit per truth item ...
    if scope == "entities":  # ... and per item of a run's cluster that holds one
        touched = set()
        for r in runs.values():
            clusters = r[r.item_id.isin(d["truth"].item_id)].cluster_id
            touched |= set(r[r.cluster_id.isin(clusters)].item_id)
        truth_units += len(touched)
    # The rest: one unit for each set of runs its items are in.
    assert held <= truth_units + 3
    every = units_of(d["truth"], list(runs.values()), d["items"], SLICES)[2].table
    assert held < len(every) / 2
    # One run, integer cluster ids, no items table (the rest's id is then an integer).
    exp = d["exp"].assign(cluster_id=d["exp"]["cluster_id"].str[1:].astype("int64"))
    want_one = cs.evaluate(d["truth"], exp, **opts)
    exp_frame = frames(spark, {"exp": exp})["exp"]
    got_one = css.evaluate(s["truth"], exp_frame, **opts)
    assert got_one.coverage == pytest.approx(want_one.coverage, rel=1e-12)
    assert_same_dict(want_one.overall, got_one.overall)
    assert_same(
        want_one.per_cluster("actual"),
        got_one.per_cluster_table("actual").to_pandas(),
        ["cluster_id"],
    )
    # Without an items table there are no items-table counts, as in-process.
    want_diff, got_diff = cs.diff(d["base"], exp), css.diff(s["base"], exp_frame)
    assert got_diff.coverage == pytest.approx(want_diff.coverage, rel=1e-12)


def test_the_rest_cluster_id_is_unused() -> None:
    """The one cluster that stands for a run's clusters without truth items takes an id
    that no held unit has, of the column's type, at the ends of the type too."""
    assert _spark_io._unused_id(pa.array([3, 9, None], pa.int64())) == 10
    top = 2**31 - 1
    assert _spark_io._unused_id(pa.array([-5, top], pa.int32())) == -6
    assert _spark_io._unused_id(pa.array([None], pa.int64())) == 0
    name = "(clusters without truth items)"
    got = _spark_io._unused_id(pa.array(["a", name, name + "'"]))
    assert got not in ("a", name, name + "'") and isinstance(got, str)


def test_a_bad_item_outside_the_truth_is_still_named(spark) -> None:
    truth = pd.DataFrame({"item_id": [1, 2], "cluster_id": [1, 1]})
    actual = pd.DataFrame({"item_id": [1, 2, 50, 50], "cluster_id": [7, 7, 9, 9]})
    s = frames(spark, {"truth": truth, "actual": actual})
    with pytest.raises(ValueError, match="actual: item 50 appears 2 times"):
        css.evaluate(s["truth"], s["actual"])


@pytest.mark.parametrize("through_files", [True, False])
def test_per_item_batches_come_a_part_at_a_time(spark, monkeypatch, tmp_path, through_files):
    """per_item_batches() streams: batches of exactly `rows` rows but the last, the rows
    of the in-process per-item table, and never the whole table collected at once; on a
    local master through files Spark's writer leaves in a temporary folder, removed once
    read, else a partition at a time."""
    d = random_items(12)
    s = frames(spark, d, partitions=5)
    want = cs.evaluate(d["truth"], d["exp"], d["items"]).per_item()
    got = css.evaluate(s["truth"], s["exp"], s["items"])
    got.per_item()  # what it computes once (the units' values) may be collected
    for module in (css, _spark_io):
        monkeypatch.setattr(module, "_to_arrow", lambda df: pytest.fail("collected whole"))
    monkeypatch.setattr(css, "driver_reads_workers_files", lambda session: through_files)
    monkeypatch.setattr(_spark_io, "_ROWS_PER_PARTITION", 10)  # many partitions, batches across
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    batches = list(got.per_item_batches(rows=7))
    assert len(batches) > 5
    assert all(b.num_rows == 7 for b in batches[:-1]) and 0 < batches[-1].num_rows <= 7
    table = pa.Table.from_batches(batches).to_pandas()[list(want.columns)]
    assert_same(want, table, ["item_id", "truth_cluster", "actual_cluster"])
    assert batches[0].schema.metadata is None
    assert list(tmp_path.iterdir()) == []  # the temporary files are gone
    abandoned = got.per_item_batches(rows=7)
    next(abandoned)
    abandoned.close()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="rows must be a positive integer, not 0"):
        got.per_item_batches(rows=0)


def test_the_same_for_any_partitioning(spark) -> None:
    d = random_items(11)
    results = []
    for parts in (1, 7):
        s = frames(spark, d, parts)
        e = css.evaluate(s["truth"], s["exp"], s["items"], resamples=40, seed=3)
        results.append((e.overall, e.per_cluster("actual").toPandas(), e.intervals("source")))
    assert_same_dict(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1], ["cluster_id"])
    assert_same(results[0][2], results[1][2], ["metric", "source"])


def test_compare_equals_in_process(spark) -> None:
    d = random_items(5)
    s = frames(spark, d)
    want = cs.compare(d["truth"], {"base": d["base"], "exp": d["exp"]}, d["items"], resamples=50)
    got = css.compare(s["truth"], {"base": s["base"], "exp": s["exp"]}, s["items"], resamples=50)
    assert got.runs == ["base", "exp"]
    assert_same(want.deltas(), got.deltas(), ["run_a", "run_b", "metric"])
    keys = ["run_a", "run_b", "region", "metric"]
    assert_same(want.deltas("region"), got.deltas("region"), keys)


@pytest.mark.parametrize("weights", [True, False])
def test_diff_equals_in_process(spark, weights: bool) -> None:
    d = random_items(6, weights=weights)
    s = frames(spark, d)
    want = cs.diff(d["base"], d["exp"], d["items"])
    got = css.diff(s["base"], s["exp"], s["items"])
    assert got.coverage == pytest.approx(want.coverage, rel=1e-12)
    assert_same_dict(want.overall, got.overall)
    for side in ("base", "exp"):
        assert_same(want.per_cluster(side), got.per_cluster(side).toPandas(), ["cluster_id"])
    assert_same(want.per_slice("region"), got.per_slice("region"), ["region"])
    assert_same(want.flows(), got.flows().toPandas(), ["base_cluster", "exp_cluster"])
    assert "_collected" not in vars(got._spark)  # the levels and flows stayed in Spark
    per_item = got.per_item().toPandas()
    assert list(per_item.columns) == list(want.per_item().columns)
    assert_same(want.per_item(), per_item, ["item_id", "base_cluster", "exp_cluster"])
    assert "_collected" not in vars(got._spark)  # the per-item values made where cells are


def test_diffs_flows_largest_first_and_only_the_largest_collected(spark) -> None:
    """Flows on the driver largest first, ties in the order of the cluster ids; the
    largest alone without the rest; a diff without slices (a unit is its
    cell) equal to in-process."""
    d = random_items(24, weights=True)
    s = frames(spark, d)
    want = cs.diff(d["base"], d["exp"], d["items"])
    got = css.diff(s["base"], s["exp"], s["items"], slices=[])
    assert_same_dict(want.overall, got.overall)
    table = got.flows_table()
    keys = ["base_cluster", "exp_cluster"]
    flows = want.flows().sort_values(["weight", *keys], ascending=[False, True, True])
    assert table.select(keys).to_pandas().values.tolist() == flows[keys].values.tolist()
    top, n = got.largest_flows(7)
    assert n == len(want.flows()) and top.equals(table.slice(0, 7))
    assert "_collected" not in vars(got._spark)


def test_the_clusters_shown_are_picked_in_the_partitions(spark, monkeypatch, tmp_path) -> None:
    """What the terminal shows of the per-cluster tables comes from Spark's partitions, as
    the pick of the whole table ordered by cluster id would give it; the tables themselves
    never reach the driver."""
    from clusterscore import _charts as charts
    from clusterscore import _report as report

    d = random_items(26, weights=True)
    s = frames(spark, d, 4)
    cases = [
        (cs.diff(d["base"], d["exp"], d["items"]), css.diff(s["base"], s["exp"], s["items"]),
         report.most_changed),
        (cs.evaluate(d["truth"], d["exp"], d["items"], truth_scope="entities"),
         css.evaluate(s["truth"], s["exp"], s["items"], truth_scope="entities"),
         functools.partial(report.worst, rate="under_merge_rate", n=4)),
    ]  # fmt: skip
    for cls in (css.SparkDiff, css.SparkEvaluation):
        monkeypatch.setattr(cls, "per_cluster_table", None)
    for want, got, pick in cases:
        for side in want.roles:
            whole = want.per_cluster_table(side).sort_by("cluster_id").to_pandas()
            expected, picked = pick(whole), got.picked_clusters(side, pick)
            assert len(expected) > 1
            assert list(picked["cluster_id"]) == list(expected["cluster_id"])
            assert_same(expected, picked, ["cluster_id"])
            # The report's sums by size, made in the partitions and added on the driver.
            sizes = got.summed_clusters(side, charts.size_sums)
            assert_same(charts.size_sums(whole), sizes, ["size"])
    want, got = cases[0][0], cases[0][1]
    base = pa.array(want.flows_table().column("base_cluster").to_pylist()[:5])
    keys = ["base_cluster", "exp_cluster"]
    flows = got.flows_of(base).to_pandas()
    expected = want.flows().query("base_cluster in @base.to_pylist()")
    assert_same(expected, flows, keys)
    assert flows[keys].values.tolist() == (
        expected.sort_values(["weight", *keys], ascending=[False, True, True])[keys].values.tolist()
    )
    assert "_collected" not in vars(cases[0][1]._spark)
    # Nor does the report of a diff hold them: it reads the same picks, sums and flows.
    monkeypatch.setattr(css.SparkDiff, "flows_table", None)
    cs.report(got, tmp_path / "diff.html")
    assert "_collected" not in vars(cases[0][1]._spark)
    assert "changed the most" in (tmp_path / "diff.html").read_text()
    cs.report(cases[1][1], tmp_path / "evaluation.html")  # its intervals bring the units
    assert "Worst truth clusters" in (tmp_path / "evaluation.html").read_text()


def test_cli_spark_diff_tables_in_the_terminal(run_cli) -> None:
    """The terminal's tables of a diff on Spark: its per-slice, most-changed clusters and
    largest flows, as the local engine shows them."""
    data = EXAMPLE
    args = ["diff", data / "actual.csv", data / "actual_v2.csv", "--items",
            data / "items.csv", "--slice", "country"]  # fmt: skip
    local, spark_run = run_cli(*args), run_cli(*args, "--engine", "spark")
    assert local.returncode == 0 and spark_run.returncode == 0, spark_run.stderr

    def titles(out: str) -> list[str]:
        return [line.strip() for line in out.splitlines() if line[:1].isalpha()]

    assert titles(spark_run.stdout) == titles(local.stdout)
    assert "clusters that changed the most" in spark_run.stdout
    assert "Largest flows between changed clusters (" in spark_run.stdout


@pytest.mark.parametrize("weights", [True, False])
def test_all_scores_equal_in_process(spark, weights: bool) -> None:
    d = random_items(7, weights=weights)
    s = frames(spark, d)
    j = d["truth"].merge(d["exp"], on="item_id").merge(d["items"], on="item_id", how="left")
    w = j["weight"].fillna(1.0).to_numpy() if weights else None
    want = metrics.all_scores(j["cluster_id_x"].to_numpy(), j["cluster_id_y"].to_numpy(), w)
    got = css.all_scores(s["truth"], s["exp"], s["items"])
    assert_same_dict(want, got)


def test_slices_named_or_none(spark) -> None:
    d = random_items(8)
    s = frames(spark, d)
    e = css.evaluate(s["truth"], s["exp"], s["items"], slices=["region"])
    assert_same(cs.evaluate(d["truth"], d["exp"], d["items"]).per_slice("region"),
                e.per_slice("region"), ["region"])  # fmt: skip
    with pytest.raises(ValueError, match="no slice column 'source'"):
        e.per_slice("source")
    plain = css.evaluate(s["truth"], s["exp"])
    assert_same_dict(cs.evaluate(d["truth"], d["exp"]).overall, plain.overall)


def test_errors_name_the_input_and_item(spark) -> None:
    d = random_items(9)
    s = frames(spark, d)
    twice = spark.createDataFrame(pd.concat([d["truth"], d["truth"].head(1)]))
    first = int(d["truth"]["item_id"].iloc[0])
    with pytest.raises(ValueError, match=f"truth: item {first} appears 2 times"):
        css.evaluate(twice, s["exp"])
    no_cluster = spark.createDataFrame([(1, None), (2, "a")], "item_id long, cluster_id string")
    with pytest.raises(ValueError, match="actual: missing value in column 'cluster_id'"):
        css.evaluate(s["truth"], no_cluster)
    for bad in (0.0, -1.0, math.inf, math.nan):
        items = spark.createDataFrame([(1, 1.0), (2, bad)], "item_id long, weight double")
        with pytest.raises(
            ValueError, match=r"items: weight .* of item 2 is not a finite number > 0"
        ):
            css.evaluate(s["truth"], s["exp"], items)
    text_ids = spark.createDataFrame([("1", "a")], "item_id string, cluster_id string")
    with pytest.raises(ValueError, match="item ids must be all integers or all strings"):
        css.evaluate(s["truth"], text_ids)
    with pytest.raises(ValueError, match="actual: no column 'cluster_id'"):
        css.evaluate(s["truth"], s["exp"].withColumnRenamed("cluster_id", "c"))
    with pytest.raises(ValueError, match="takes Spark DataFrames, not DataFrame"):
        css.evaluate(d["truth"], s["exp"])
    with pytest.raises(ValueError, match="truth: no column 'entity'"):
        css.evaluate(s["truth"], s["exp"], cluster_col="entity")
    with pytest.raises(ValueError, match="items: no column 'region2'"):
        css.evaluate(s["truth"], s["exp"], s["items"], slices=["region2"])
    with pytest.raises(ValueError, match="a run may not be named 'truth'"):
        css.compare(s["truth"], {"truth": s["exp"], "b": s["base"]})


def test_items_table_rows_in_no_clustering_are_counted(spark) -> None:
    d = random_items(10)
    extra = pd.DataFrame({"item_id": [10_000, 10_001], "weight": [1.0, 2.0],
                          "region": ["x", None], "source": [1, 2]})  # fmt: skip
    d["items"] = pd.concat([d["items"], extra], ignore_index=True)
    s = frames(spark, d)
    want = cs.evaluate(d["truth"], d["exp"], d["items"]).coverage
    got = css.evaluate(s["truth"], s["exp"], s["items"]).coverage
    assert got["items_table_unmatched"] == want["items_table_unmatched"] >= 2
    assert got["items_table_rows"] == want["items_table_rows"] == len(d["items"])


def test_no_common_item(spark) -> None:
    a = spark.createDataFrame([(1, "a")], "item_id long, cluster_id string")
    b = spark.createDataFrame([(2, "b")], "item_id long, cluster_id string")
    with pytest.raises(ValueError, match="no item is in both truth"):
        css.evaluate(a, b)


def test_fingerprints_equal_in_process(spark) -> None:
    d = random_items(12)
    s = frames(spark, d, 5)
    want = cs.diff(d["base"], d["exp"], d["items"])
    got = css.diff(s["base"], s["exp"], s["items"])
    assert got.input_fingerprints == want.input_fingerprints
    assert got.fingerprint == want.fingerprint
    e = css.evaluate(s["truth"], s["exp"])
    assert e.input_fingerprints == cs.evaluate(d["truth"], d["exp"]).input_fingerprints


def _without_engine(summary: dict) -> dict:
    """The summary without its engine and its inputs' paths (slice tables keep their
    order: heaviest first on either engine)."""
    options = summary["options"]
    assert options.pop("engine") in ("local", "spark")
    for given in summary["inputs"].values():
        given.pop("path")
    return summary


def _own_names(tmp_path: Path, path: Path, names: dict[str, str]) -> str:
    """A copy of the CSV file `path` with its columns renamed by `names`, given with the
    command line's PATH:role=name for each renamed column."""
    out = tmp_path / f"own_{path.name}"
    pd.read_csv(path, dtype=str).rename(columns=names).to_csv(out, index=False)
    roles = {"item_id": "item", "cluster_id": "cluster", "weight": "weight"}
    return f"{out}:" + ",".join(f"{roles[old]}={new}" for old, new in names.items())


@pytest.mark.parametrize("command", ["evaluate", "diff"])
def test_cli_engine_spark_says_and_writes_what_local_does(run_cli, tmp_path, command: str) -> None:
    """The same JSON on stdout and the same --out files (one Spark session per command:
    each starts a JVM, ~15 s). Every command hands the engine's reader to the same call
    as the local engine (cs.evaluate, compare, diff with engine=), so compare's Spark path
    is that of test_one_api_chooses_the_engine and the in-process parity tests above."""
    data = EXAMPLE
    runs = {
        "evaluate": [data / "truth.csv", data / "actual.csv"],
        "diff": [data / "actual.csv", data / "actual_v2.csv"],
    }[command]
    options = ["--slice", "country", "--json"] + (
        ["--resamples", "200"] if command != "diff" else []
    )
    local = run_cli(command, *runs, "--items", data / "items.csv", *options, "--out",
                    tmp_path / "local")  # fmt: skip
    # Spark reads inputs that name their own columns (PATH:item=..,cluster=..,weight=..).
    first = _own_names(tmp_path, runs[0], {"item_id": "record", "cluster_id": "entity"})
    items = _own_names(tmp_path, data / "items.csv", {"item_id": "rid", "weight": "w"})
    spark = run_cli(command, first, runs[1], "--items", items, *options, "--out",
                    tmp_path / "spark", "--engine", "spark",
                    "--spark-master", "local[2]")  # fmt: skip
    # A lake path (here file://): the large tables written by Spark's writer, as folders.
    lake = run_cli(command, *runs, "--items", data / "items.csv", *options, "--out",
                   f"file://{tmp_path}/lake/out", "--engine", "spark",
                   "--spark-master", "local[2]")  # fmt: skip
    assert local.returncode == 0, local.stderr
    assert spark.returncode == 0, spark.stderr
    assert lake.returncode == 0, lake.stderr
    want, got = _without_engine(json.loads(local.stdout)), _without_engine(json.loads(spark.stdout))
    assert_close(want, got)
    assert_close(want, _without_engine(json.loads(lake.stdout)))
    summary = {e: _without_engine(json.loads((tmp_path / e / "summary.json").read_text()))
               for e in ("local", "lake/out")}  # fmt: skip
    assert_close(summary["local"], summary["lake/out"])
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "spark").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "lake" / "out").iterdir())
    assert [p.name for p in (tmp_path / "lake").iterdir()] == ["out"]  # no staging left
    roles = ("truth", "actual") if command == "evaluate" else ("base", "exp")
    want = pd.read_parquet(tmp_path / "local" / "per_item.parquet")
    for e in ("spark", "lake/out"):
        got = pd.read_parquet(tmp_path / e / "per_item.parquet")
        assert_same(want, got, ["item_id", *(f"{r}_cluster" for r in roles)])
    # Spark's tables are written as they are fetched, in the order of the collected ones.
    for role in roles:
        want, got, lake_got = (pd.read_parquet(tmp_path / e / f"per_{role}_cluster.parquet")
                               for e in ("local", "spark", "lake/out"))  # fmt: skip
        assert_same(want, got, ["cluster_id"])
        assert_same(want, lake_got, ["cluster_id"])
        assert list(got["cluster_id"]) == sorted(got["cluster_id"])
    if command == "diff":
        want, got, lake_got = (pd.read_parquet(tmp_path / e / "flows.parquet")
                               for e in ("local", "spark", "lake/out"))  # fmt: skip
        assert_same(want, got, ["base_cluster", "exp_cluster"])
        assert_same(want, lake_got, ["base_cluster", "exp_cluster"])
        assert list(got["weight"]) == sorted(got["weight"], reverse=True)


def test_cli_lake_out_refusals(run_cli, tmp_path) -> None:
    """A lake path is written by Spark only; one that holds files clusterscore did not
    write is refused before any work, as a local folder is; a run that fails leaves nothing
    there, and another run replaces an earlier output whole."""
    data = EXAMPLE
    args = ["evaluate", data / "truth.csv", data / "actual.csv", "--items", data / "items.csv",
            "--no-intervals", "-q"]  # fmt: skip
    spark = ["--engine", "spark", "--spark-master", "local[2]"]
    url = f"file://{tmp_path}/lake/out"
    local = run_cli(*args, "--out", url)
    assert local.returncode == 2
    assert local.stderr == (
        f"error: --out {url}: a lake path is written by Spark; add --engine spark, or name a"
        " local folder\n"
    )
    sample = run_cli("sample", data / "actual.csv", data / "actual_v2.csv", "--pairs", "5",
                     "--seed", "1", "--out", "s3a://bucket/s.parquet")  # fmt: skip
    assert sample.returncode == 2
    assert "names a URL; this output is written on this machine" in sample.stderr
    assert not (Path.cwd() / "s3a:").exists()
    (tmp_path / "lake" / "out").mkdir(parents=True)
    (tmp_path / "lake" / "out" / "notes.txt").write_text("mine")
    theirs = run_cli(*args, "--out", url, *spark)
    assert theirs.returncode == 2
    assert "holds 'notes.txt', which clusterscore did not write" in theirs.stderr
    assert sorted(p.name for p in (tmp_path / "lake").iterdir()) == ["out"]
    (tmp_path / "lake" / "out" / "notes.txt").unlink()
    (tmp_path / "lake" / "out" / "summary.json").write_text("{}")  # an earlier run's
    failed = run_cli(*args, "--slice", "no_such_column", "--out", url, *spark)
    assert failed.returncode == 2, failed.stderr
    assert [p.name for p in (tmp_path / "lake" / "out").iterdir()] == ["summary.json"]
    assert sorted(p.name for p in (tmp_path / "lake").iterdir()) == ["out"]


@pytest.mark.parametrize(
    "own, says",
    [
        ("item=record,weight=w", "a clustering has no weight column to name"),
        ("item=record", "holds a column 'item_id' besides 'record'"),
    ],
    ids=["weight-for-a-clustering", "named-for-another"],
)
def test_cli_engine_spark_refuses_own_names_as_local_does(run_cli, tmp_path, own, says):
    """An input's own column names that do not fit are refused on Spark with the local
    engine's one line (Spark would have read a weight it ignores, or two columns of one
    name)."""
    truth = tmp_path / "truth.csv"
    frame = pd.read_csv(EXAMPLE / "truth.csv", dtype=str).rename(columns={"item_id": "record"})
    frame["item_id"] = "x"  # a column named as the call names the renamed one
    frame.to_csv(truth, index=False)
    said = {}
    for engine in ("local", "spark"):
        master = ["--spark-master", "local[1]"] if engine == "spark" else []
        r = run_cli("evaluate", f"{truth}:{own}", EXAMPLE / "actual.csv", "--no-intervals",
                    "--engine", engine, *master)  # fmt: skip
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
        said[engine] = r.stderr
    assert said["spark"] == said["local"]


def assert_close(want: Any, got: Any, path: str = "") -> None:
    """Equal JSON, numbers to 1e-12 relative."""
    if isinstance(want, dict):
        assert want.keys() == got.keys(), path
        for k in want:
            assert_close(want[k], got[k], f"{path}/{k}")
    elif isinstance(want, list):
        assert len(want) == len(got), path
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            assert_close(a, b, f"{path}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), path
    else:
        assert want == got, path


def test_cli_spark_errors(run_cli) -> None:
    r = run_cli("evaluate", EXAMPLE / "truth.csv", EXAMPLE / "actual.csv", "--spark-master", "x")
    assert r.returncode == 2 and r.stderr == "error: --spark-master needs --engine spark\n"
    r = run_cli("evaluate", EXAMPLE / "truth.csv", "missing.csv", "--engine", "spark",
                "--spark-master", "local[1]")  # fmt: skip
    assert r.returncode == 2 and r.stderr.endswith("error: missing.csv: no such file or folder\n")
    r = run_cli("evaluate", EXAMPLE / "truth.csv", EXAMPLE / "actual.csv", "-v")
    assert r.returncode == 2 and r.stderr == "error: -v needs --engine spark\n"
    # -v: Spark's own log on stderr (its default profile says so), then the error's line.
    r = run_cli("diff", EXAMPLE / "truth.csv", EXAMPLE / "truth.csv", "--engine", "spark",
                "--spark-master", "local[1]", "--cluster-col", "entity", "-v")  # fmt: skip
    assert r.returncode == 2 and "\nerror: base: no column 'entity' (" in r.stderr
    assert "log4j" in r.stderr, r.stderr


def assert_same_meta(got: dict, want: dict) -> None:
    """The same sample metadata, the totals to 1e-12 (sums over units, not items)."""
    assert {k: v for k, v in got.items() if k != "totals"} == {
        k: v for k, v in want.items() if k != "totals"
    }
    assert_same_dict(want["totals"], got["totals"])


def _spark_case(spark, seed: int, partitions: int) -> tuple:
    base, exp, w, items = small_case(seed)
    as_frame = lambda m: pd.DataFrame({"item_id": list(m), "cluster_id": list(m.values())})  # noqa: E731
    f = frames(spark, {"base": as_frame(base), "exp": as_frame(exp), "items": items}, partitions)
    return base, exp, w, f


@pytest.mark.parametrize("seed", [0, 1])
def test_sample_draw_frequencies_match_exact_weights(spark, seed: int) -> None:
    base, exp, w, f = _spark_case(spark, seed, 3)
    pop = abcde_pairs(base, exp, w)
    s = css.sample_pairs(f["base"], f["exp"], pairs=40_000, seed=11, items=f["items"])
    assert s.pairs.draws.sum() == 40_000
    assert chi_square(s, pop, 40_000) > 1e-3
    kinds = {(p[0], p[1]): p[2] for p in pop}
    for r in s.pairs.itertuples():
        assert r.kind == kinds[(r.item_i, r.item_j)]
    assert_same_meta(s.meta, cs.sample_pairs(base, exp, 40_000, 11, f["items"].toPandas()).meta)


def test_sample_strata_match_exact_weights(spark) -> None:
    base, exp, w, f = _spark_case(spark, 2, 3)
    pop = abcde_pairs(base, exp, w)
    s = css.sample_pairs(f["base"], f["exp"], 20_000, 5, f["items"], stable_pairs=10_000)
    for stratum, kinds, n in ((0, ("split", "merge"), 20_000), (1, ("stable", "self"), 10_000)):
        sub = cs.PairSample(s.table.filter(s.table.column("stratum").to_numpy() == stratum), s.meta)
        assert chi_square(sub, [p for p in pop if p[2] in kinds], n) > 1e-3


def test_sample_is_the_same_for_any_partitioning(spark) -> None:
    d = random_items(14)
    samples = []
    for parts in (1, 7):
        s = frames(spark, d, parts)
        samples.append(css.sample_pairs(s["base"], s["exp"], 3000, 9, s["items"], stable_pairs=800))
    a, b = (x.table for x in samples)
    assert a.equals(b)
    assert samples[0].meta == samples[1].meta


def test_sample_same_columns_and_estimates(spark, tmp_path) -> None:
    d = random_items(15)
    s = frames(spark, d)
    got = css.sample_pairs(s["base"], s["exp"], 2000, 3, s["items"], stable_pairs=600)
    want = cs.sample_pairs(d["base"], d["exp"], 2000, 3, d["items"], stable_pairs=600)
    assert got.table.schema.names == want.table.schema.names
    assert_same_meta(got.meta, want.meta)  # the same diff's totals and inputs' fingerprint
    got.save(tmp_path / "s.parquet")
    back = cs.load_sample(tmp_path / "s.parquet")
    verdicts = back.raters_table().to_pandas().assign(verdict="same")
    est = cs.estimate(back, verdicts)
    assert len(est) > 0


def test_sample_draws_from_the_affected_cells_alone(spark) -> None:
    """A sample brings the cells the diff affects to the driver, the other common items as
    one unit, and draws there what it would draw from every cell: the same cells, kinds,
    positions and weights, draw by draw."""
    import numpy as np

    from clusterscore import _sample

    d = random_items(17)
    base = d["base"]  # Exp: Base with one item in forty moved to another cluster
    moved = base.item_id % 40 == 0
    elsewhere = base.cluster_id.shift(3, fill_value="c0")
    d["exp"] = base.assign(cluster_id=base.cluster_id.where(~moved, elsewhere))
    s = frames(spark, d)
    diff = css.diff(s["base"], s["exp"], s["items"], slices=[])
    sampler, clusters = diff.sampler
    mode = _sample.mode_of("stratified")
    got = sampler.core.sample_unit_pairs(3000, 900, mode, 8)
    want = diff.core.sample_unit_pairs(3000, 900, mode, 8)  # every unit on the driver
    every = diff._spark.clusters
    for side in ("i", "j"):
        for role in ("base", "exp"):
            g = clusters[role].take(pa.array(getattr(got, f"unit_{side}").astype(np.int64)))
            w = every[role].take(pa.array(getattr(want, f"unit_{side}").astype(np.int64)))
            assert g.equals(w)
        assert np.array_equal(getattr(got, f"at_{side}"), getattr(want, f"at_{side}"))
    for field in ("kind", "stratum", "U_i", "B_i", "E_i"):
        assert np.array_equal(getattr(got, field), getattr(want, field)), field
    cells = diff.flows_table()  # one row per affected cell
    assert len(sampler.sources[2].table) == len(cells) + 1 < len(diff._spark.table) / 2
    assert_same_dict(diff.sample_totals, diff.core.sample_totals())
    for m in ("plain", "stratified", "distance_only"):
        assert diff.draws_needed(m) == diff.core.draws_needed(_sample.mode_of(m))


def test_sample_errors(spark) -> None:
    d = random_items(16)
    s = frames(spark, d)
    with pytest.raises(ValueError, match="pairs must be a whole number"):
        css.sample_pairs(s["base"], s["exp"], -1, 0)
    with pytest.raises(ValueError, match="no pairs to draw"):
        css.sample_pairs(s["base"], s["base"], 10, 0)


def test_cli_sample_on_spark(run_cli, tmp_path) -> None:
    d = EXAMPLE
    args = ["sample", d / "actual.csv", d / "actual_v2.csv", "--items", d / "items.csv",
            "--pairs", "300", "--stable-pairs", "100", "--seed", "4", "--json"]  # fmt: skip
    local = run_cli(*args, "--out", tmp_path / "local.parquet")
    spark = run_cli(*args, "--out", tmp_path / "spark.parquet", "--engine", "spark",
                    "--spark-master", "local[2]")  # fmt: skip
    assert local.returncode == 0, local.stderr
    assert spark.returncode == 0, spark.stderr
    want, got = json.loads(local.stdout), json.loads(spark.stdout)
    assert got["inputs"] == want["inputs"]
    assert got["options"]["engine"] == "spark"
    s = cs.load_sample(tmp_path / "spark.parquet")
    assert s.table.column("draws").to_numpy().sum() == 400
    assert (tmp_path / "spark.raters.csv").exists()


def test_cli_spark_failure_is_one_line(run_cli, tmp_path) -> None:
    bad = tmp_path / "truth.parquet"
    bad.write_text("item_id,cluster_id\n1,a\n")  # not Parquet
    r = run_cli("evaluate", bad, EXAMPLE / "actual.csv", "--engine", "spark",
                "--spark-master", "local[1]")  # fmt: skip
    assert r.returncode == 2
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: Spark: ") and "truth.parquet" in last, r.stderr


def test_cli_spark_without_pyspark(tmp_path) -> None:
    """Without pyspark, --engine spark says which extra to install, in one line."""
    import subprocess
    import sys

    hide = tmp_path / "pyspark"
    hide.mkdir()
    (hide / "__init__.py").write_text("raise ImportError('no pyspark here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "clusterscore", "evaluate", EXAMPLE / "truth.csv",
                        EXAMPLE / "actual.csv", "--engine", "spark"],
                       capture_output=True, text=True, env=env)  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.endswith(
        "error: --engine spark needs pyspark: pip install 'clusterscore[spark]'\n"
    )
    code = (
        "import clusterscore.spark as s\n"
        "try: s.evaluate(None, None)\n"
        "except ImportError as e: print(e)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.stdout == "clusterscore.spark needs pyspark: pip install 'clusterscore[spark]'\n"


def test_given_design_weights_as_in_process(spark) -> None:
    d = random_items(17)
    s = frames(spark, d)
    clusters = sorted(d["truth"]["cluster_id"].unique())
    weights = {int(c): 1.0 + (int(c) % 5) for c in clusters}
    opts = dict(truth_scope="entities", resamples=40, seed=2)
    want = cs.evaluate(d["truth"], d["exp"], d["items"], cluster_weights=weights, **opts)
    table = spark.createDataFrame(
        pd.DataFrame({"cluster_id": list(weights), "weight": list(weights.values())})
    )
    for given in (weights, table):
        got = css.evaluate(s["truth"], s["exp"], s["items"], cluster_weights=given, **opts)
        assert got.cluster_weights == "given"
        assert_same_dict(want.overall, got.overall)
        assert_same(want.intervals(), got.intervals(), ["metric"])
        # Given weights bring the units to the driver; per_cluster is a DataFrame still.
        got_clusters = got.per_cluster("truth").toPandas()
        assert_same(want.per_cluster("truth"), got_clusters, ["cluster_id"])


def test_one_api_chooses_the_engine(spark, tmp_path) -> None:
    """cs.evaluate, compare, diff and sample_pairs take Spark DataFrames (or paths with
    engine="spark") and return what clusterscore.spark's functions do; the local engine
    refuses Spark DataFrames and an unknown engine is named."""
    d = random_items(31)
    s = frames(spark, d)
    opts = dict(resamples=30, seed=2)
    want = css.evaluate(s["truth"], s["exp"], s["items"], **opts)
    got = cs.evaluate(s["truth"], s["exp"], s["items"], **opts)
    assert type(got) is type(want)
    assert_same_dict(want.overall, got.overall)
    assert_same(want.intervals(), got.intervals(), ["metric"])
    paths = {}
    for name in ("truth", "exp", "items"):
        paths[name] = tmp_path / f"{name}.parquet"
        d[name].to_parquet(paths[name])
    by_path = cs.evaluate(paths["truth"], paths["exp"], paths["items"], engine="spark", **opts)
    assert type(by_path) is type(want)
    assert_same_dict(cs.evaluate(d["truth"], d["exp"], d["items"], **opts).overall,
                     by_path.overall)  # fmt: skip
    runs = {"base": s["base"], "exp": s["exp"]}
    keys = ["run_a", "run_b", "metric"]
    assert_same(css.compare(s["truth"], runs, **opts).deltas(),
                cs.compare(s["truth"], runs, **opts).deltas(), keys)  # fmt: skip
    assert_same_dict(css.diff(s["base"], s["exp"]).overall, cs.diff(s["base"], s["exp"]).overall)
    drawn = cs.sample_pairs(s["base"], s["exp"], 200, 5)
    assert drawn.table.equals(css.sample_pairs(s["base"], s["exp"], 200, 5).table)
    with pytest.raises(ValueError, match="engine='local' cannot read Spark DataFrames"):
        cs.diff(s["base"], s["exp"], engine="local")
    with pytest.raises(ValueError, match="engine must be one of local, spark, not 'dask'"):
        cs.evaluate(d["truth"], d["exp"], engine="dask")
    with pytest.raises(ValueError, match="takes Spark DataFrames or paths, not DataFrame"):
        cs.diff(d["base"], d["exp"], engine="spark")


def test_a_continued_sample_on_spark_is_the_larger_first_draw(spark) -> None:
    """continue_sample on Spark DataFrames: the next round from the same seeded stream, the
    sample a first draw of the larger size gives there, bit for bit."""
    d = random_items(33)
    s = frames(spark, d, 4)
    first = cs.sample_pairs(s["base"], s["exp"], 300, 4, stable_pairs=100)
    more = cs.continue_sample(first, s["base"], s["exp"], pairs=200, stable_pairs=50)
    whole = cs.sample_pairs(s["base"], s["exp"], 500, 4, stable_pairs=150)
    assert more.table.equals(whole.table) and more.meta == whole.meta
    with pytest.raises(ValueError, match="the inputs differ from those the sample was drawn from"):
        cs.continue_sample(first, s["exp"], s["base"], pairs=10)


def test_the_command_lines_session_logs_no_query_context(tmp_path) -> None:
    """pyspark logs an analysis error's query context as a JSON line on stderr; the command
    line's session keeps stderr for its own one-line errors."""
    import subprocess
    import sys

    script = tmp_path / "fail.py"
    script.write_text(
        "from clusterscore import _spark_io\n"
        "spark = _spark_io.session('local[1]')\n"
        "try:\n"
        "    spark.range(3).select('nope').collect()\n"
        "except Exception as e:\n"
        "    print(type(e).__name__)\n"
        "spark.stop()\n"
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout == "AnalysisException\n", r.stderr
    assert r.stderr == "", r.stderr


def test_levels_stay_in_spark_until_intervals_need_the_truths_clusters(spark) -> None:
    """The levels and the coverage are made where the units are: no unit reaches the driver
    until the intervals need the truth's clusters. Means over entities as in-process, and
    the slices' rows in its order (heaviest first)."""
    d = random_items(21)
    s = frames(spark, d)
    opts = dict(truth_scope="entities", average="entities", resamples=30, seed=2)
    want = cs.evaluate(d["truth"], d["exp"], d["items"], **opts)
    got = css.evaluate(s["truth"], s["exp"], s["items"], **opts)
    assert got.coverage == pytest.approx(want.coverage, rel=1e-12)
    assert_same_dict(want.overall, got.overall)
    for side in ("truth", "actual"):
        assert_same(want.per_cluster(side), got.per_cluster(side).toPandas(), ["cluster_id"])
    for by in (["region"], ["source"], SLICES):
        assert_same(want.per_slice(by), got.per_slice(by), by)
        assert want.per_slice(by)[by].astype(str).values.tolist() == (
            got.per_slice(by)[by].astype(str).values.tolist()
        )
    assert "_collected" not in vars(got._spark)
    assert_same(want.intervals(), got.intervals(), ["metric"])
    assert "_collected" in vars(got._spark)


@pytest.mark.parametrize("command", ["evaluate", "diff"])
def test_levels_errors(spark, command: str) -> None:
    d = random_items(22)
    s = frames(spark, d)
    first, other = ("truth", "base") if command == "evaluate" else ("base", "truth")
    got = getattr(css, command)(s[first], s["exp"], s["items"], slices=["region"])
    with pytest.raises(ValueError, match=r"no slice column 'source' \(slices: region\)"):
        got.per_slice("source")
    with pytest.raises(ValueError, match="per_slice needs at least one column"):
        got.per_slice([])
    roles = ", ".join(got.roles)
    with pytest.raises(ValueError, match=f"unknown side '{other}'; use one of: {roles}"):
        got.per_cluster(other)


def test_unpersist_frees_the_levels_cache_and_the_levels_still_come(spark) -> None:
    d = random_items(23)
    s = frames(spark, d)
    got = css.evaluate(s["truth"], s["exp"], s["items"], slices=["region"])
    before = got.per_slice("region")
    assert got._levels.sums.storageLevel.useDisk
    got.unpersist()
    assert not got._levels.sums.storageLevel.useDisk
    assert not got._spark.frame.storageLevel.useDisk
    assert_same(before, got.per_slice("region"), ["region"])


def test_engine_jobs_settings_are_restored(spark) -> None:
    """The engine's Spark settings hold inside its jobs only: a setting the session had is
    given back, one it had not is unset again, after a failure too."""
    bypass, cached = _spark_io._BYPASS_PARTIAL, _spark_io._CACHED_COALESCED
    spark.conf.set(cached, "false")
    spark.conf.unset(bypass)
    with pytest.raises(RuntimeError, match="inside"), _spark_io.engine_jobs(spark):
        assert spark.conf.get(bypass) == "true" and spark.conf.get(cached) == "true"
        raise RuntimeError("inside")
    assert spark.conf.get(cached) == "false"
    assert spark.conf.get(bypass, None) is None
    spark.conf.unset(cached)


@pytest.mark.parametrize("sig, delay, url", [(signal.SIGINT, 0.0, "file://"),
                                             (signal.SIGINT, 1.5, "file://"),
                                             (signal.SIGTERM, 0.7, "file://"),
                                             (signal.SIGINT, 1.0, "")])  # fmt: skip
def test_a_signal_during_a_lake_output_leaves_nothing(tmp_path, sig, delay: float, url) -> None:
    """A stopping signal while Spark works for an --out (a lake path, or a local folder):
    one line, status 128 + the signal, and no output or staging left (Spark's own SIGINT
    handler is put aside)."""
    import subprocess
    import sys

    data = EXAMPLE
    cmd = [sys.executable, "-m", "clusterscore", "evaluate", data / "truth.csv",
           data / "actual.csv", "--items", data / "items.csv", "--slice", "country",
           "--engine", "spark", "--spark-master", "local[2]", "-q",
           "--out", f"{url}{tmp_path}/lake/out"]  # fmt: skip
    p = subprocess.Popen(list(map(str, cmd)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)  # fmt: skip
    lake = tmp_path / "lake"
    end = time.monotonic() + 120  # the staging folder is made once Spark has started
    while p.poll() is None and not (lake.exists() and any(lake.iterdir())):
        assert time.monotonic() < end, "no staging folder"
        time.sleep(0.05)
    time.sleep(delay)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:  # done before the signal: every output in place
        assert (lake / "out" / "summary.json").exists()
        return
    words = "interrupted" if sig == signal.SIGINT else "stopped by SIGTERM"
    assert (p.returncode, err) == (128 + sig, f"{words}\n")
    assert list(lake.iterdir()) == []
