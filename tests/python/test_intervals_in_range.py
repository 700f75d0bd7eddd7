"""Every interval a user can read lies in its metric's range and holds its estimate, has
width where it is given, and says why where it is not: the bundled example sliced into
~400 small values (one to a dozen items each), in both scopes, through every output
(the DataFrames, the CLI's summary.json and its delta tables, the report's chart data)."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE

import clusterscore as cs

CLI = [sys.executable, "-m", "clusterscore"]
RESAMPLES = 200


@pytest.fixture(scope="module")
def items(tmp_path_factory) -> str:
    table = pd.read_csv(EXAMPLE / "items.csv", dtype=str, keep_default_na=False)
    table["bucket"] = [f"b{k % 397:03d}" for k in range(len(table))]
    path = tmp_path_factory.mktemp("buckets") / "items.csv"
    table.to_csv(path, index=False)
    return str(path)


def _bad(rows: list[dict[str, Any]], lowest: float) -> list[dict[str, Any]]:
    """The rows whose interval leaves [lowest, 1], misses its estimate, has no width, or
    is missing without a reason."""
    bad = []
    for r in rows:
        value = r["estimate"] if "estimate" in r else r["delta"]
        lo, hi = r["ci_low"], r["ci_high"]
        if lo is None or hi is None or lo != lo or hi != hi:
            # A level without an interval says why (but an undefined value has nothing to
            # hold: a slice without false merges possible has no precision).
            if value is not None and value == value and not r.get("interval_note"):
                bad.append(r)
            continue
        if not (lowest <= lo <= value <= hi <= 1 and hi > lo):
            bad.append(r)
    return bad


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
        for r in df.to_dict("records")
    ]


@pytest.mark.parametrize("scope", ["common", "entities"])
def test_the_api_s_intervals_and_deltas_by_many_small_slices(items, scope):
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    runs = {"a": actual, "b": EXAMPLE / "actual_v2.csv"}
    c = cs.compare(truth, runs, items, truth_scope=scope, resamples=RESAMPLES, seed=3)
    ev = c.evaluations["a"]
    by_bucket = ev.intervals("bucket")
    assert by_bucket.bucket.nunique() >= 390
    assert by_bucket.interval_note.notna().any()  # one-item slices among them
    for table in (ev.intervals(), by_bucket):
        assert not _bad(_records(table), 0.0)
    for table in (c.deltas(), c.deltas("bucket")):
        assert not _bad(_records(table), -1.0)


def _report_rows(path) -> Iterator[dict[str, Any]]:
    page = path.read_text()
    found = re.search(r'id="report-charts">(.*?)</script>', page, re.S)
    assert found

    def walk(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if "ci_low" in node:
                yield node
            for v in node.values():
                yield from walk(v)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v)

    return walk(json.loads(found.group(1)))


@pytest.mark.parametrize("scope", ["common", "entities"])
def test_every_written_interval_by_many_small_slices(items, scope, tmp_path):
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    common = ["--items", items, "--slice", "bucket", "--truth-scope", scope,
              "--resamples", str(RESAMPLES), "--quiet"]  # fmt: skip
    one, two = tmp_path / "one", tmp_path / "two"
    for args, out in (
        (["evaluate", truth, actual], one),
        (["compare", truth, actual, EXAMPLE / "actual_v2.csv"], two),
    ):
        proc = subprocess.run([*CLI, *map(str, args), *common, "--out", str(out), "--report",
                               str(out) + ".html"], capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    summary = json.loads((one / "summary.json").read_text())
    assert not _bad(summary["intervals"], 0.0)
    assert len(summary["slice_intervals"]["bucket"]) > 4000
    assert not _bad(summary["slice_intervals"]["bucket"], 0.0)
    deltas = json.loads((two / "summary.json").read_text())["deltas"]
    assert not _bad(deltas, -1.0)
    by_bucket = pq.read_table(two / "deltas_bucket.parquet").to_pandas()
    assert len(by_bucket) > 4000 and not _bad(_records(by_bucket), -1.0)
    shown = list(_report_rows(tmp_path / "one.html"))
    assert shown and not _bad(shown, 0.0)
    shown = list(_report_rows(tmp_path / "two.html"))
    assert shown and not _bad(shown, -1.0)


@pytest.mark.parametrize("scope", ["common", "entities"])
def test_intervals_prepared_together_are_each_by_s_own(items, scope):
    """prepare_intervals draws the resamples once for the overall values and every slice
    column (the command line's path): each table is the one its own call gives, to the
    bit (items in no group: tests/cpp/test_bootstrap.cpp)."""
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"

    def fresh() -> cs.Evaluation:
        return cs.evaluate(truth, actual, items, truth_scope=scope, resamples=60, seed=4)

    together = fresh()
    together.prepare_intervals([None, "bucket", "country", ("country", "source")])
    for by in (None, "bucket", "country", ("country", "source")):
        alone = fresh().intervals(by)
        pd.testing.assert_frame_equal(together.intervals(by), alone, check_exact=True)


@pytest.mark.parametrize("scope", ["common", "entities"])
def test_deltas_prepared_together_are_each_by_s_own(items, scope):
    """prepare_deltas, as the command line's compare: each table (and each run's intervals
    kept from it) is the one its own call gives, to the bit."""
    truth = EXAMPLE / "truth.csv"
    runs = {"a": EXAMPLE / "actual.csv", "b": EXAMPLE / "actual_v2.csv"}

    def fresh() -> cs.RunComparison:
        return cs.compare(truth, runs, items, truth_scope=scope, resamples=60, seed=4)

    together = fresh()
    together.prepare_deltas([None, "bucket", ("country", "source")])
    for by in (None, "bucket", ("country", "source")):
        alone = fresh()
        pd.testing.assert_frame_equal(together.deltas(by), alone.deltas(by), check_exact=True)
        held = together.evaluations["b"].intervals(by)
        pd.testing.assert_frame_equal(held, alone.evaluations["b"].intervals(by), check_exact=True)


def test_groupings_beyond_the_memory_bound_go_to_several_bootstraps(items, monkeypatch):
    """Groupings whose groups together exceed what one bootstrap's resamples may hold are
    cut into batches, in order; each table is still the one its own call gives."""
    from clusterscore import _evaluate
    from clusterscore._estimates import group_batches

    assert group_batches([1, 5, 3], 6) == [[0, 1], [2]]
    assert group_batches([7, 1], 6) == [[0], [1]]
    assert group_batches([], 6) == []
    monkeypatch.setattr(_evaluate, "most_interval_groups", lambda resamples, runs: 100)
    calls = []
    stacked = _evaluate._core.stacked_sums
    monkeypatch.setattr(
        _evaluate._core, "stacked_sums", lambda c, gs: calls.append(len(gs)) or stacked(c, gs)
    )
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    with pytest.warns(UserWarning, match="for its 100 heaviest values"):
        together = cs.evaluate(truth, actual, items, resamples=30, seed=2)
        together.prepare_intervals([None, "country", "bucket"])
    assert calls == [2, 1]  # overall and country (1 + 5 groups), then bucket's 100
    for by in (None, "country", "bucket"):
        with pytest.warns(UserWarning) if by == "bucket" else contextlib.nullcontext():
            alone = cs.evaluate(truth, actual, items, resamples=30, seed=2).intervals(by)
        pd.testing.assert_frame_equal(together.intervals(by), alone, check_exact=True)
