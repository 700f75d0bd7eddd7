"""Every input form gives the same result; ids are opaque and exact."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import clusterscore as cs

TRUTH = {"a": 1, "b": 1, "c": 2, "d": 2, "e": 3}
ACTUAL = {"a": 10, "b": 11, "c": 11, "d": 11, "e": 12}


def frames(d):
    df = pd.DataFrame({"item_id": list(d), "cluster_id": list(d.values())})
    return {
        "dict": d,
        "pandas": df,
        "arrow": pa.Table.from_pandas(df),
        "polars": pl.from_pandas(df),
    }


@pytest.mark.parametrize("kind", ["dict", "pandas", "arrow", "polars"])
def test_in_memory_forms_agree(kind):
    want = cs.evaluate(TRUTH, ACTUAL).overall
    assert cs.evaluate(frames(TRUTH)[kind], frames(ACTUAL)[kind]).overall == want


@pytest.mark.parametrize("ext", ["csv", "tsv", "parquet", "csv.gz"])
def test_file_forms_agree(tmp_path, ext):
    want = cs.evaluate(TRUTH, ACTUAL).overall
    paths = []
    for name, d in (("t", TRUTH), ("a", ACTUAL)):
        df = frames(d)["pandas"]
        p = tmp_path / f"{name}.{ext}"
        if ext == "parquet":
            df.to_parquet(p)
        else:
            df.to_csv(p, sep="\t" if ext == "tsv" else ",", index=False)
        paths.append(p)
    assert cs.evaluate(*paths).overall == want
    assert cs.evaluate(str(paths[0]), paths[1]).overall == want


def test_int64_ids_stay_exact():
    big = 2**62 + 1  # 2**62 + 1 and 2**62 are the same double: they must not merge
    truth = pd.DataFrame(
        {"item_id": np.array([big, big - 1], dtype=np.int64), "cluster_id": [7, 7]}
    )
    actual = pd.DataFrame(
        {"item_id": np.array([big, big - 1], dtype=np.int64), "cluster_id": [big, big - 1]}
    )
    res = cs.evaluate(truth, actual)
    items = res.per_item()
    assert items.item_id.tolist() == [big, big - 1]
    assert items.actual_cluster.tolist() == [big, big - 1]
    assert res.overall["precision"] == 1.0 and res.overall["recall"] == 0.5


def test_text_ids_from_csv_are_not_parsed_as_numbers(tmp_path):
    (tmp_path / "t.csv").write_text("item_id,cluster_id\n007,1\n7,1\n")
    (tmp_path / "a.csv").write_text("item_id,cluster_id\n007,01\n7,1\n")
    res = cs.evaluate(tmp_path / "t.csv", tmp_path / "a.csv")
    assert res.coverage["common_items"] == 2
    assert res.overall["recall"] == 0.5  # '01' and '1' are different clusters
    assert res.per_item().item_id.tolist() == ["007", "7"]


def test_integer_and_text_ids_join_by_their_text(tmp_path):
    pd.DataFrame({"item_id": [1, 2, 3], "cluster_id": [1, 1, 2]}).to_parquet(tmp_path / "t.parquet")
    (tmp_path / "a.csv").write_text("item_id,cluster_id\n1,x\n2,x\n3,x\n")
    res = cs.evaluate(tmp_path / "t.parquet", tmp_path / "a.csv")
    assert res.coverage["common_items"] == 3
    assert res.overall["precision"] == pytest.approx((2 / 3 * 2 + 1 / 3) / 3)


def test_custom_column_names():
    truth = pd.DataFrame({"rec": ["a", "b"], "ent": [1, 1]})
    actual = pd.DataFrame({"rec": ["a", "b"], "ent": [1, 2]})
    items = pd.DataFrame({"rec": ["a", "b"], "w": [1.0, 3.0]})
    res = cs.evaluate(truth, actual, items, item_col="rec", cluster_col="ent", weight_col="w")
    assert res.overall["recall"] == pytest.approx((1 / 4 + 3 * 3 / 4) / 4)
    assert "rec" in res.per_item().columns


def test_unicode_and_long_string_ids():
    long = "x" * 1000
    truth = {"é": "ü", long: "ü", "日本": "z"}
    actual = {"é": 1, long: 1, "日本": 1}
    res = cs.evaluate(truth, actual)
    assert res.coverage["common_items"] == 3
    assert set(res.per_item().item_id) == set(truth)


def test_chunked_and_sliced_arrow_input():
    n = 1000
    df = pd.DataFrame({"item_id": [f"i{k}" for k in range(n)], "cluster_id": np.arange(n) // 7})
    t = pa.Table.from_pandas(df)
    chunked = pa.concat_tables([t.slice(0, 300), t.slice(300, 400), t.slice(700)])
    sliced = pa.Table.from_pandas(pd.concat([df.iloc[:5], df])).slice(5)
    want = cs.evaluate(t, t.slice(0, 900)).overall
    assert cs.evaluate(chunked, sliced.slice(0, 900)).overall == want


def test_default_weight_is_one_when_items_table_has_no_weight():
    items = pd.DataFrame({"item_id": list(TRUTH), "country": list("xxyyy")})
    assert cs.evaluate(TRUTH, ACTUAL, items).overall == cs.evaluate(TRUTH, ACTUAL).overall
