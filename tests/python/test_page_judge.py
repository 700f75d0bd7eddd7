"""The judging page in a real headless Chromium, driven by keys and clicks as raters use it:
two raters share a 300-pair sample with replicates, the browser is closed and the page
opened again midway, each rater exports; `estimate` of the exported files equals the
estimate of the same verdicts written by hand. Ids and values from hostile files show as
text, nothing is fetched, the console stays empty."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from browser import Seen, download, opened, stored
from conftest import EXAMPLE
from test_hostile_report import PAYLOADS, WATCH

import clusterscore as cs

TRUTH = pd.read_csv(EXAMPLE / "truth.csv", dtype=str).set_index("item_id")["cluster_id"]


def _shown(page) -> tuple[str, str]:
    a, b = page.locator("#pair tbody tr.id td").all_inner_texts()
    return a, b


def _answer(rater: str, i: str, j: str) -> str:
    """What each rater says: the truth, but bob is unsure of some pairs and alice errs on
    others (so replicates disagree somewhere)."""
    same = TRUTH.get(i) is not None and TRUTH.get(i) == TRUTH.get(j)
    h = sum(map(ord, i + j))
    if rater == "bob" and h % 17 == 0:
        return "unsure"
    if rater == "alice" and h % 23 == 0:
        same = not same
    return "same" if same else "different"


def _judge(page, rater: str, given: dict, most: int | None = None) -> int:
    """Judges the pairs the page offers `rater`, at most `most`; records each answer in
    `given` as (rater, i, j) → verdict. Returns how many were judged."""
    done = 0
    while page.locator("#work").is_visible() and (most is None or done < most):
        i, j = _shown(page)
        verdict = _answer(rater, i, j)
        page.keyboard.press(verdict[0])
        given[(rater, i, j)] = verdict
        done += 1
    return done


def _start(page, rater: str) -> None:
    page.fill("#rater", rater)
    page.keyboard.press("Enter")


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> tuple[cs.PairSample, Path]:
    d = tmp_path_factory.mktemp("judge")
    s = cs.sample_pairs(EXAMPLE / "actual.csv", EXAMPLE / "actual_v2.csv", pairs=300, seed=11,
                        stable_pairs=100, items=EXAMPLE / "items.csv", replicates=40)  # fmt: skip
    return s, s.page(d / "pairs.html")


def test_two_raters_close_reopen_export_and_estimate(sample, tmp_path):
    s, page_file = sample
    profile, seen, given = tmp_path / "profile", Seen(), {}
    table = s.raters_table()
    firsts = int((table.column("copy").to_numpy() == 1).sum())
    with opened(page_file, profile, seen) as page:
        _start(page, "alice")
        assert _judge(page, "alice", given, most=90) == 90
        # back twice, change that verdict, then undo the last one given
        page.keyboard.press("b")
        page.keyboard.press("ArrowLeft")
        i, j = _shown(page)
        assert "reviewing" in page.inner_text("#position")
        flipped = "different" if given[("alice", i, j)] == "same" else "same"
        page.click(f"#{flipped}")
        given[("alice", i, j)] = flipped
        assert "reviewing" in page.inner_text("#position")  # the next one reviewed
        page.keyboard.press("z")
        last = [k for k in given if k[0] == "alice"][-1]
        assert _shown(page) == last[1:]
        del given[last]
        assert page.inner_text("#progress").startswith("89 of")
        stored(page, profile)
    with opened(page_file, profile, seen) as page:  # closed midway, opened again
        assert page.input_value("#rater") == "alice"
        _start(page, "alice")
        assert page.inner_text("#progress").startswith("89 of"), "nothing lost"
        _judge(page, "alice", given, most=firsts // 2 - 89)
        alice_file = download(page, "e", tmp_path)
        page.click("#switch")
        _start(page, "bob")
        _judge(page, "bob", given)  # the other first copies, then the replicates of alice's
        assert "another rater" in page.inner_text("#done-text")
        bob_file = download(page, "e", tmp_path)
        page.click("#switch")
        _start(page, "alice")
        _judge(page, "alice", given)  # the replicates of bob's pairs
        assert page.inner_text("#progress").startswith(f"{table.num_rows} of {table.num_rows}")
        alice_file = download(page, "e", tmp_path)
    assert seen.console == [] and seen.requests == []
    assert (
        alice_file.name == "pairs.verdicts.alice.csv" and bob_file.name == "pairs.verdicts.bob.csv"
    )
    # each replicated pair judged by both raters, every other pair once
    seconds = table.filter(pa.array(table.column("copy").to_numpy() == 2)).to_pylist()
    replicated = {(r["item_i"], r["item_j"]) for r in seconds}
    raters = Counter(k[1:] for k in given)
    assert {p for p, n in raters.items() if n == 2} == replicated and len(replicated) == 40
    assert len(raters) == firsts and max(raters.values()) == 2
    # the same verdicts written by hand
    hand = pd.DataFrame([{"item_i": i, "item_j": j, "verdict": v, "rater": r}
                         for (r, i, j), v in given.items()])  # fmt: skip
    by_hand = [tmp_path / f"hand-{r}.csv" for r in ("alice", "bob")]
    for r, path in zip(("alice", "bob"), by_hand, strict=True):
        hand[hand.rater == r].to_csv(path, index=False)
    exported = cs.estimate(s, [alice_file, bob_file])
    assert exported == cs.estimate(s, by_hand)
    assert exported.raters["measured"] and exported.raters["noise"] > 0  # alice erred
    sure = sum(all(given[(r, *p)] != "unsure" for r in ("alice", "bob")) for p in replicated)
    assert sum(c["replicated_pairs"] for c in exported.raters["classes"].values()) == sure


def test_the_command_line_writes_the_page(sample, run_cli, tmp_path):
    s, _ = sample
    s.save(tmp_path / "round.parquet")
    r = run_cli("page", str(tmp_path / "round.parquet"))
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "round.html").read_text()
    assert "pairs.verdicts" not in text and '"name": "round"' in text
    out = tmp_path / "by-sample" / "p.parquet"
    runs = (str(EXAMPLE / "actual.csv"), str(EXAMPLE / "actual_v2.csv"))
    r = run_cli("sample", *runs, "--pairs", "50", "--seed", "2", "--out", str(out),
                "--page", str(tmp_path / "j.html"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "j.html").exists() and "j.html" in r.stdout


def test_blind_nothing_reveals_the_pairs_kind(sample):
    _, page_file = sample
    text = page_file.read_text()
    data = json.loads(re.search(r'id="page-data">(.*?)</script>', text).group(1))
    assert data["columns"] == ["weight", "country", "source"]
    assert {k for t in data["tasks"] for k in t} == {"i", "j", "copy", "twin", "a", "b"}
    for word in ("split", "merge", "stable", "draws", "U_i"):
        assert word not in text, word


SHEET = ['=HYPERLINK("http://example.invalid","x")', "+1", "-2", "@SUM(A1)", "'quoted", "0870",
         "tab\tinside", "line\nbreak", "\u2028sep"]  # fmt: skip


def test_hostile_ids_and_values_show_as_text_and_come_back_exact(tmp_path):
    names = [p[:200] + str(k) for k, p in enumerate(PAYLOADS + SHEET)]
    n = len(names)
    base = pd.DataFrame({"item_id": names, "cluster_id": [str(k // 2) for k in range(n)]})
    exp = pd.DataFrame({"item_id": names, "cluster_id": [str((k + 1) // 2) for k in range(n)]})
    items = pd.DataFrame({"item_id": names, PAYLOADS[0]: list(reversed(names)), "zip": SHEET[5]})
    s = cs.sample_pairs(base, exp, pairs=200, seed=4, items=items, replicates=3)
    page_file = s.page(tmp_path / "hostile.html")
    seen, shown = Seen(), set()
    with opened(page_file, tmp_path / "profile", seen, init=WATCH) as page:
        _start(page, SHEET[0])
        while page.locator("#work").is_visible():
            rows = page.locator("#pair tbody tr")
            assert rows.nth(1).locator("th").inner_text() == PAYLOADS[0]
            assert rows.nth(2).locator("td").all_inner_texts() == ["0870", "0870"]
            shown.add(tuple(rows.nth(0).locator("td").all_text_contents()))
            page.keyboard.press("d")
        exported = download(page, "e", tmp_path)
        assert page.evaluate("window.__hits") == []
        assert page.locator("img, svg, iframe").count() == 0
    assert seen.console == [] and seen.requests == []
    table = s.raters_table()
    firsts = table.filter(pa.array(table.column("copy").to_numpy() == 1))
    assert shown == set(
        zip(firsts.column("item_i").to_pylist(), firsts.column("item_j").to_pylist(), strict=True)
    )
    assert exported.name == "hostile.verdicts.HYPERLINK-http-example.invalid-x.csv"
    with exported.open(newline="") as f:
        cells = [c for row in list(csv.reader(f))[1:] for c in row]
    assert all(not c.startswith(("=", "+", "-", "@", "\t")) for c in cells)  # inert in a sheet
    assert "'=HYPERLINK" in exported.read_text()
    est = cs.estimate(s, exported)  # every id read back as it was
    assert est["bad_merge_distance"]["pairs"] > 0


def test_page_of_a_missing_or_foreign_file_is_one_line(run_cli, tmp_path):
    r = run_cli("page", str(tmp_path / "nope.parquet"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "nope.parquet" in r.stderr
    r = run_cli("page", str(EXAMPLE / "truth.csv"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (EXAMPLE / "truth.html").exists()


def test_the_page_of_a_continued_round_holds_only_its_new_pairs(run_cli, tmp_path):
    runs = (str(EXAMPLE / "actual.csv"), str(EXAMPLE / "actual_v2.csv"))
    first, more = tmp_path / "r1.parquet", tmp_path / "r2.parquet"
    assert run_cli("sample", *runs, "--pairs", "80", "--seed", "5", "--out", first,
                   "-q").returncode == 0  # fmt: skip
    r = run_cli("sample", *runs, "--continue", first, "--pairs", "80", "--out", more,
                "--page", tmp_path / "r2.html", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = run_cli("page", more, "--since", first, "--out", tmp_path / "again.html")
    assert r.returncode == 0, r.stderr

    def tasks(page: Path) -> list[tuple[str, str, int]]:
        text = page.read_text()
        data = json.loads(re.search(r'id="page-data">(.*?)</script>', text).group(1))
        return sorted((t["i"], t["j"], t["copy"]) for t in data["tasks"])

    new = cs.load_sample(more).raters_table(cs.load_sample(first))
    assert tasks(tmp_path / "r2.html") == tasks(tmp_path / "again.html")
    assert len(tasks(tmp_path / "again.html")) == new.num_rows < len(cs.load_sample(more))
