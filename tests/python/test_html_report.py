"""Reports render in a real headless browser, online and with the network unreachable:
no message in the JavaScript console, every chart drawn (an SVG in each chart's place),
a screenshot saved; nothing in the file asks for anything from outside it. --png writes
each chart as a PNG."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import EXAMPLE

import clusterscore as cs

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
OFFLINE = ["--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]


def _browse(page: Path, out: Path, *extra: str) -> tuple[str, str]:
    """(the rendered DOM, the console's lines) of `page`, with a screenshot in `out`."""
    assert BROWSER, "chromium is needed (scripts/setup.sh installs it)"
    common = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
              *extra]  # fmt: skip
    dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    shot = subprocess.run([*common, "--window-size=1200,2000", f"--screenshot={out}",
                           page.as_uri()], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.exists() and out.stat().st_size > 10_000, shot.stderr
    console = [line for line in (dom.stderr + shot.stderr).splitlines() if ":CONSOLE" in line]
    return dom.stdout, "\n".join(console)


def _verdicts(sample: cs.PairSample, path: Path) -> Path:
    """Verdicts as a rater who knows the truth would give them."""
    truth = pd.read_csv(EXAMPLE / "truth.csv", dtype=str).set_index("item_id")["cluster_id"]
    pairs = sample.raters_table().to_pandas()
    same = [truth.get(i) is not None and truth.get(i) == truth.get(j)
            for i, j in zip(pairs["item_i"], pairs["item_j"], strict=True)]  # fmt: skip
    pairs["verdict"] = ["same" if s else "different" for s in same]
    pairs.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """One report of each kind, from the bundled example."""
    d = tmp_path_factory.mktemp("reports")
    truth, actual, items = (EXAMPLE / f for f in ("truth.csv", "actual.csv", "items.csv"))
    ev = cs.evaluate(truth, actual, items, resamples=200)
    cs.report(ev, d / "evaluate.html", slices=["country"], png=d / "png")
    runs = {"v1": actual, "v2": EXAMPLE / "actual_v2.csv"}
    cs.report(cs.compare(truth, runs, items, resamples=200), d / "compare.html", slices="country")
    cs.report(cs.diff(actual, truth, items), d / "diff.html", slices=["country"])
    s = cs.sample_pairs(actual, truth, pairs=300, stable_pairs=100, seed=3, items=items)
    cs.report(cs.estimate(s, _verdicts(s, d / "judged.csv")), d / "estimate.html")
    pairs = pd.read_csv(EXAMPLE / "pairs.csv")
    curves = {"model": cs.threshold_curve(truth, pairs, items),
              "coarse": cs.threshold_curve(truth, pairs.round(1), items)}  # fmt: skip
    cs.report(curves, d / "curve.html")
    return {k: d / f"{k}.html" for k in KINDS}


KINDS = ["evaluate", "compare", "diff", "estimate", "curve"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("network", ["online", "offline"])
def test_report_renders_every_chart_without_console_errors(reports, tmp_path, kind, network):
    page = reports[kind]
    text = page.read_text()
    charts = re.findall(r'id="(chart-[^"]+)"', text)
    assert charts, "a report has charts"
    dom, console = _browse(page, tmp_path / f"{kind}-{network}.png",
                           *(OFFLINE if network == "offline" else []))  # fmt: skip
    assert console == "", console
    for chart in charts:  # each chart's place holds its drawing
        start = dom.index(f'id="{chart}"')
        assert re.match(r'[^<]*><svg[^>]*class="marks"', dom[start:]), f"{kind}: {chart} not drawn"


@pytest.mark.parametrize("kind", KINDS)
def test_report_is_self_contained(reports, kind):
    text = reports[kind].read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "<script src" not in text and "<link" not in text
    assert "vegaEmbed" in text and "clusterscore" in text


def test_png_folder_holds_each_chart(reports):
    pngs = sorted((reports["evaluate"].parent / "png").glob("*.png"))
    names = set(re.findall(r'id="chart-([^"]+)"', reports["evaluate"].read_text()))
    assert {p.stem for p in pngs} == names
    for p in pngs:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tables_sort_and_deltas_are_coloured(reports):
    text = reports["compare"].read_text()
    assert 'class="sortable"' in text and "addEventListener" in text
    assert 'class="better"' in text  # the example's second run is better on recall


def test_report_of_something_else_is_one_line():
    with pytest.raises(ValueError, match="^report: expected the result of evaluate, compare"):
        cs.report({"a": 1}, "x.html")


def test_cli_report_and_png_options(tmp_path, run_cli):
    out = tmp_path / "r.html"
    proc = run_cli("diff", EXAMPLE / "actual.csv", EXAMPLE / "truth.csv", "--report", out,
                   "--png", tmp_path / "png", "--quiet")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("<!DOCTYPE html>")
    charts = set(re.findall(r'id="chart-([^"]+)"', out.read_text()))
    assert {p.name for p in (tmp_path / "png").iterdir()} == {f"{c}.png" for c in charts}
    bad = run_cli("diff", EXAMPLE / "actual.csv", EXAMPLE / "truth.csv", "--report",
                  tmp_path / "r.txt")  # fmt: skip
    assert bad.returncode == 2 and "name an .html file" in bad.stderr
    alone = run_cli("diff", EXAMPLE / "actual.csv", EXAMPLE / "truth.csv", "--png", tmp_path)
    assert alone.returncode == 2 and "--report" in alone.stderr
