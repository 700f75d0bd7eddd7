"""Three frictions, each everywhere: an input's own column names (`PATH:item=..,cluster=..`,
`weight=..` for an items table); one slice order, heaviest first, in every table by a slice
(the Python tables, the files, summary.json, the terminal), compare's deltas in the first
run's order with each value's deltas from that value's rows; and rows named one way (the
file's line for CSV, rows counted from 1 for Parquet and frames), a repeat naming both."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE

import clusterscore as cs

TRUTH, ACTUAL, V2, ITEMS = (
    str(EXAMPLE / f) for f in ("truth.csv", "actual.csv", "actual_v2.csv", "items.csv")
)


def _renamed(tmp_path, path: str, names: dict[str, str], suffix: str = ".csv") -> str:
    out = tmp_path / (f"own_{len(list(tmp_path.iterdir()))}" + suffix)
    frame = pd.read_csv(path, dtype=str).rename(columns=names)
    if suffix == ".csv":
        frame.to_csv(out, index=False)
    else:
        frame.to_parquet(out)
    return str(out)


def test_each_input_names_its_own_columns(run_cli, tmp_path):
    truth = _renamed(tmp_path, TRUTH, {"item_id": "record", "cluster_id": "entity"})
    actual = _renamed(tmp_path, ACTUAL, {"cluster_id": "cluster"}, ".parquet")
    items = _renamed(tmp_path, ITEMS, {"item_id": "rid", "weight": "w"})
    want = run_cli("evaluate", TRUTH, ACTUAL, "--items", ITEMS, "--slice", "country",
                   "--resamples", "30", "--json")  # fmt: skip
    got = run_cli("evaluate", f"{truth}:item=record,cluster=entity", f"{actual}:cluster=cluster",
                  "--items", f"{items}:item=rid,weight=w", "--slice", "country",
                  "--resamples", "30", "--json")  # fmt: skip
    assert want.returncode == 0 and got.returncode == 0, got.stderr
    a, b = json.loads(want.stdout), json.loads(got.stdout)
    assert a["overall"] == b["overall"] and a["slices"] == b["slices"]
    assert b["inputs"]["truth"]["path"] == truth  # the path, without the names
    # compare's NAME=PATH:names, and the other commands that read clusterings
    r = run_cli("compare", TRUTH, f"v1={actual}:cluster=cluster", f"v2={V2}", "--resamples",
                "20", "--json")  # fmt: skip
    assert r.returncode == 0 and json.loads(r.stdout)["runs"] == ["v1", "v2"], r.stderr
    r = run_cli("diff", f"{actual}:cluster=cluster", V2, "--json")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "s.parquet"
    r = run_cli("sample", f"{actual}:cluster=cluster", V2, "--pairs", "50", "--seed", "1",
                "--out", out, "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    "arg, says",
    [
        ("{truth}:item=record,cluster=nope", "no column 'nope'"),
        ("{truth}:item=record,weight=w", "a clustering has no weight column to name"),
        ("{truth}:item=record,item=entity", "names a column twice"),
    ],
)
def test_own_names_that_do_not_fit_are_one_line(run_cli, tmp_path, arg, says):
    truth = _renamed(tmp_path, TRUTH, {"item_id": "record", "cluster_id": "entity"})
    r = run_cli("evaluate", arg.format(truth=truth), ACTUAL)
    assert r.returncode == 2 and says in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_column_named_for_another_is_refused_not_doubled(run_cli, tmp_path):
    both = tmp_path / "both.csv"
    both.write_text("item_id,cluster_id,entity\na,1,x\nb,1,y\n")
    r = run_cli("evaluate", f"{both}:cluster=entity", f"{both}")
    assert r.returncode == 2 and "holds a column 'cluster_id' besides 'entity'" in r.stderr


def test_a_file_whose_name_looks_like_names_is_that_file(run_cli, tmp_path):
    odd = tmp_path / "parts:cluster=x"  # a folder of Parquet files
    odd.mkdir()
    pd.read_csv(TRUTH, dtype=str).to_parquet(odd / "part-0.parquet")
    r = run_cli("evaluate", odd, ACTUAL, "--no-intervals", "--json")
    assert r.returncode == 0, r.stderr


def _items_with_slice(seed: int) -> pd.DataFrame:
    """The example's items with a slice whose first-seen order is not its weight order."""
    items = pd.read_csv(ITEMS, dtype={"item_id": str})
    rng = np.random.default_rng(seed)
    items["tier"] = rng.choice(["light", "middle", "heavy"], len(items), p=[0.1, 0.3, 0.6])
    items.loc[0, "tier"] = "light"
    return items


