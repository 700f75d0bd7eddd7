"""Results show themselves in a notebook: examples/notebook.ipynb runs in a Jupyter kernel
(nbclient), every result cell shows an HTML view, each view renders in headless Chromium
with no console message, and shows the values its one-line repr names."""

from __future__ import annotations

import re

import pytest
from browser import Seen, opened
from conftest import EXAMPLE, ROOT
from test_hostile_report import PAYLOADS, WATCH

import clusterscore as cs

NOTEBOOK = ROOT / "examples" / "notebook.ipynb"
VIEWS = ["Evaluation", "RunComparison", "Diff", "PairSample", "Estimates", "ThresholdCurve"]


@pytest.fixture(scope="module")
def outputs() -> list[tuple[str, str]]:
    """(text/plain, text/html) of every cell that shows a result."""
    import nbclient
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    where = {"metadata": {"path": str(NOTEBOOK.parent)}}
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources=where).execute()
    shown = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/html" in data:
                shown.append((data["text/plain"], data["text/html"]))
    return shown


def test_every_result_shows_an_html_view(outputs):
    assert [plain.split("(")[0].split("[")[0] for plain, _ in outputs] == VIEWS
    for _, view in outputs:
        assert "<script" not in view and "clusterscore-result" in view


def test_each_view_renders_and_shows_the_values_its_repr_names(outputs, tmp_path):
    page = tmp_path / "views.html"
    blocks = "".join(f'<section id="v{k}">{view}</section>' for k, (_, view) in enumerate(outputs))
    page.write_text(
        f'<!DOCTYPE html><html lang="en"><meta charset="utf-8"><body>{blocks}</body></html>'
    )
    seen = Seen()
    with opened(page, tmp_path / "profile", seen) as browser_page:
        texts = [browser_page.inner_text(f"#v{k}") for k in range(len(outputs))]
        browser_page.screenshot(path=str(tmp_path / "views.png"), full_page=True)
    assert seen.console == [] and seen.requests == []
    for (plain, _), text in zip(outputs, texts, strict=True):
        numbers = re.findall(r"\d[\d,]*\.\d{4}|\b\d[\d,]+\b", plain.split("(", 1)[1])
        assert numbers, plain
        for number in numbers:
            assert number in text, f"{number} of {plain!r} is not shown"


def test_hostile_run_names_show_as_text_in_a_notebook_view(tmp_path):
    runs = {PAYLOADS[1]: EXAMPLE / "actual.csv", PAYLOADS[0]: EXAMPLE / "actual_v2.csv"}
    view = cs.compare(EXAMPLE / "truth.csv", runs, resamples=20)._repr_html_()
    assert "<script>alert" not in view and "<img src=x" not in view
    page = tmp_path / "view.html"
    page.write_text(
        f'<!DOCTYPE html><html lang="en"><meta charset="utf-8"><body>{view}</body></html>'
    )
    seen = Seen()
    with opened(page, tmp_path / "profile", seen, init=WATCH) as browser_page:
        text = browser_page.inner_text("body")
        assert browser_page.evaluate("window.__hits") == []
        assert browser_page.locator("img, svg, iframe, script").count() == 0
    assert PAYLOADS[1] in text and PAYLOADS[0] in text
    assert seen.console == [] and seen.requests == []
