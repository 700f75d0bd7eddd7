"""What the commands print: ids and slice values as they are, numbers formatted."""

import pandas as pd
from typer.testing import CliRunner

from clusterscore import _format as F
from clusterscore import _report as report
from clusterscore.cli import app


def _cells(table) -> list[list[str]]:
    return [list(c.cells) for c in table.columns]


def test_labels_are_printed_as_they_are_and_numbers_with_separators():
    df = pd.DataFrame(
        {
            "cluster_id": [1234567, 20],
            "year": pd.array([2024, None], dtype="Int64").astype("float64"),  # as pandas has it
            "items": [1234567, 3],
        }
    )
    t = report.frame_table("t", df, ["cluster_id", "year", "items"], labels=["cluster_id", "year"])
    assert _cells(t) == [["1234567", "20"], ["2024", "—"], ["1,234,567", "3"]]
    assert [c.justify for c in t.columns] == ["left", "left", "right"]


def test_one_format_per_kind_of_column():
    """Shares and scores with four decimals, counts whole and weights with two decimals,
    both with thousands separators, whatever the size of the value; undefined is "—"."""
    assert F.weight(12499711.73) == "12,499,711.73"
    assert F.weight(-123456.75) == "-123,456.75"
    assert F.weight(3) == "3.00"
    assert F.count(12499712.0) == "12,499,712"
    assert F.share(0.919585123) == "0.9196"
    assert F.share(1.464e-4) == "0.0001"
    assert F.share(float("nan")) == "—" and F.count(None) == "—"
    assert F.for_column("affected_items", "impact") is F.count
    assert F.for_column("weight_lost") is F.weight
    assert F.for_column("precision", "pointwise") is F.share


def test_cli_prints_integer_cluster_ids_and_slice_values_unformatted(tmp_path, monkeypatch):
    """Integer ids from Parquet: cluster 1234567 is not "1,234,567", year 2024 is not
    "2,024"; items without a row in the items table join the null year's row."""
    monkeypatch.setenv("COLUMNS", "120")
    truth = pd.DataFrame({"item_id": range(6), "cluster_id": [1234567] * 3 + [7654321] * 3})
    actual = pd.DataFrame({"item_id": range(6), "cluster_id": [1234567] * 2 + [99] * 4})
    items = pd.DataFrame({"item_id": range(5), "year": pd.array([2024, 2024, 2025, None, 2025])})
    for name, df in {"truth": truth, "actual": actual, "items": items}.items():
        df.to_parquet(tmp_path / f"{name}.parquet")
    args = [str(tmp_path / f"{n}.parquet") for n in ("truth", "actual")]
    items_args = ["--items", str(tmp_path / "items.parquet"), "--slice", "year"]
    r = CliRunner().invoke(app, ["evaluate", *args, *items_args])
    assert r.exit_code == 0, r.output
    rows = [line.strip("│ ").split("│") for line in r.output.splitlines() if "│" in line]
    first = {cells[0].strip() for cells in rows}
    assert {"1234567", "99", "2024", "2025", "—"} <= first
    assert not {"1,234,567", "2,024", "2024.0"} & first
    per_year = r.output.split("Per year")[1].split("\n\n")[0]
    null_rows = [line for line in per_year.splitlines() if line.startswith("—")]
    assert len(null_rows) == 1 and null_rows[0].split("│")[1].strip() == "2"  # items 3 and 5


def test_size_sums_of_parts_add_up_to_the_whole_and_give_the_means():
    """The report's sums by cluster size: those of any split of a per-cluster table add up
    to the table's (an engine sums its partitions), and the chart's means are the mean
    over each bucket's clusters, missing values left out."""
    import numpy as np

    from clusterscore import _charts as C

    rng = np.random.default_rng(3)
    n = 500
    df = pd.DataFrame({"items": rng.zipf(1.6, n).clip(1, 5000), "precision": rng.random(n),
                       "recall": rng.random(n)})  # fmt: skip
    df.loc[rng.random(n) < 0.1, "recall"] = np.nan
    whole = C.size_sums(df)
    assert list(whole["size"]) == C._SIZE_LABELS
    cut = rng.integers(0, 4, n)
    parts = pd.concat([C.size_sums(df[cut == k]) for k in range(4)])
    added = parts.groupby("size", sort=False).sum().reindex(whole["size"]).reset_index()
    assert np.allclose(added.drop(columns="size"), whole.drop(columns="size"), rtol=1e-12)
    data = C.by_size(whole, "t").data
    bucket = C.size_bucket(df["items"]).astype(str)
    for size, part in df.groupby(bucket):
        for m in ("precision", "recall"):
            row = data[(data["size"] == size) & (data["metric"] == m)]
            assert np.isclose(row["mean over clusters"].iloc[0], part[m].mean(), rtol=1e-12)
            assert row["clusters"].iloc[0] == len(part)
    assert set(data["size"]) == set(bucket)
    sizes = C.size_distribution({"truth": whole}, "t").data
    assert sizes["clusters"].sum() == n
