"""The labelling page in a real headless Chromium, driven by keys as a labeller uses it:
20 seed records drawn by `clusterscore draw-truth`, each seed's entity ticked among its
candidates and completed by id, the browser closed and the page opened again midway, the
labels exported; `truth-from-labels` and `evaluate --truth-scope entities` with its
weights equal the evaluation of the same entities built here with SPEC §7's π."""

from __future__ import annotations

import json
import math

import pandas as pd
from browser import Seen, download, opened, stored
from conftest import EXAMPLE
from test_hostile_report import PAYLOADS, WATCH
from test_page_judge import SHEET

import clusterscore as cs

# The known truth: the example's entities, and every other record an entity of its own.
_TRUTH = pd.read_csv(EXAMPLE / "truth.csv", dtype=str).set_index("item_id")["cluster_id"]


def entity_of(record: str) -> str:
    return _TRUTH.get(record, "alone:" + record)


MEMBERS = pd.Series(_TRUTH.index, index=_TRUTH.values).groupby(level=0).agg(list)


def members(record: str) -> list[str]:
    e = entity_of(record)
    return [record] if e.startswith("alone:") else MEMBERS[e]


def _label_seed(page, added: list[str]) -> None:
    """Ticks the candidates of the seed on screen that are its entity, adds the entity's
    other records by id (and notes them in `added`), and finishes the seed."""
    ids = page.locator("#candidates tbody tr td.id").all_inner_texts()
    seed = ids[0]
    for r, record in enumerate(ids[1:], start=1):
        if entity_of(record) == entity_of(seed):
            for _ in range(r - _cursor(page)):
                page.keyboard.press("j")
            page.keyboard.press("x")
    for record in members(seed):
        if record not in ids:
            page.keyboard.press("a")
            page.keyboard.type(record)
            page.keyboard.press("Enter")
            added.append(record)
    page.keyboard.press("Enter")


def _cursor(page) -> int:
    classes = page.locator("#candidates tbody tr").evaluate_all(
        "rows => rows.map(r => r.classList.contains('cursor'))"
    )
    return classes.index(True)


def test_label_twenty_seeds_export_build_the_truth_and_evaluate(run_cli, tmp_path):
    runs = [str(EXAMPLE / "actual.csv"), str(EXAMPLE / "actual_v2.csv")]
    page_file, folder = tmp_path / "label.html", tmp_path / "truth-sample"
    r = run_cli("draw-truth", runs[0], "--items", str(EXAMPLE / "items.csv"), "--records", "20",
                "--seed", "7", "--out", str(folder), "--page", str(page_file))  # fmt: skip
    assert r.returncode == 0, r.stderr
    sample = cs.load_truth_sample(folder)
    seen, added, profile = Seen(), [], tmp_path / "profile"
    with opened(page_file, profile, seen) as page:
        page.fill("#rater", "lea")
        page.keyboard.press("Enter")
        for _ in range(10):
            _label_seed(page, added)
        assert page.inner_text("#progress").startswith("10 of 20")
        stored(page, profile)
    with opened(page_file, profile, seen) as page:  # closed midway, opened again
        page.keyboard.press("Enter")  # the name is remembered
        assert page.inner_text("#progress").startswith("10 of 20"), "nothing lost"
        assert page.inner_text("#position").startswith("Seed 11 of 20")
        for _ in range(10):
            _label_seed(page, added)
        assert page.inner_text("#progress").startswith("20 of 20")
        labels = download(page, "e", tmp_path)
    assert seen.console == [] and seen.requests == []
    assert labels.name == "truth-sample.labels.lea.csv"
    assert added, "some entity had a record no clustering put with its seed"
    truth_csv, weights_csv = tmp_path / "truth.csv", tmp_path / "weights.csv"
    r = run_cli("truth-from-labels", str(labels), "--sample", str(folder), "--out",
                str(truth_csv), "--weights", str(weights_csv))  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = run_cli("evaluate", str(truth_csv), runs[0], "--items", str(EXAMPLE / "items.csv"),
                "--truth-scope", "entities", "--cluster-weights", str(weights_csv),
                "--json", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["overall"]
    # The same entities and weights, built here: each seed's whole entity, once, with
    # π = 1 − C(N − s, n) / C(N, n) for its size s.
    n_records, n = sample.meta["records"], sample.meta["draws"]
    entities = {entity_of(s): members(s) for s in sample.seeds}
    truth = pd.DataFrame([(m, e) for e, ms in entities.items() for m in ms],
                         columns=["item_id", "cluster_id"])  # fmt: skip
    weights = {e: 1 / (1 - math.comb(n_records - len(ms), n) / math.comb(n_records, n))
               for e, ms in entities.items()}  # fmt: skip
    want = cs.evaluate(truth, runs[0], EXAMPLE / "items.csv", truth_scope="entities",
                       cluster_weights=weights).overall  # fmt: skip
    for metric, value in want.items():
        if isinstance(value, float):
            assert got[metric] is not None and math.isclose(got[metric], value, rel_tol=1e-12,
                                                            abs_tol=1e-12), metric  # fmt: skip


def test_hostile_ids_and_values_show_as_text_and_come_back_exact(tmp_path):
    names = [p[:200] + str(k) for k, p in enumerate(PAYLOADS + SHEET)]
    actual = pd.DataFrame({"item_id": names, "cluster_id": names})  # candidates: the seed
    items = pd.DataFrame({"item_id": names, PAYLOADS[1]: list(reversed(names))})
    s = cs.draw_truth_sample(actual, items=items, records=len(names), seed=1)
    # A one-line field holds no line break: such ids are ticked, never typed.
    typeable = [n for n in names if n.strip() == n and not set(n) & {"\n", "\r", "\u2028"}]
    page_file = s.page(tmp_path / "hostile.html")
    seen = Seen()
    with opened(page_file, tmp_path / "profile", seen, init=WATCH) as page:
        page.fill("#rater", PAYLOADS[0])
        page.keyboard.press("Enter")
        assert page.locator("#candidates thead th").all_inner_texts()[2] == PAYLOADS[1]
        shown = []
        for k in range(len(names)):
            ids = page.locator("#candidates tbody tr td.id").all_text_contents()
            shown.append(ids[0])
            if k == 0:  # every record one entity with the first seed, added by id
                for name in typeable:
                    page.keyboard.press("a")
                    page.keyboard.insert_text(name)
                    page.keyboard.press("Enter")
            page.keyboard.press("Enter")
        labels = download(page, "e", tmp_path)
        assert page.evaluate("window.__hits") == []
        assert page.locator("img, svg, iframe, script:not([type])").count() == 1  # its own
    assert seen.console == [] and seen.requests == []
    assert shown == s.seeds
    t = cs.truth_from_labels(labels, s)
    assert sorted(t.truth["item_id"]) == sorted(names)
    assert len(t.weights) == 1 + len(set(names) - set(typeable) - {s.seeds[0]})
