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


@pytest.fixture
def small_parquet_batches(monkeypatch):
    """Parquet files are read 7 rows at a time: several batches even for small files."""
    from clusterscore import _io_parquet

    monkeypatch.setattr(_io_parquet, "_PARQUET_BATCH_ROWS", 7)


def many_row_groups(tmp_path, table: pa.Table, rows_per_group: int = 7):
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=rows_per_group)
    assert pq.ParquetFile(path).metadata.num_row_groups > 1
    return path, pq.read_table(path)


def test_parquet_numbers_are_read_into_one_chunk_and_the_rest_as_written(
    tmp_path, small_parquet_batches
):
    from clusterscore._io import read_file

    rng = np.random.default_rng(3)
    n = 40
    table = pa.table(
        {
            "item_id": rng.integers(-(2**62), 2**62, n),  # exact beyond 2^53
            "cluster_id": rng.integers(0, 5, n).astype(np.uint16),
            "weight": rng.uniform(0.5, 2.0, n).astype(np.float32),
            "country": pa.array(rng.choice(["US", "DE", None], n).tolist()),
            "flag": rng.random(n) < 0.5,
        }
    )
    path, want = many_row_groups(tmp_path, table)
    got = read_file(path).table
    assert got.equals(want)
    assert got.schema == want.schema
    for name in ("item_id", "cluster_id", "weight"):
        assert got.column(name).num_chunks == 1, name


def _text_table(n: int) -> pa.Table:
    """Ids with an empty string and characters of several bytes among them."""
    ids = ["" if i == 9 else f"id-{i}-{'é' * (i % 4)}" for i in range(n)]
    return pa.table({"item_id": ids, "cluster_id": [f"c{i % 6}" for i in range(n)]})


def test_parquet_text_is_read_into_one_chunk(tmp_path, small_parquet_batches):
    from clusterscore._io import read_file

    path, want = many_row_groups(tmp_path, _text_table(50))
    got = read_file(path).table
    assert got.equals(want)
    assert got.schema == want.schema
    for name in ("item_id", "cluster_id"):
        assert got.column(name).num_chunks == 1, name
        got.column(name).validate(full=True)


def test_parquet_folder_is_read_into_one_chunk_per_column(tmp_path, small_parquet_batches):
    import pyarrow.dataset as pads
    import pyarrow.parquet as pq

    from clusterscore._io import read_file

    table = _text_table(50).append_column("weight", pa.array(np.linspace(0.5, 2.0, 50)))
    (tmp_path / "part").mkdir()
    for k, start in enumerate(range(0, 50, 20)):
        pq.write_table(table.slice(start, 20), tmp_path / "part" / f"part-{k}.parquet")
    got = read_file(tmp_path / "part").table
    assert got.equals(pads.dataset(tmp_path / "part").to_table())
    assert got.equals(table)
    for name in got.column_names:
        assert got.column(name).num_chunks == 1, name


def _named_clusterings(n: int = 400, seed: int = 5):
    """Truth, actual and items with text ids: clusters listed out of order, items missing
    on either side."""
    rng = np.random.default_rng(seed)
    ids = [f"item-{i}" for i in rng.permutation(n)]
    truth = pa.table(
        {"item_id": ids[: n - 40], "cluster_id": [f"t{c}" for c in rng.integers(0, 60, n - 40)]}
    )
    actual = pa.table(
        {"item_id": ids[30:][::-1], "cluster_id": [f"a{c}" for c in rng.integers(0, 90, n - 30)]}
    )
    items = pa.table({"item_id": ids, "weight": rng.uniform(0.5, 2.0, n)})
    return truth, actual, items


