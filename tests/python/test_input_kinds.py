"""Inputs the ecosystem hands around: Arrow stream producers (DuckDB relations, record-batch
readers, any __arrow_c_stream__ object), polars LazyFrames, Arrow datasets, pandas Series,
folders of Parquet files and URIs opened through pyarrow.fs. Each gives exactly the scores
of the same data as a plain table; what cannot be read is one line naming what can."""

from __future__ import annotations

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import clusterscore as cs

TRUTH = pd.DataFrame({"item_id": list("abcdefgh"), "cluster_id": [1, 1, 1, 2, 2, 3, 3, 3]})
ACTUAL = pd.DataFrame({"item_id": list("abcdefgh"), "cluster_id": [7, 7, 8, 8, 8, 9, 9, 7]})
ITEMS = pd.DataFrame(
    {"item_id": list("abcdefgh"), "weight": [1.0, 2, 3, 1, 1, 2, 5, 1], "country": list("xxyyxyxy")}
)


@pytest.fixture(scope="module")
def expected():
    ev = cs.evaluate(TRUTH, ACTUAL, ITEMS)
    return ev.overall, ev.per_slice("country")


class StreamOnly:
    """An object that only speaks the Arrow PyCapsule stream protocol."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def _table(df: pd.DataFrame) -> pa.Table:
    return pa.Table.from_pandas(df, preserve_index=False)


def test_duckdb_relations(expected):
    con = duckdb.connect()
    con.register("t", _table(TRUTH))
    con.register("a", _table(ACTUAL))
    con.register("i", _table(ITEMS))
    ev = cs.evaluate(
        con.sql("select * from t"), con.sql("select * from a"), con.sql("select * from i")
    )
    assert ev.overall == expected[0]
    pd.testing.assert_frame_equal(ev.per_slice("country"), expected[1])


def test_polars_lazy_and_eager_frames(expected):
    ev = cs.evaluate(
        pl.from_pandas(TRUTH).lazy(), pl.from_pandas(ACTUAL), pl.from_pandas(ITEMS).lazy()
    )
    assert ev.overall == expected[0]


def test_arrow_stream_objects_readers_and_datasets(expected):
    ev = cs.evaluate(
        StreamOnly(_table(TRUTH)),
        _table(ACTUAL).to_reader(max_chunksize=3),
        pads.dataset(_table(ITEMS)),
    )
    assert ev.overall == expected[0]
    pd.testing.assert_frame_equal(ev.per_slice("country"), expected[1])


def test_pandas_series_are_item_to_cluster_and_item_to_weight(expected):
    truth = TRUTH.set_index("item_id")["cluster_id"]
    actual = ACTUAL.set_index("item_id")["cluster_id"]
    weights = ITEMS.set_index("item_id")["weight"]
    ev = cs.evaluate(truth, actual, weights)
    assert ev.overall == expected[0]
    d = cs.diff(truth, actual)
    assert d.overall == cs.diff(TRUTH, ACTUAL).overall


def _write_partitioned(root, df: pd.DataFrame) -> None:
    """A hive-partitioned folder: country=x/part.parquet, country=y/part.parquet."""
    for country, part in df.groupby("country"):
        folder = root / f"country={country}"
        folder.mkdir(parents=True)
        pq.write_table(_table(part.drop(columns="country")), folder / "part.parquet")


def test_folder_of_parquet_files_with_hive_partitions(tmp_path, expected):
    _write_partitioned(tmp_path / "items", ITEMS)
    (tmp_path / "actual").mkdir()
    pq.write_table(_table(ACTUAL.iloc[:4]), tmp_path / "actual" / "part-0.parquet")
    pq.write_table(_table(ACTUAL.iloc[4:]), tmp_path / "actual" / "part-1.parquet")
    ev = cs.evaluate(TRUTH, tmp_path / "actual", str(tmp_path / "items"))
    assert ev.overall == expected[0]
    by_country = ev.per_slice("country").sort_values("country").reset_index(drop=True)
    exp = expected[1].sort_values("country").reset_index(drop=True)
    pd.testing.assert_frame_equal(by_country, exp, check_dtype=False)


def test_uris_through_pyarrow_fs(tmp_path, expected):
    pq.write_table(_table(ACTUAL), tmp_path / "actual.parquet")
    TRUTH.to_csv(tmp_path / "truth.csv.gz", index=False)
    _write_partitioned(tmp_path / "items", ITEMS)
    uri = tmp_path.as_uri()
    ev = cs.evaluate(f"{uri}/truth.csv.gz", f"{uri}/actual.parquet", f"{uri}/items")
    assert ev.overall == expected[0]


def test_a_subtree_filesystem_is_read_offline(tmp_path, expected):
    """pyarrow.fs resolves the URI; a SubTreeFileSystem-rooted dataset reads the same."""
    pq.write_table(_table(ACTUAL), tmp_path / "actual.parquet")
    fs = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    dataset = pads.dataset("actual.parquet", filesystem=fs)
    assert cs.evaluate(TRUTH, dataset, ITEMS).overall == expected[0]


def test_cli_reads_uris_and_folders(tmp_path, run_cli):
    pq.write_table(_table(ACTUAL), tmp_path / "actual.parquet")
    TRUTH.to_csv(tmp_path / "truth.csv", index=False)
    _write_partitioned(tmp_path / "items", ITEMS)
    uri = tmp_path.as_uri()
    proc = run_cli(
        "evaluate", f"{uri}/truth.csv", f"{uri}/actual.parquet", "--items", tmp_path / "items",
        "--slice", "country", "--no-intervals",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Per country" in proc.stdout


@pytest.mark.parametrize(
    "bad, fragments",
    [
        (object(), ["actual: expected", "__arrow_c_stream__", "got object"]),
        (42, ["actual: expected", "got int"]),
    ],
)
def test_an_unreadable_object_is_one_line_naming_the_kinds(bad, fragments):
    with pytest.raises(ValueError) as e:
        cs.evaluate(TRUTH, bad)
    message = str(e.value)
    assert "\n" not in message
    for f in fragments:
        assert f in message, (f, message)


def test_missing_uri_and_bad_folders_are_one_line_errors(tmp_path):
    with pytest.raises(ValueError, match=r"^file://.*/none\.parquet: no such file$"):
        cs.evaluate(TRUTH, (tmp_path / "none.parquet").as_uri())
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="the folder holds no data files"):
        cs.evaluate(TRUTH, tmp_path / "empty")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    pq.write_table(_table(ACTUAL), mixed / "a.parquet")
    ACTUAL.to_csv(mixed / "b.csv", index=False)
    with pytest.raises(ValueError, match=r"mixed: the folder mixes file types \(.csv, .parquet\)"):
        cs.evaluate(TRUTH, mixed)
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ValueError, match="x.json: unknown file type '.json'"):
        cs.evaluate(TRUTH, (tmp_path / "x.json").as_uri())


def test_a_stream_that_fails_is_named():
    class Broken:
        def __arrow_c_stream__(self, requested_schema=None):
            raise RuntimeError("connection lost")

    with pytest.raises(ValueError, match=r"^actual: cannot read the Broken \(connection lost\)$"):
        cs.evaluate(TRUTH, Broken())
