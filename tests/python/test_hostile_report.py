"""Reports built from hostile names, ids and values (tags, event handlers, "</script>",
"<!--<script>", quotes, javascript: URLs, 10 KB strings) render every chart in headless
Chromium, run no script of theirs (alert, document.title and the network are watched) and
leave the console empty."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import EXAMPLE

import clusterscore as cs

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")

PAYLOADS = [
    '"><img src=x onerror=alert(1)>',
    "<script>alert(2)</script>",
    "</script><script>alert(3)</script>",
    "<!--<script>",
    "' onmouseover='alert(4)",
    "javascript:alert(5)",
    "<svg onload=alert(6)>",
    '";document.title="pwned";"',
    "a.b",
    "with space",
    "x" * 10_000,
]

# Run by the page before its own scripts: every way a payload could show itself.
WATCH = """
window.__hits = [];
for (const f of ["alert", "confirm", "prompt"]) {
  window[f] = (...a) => window.__hits.push(f + ":" + a.join(","));
}
const desc = Object.getOwnPropertyDescriptor(Document.prototype, "title");
Object.defineProperty(document, "title", {
  get() { return desc.get.call(this); },
  set(v) { window.__hits.push("title:" + v); desc.set.call(this, v); },
});
"""


def _hostile(tmp: Path) -> dict[str, Path]:
    """The example with payloads as slice values, slice column names, cluster ids and
    item ids (the scored pairs' among them)."""
    truth = pd.read_csv(EXAMPLE / "truth.csv", dtype=str)
    actual = pd.read_csv(EXAMPLE / "actual.csv", dtype=str)
    v2 = pd.read_csv(EXAMPLE / "actual_v2.csv", dtype=str)
    items = pd.read_csv(EXAMPLE / "items.csv", dtype={"item_id": str})
    n = len(PAYLOADS)
    # Item ids and cluster ids: the first items of the file take the payloads.
    firsts = items["item_id"].head(3 * n)
    rename = {old: p + str(k) for k, (old, p) in enumerate(zip(firsts, PAYLOADS * 3, strict=True))}
    for df in (truth, actual, v2, items):
        df["item_id"] = df["item_id"].map(lambda i: rename.get(i, i))
    pairs = pd.read_csv(EXAMPLE / "pairs.csv", dtype={"unique_id_l": str, "unique_id_r": str})
    for column in ("unique_id_l", "unique_id_r"):
        pairs[column] = pairs[column].map(lambda i: rename.get(i, i))
    for df in (actual, v2):
        big = df["cluster_id"].value_counts().index[:n]
        df["cluster_id"] = (
            df["cluster_id"].map(dict(zip(big, PAYLOADS, strict=True))).fillna(df["cluster_id"])
        )
    items[PAYLOADS[0]] = [PAYLOADS[k % n] for k in range(len(items))]
    items["a.b"] = items["country"]
    items["with space"] = items["source"]
    paths = {}
    tables = {"truth": truth, "actual": actual, "v2": v2, "items": items, "pairs": pairs}
    for name, df in tables.items():
        paths[name] = tmp / f"{name}.parquet"
        df.to_parquet(paths[name])
    return paths


@pytest.fixture(scope="module")
def hostile_reports(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("hostile")
    p = _hostile(d)
    slices = [PAYLOADS[0], "a.b", "with space"]
    ev = cs.evaluate(p["truth"], p["actual"], p["items"], resamples=50)
    cs.report(ev, d / "evaluate.html", slices=slices, title=PAYLOADS[1])
    runs = {PAYLOADS[0]: p["actual"], PAYLOADS[3]: p["v2"]}
    rc = cs.compare(p["truth"], runs, p["items"], resamples=50)
    cs.report(rc, d / "compare.html", slices=slices)
    cs.report(cs.diff(p["actual"], p["v2"], p["items"]), d / "diff.html", slices=slices)
    s = cs.sample_pairs(p["actual"], p["v2"], pairs=200, stable_pairs=50, seed=1, items=p["items"])
    judged = s.raters_table().to_pandas()
    judged["verdict"] = ["same" if k % 3 else "different" for k in range(len(judged))]
    judged.to_parquet(d / "judged.parquet")
    cs.report(cs.estimate(s, d / "judged.parquet"), d / "estimate.html")
    # Models named by payloads, over pairs of payload ids.
    curves = {
        PAYLOADS[2]: cs.threshold_curve(p["truth"], p["pairs"], p["items"]),
        PAYLOADS[7]: cs.threshold_curve(p["truth"], p["pairs"], p["items"], thresholds=20),
    }
    cs.report(curves, d / "curve.html", title=PAYLOADS[6])  # fmt: skip
    return {k: d / f"{k}.html" for k in KINDS}


KINDS = ["evaluate", "compare", "diff", "estimate", "curve"]


@pytest.mark.parametrize("kind", KINDS)
def test_hostile_report_draws_every_chart_and_runs_nothing(hostile_reports, kind):
    sync_api = pytest.importorskip("playwright.sync_api")
    assert BROWSER, "chromium is needed (scripts/setup.sh installs it)"
    page_file = hostile_reports[kind]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        page = browser.new_page()
        console, requests, errors = [], [], []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.add_init_script(WATCH)
        page.goto(page_file.as_uri())
        charts = page.eval_on_selector_all("div.chart", "els => els.map(e => e.id)")
        assert charts
        page.wait_for_function(
            "() => [...document.querySelectorAll('div.chart')].every("
            "d => d.querySelector('svg.marks'))",
            timeout=60_000,
        )
        # Sorting a table by a click runs the page's own script, never a payload's.
        page.click("table.sortable th >> nth=0")
        hits = page.evaluate("window.__hits")
        title = page.title()
        browser.close()
    assert hits == []
    assert not title.startswith("pwned")
    assert console == [] and errors == []
    assert requests == [page_file.as_uri()]


def test_chart_ids_and_png_names_are_slugs(tmp_path):
    from clusterscore._html_report import slug

    assert slug('"><img src=x onerror=alert(1)>', ()) == "img-src-x-onerror-alert-1"
    assert slug("a.b", {"a-b"}) == "a-b-2"
    assert slug("../../etc", ()) == "etc"
    assert slug("<>", ()) == "chart"
    assert len(slug("x" * 10_000, ())) == 60


def test_embedded_json_cannot_close_its_script():
    from clusterscore._html_report import script_json

    text = script_json({"v": "</script><!--<script>&\u2028", "n": float("nan")})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"v": "</script><!--<script>&\u2028", "n": None}


def test_png_names_of_hostile_slices_stay_in_their_folder(tmp_path):
    p = _hostile(tmp_path)
    ev = cs.evaluate(p["truth"], p["actual"], p["items"], resamples=20)
    out = tmp_path / "png"
    cs.report(ev, tmp_path / "r.html", slices=[PAYLOADS[0], "a.b"], png=out)
    names = sorted(f.name for f in out.iterdir())
    assert "slice-img-src-x-onerror-alert-1.png" in names and "slice-a-b.png" in names
    assert sorted(f.name for f in tmp_path.iterdir() if f.suffix == ".png") == []