def test_cluster_ids_read_from_files_are_coded_and_score_as_in_memory(tmp_path):
    """A file's cluster column is kept as codes and the values of the codes; every
    result that names clusters names them as the in-memory input does."""
    import pyarrow.parquet as pq

    from clusterscore._io import load_clustering

    tables = _named_clusterings()
    paths = []
    for name, table in zip(("truth", "actual", "items"), tables, strict=True):
        pq.write_table(table, tmp_path / f"{name}.parquet", row_group_size=64)
        paths.append(tmp_path / f"{name}.parquet")
    src = load_clustering(paths[0], "truth", "item_id", "cluster_id")
    assert src.coded == {"cluster_id"}
    assert pa.types.is_dictionary(src.table.column("cluster_id").type)
    assert src.table.column("cluster_id").to_pylist() == tables[0].column("cluster_id").to_pylist()
    for how in (cs.evaluate, cs.diff):
        files, memory = how(*paths), how(*tables)
        assert files.overall == memory.overall
        for side in files.roles:
            assert files.per_cluster_table(side).equals(memory.per_cluster_table(side))
        assert files.per_item_table().equals(memory.per_item_table())
        assert files.input_fingerprints == memory.input_fingerprints
    assert cs.diff(*paths).flows_table().equals(cs.diff(*tables).flows_table())


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_cluster_ids_coded_batch_by_batch_as_read_whole(tmp_path, small_parquet_batches, kind):
    """A Parquet file's cluster column is coded batch by batch as it is read: the codes and
    values code_column() gives the column read whole, of the file's text type, with values
    first met in later batches, an empty id and characters of several bytes; a folder's
    too."""
    import pyarrow.parquet as pq

    from clusterscore import _io

    rng = np.random.default_rng(8)
    clusters = [["", "é-ç", f"cluster-{k}"][k % 3] + str(k // 3) for k in rng.integers(0, 40, 90)]
    clusters[80] = "met-only-in-the-last-batch"
    table = pa.table({"item_id": list(range(90)), "cluster_id": pa.array(clusters, kind)})
    path, _ = many_row_groups(tmp_path, table)
    (tmp_path / "part").mkdir()
    for k, start in enumerate(range(0, 90, 40)):
        pq.write_table(table.slice(start, 40), tmp_path / "part" / f"part-{k}.parquet")
    whole = _io.Source(table, "whole", "parquet")
    _io.code_column(whole, "cluster_id")
    want = whole.table.column("cluster_id")
    for read in (path, tmp_path / "part"):
        src = _io.read_file(read, coded=("cluster_id",))
        assert src.coded == {"cluster_id"}, read
        got = src.table.column("cluster_id")
        assert got.type == pa.dictionary(pa.int32(), kind), read
        assert got.equals(want), read
        assert got.to_pylist() == clusters, read


def test_the_batch_coder_refuses_what_it_cannot_code():
    """The reader never hands it these: numbers, nulls, or a codes array of another length."""
    from clusterscore import _arrays, _core

    coder = _core.BatchCoder(4)
    out = np.empty(2, np.uint32)
    with pytest.raises(ValueError, match="strings without nulls"):
        coder.add(_arrays.id_tuple(pa.array([1, 2], pa.int64())), out)
    with pytest.raises(ValueError, match="strings without nulls"):
        coder.add(_arrays.id_tuple(pa.array(["a", None]), with_validity=True), out)
    with pytest.raises(ValueError, match="another length"):
        coder.add(_arrays.id_tuple(pa.array(["a", "b", "c"])), out)
    coder.add(_arrays.id_tuple(pa.array(["b", "a"])), out)
    assert out.tolist() == [0, 1] and len(coder) == 2


def test_a_coded_cluster_column_with_a_null_after_the_first_batches(
    tmp_path, small_parquet_batches
):
    """From the batch where a null appears, the cluster column is kept as read: the rows
    coded before it decoded, the null named with its row."""
    from clusterscore import _io

    clusters = [f"c{i % 6}" for i in range(30)]
    clusters[25] = None  # in the fourth batch of seven rows
    table = pa.table({"item_id": list(range(30)), "cluster_id": clusters})
    path, _ = many_row_groups(tmp_path, table)
    src = _io.read_file(path, coded=("cluster_id",))
    assert src.coded == set()
    assert src.table.column("cluster_id").to_pylist() == clusters
    with pytest.raises(ValueError, match=r"t.parquet row 26: missing value in column 'cluster_id'"):
        cs.evaluate(path, {1: 1})


def test_a_coded_cluster_column_that_is_not_utf8(tmp_path, small_parquet_batches):
    """Bytes that are not UTF-8 are found among the coded column's values."""
    import pyarrow.parquet as pq

    clusters = pa.array([b"a", b"b", b"\xff\xfe"] * 5, pa.binary()).view(pa.string())
    pq.write_table(pa.table({"item_id": list(range(15)), "cluster_id": clusters}),
                   tmp_path / "bad.parquet", row_group_size=7)  # fmt: skip
    with pytest.raises(
        ValueError, match=r"bad.parquet: not a readable Parquet file \(Invalid UTF8"
    ):
        cs.evaluate(tmp_path / "bad.parquet", {1: 1})


def test_a_parquet_file_is_read_without_holding_its_bytes(tmp_path, monkeypatch):
    """As the batches come, Arrow holds a batch's worth, not every column chunk read so far
    (which a pre-buffering reader keeps until it is gone: the file's size, on top of the
    table being filled)."""
    import pyarrow.parquet as pq

    from clusterscore import _io, _io_parquet

    rng = np.random.default_rng(4)
    n = 200_000
    table = pa.table({"item_id": [f"item-{x}" for x in rng.integers(0, 2**62, n)],
                      "cluster_id": rng.integers(0, 1000, n)})  # fmt: skip
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=10_000, compression="none")
    monkeypatch.setattr(_io_parquet, "_PARQUET_BATCH_ROWS", 10_000)
    before = pa.total_allocated_bytes()  # the table written
    held: list[int] = []
    monkeypatch.setattr(
        _io_parquet, "advance", lambda *_: held.append(pa.total_allocated_bytes() - before)
    )
    got = _io.read_file(path).table
    assert got.column("item_id").to_pylist() == table.column("item_id").to_pylist()
    assert len(held) == 20
    assert max(held) < path.stat().st_size / 4, (held, path.stat().st_size)


def test_parquet_text_past_32_bit_offsets_becomes_large_string(
    tmp_path, monkeypatch, small_parquet_batches
):
    from clusterscore import _io, _io_parquet

    monkeypatch.setattr(_io_parquet, "_STRING_CHARS", 100)  # passed in the third batch of 7 rows
    table = _text_table(50)
    path, want = many_row_groups(tmp_path, table)
    got = _io.read_file(path).table
    assert got.schema.field("item_id").type == pa.large_string()
    assert got.column("item_id").num_chunks == 1
    assert got.column("item_id").to_pylist() == want.column("item_id").to_pylist()
    assert got.column("cluster_id").type == pa.string()  # 150 characters in all
    assert cs.evaluate(path, table).overall == cs.evaluate(table, table).overall


def test_parquet_text_longer_than_its_first_batch_guessed(
    tmp_path, monkeypatch, small_parquet_batches
):
    """The first batch's one-character ids guess 63 characters in all; the longer ids after
    it pass the guess (the buffer grows) and then 100 characters (the offsets widen to 64
    bits, the rows already read with them)."""
    from clusterscore import _io, _io_parquet

    monkeypatch.setattr(_io_parquet, "_STRING_CHARS", 100)
    ids = [chr(ord("a") + i) for i in range(7)] + [f"a-longer-id-{i:03d}" for i in range(53)]
    table = pa.table({"item_id": ids, "cluster_id": [i % 5 for i in range(60)]})
    path, _ = many_row_groups(tmp_path, table)
    got = _io.read_file(path).table
    assert got.schema.field("item_id").type == pa.large_string()
    assert got.column("item_id").num_chunks == 1
    assert got.column("item_id").to_pylist() == ids


def test_text_offsets_past_2_gib_are_shifted_in_64_bits():
    """A batch's 32-bit offsets, shifted to where the column's characters end past 2^31."""
    from clusterscore._io_parquet import _shift_into

    got = np.zeros(2, np.int64)
    _shift_into(got, np.array([2, 5], np.int32), 2**31 + 3)
    assert got.tolist() == [2**31 + 5, 2**31 + 8]


def test_parquet_text_with_a_null_after_the_first_batches(
    tmp_path, monkeypatch, small_parquet_batches
):
    from clusterscore import _io, _io_parquet

    table = _text_table(30)
    ids = table.column("item_id").to_pylist()
    ids[25] = None  # in the fourth batch
    table = table.set_column(0, "item_id", pa.array(ids))
    path, want = many_row_groups(tmp_path, table)
    got = _io.read_file(path).table
    assert got.equals(want)
    assert got.column("item_id").null_count == 1
    assert got.column("cluster_id").num_chunks == 1
    monkeypatch.setattr(_io_parquet, "_STRING_CHARS", 40)  # large_string before the null
    got = _io.read_file(path).table
    assert got.column("item_id").type == pa.large_string()
    assert got.column("item_id").to_pylist() == ids
    with pytest.raises(ValueError, match=r"t.parquet row 26: missing value in column 'item_id'"):
        cs.evaluate(path, {1: 1})


def test_parquet_number_column_with_nulls_after_the_first_batches(tmp_path, small_parquet_batches):
    from clusterscore._io import read_file

    n = 30
    weight = [1.0 + i for i in range(n)]
    weight[25] = None  # in the fourth batch of seven rows: 21 rows are in the array by then
    table = pa.table({"item_id": list(range(n)), "weight": weight})
    path, want = many_row_groups(tmp_path, table)
    got = read_file(path).table
    assert got.equals(want)
    assert got.column("item_id").num_chunks == 1
    assert got.column("weight").null_count == 1
    with pytest.raises(ValueError, match=r"t.parquet row 26: missing value in column 'weight'"):
        cs.evaluate({i: 0 for i in range(n)}, {i: i % 3 for i in range(n)}, path)


def test_parquet_read_in_one_chunk_scores_as_read_table(tmp_path, small_parquet_batches):
    rng = np.random.default_rng(4)
    n = 500
    ids = rng.permutation(5 * n)[:n]
    truth = pa.table({"item_id": ids, "cluster_id": rng.integers(0, 40, n)})
    actual = pa.table({"item_id": ids[::-1], "cluster_id": rng.integers(0, 60, n)})
    items = pa.table({"item_id": ids, "weight": rng.uniform(0.5, 2.0, n)})
    paths = []
    for name, t in (("truth", truth), ("actual", actual), ("items", items)):
        (tmp_path / name).mkdir()
        paths.append(many_row_groups(tmp_path / name, t, 64)[0])
    from_files = cs.evaluate(*paths)
    in_memory = cs.evaluate(truth, actual, items)
    assert from_files.overall == in_memory.overall
    assert from_files.per_cluster_table("actual").equals(in_memory.per_cluster_table("actual"))


class RowCountLies:
    """A Parquet file whose metadata gives `claimed` rows over the batches it yields."""

    def __init__(self, claimed: int, batches: list[pa.RecordBatch]):
        self.schema_arrow = batches[0].schema
        self.metadata = type("Meta", (), {"num_rows": claimed})()
        self._batches = batches

    def iter_batches(self, batch_size: int):
        return iter(self._batches)


@pytest.mark.parametrize(
    ("claimed", "message"),
    [(3, r"holds more rows than its metadata says \(3\)"), (9, "holds 4 rows where its metadata")],
)
def test_parquet_row_count_that_disagrees_with_the_data_is_an_error(
    tmp_path, monkeypatch, claimed, message
):
    from clusterscore import _io_parquet

    batch = pa.record_batch({"item_id": [1, 2, 3, 4], "cluster_id": [1, 1, 2, 2]})
    lying = lambda p, **_: RowCountLies(claimed, [batch])  # noqa: E731
    monkeypatch.setattr(_io_parquet.pq, "ParquetFile", lying)
    path = tmp_path / "t.parquet"
    path.write_bytes(b"not read: ParquetFile is replaced")
    with pytest.raises(ValueError, match=f"t.parquet: {message}"):
        cs.evaluate(path, {1: 1})


def _clusterings_named(ids, truth, actual, weights, country, text, large):
    """The same clusterings with integer ids, or with string ids that name them
    ("item-<n>", "cluster-<n>": longer than 7 bytes, so hashed, not packed). Truth
    lacks the last 500 items, actual the first 300 (and lists items in another order),
    and the items table has 200 more than either."""
    kind = pa.large_string() if large else pa.string()

    def named(prefix, values):
        return pa.array([f"{prefix}{v}" for v in values], kind) if text else pa.array(values)

    n = len(ids) - 200
    t, a = slice(0, n - 500), np.random.default_rng(1).permutation(np.arange(300, n))
    truth_table = pa.table(
        {"item_id": named("item-", ids[t]), "cluster_id": named("cluster-", truth[t])}
    )
    actual_table = pa.table(
        {"item_id": named("item-", ids[a]), "cluster_id": named("cluster-", actual[a])}
    )
    items = pa.table({"item_id": named("item-", ids), "weight": weights, "country": country})
    return truth_table, actual_table, items


@pytest.mark.parametrize("large", [False, True])
def test_string_ids_score_as_the_integers_they_name(large):
    """String ids join through the hashed radix partitions (several partitions at 1e5
    items) and string cluster ids are interned by hash: every level equals the one the
    same clusterings give with integer ids, to the bit."""
    rng = np.random.default_rng(7)
    n = 100_000
    ids = rng.permutation(3 * n)[:n].astype(np.int64)
    truth = rng.integers(0, n // 4, n)
    actual = np.where(rng.random(n) < 0.2, rng.integers(0, n // 3, n), truth)
    args = (ids, truth, actual, rng.uniform(0.5, 2.0, n), rng.choice(["US", "DE", "FR"], n))
    as_ints = _clusterings_named(*args, text=False, large=large)
    as_text = _clusterings_named(*args, text=True, large=large)
    want, got = cs.evaluate(*as_ints), cs.evaluate(*as_text)
    assert got.coverage == want.coverage
    assert want.coverage["truth_only_items"] == 300 and want.coverage["actual_only_items"] == 500
    assert got.overall == want.overall
    for side in ("truth", "actual"):
        w, g = want.per_cluster(side), got.per_cluster(side)
        assert g.cluster_id.tolist() == [f"cluster-{c}" for c in w.cluster_id]
        pd.testing.assert_frame_equal(g.drop(columns="cluster_id"), w.drop(columns="cluster_id"))
    w, g = want.per_item(), got.per_item()
    assert g.item_id.tolist() == [f"item-{i}" for i in w.item_id]
    cols = ["weight", "tp", "fp", "fn", "tn", "precision", "recall", "jaccard_index"]
    pd.testing.assert_frame_equal(g[cols], w[cols])
    pd.testing.assert_frame_equal(got.per_slice("country"), want.per_slice("country"))
    d_want, d_got = cs.diff(*as_ints), cs.diff(*as_text)
    assert d_got.overall == d_want.overall
