"""A saved sample cannot change without load_sample saying so: every edit of a field, of
the metadata, or of any single byte of the files either fails to load with the one-line
ValueError, or leaves everything the estimate reads as it was."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import clusterscore as cs
from clusterscore._sample import _CORE_COLUMNS

BASE = {i: i // 4 for i in range(12)}
EXP = {i: i // 3 for i in range(12)}


@pytest.fixture(scope="module")
def sample():
    return cs.sample_pairs(BASE, EXP, pairs=12, seed=5, stable_pairs=4)


def what_the_estimate_reads(s):
    t = s.table
    cols = [t.column(c).to_pylist() for c in ("item_i", "item_j", "kind")]
    cols = [[str(v) for v in c] for c in cols]
    nums = [np.asarray(a, dtype=float).tolist() for a in s.codes()]
    return cols, nums, json.dumps(s.meta, sort_keys=True)


def load_or_error(path):
    """The loaded sample, or None after a proper error (one line, ValueError)."""
    try:
        return cs.load_sample(path)
    except ValueError as e:
        assert "\n" not in str(e) and len(str(e)) < 400, str(e)
        return None


def assert_detected_or_harmless(path, original):
    got = load_or_error(path)
    if got is not None:
        assert what_the_estimate_reads(got) == original


def edited_value(v):
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, float):
        return float(np.nextafter(v, np.inf))
    if isinstance(v, list):
        return [*v[:-1], edited_value(v[-1])]
    return v + 1


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_field_edit_is_detected(sample, tmp_path, fmt):
    path = tmp_path / f"s.{fmt}"
    sample.save(path)
    df = pd.read_csv(path, dtype={"item_i": str, "item_j": str}) if fmt == "csv" else None
    table = pq.read_table(path) if fmt == "parquet" else None
    for c in _CORE_COLUMNS:
        for row in range(len(sample)):
            if fmt == "csv":
                edited = df.copy()
                edited[c] = edited[c].astype(object)
                edited.loc[row, c] = edited_value(df.loc[row, c].item()
                                                  if hasattr(df.loc[row, c], "item")
                                                  else df.loc[row, c])  # fmt: skip
                target = tmp_path / "e.csv"
                edited.to_csv(target, index=False)
                (tmp_path / "e.csv.meta.json").write_text(
                    (tmp_path / "s.csv.meta.json").read_text()
                )
            else:
                values = table.column(c).to_pylist()
                values[row] = edited_value(values[row])
                i = table.schema.get_field_index(c)
                edited_t = table.set_column(i, table.schema.field(i), pa.array(values,
                                            table.schema.field(i).type))  # fmt: skip
                target = tmp_path / "e.parquet"
                pq.write_table(edited_t, target)
            with pytest.raises(ValueError):
                cs.load_sample(target)


def meta_edits(meta, prefix=()):
    for k, v in meta.items():
        if k == "checksum":
            continue
        if isinstance(v, dict):
            yield from meta_edits(v, (*prefix, k))
        else:
            yield (*prefix, k), edited_value(v)
            yield (*prefix, k), None


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_metadata_edit_is_detected(sample, tmp_path, fmt):
    path = tmp_path / f"s.{fmt}"
    sample.save(path)
    meta = json.loads((tmp_path / "s.csv.meta.json").read_text()) if fmt == "csv" else (
        json.loads(pq.read_schema(path).metadata[b"clusterscore"]))  # fmt: skip
    edits = list(meta_edits(meta))
    assert len(edits) > 20
    for keys, value in edits:
        m = json.loads(json.dumps(meta))
        node = m
        for k in keys[:-1]:
            node = node[k]
        if value is None:
            del node[keys[-1]]
        else:
            node[keys[-1]] = value
        if fmt == "csv":
            (tmp_path / "s.csv.meta.json").write_text(json.dumps(m))
        else:
            t = pq.read_table(path)
            pq.write_table(t.replace_schema_metadata({"clusterscore": json.dumps(m)}), path)
        with pytest.raises(ValueError):
            cs.load_sample(path)
    for garbage in (b"", b"[1, 2]", b"{", b"\xff\xfe", b'{"format": 3}', b"null"):
        if fmt == "csv":
            (tmp_path / "s.csv.meta.json").write_bytes(garbage)
        else:
            t = pq.read_table(path)
            pq.write_table(t.replace_schema_metadata({b"clusterscore": garbage}), path)
        with pytest.raises(ValueError):
            cs.load_sample(path)


@pytest.mark.parametrize("name", ["s.csv", "s.csv.meta.json", "s.parquet"])
def test_every_byte_edit_is_detected_or_harmless(sample, tmp_path, name):
    main = tmp_path / ("s.parquet" if name == "s.parquet" else "s.csv")
    sample.save(main)
    original = what_the_estimate_reads(cs.load_sample(main))
    target = tmp_path / name
    data = target.read_bytes()
    rng = np.random.default_rng(0)
    for at in range(len(data)):
        for new in {data[at] ^ 0x01, int(rng.integers(0, 256))} - {data[at]}:
            target.write_bytes(data[:at] + bytes([new]) + data[at + 1 :])
            assert_detected_or_harmless(main, original)
        target.write_bytes(data[:at] + data[at + 1 :])  # a byte deleted
        assert_detected_or_harmless(main, original)
    target.write_bytes(data)
