"""What the commands print: ids and slice values as they are, numbers formatted."""

import pandas as pd
from typer.testing import CliRunner

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


def test_numbers_are_printed_without_exponents_where_digits_do():
    """Large weights with a fraction keep their digits and separators; small rates keep
    six significant digits, tiny ones an exponent."""
    assert report.fmt(12499711.73) == "12,499,711.7"
    assert report.fmt(257822.4) == "257,822.4"
    assert report.fmt(-123456.75) == "-123,456.8"
    assert report.fmt(12499712.0) == "12,499,712"
    assert report.fmt(99999.5) == "99999.5"
    assert report.fmt(0.919585123) == "0.919585"
    assert report.fmt(1.464e-4) == "1.464e-04"
    assert report.fmt(float("nan")) == "—"


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
    rows = [line.split("│")[1:-1] for line in r.output.splitlines() if line.startswith("│ ")]
    first = {cells[0].strip() for cells in rows}
    assert {"1234567", "99", "2024", "2025", "—"} <= first
    assert not {"1,234,567", "2,024", "2024.0"} & first
    per_year = r.output.split("Per year")[1].split("\n\n")[0]
    null_rows = [line for line in per_year.splitlines() if line.startswith("│ —")]
    assert len(null_rows) == 1 and null_rows[0].split("│")[2].strip() == "2"  # items 3 and 5
