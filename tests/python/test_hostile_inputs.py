"""The cases a reliability probe found, each as the one-line refusal (status 2) or the
right answer it now gets; and a bounded fuzz of the HTML writer and the verdict and
design-weight readers."""

from __future__ import annotations

import errno
import fcntl
import html.parser
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE

import clusterscore as cs

CLI = os.path.join(os.path.dirname(sys.executable), "clusterscore")
TRUTH, ACTUAL, ITEMS = (str(EXAMPLE / f) for f in ("truth.csv", "actual.csv", "items.csv"))


def cli(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, **kw)


def refused(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("name", ["country-code", "class", "_x", "a.b", "with space", "../up"])
def test_slice_columns_of_any_name(tmp_path, name):
    items = pd.read_csv(ITEMS)
    items[name] = items["country"]
    items.to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "out"
    proc = cli("evaluate", TRUTH, ACTUAL, "--items", tmp_path / "items.csv", "--slice", name,
               "--out", out, "--quiet")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "US" in proc.stdout, proc.stdout
    written = [p for p in out.iterdir() if p.name.startswith("per_slice_")]
    assert len(written) == 1 and written[0].parent == out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.csv", "out"]


def test_nested_slice_columns_are_refused(tmp_path):
    items = pa.Table.from_pandas(pd.read_csv(ITEMS)[["item_id", "country"]])
    n = items.num_rows
    items = items.append_column("lst", pa.array([[1, 2]] * n))
    items = items.append_column("st", pa.array([{"a": 1}] * n))
    pq.write_table(items, tmp_path / "items.parquet")
    for command in ("evaluate", "diff"):
        for column in ("lst", "st"):
            proc = cli(command, TRUTH, ACTUAL, "--items", tmp_path / "items.parquet", "--slice",
                       column, "--quiet")  # fmt: skip
            refused(proc, f"slice column '{column}' holds")


def test_ids_of_every_arrow_kind(tmp_path):
    t = pd.read_csv(TRUTH, dtype=str)
    views = pa.table({"item_id": pa.array(t["item_id"]).cast(pa.string_view()),
                      "cluster_id": pa.array(t["cluster_id"]).cast(pa.string_view())})  # fmt: skip
    pq.write_table(views, tmp_path / "views.parquet")
    proc = cli("evaluate", tmp_path / "views.parquet", ACTUAL, "--json", "--quiet")
    plain = cli("evaluate", TRUTH, ACTUAL, "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["overall"] == json.loads(plain.stdout)["overall"]
    big = pa.table({"item_id": pa.array([1, 2, 2**64 - 1], pa.uint64()), "cluster_id": [1, 1, 2]})
    pq.write_table(big, tmp_path / "u64.parquet")
    proc = cli("evaluate", tmp_path / "u64.parquet", tmp_path / "u64.parquet", "--json", "--quiet")
    assert proc.returncode == 0 and json.loads(proc.stdout)["coverage"]["common_items"] == 3
    bad = pa.table({"item_id": pa.array([b"a", b"\xff\xfe"], pa.binary()), "cluster_id": [1, 2]})
    pq.write_table(bad, tmp_path / "bad.parquet")
    refused(cli("evaluate", tmp_path / "bad.parquet", ACTUAL), "bad.parquet row 2", "UTF-8")


def test_zero_and_negative_zero_are_one_cluster():
    ids = ["a", "b", "c", "d"]
    truth = pd.DataFrame({"item_id": ids, "cluster_id": [0.0, -0.0, 1.0, 1.0]})
    actual = pd.DataFrame({"item_id": ids, "cluster_id": [0.0, 0.0, 1.0, 1.0]})
    ev = cs.evaluate(truth, actual)
    assert ev.overall["precision"] == 1.0 and ev.overall["recall"] == 1.0
    assert len(ev.per_cluster("truth")) == 2


def test_refusals_instead_of_silent_answers(tmp_path):
    refused(cli("evaluate", TRUTH, ACTUAL, "--resamples", "100000000000"), "--resamples")
    refused(cli("plan", TRUTH, ACTUAL, "--half-width", "1e-20"), "half-width of 1e-20",
            "more than the 100000000")  # fmt: skip
    refused(cli("evaluate", TRUTH, ACTUAL, "--item-col", "item_id", "--cluster-col", "item_id"),
            "--item-col and --cluster-col")  # fmt: skip
    clusters = pd.read_csv(TRUTH)["cluster_id"].unique()
    pd.DataFrame({"cluster_id": clusters, "weight": 1e308}).to_csv(tmp_path / "w.csv", index=False)
    refused(cli("evaluate", TRUTH, ACTUAL, "--truth-scope", "entities", "--cluster-weights",
                tmp_path / "w.csv"), "w.csv", "divide the design weights")  # fmt: skip


def test_a_deeply_nested_sample_metadata_is_refused(tmp_path):
    s = cs.sample_pairs(TRUTH, ACTUAL, pairs=50, seed=1)
    s.save(tmp_path / "s.csv")
    meta = tmp_path / "s.csv.meta.json"
    meta.write_text(meta.read_text().replace('"mode"', '"deep": ' + "[" * 100_000
                                             + "]" * 100_000 + ', "mode"', 1))  # fmt: skip
    (tmp_path / "v.csv").write_text("item_i,item_j,verdict\n")
    refused(cli("estimate", tmp_path / "s.csv", "--verdicts", tmp_path / "v.csv"),
            "nested too deeply")  # fmt: skip


def test_csv_with_long_fields_wide_headers_and_quoted_line_breaks(tmp_path):
    ids = [f"i{k}" for k in range(10)]
    truth = "item_id,cluster_id\n" + "".join(f"{i},c{k % 3}\n" for k, i in enumerate(ids))
    (tmp_path / "t.csv").write_text(truth)
    long = "item_id,cluster_id,note\n" + "".join(
        f'{i},c{k % 4},"{"x" * 2_000_000 if k == 3 else "a,b"}"\n' for k, i in enumerate(ids)
    )
    (tmp_path / "long.csv").write_text(long)
    header = "item_id,cluster_id," + ",".join(f"c{k}" for k in range(200_000)) + "\n"
    wide = header + "".join(f"{i},c{k % 4}" + ",1" * 200_000 + "\n" for k, i in enumerate(ids))
    (tmp_path / "wide.csv").write_text(wide)
    for f in ("long.csv", "wide.csv"):
        proc = cli("evaluate", tmp_path / "t.csv", tmp_path / f, "--json", "--quiet")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["coverage"]["common_items"] == 10
    (tmp_path / "q.csv").write_text('item_id,cluster_id\ni1,"a\nb"\ni2,c\ni3,"x\ny"\ni4,\n')
    refused(cli("evaluate", tmp_path / "t.csv", tmp_path / "q.csv"), "q.csv line 7")


def test_out_paths_checked_before_the_work(tmp_path):
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    refused(cli("evaluate", TRUTH, ACTUAL, "--out", tmp_path / "link"), "does not exist")
    refused(cli("evaluate", TRUTH, ACTUAL, "--report", tmp_path / "link" / "r.html"),
            "link to nothing")  # fmt: skip
    assert [p.name for p in tmp_path.iterdir()] == ["link"]
    # A link to a folder is followed: the folder is written.
    (tmp_path / "real").mkdir()
    (tmp_path / "to-real").symlink_to(tmp_path / "real")
    proc = cli("diff", TRUTH, ACTUAL, "--out", tmp_path / "to-real", "--quiet")
    assert proc.returncode == 0 and (tmp_path / "real" / "summary.json").exists()


def test_one_writer_per_out_and_stale_staging_removed(tmp_path):
    out = tmp_path / "out"
    lock = tmp_path / ".out.clusterscore-lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    os.write(fd, b"4242")
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        refused(cli("evaluate", TRUTH, ACTUAL, "--out", out), "process 4242 is writing it")
    finally:
        os.close(fd)
    stale = tmp_path / ".out.clusterscore-abc123"  # a killed run's staging
    stale.mkdir()
    (stale / "per_item.parquet").write_bytes(b"x" * 1000)
    proc = cli("evaluate", TRUTH, ACTUAL, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_two_writers_on_one_out_never_mix(tmp_path):
    out = tmp_path / "out"
    procs = [subprocess.Popen([CLI, command, TRUTH, ACTUAL, "--out", str(out), "--quiet"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for command in ("evaluate", "diff")]  # fmt: skip
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    assert all(rc in (0, 2) for rc, _ in results), results
    for rc, err in results:
        assert rc == 0 or "is writing it" in err, err
    names = {p.name for p in out.iterdir()}
    command = json.loads((out / "summary.json").read_text())["command"]
    assert ("flows.parquet" in names) == (command == "diff")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_full_disk_names_what_was_being_written(tmp_path, monkeypatch, capsys):
    from clusterscore import _report
    from clusterscore import cli as cli_module

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_report, "write_parquet", full)
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["clusterscore", "diff", TRUTH, ACTUAL, "--out", str(out)])
    with pytest.raises(SystemExit) as stop:
        cli_module.main()
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: no space left on the device writing {out} (nothing was written)"]
    assert list(tmp_path.iterdir()) == []


# -- a bounded fuzz of the HTML writer ------------------------------------------------------

_PIECES = ["<", ">", "&", '"', "'", "</script>", "<!--", "<script>", "-->", "javascript:",
           " onerror=", "\u2028", "\\", "/", "${x}", "`", "é", "\x00", " ", "a", "."]  # fmt: skip


class _Elements(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.events: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        self.events += [k for k, _ in attrs if k.startswith("on")]


def _hostile_text(rng: np.random.Generator) -> str:
    return "".join(rng.choice(_PIECES, int(rng.integers(1, 8))))


def test_html_writer_escapes_whatever_it_is_given(tmp_path):
    rng = np.random.default_rng(11)
    truth = pd.read_csv(TRUTH, dtype=str)
    actual = pd.read_csv(ACTUAL, dtype=str)
    items = pd.read_csv(ITEMS, dtype={"item_id": str})
    for round_ in range(6):
        values = [_hostile_text(rng) for _ in range(12)]
        name = _hostile_text(rng)
        items[name] = [values[k % 12] for k in range(len(items))]
        big = actual["cluster_id"].value_counts().index[:12]
        a = actual.assign(cluster_id=actual["cluster_id"].map(dict(zip(big, values, strict=True)))
                          .fillna(actual["cluster_id"]))  # fmt: skip
        for kind, result in (("evaluate", cs.evaluate(truth, a, items, resamples=20)),
                             ("diff", cs.diff(truth, a, items))):  # fmt: skip
            path = tmp_path / f"{kind}{round_}.html"
            cs.report(result, path, slices=[name], title=_hostile_text(rng))
            text = path.read_text()
            parser = _Elements()
            parser.feed(text)
            assert parser.events == []
            assert set(parser.tags) <= {"html", "head", "meta", "title", "style", "script", "body",
                                        "h1", "h2", "p", "div", "table", "thead", "tbody", "tr",
                                        "th", "td"}, set(parser.tags)  # fmt: skip
            assert parser.tags.count("script") == 3  # the library, the data, the page's own
            start = text.index('id="report-charts">') + len('id="report-charts">')
            json.loads(text[start : text.index("</script>", start)])
        del items[name]


# -- a bounded fuzz of the verdict and design-weight readers ---------------------------------


def _mutate(rng: np.random.Generator, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        at = int(rng.integers(0, max(1, len(b))))
        op = int(rng.integers(0, 3))
        if op == 0 and b:
            b[at] = int(rng.integers(0, 256))
        elif op == 1 and b:
            del b[at : at + int(rng.integers(1, 8))]
        else:
            b[at:at] = bytes(rng.choice(list(b',\n"\t-=\xff\x00'), int(rng.integers(1, 6))))
    return bytes(b)


def test_mutated_verdicts_and_design_weights_are_read_or_refused(tmp_path):
    s = cs.sample_pairs(TRUTH, ACTUAL, pairs=200, stable_pairs=50, seed=2)
    judged = s.raters_table().to_pandas()
    judged["verdict"] = ["same" if k % 3 else "different" for k in range(len(judged))]
    judged.to_csv(tmp_path / "v.csv", index=False)
    clusters = pd.read_csv(TRUTH)["cluster_id"].unique()
    pd.DataFrame({"cluster_id": clusters, "weight": 2.0}).to_csv(tmp_path / "w.csv", index=False)
    ev = cs.evaluate(TRUTH, ACTUAL, truth_scope="entities", resamples=10)
    rng = np.random.default_rng(5)
    for k in range(60):

        def weights(p: str) -> object:
            return cs.evaluate(TRUTH, ACTUAL, truth_scope="entities", cluster_weights=p,
                               resamples=10)  # fmt: skip

        for name, use in (("v.csv", lambda p: cs.estimate(s, p)), ("w.csv", weights)):
            bad = tmp_path / f"m{k}{name}"
            bad.write_bytes(_mutate(rng, (tmp_path / name).read_bytes()))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # few judged draws, and the like
                    use(str(bad))
            except ValueError as e:
                assert str(e).count("\n") == 0 and bad.name in str(e), str(e)
    assert ev.overall["precision"] is not None


def test_intervals_by_a_slice_of_many_values_cost_what_its_kept_values_do():
    """A slice of 20,000 values at 1,000 resamples: intervals for the heaviest values the
    memory budget allows, a warning naming how many have none, never a cost per value."""
    from clusterscore._estimates import most_interval_groups

    rng = np.random.default_rng(4)
    n = 60_000
    truth = rng.integers(0, n // 4, n)
    actual = np.where(rng.random(n) < 0.1, rng.integers(0, n // 4, n), truth)
    ids = np.arange(n)
    items = pd.DataFrame({"item_id": ids, "s": rng.integers(0, 20_000, n),
                          "weight": rng.uniform(0.5, 2, n)})  # fmt: skip
    ev = cs.evaluate(pd.DataFrame({"item_id": ids, "cluster_id": truth}),
                     pd.DataFrame({"item_id": ids, "cluster_id": actual}), items)  # fmt: skip
    most = most_interval_groups(1000, 1)
    assert most < 20_000
    with pytest.warns(UserWarning, match=rf"intervals by s: for its {most:,} heaviest values"):
        iv = ev.intervals("s")
    kept = set(iv["s"])
    assert len(kept) == most
    weights = ev.per_slice("s").set_index("s")["weight"]
    assert weights[list(kept)].min() >= weights.drop(list(kept)).max()
    small = ev.intervals("s").query("metric == 'precision'")  # computed once, no new warning
    assert len(small) <= most


def test_weights_whose_pair_products_a_double_cannot_hold_are_refused(tmp_path):
    items = pd.read_csv(ITEMS)
    items["weight"] = [1e300 if k % 2 else 1e-300 for k in range(len(items))]
    items.to_csv(tmp_path / "w.csv", index=False)
    refused(cli("evaluate", TRUTH, ACTUAL, "--items", tmp_path / "w.csv"), "w.csv",
            "run from 1e-300 to 1e+300")  # fmt: skip
