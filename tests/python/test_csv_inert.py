"""Every CSV cell written for people is inert in a spreadsheet (no cell starts with "=",
"+", "-", "@", a tab or a carriage return), and the values read back exactly: the raters'
file through estimate, a sample saved as CSV through load_sample."""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import clusterscore as cs
from clusterscore import _sheets

ACTIVE = ("=", "+", "-", "@", "\t", "\r")
NASTY = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\ry", "'=quoted", "''", "'plain", "ok"]


def _cells(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _clusterings(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    ids = [f"{NASTY[k % len(NASTY)]}{k}" for k in range(n)]
    base = pd.DataFrame({"item_id": ids, "cluster_id": rng.integers(0, 40, n).astype(str)})
    exp = pd.DataFrame({"item_id": ids, "cluster_id": rng.integers(0, 40, n).astype(str)})
    items = pd.DataFrame({
        "item_id": ids,
        "name": [NASTY[(k * 7) % len(NASTY)] + "name" for k in range(n)],
        "score": rng.normal(size=n),  # negative numbers among them
        "zip": ["-0870" if k % 2 else "0870" for k in range(n)],
    })  # fmt: skip
    return base, exp, items


def test_inert_and_revive_are_inverse():
    col = pa.chunked_array([NASTY + [None, "", "'", "'-"]])
    written = _sheets.inert(col)
    for v in written.to_pylist():
        assert v is None or not v.startswith(ACTIVE)
    assert _sheets.revive(written).to_pylist() == col.to_pylist()


def test_raters_file_is_inert_and_estimate_reads_it_back(tmp_path):
    base, exp, items = _clusterings()
    s = cs.sample_pairs(base, exp, pairs=400, stable_pairs=100, seed=5, items=items)
    path = tmp_path / "raters.csv"
    s.save_for_raters(path)
    rows = _cells(path)
    header, body = rows[0], rows[1:]
    active = [c for r in body for c in r if c.startswith(ACTIVE)]
    assert active == [], active[:5]
    quoted = [c for r in body for c in r if c.startswith("'")]
    assert quoted, "the test's ids reach the file"
    # A rater fills the verdict column in the file as written; estimate reads it.
    truth = dict(zip(base["item_id"], base["cluster_id"], strict=True))
    filled = s.raters_table().to_pandas()
    verdicts = ["same" if truth[i] == truth[j] else "different"
                for i, j in zip(filled["item_i"], filled["item_j"], strict=True)]  # fmt: skip
    k = header.index("verdict")
    for r, v in zip(body, verdicts, strict=True):
        r[k] = v
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([header, *body])
    direct = pd.DataFrame({"item_i": filled["item_i"], "item_j": filled["item_j"],
                           "copy": filled["copy"], "verdict": verdicts})  # fmt: skip
    assert cs.estimate(s, path) == cs.estimate(s, direct)
    # The attributes read back verbatim too.
    back = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(back["name_i"].map(lambda v: _sheets.revive(pa.chunked_array([[v]]))[0].as_py()))\
        == list(filled["name_i"])  # fmt: skip


def test_sample_saved_as_csv_is_inert_and_loads_as_it_was(tmp_path):
    base, exp, items = _clusterings(seed=1)
    s = cs.sample_pairs(base, exp, pairs=300, seed=2, items=items)
    s.save(tmp_path / "s.csv")
    body = _cells(tmp_path / "s.csv")[1:]
    text_cols = [k for k, f in enumerate(s.table.schema) if pa.types.is_string(f.type)]
    assert all(not r[k].startswith(ACTIVE) for r in body for k in text_cols)
    back = cs.load_sample(tmp_path / "s.csv")
    for c in ("item_i", "item_j", "name_i", "name_j", "zip_i"):
        assert back.table.column(c).to_pylist() == s.table.column(c).to_pylist(), c


def test_cli_sample_and_estimate_round_trip(tmp_path, run_cli):
    base, exp, items = _clusterings(seed=3)
    for name, df in (("base", base), ("exp", exp), ("items", items)):
        df.to_parquet(tmp_path / f"{name}.parquet")  # pandas' CSV leaves a lone "\r" unquoted
    out = tmp_path / "pairs.parquet"
    base_p, exp_p, items_p = (tmp_path / f"{n}.parquet" for n in ("base", "exp", "items"))
    proc = run_cli("sample", base_p, exp_p, "--items", items_p, "--pairs", 300, "--seed", 1,
                   "--out", out)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    raters = tmp_path / "pairs.raters.csv"
    rows = _cells(raters)
    assert not [c for r in rows[1:] for c in r if c.startswith(ACTIVE)]
    k = rows[0].index("verdict")
    for r in rows[1:]:
        r[k] = "same"
    with open(raters, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    proc = run_cli("estimate", out, "--verdicts", raters, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["bad_split_distance"]["estimate"] == pytest.approx(
        json.loads(proc.stdout)["split_distance"]["estimate"]
    )