def _heaviest_first(frame: pd.DataFrame, column: str) -> bool:
    w = frame.drop_duplicates(column).weight.to_numpy()
    return bool(np.all(np.diff(w) <= 0))


def test_every_table_by_a_slice_is_heaviest_first(tmp_path):
    items = _items_with_slice(1)
    ev = cs.evaluate(TRUTH, ACTUAL, items, resamples=20)
    table = ev.per_slice("tier")
    assert list(table.tier) == ["heavy", "middle", "light"] and _heaviest_first(table, "tier")
    assert list(ev.intervals("tier").drop_duplicates("tier").tier) == list(table.tier)
    d = cs.diff(ACTUAL, V2, items).per_slice("tier")
    assert _heaviest_first(d, "tier")


def test_compare_pairs_each_value_with_itself_in_the_first_runs_order(tmp_path):
    """The second run covers other items, so its own order differs: the deltas follow the
    first run's, and each value's value_a and value_b are that value's in each run."""
    items = _items_with_slice(2)
    actual = pd.read_csv(ACTUAL, dtype=str)
    heavy = set(items.item_id[items.tier == "heavy"])
    keep = ~actual.item_id.isin(heavy) | (np.arange(len(actual)) % 5 == 0)
    thin = actual[keep]  # the heavy tier mostly outside the second run
    r = cs.compare(TRUTH, {"a": ACTUAL, "b": thin}, items, resamples=20)
    own = {n: e.per_slice("tier").set_index("tier") for n, e in r.evaluations.items()}
    assert list(own["b"].index) != list(own["a"].index)  # the runs' own orders differ
    d = r.deltas("tier")
    assert list(d.drop_duplicates("tier").tier) == list(own["a"].index)
    for row in d[d.metric == "precision"].itertuples():
        assert row.value_a == own["a"].precision[row.tier]
        assert row.value_b == own["b"].precision[row.tier]


def test_files_and_summary_keep_the_order(run_cli, tmp_path):
    items = tmp_path / "items.csv"
    _items_with_slice(1).to_csv(items, index=False)
    out = tmp_path / "o"
    r = run_cli("evaluate", TRUTH, ACTUAL, "--items", items, "--slice", "tier", "--resamples",
                "20", "--out", out, "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    order = ["heavy", "middle", "light"]
    assert [row["tier"] for row in json.loads(r.stdout)["slices"]["tier"]] == order
    files = [p for p in out.iterdir() if "tier" in p.name]
    assert files
    for f in files:
        assert list(dict.fromkeys(pq.read_table(f).column("tier").to_pylist())) == order, f
    shown = run_cli("evaluate", TRUTH, ACTUAL, "--items", items, "--slice", "tier",
                    "--no-intervals").stdout  # fmt: skip
    assert shown.index("│ heavy") < shown.index("│ middle") < shown.index("│ light")


def test_rows_are_lines_in_csv_and_counted_from_one_elsewhere(tmp_path):
    t = pa.table({"item_id": [1, 2, 1], "cluster_id": [0, 0, 1]})
    pq.write_table(t, tmp_path / "t.parquet")
    twice = r"t.parquet row 3: item 1 appears twice \(first at row 1\)"
    with pytest.raises(ValueError, match=twice):
        cs.evaluate(tmp_path / "t.parquet", {1: 0})
    (tmp_path / "t.csv").write_text("item_id,cluster_id\n1,0\n\n2,0\n1,1\n")
    twice = r"t.csv line 5: item '1' appears twice \(first at line 2\)"
    with pytest.raises(ValueError, match=twice):
        cs.evaluate(tmp_path / "t.csv", {1: 0})
    frame = pd.DataFrame({"item_id": [1, 2, None], "cluster_id": [0, 0, 1]})
    with pytest.raises(ValueError, match=r"truth row 3: missing value in column 'item_id'"):
        cs.evaluate(frame, {1: 0})


def test_the_command_line_names_rows_the_same_way(run_cli, tmp_path):
    pq.write_table(pa.table({"item_id": [1, 2, 1], "cluster_id": [0, 0, 1]}), tmp_path / "t.pq")
    r = run_cli("evaluate", tmp_path / "t.pq", ACTUAL)
    assert r.returncode == 2 and r.stderr.rstrip().endswith(
        "t.pq row 3: item '1' appears twice (first at row 1)"  # ids as text, beside a CSV's
    ), r.stderr
    (tmp_path / "t.csv").write_text("item_id,cluster_id\na,1\nb,1\na,2\n")
    r = run_cli("evaluate", tmp_path / "t.csv", ACTUAL)
    assert r.returncode == 2 and r.stderr.rstrip().endswith(
        "t.csv line 4: item 'a' appears twice (first at line 2)"
    ), r.stderr
