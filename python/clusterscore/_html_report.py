"""`cs.report(result, path)`: one self-contained HTML file that opens offline, with the
charts and tables a person reads to decide (the chart library's JavaScript and every
style inlined: nothing is fetched when it is viewed), and each chart as a PNG if asked.
No metric is computed here: the results' tables are arranged, bucketed and drawn."""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from . import _charts as C
from . import _format as F
from . import _report as R
from ._curve import ThresholdCurve
from ._diff import Diff
from ._estimates import common_scope_caveat
from ._evaluate import Evaluation
from ._runs import SLICE_METRICS, RunComparison
from ._version import __version__


def level(confidence: float) -> str:
    """0.95 → "95%"."""
    return f"{confidence * 100:.3g}%"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #eee; text-align: right; }
th { cursor: pointer; background: #f5f5f5; } th.label, td.label { text-align: left; }
.note { color: #555; font-size: 0.9em; } .chart { margin: 1em 0; }
.better { color: #1a9850; font-weight: 600; } .worse { color: #d73027; font-weight: 600; }
.unsure { color: #9e9e9e; }
"""

# Sorting a table by a header's column: numbers by the value in data-v, text as text.
_SORT = """
document.querySelectorAll("table.sortable th").forEach((th, col) => th.addEventListener(
  "click", () => {
    const body = th.closest("table").tBodies[0];
    const up = th.dataset.dir !== "up"; th.dataset.dir = up ? "up" : "down";
    const key = (tr) => { const td = tr.children[col];
      return td.dataset.v !== undefined ? parseFloat(td.dataset.v) : td.textContent; };
    const rows = Array.from(body.rows).sort((a, b) => {
      const x = key(a), y = key(b);
      const c = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
      return up ? c : -c; });
    rows.forEach((r) => body.appendChild(r)); }));
"""


@functools.lru_cache(maxsize=1)
def _bundle() -> str:
    """Vega, Vega-Lite and vega-embed in one script, for the Vega-Lite version altair
    writes (vl-convert ships them: nothing is downloaded)."""
    try:
        import vl_convert
        from altair.utils._importers import vl_version_for_vl_convert
    except ImportError:
        raise ValueError("reports need: pip install 'clusterscore[report]'") from None
    version = vl_version_for_vl_convert()
    return vl_convert.javascript_bundle(vl_version=version)  # type: ignore[call-arg]


def slug(name: str, taken: Collection[str]) -> str:
    """A name safe as an element id and a file name, unique among `taken`: lowercase ASCII
    letters, digits and dashes, at most 60 characters. Names come from other people's
    files (slice columns, run names), so they never reach an id or a path as they are."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "chart"
    out, n = base, 2
    while out in taken:
        out, n = f"{base}-{n}", n + 1
    return out


def script_json(value: Any) -> str:
    """`value` as JSON that can sit inside a <script> element whatever its strings hold:
    no "<", ">" or "&" (so no "</script>" or "<!--"), and no line separators that end a
    JavaScript string."""
    text = json.dumps(R.json_safe(value), allow_nan=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(ch, esc)
    return text


def script_hash(code: str) -> str:
    digest = hashlib.sha256(code.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _policy(scripts: Sequence[str]) -> str:
    """The page's content security policy: nothing from the network, no script but the
    page's own (by hash: an injected <script> or an inline event handler never runs), the
    chart library's expressions ('unsafe-eval': Vega compiles them), inline styles."""
    hashes = " ".join(script_hash(s) for s in scripts)
    return (
        f"default-src 'none'; script-src {hashes} 'unsafe-eval'; style-src 'unsafe-inline';"
        " img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none';"
        " base-uri 'none'"
    )


class Page:
    """A report page: sections of text, charts and tables, written as one file. Every
    string reaches the page escaped (text) or as script-safe JSON (chart data)."""

    def __init__(self, title: str, subtitle: str) -> None:
        self.title, self.subtitle = title, subtitle
        self.parts: list[str] = []
        self.charts: dict[str, dict[str, Any]] = {}

    draws_charts = True  # a page that shows none (a notebook's view) builds none

    def section(self, heading: str) -> None:
        self.parts.append(f"<h2>{html.escape(heading)}</h2>")

    def text(self, words: str) -> None:
        self.parts.append(f'<p class="note">{html.escape(words)}</p>')

    def chart(self, name: str, chart: Any) -> None:
        """A chart, drawn where the page puts it; `name` (made safe by slug()) names its
        element and its PNG."""
        key = slug(name, self.charts)
        with C.no_row_limit():
            self.charts[key] = chart.to_dict()
        self.parts.append(f'<div class="chart" id="chart-{key}"></div>')

    def table(self, df: pd.DataFrame, columns: Sequence[str], labels: Sequence[str] = (),
              group: str | None = None, marks: pd.Series | None = None) -> None:  # fmt: skip
        """A sortable table of `columns`, numbers in their column's format; `marks` (one
        of "better", "worse", "unsure" per row) colours the row's delta."""
        head = "".join(
            f'<th class="{"label" if c in labels else ""}">{html.escape(c)}</th>' for c in columns
        )
        rows = []
        for i, r in enumerate(df[list(columns)].itertuples(index=False)):
            cells = []
            for c, v in zip(columns, r, strict=True):
                v = v.item() if hasattr(v, "item") else v
                if c in labels:
                    cells.append(f'<td class="label">{html.escape(F.label(v))}</td>')
                    continue
                mark = html.escape(str(marks.iloc[i])) if marks is not None else ""
                cls = f' class="{mark}"' if mark and c == "delta" else ""
                sort = f' data-v="{v}"' if isinstance(v, (int, float)) and not F.missing(v) else ""
                cells.append(f"<td{cls}{sort}>{html.escape(F.for_column(c, group)(v))}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        self.parts.append(
            f'<table class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )

    def values(self, values: dict[str, Any], group: str) -> None:
        """A table of named values, each in its metric's format."""
        rows = "".join(
            f'<tr><td class="label">{html.escape(k)}</td>'
            f"<td>{html.escape(F.for_column(k, group)(v))}</td></tr>"
            for k, v in values.items()
        )
        self.parts.append(
            '<table><thead><tr><th class="label">metric</th><th>value</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )

    def html(self) -> str:
        draw = (
            f"{_SORT}\n"
            'const specs = JSON.parse(document.getElementById("report-charts").textContent);\n'
            "for (const [name, spec] of Object.entries(specs)) {\n"
            '  vegaEmbed(document.getElementById("chart-" + name), spec,'
            ' {renderer: "svg", actions: false}).catch((e) => console.error(e));\n}\n'
        )
        bundle = _bundle()
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy"'
            f' content="{html.escape(_policy([bundle, draw]))}">'
            f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style>"
            f"<script>{bundle}</script></head><body>"
            f'<h1>{html.escape(self.title)}</h1><p class="note">{html.escape(self.subtitle)}</p>'
            + "".join(self.parts)
            + '<script type="application/json" id="report-charts">'
            + script_json(self.charts)
            + f"</script><script>{draw}</script></body></html>\n"
        )

    def write(self, path: Path, png: Path | None = None) -> None:
        path.write_text(self.html(), encoding="utf-8")
        if png is not None:
            import vl_convert

            png.mkdir(parents=True, exist_ok=True)
            for name, spec in self.charts.items():
                (png / f"{name}.png").write_bytes(vl_convert.vegalite_to_png(spec, scale=2))


def _coverage(page: Page, coverage: dict[str, Any], roles: Sequence[str]) -> None:
    rows = []
    for role in roles:
        rows.append({"set": role, "items": coverage[f"{role}_items"],
                     "weight": coverage[f"{role}_weight"]})  # fmt: skip
    rows.append({"set": "common (scored)", "items": coverage["common_items"],
                 "weight": coverage["common_weight"]})  # fmt: skip
    for role in roles:
        rows.append({"set": f"only in {role}", "items": coverage[f"{role}_only_items"],
                     "weight": coverage[f"{role}_only_weight"]})  # fmt: skip
    page.section("Coverage")
    page.table(pd.DataFrame(rows), ["set", "items", "weight"], labels=["set"])


def _interval_rows(intervals: pd.DataFrame, label: str = "metric") -> pd.DataFrame:
    return intervals.assign(label=intervals[label].map(F.label))


def _noted(df: pd.DataFrame, columns: list[str]) -> list[str]:
    """`columns`, and `interval_note` when some row has no interval: the reason shows in
    the table and in the chart's tooltip, where the row has a point and no rule."""
    return columns + ["interval_note"] if df["interval_note"].notna().any() else columns


def _evaluation(page: Page, ev: Evaluation, slices: Sequence[str]) -> None:
    evaluation_headline(page, ev)
    _evaluation_details(page, ev, slices)


def evaluation_headline(page: Page, ev: Evaluation) -> None:
    """Coverage, the common scope's caveat, every overall metric with its interval."""
    _coverage(page, ev.coverage, ev.roles)
    if (caveat := common_scope_caveat(ev)) is not None:
        page.text(caveat)
    iv = ev.intervals()
    page.section(f"Overall ({ev.estimand})")
    if page.draws_charts:  # a notebook's view has none
        page.chart("overall", C.estimates_with_intervals(
            _interval_rows(iv)[_noted(iv, ["label", "estimate", "std_error", "ci_low", "ci_high"])],
            f"Every metric with its {level(ev.bootstrap.confidence)} interval"))  # fmt: skip
    page.table(iv, _noted(iv, ["metric", "estimate", "std_error", "ci_low", "ci_high"]),
               labels=["metric"])  # fmt: skip


def _evaluation_details(page: Page, ev: Evaluation, slices: Sequence[str]) -> None:
    for name in slices:
        by = ev.intervals(by=name)
        by = by[by["metric"].isin(["precision", "recall", "f1"])]
        page.section(f"Per {name}")
        page.chart(f"slice-{name}", C.estimates_with_intervals(
            _interval_rows(by, name).assign(label=lambda d: d["metric"] + " · " + d["label"])[
                _noted(by, ["label", "estimate", "ci_low", "ci_high"])],
            f"Precision, recall and F1 per {name}"))  # fmt: skip
        page.table(by, _noted(by, [name, "metric", "estimate", "std_error", "ci_low", "ci_high"]),
                   labels=[name, "metric"])  # fmt: skip
    # Only what the page shows of the per-cluster tables: sums by size, the worst 50.
    sizes = {side: ev.summed_clusters(side, C.size_sums) for side in ev.roles}
    page.section("By cluster size")
    page.chart("by-size", C.by_size(sizes["truth"], "Truth clusters: precision and recall"))
    page.chart("sizes", C.size_distribution(sizes, "Cluster sizes"))
    for side, rate, metric in (("truth", "under_merge_rate", "recall"),
                               ("actual", "over_merge_rate", "precision")):  # fmt: skip
        worst = ev.picked_clusters(side, functools.partial(R.worst, rate=rate, n=50))
        page.section(f"Worst {side} clusters by {metric}")
        page.text(f"weight lost = weight × (1 − {metric}); click a header to sort")
        page.table(worst, ["cluster_id", "items", "weight", metric, "weight_lost"],
                   labels=["cluster_id"], group="pointwise")  # fmt: skip


def _comparison(page: Page, rc: RunComparison, slices: Sequence[str]) -> None:
    caveats = comparison_headline(page, rc)
    for name in slices:
        _delta_tables(page, rc.deltas(name), name, any(caveats.values()))


def comparison_headline(page: Page, rc: RunComparison) -> dict[str, str | None]:
    """Each run's coverage, caveat and overall metrics, and the overall deltas; returns
    the caveats by run."""
    page.section("Coverage of the truth by each run")
    cov = pd.DataFrame([{"run": name, **e.coverage} for name, e in rc.evaluations.items()])
    page.table(cov, ["run", "common_items", "truth_items", "actual_only_items", "common_weight"],
               labels=["run"])  # fmt: skip
    caveats = {name: common_scope_caveat(e) for name, e in rc.evaluations.items()}
    for name, caveat in caveats.items():
        if caveat is not None:
            page.text(f"{name}: {caveat}")
    page.section("Overall metrics per run")
    per_run = pd.concat([_interval_rows(e.intervals()).assign(run=name)
                         for name, e in rc.evaluations.items()])  # fmt: skip
    per_run = per_run.assign(label=per_run["run"] + " · " + per_run["label"])
    if page.draws_charts:  # a notebook's view has none
        page.chart("runs", C.estimates_with_intervals(
            per_run[_noted(per_run, ["label", "estimate", "ci_low", "ci_high"])],
            "Every run's metrics"))  # fmt: skip
    page.table(per_run, _noted(per_run, ["run", "metric", "estimate", "ci_low", "ci_high"]),
               labels=["run", "metric"])  # fmt: skip
    _delta_tables(page, rc.deltas(), None, any(caveats.values()))
    return caveats


def _delta_tables(page: Page, df: pd.DataFrame, by: str | None, caveat: bool) -> None:
    """The deltas of every pair of runs, overall (`by` None) or per value of slice `by`."""
    key = "overall" if by is None else by
    if by is not None:
        df = df[df["metric"].isin(SLICE_METRICS)]
    for (a, b), part in df.groupby(["run_a", "run_b"], sort=False):
        title = f"{b} − {a}" + ("" if by is None else f", per {by}")
        page.section(title)
        page.text(
            "green: better, red: worse (the interval excludes 0"
            + (", and the delta stays significant among the table's by Benjamini–Hochberg"
               if by is not None else "")
            + "); grey: not distinguishable"
            + (". Precision-type deltas compare the common items only: actual items"
               " outside the truth are not counted (see the coverage above)"
               if caveat else "")
        )  # fmt: skip
        if page.draws_charts:  # a notebook's view has none
            page.chart(f"deltas-{key}-{a}-{b}", C.deltas(part, title, by))
        marks = C.delta_colours(part, "pointwise").map(
            {C.BETTER: "better", C.WORSE: "worse", C.UNSURE: "unsure"})  # fmt: skip
        shown = ["metric", "value_a", "value_b", "delta", "std_error", "ci_low", "ci_high"]
        cols = _noted(part, ([by] if by else []) + shown)
        page.table(part, cols, labels=([by] if by else []) + ["metric"], marks=marks)


def _diff(page: Page, d: Diff, slices: Sequence[str]) -> None:
    diff_headline(page, d)
    for name in slices:
        df = d.per_slice(name)
        page.section(f"Per {name}")
        bars = C.grouped_bars(df, name, ["split_distance", "merge_distance"],
                              f"Split and merge distance per {name}")  # fmt: skip
        page.chart(f"slice-{name}", bars)
        page.table(df, [name, "items", "weight", "split_distance", "merge_distance",
                        "affected_weight"], labels=[name], group="impact")  # fmt: skip
    # Only what the page shows of the per-cluster tables and flows (the 50 clusters of
    # each side that changed most, sums by size, the flows of the 15 base ones).
    changed = {side: d.picked_clusters(side, functools.partial(R.most_changed, n=50))
               for side in d.roles}  # fmt: skip
    page.section("Flows between the largest changed clusters")
    top_base = changed["base"]["cluster_id"].head(15)
    top = d.flows_of(pa.array(top_base)).to_pandas().head(200)
    page.chart("flows", C.flows(top, "Weight from each base cluster to each exp cluster"))
    sizes = {side: d.summed_clusters(side, C.size_sums) for side in d.roles}
    page.chart("sizes", C.size_distribution(sizes, "Cluster sizes"))
    for side in d.roles:
        page.section(f"{side} clusters that changed the most")
        page.text("changed weight = weight × jaccard_distance; click a header to sort")
        page.table(changed[side],
                   ["cluster_id", "items", "weight", "split_rate", "merge_rate", "changed_weight"],
                   labels=["cluster_id"], group="impact")  # fmt: skip


def diff_headline(page: Page, d: Diff) -> None:
    """Coverage and the overall impact."""
    _coverage(page, d.coverage, d.roles)
    page.section("Overall impact")
    page.values(d.overall, "impact")


# Which estimate's judged draws count each class of pairs.
_CLASSES = {"split pairs": "good_split_distance", "merge pairs": "good_merge_distance",
            "stable pairs": "affected_good_index"}  # fmt: skip


def _estimates(page: Page, result: dict[str, dict[str, Any]]) -> None:
    estimates_headline(page, result)
    draws = {k: int(result[m]["pairs"]) for k, m in _CLASSES.items() if m in result}
    page.section("Judged draws per class")
    page.chart("judged", C.judged_draws(draws, "Judged draws per class of pairs"))


def estimates_headline(page: Page, result: dict[str, dict[str, Any]]) -> None:
    """Every estimate with its interval, and what the raters' replicates measured."""
    rows = [{"metric": k, **v} for k, v in result.items()]
    df = pd.DataFrame(rows)
    page.section("Estimates from judged pairs")
    judged = df[~df.get("exact", pd.Series(False, index=df.index)).fillna(False).astype(bool)]
    # By the registry's direction and the interval, as every delta: a good part whose
    # interval lies above 0 is green, a bad part's red, a worse delta_precision red.
    colour = C.delta_colours(judged, "estimate")
    if page.draws_charts:  # a notebook's view has none
        page.chart("estimates", C.estimates_with_intervals(
            judged.assign(label=judged["metric"], colour=colour)[
                ["label", "estimate", "std_error", "ci_low", "ci_high", "colour"]],
            "Estimates with their 95% intervals (green: better, red: worse, where the interval"
            " excludes 0; grey: not distinguishable from 0)"))  # fmt: skip
    page.table(df, ["metric", "estimate", "std_error", "ci_low", "ci_high", "pairs"],
               labels=["metric"], group="estimate")  # fmt: skip
    raters = getattr(result, "raters", None)
    for line in (R.unreliable_line(result), raters and R.raters_line(raters)):
        if line:
            page.text(line)


def _curves(page: Page, curves: dict[str, ThresholdCurve], slices: Sequence[str]) -> None:
    del slices  # a curve is overall only
    curves_headline(page, curves)
    _curve_charts(page, curves)


def curves_headline(page: Page, curves: dict[str, ThresholdCurve]) -> None:
    """The caveat, and where each metric is best for each model."""
    first = next(iter(curves.values()))
    if first.caveat is not None:
        page.text(first.caveat)
    page.section("Where each metric is best")
    rows = []
    for name, c in curves.items():
        for metric in c.kept_best:
            threshold, value = c.best(metric)
            rows.append({"model": name, "metric": metric, "threshold": threshold, "value": value})
    page.table(pd.DataFrame(rows), ["model", "metric", "threshold", "value"],
               labels=["model", "metric"], group="pointwise")  # fmt: skip


def _curve_charts(page: Page, curves: dict[str, ThresholdCurve]) -> None:
    frames = {name: c.curve for name, c in curves.items()}
    page.section("Precision and recall against the threshold")
    page.chart("threshold", C.curve_lines(frames, "threshold", ["precision", "recall", "f1"],
                                          "Means over items, as the threshold falls"))  # fmt: skip
    page.chart("pair-threshold", C.curve_lines(
        frames, "threshold", ["pair_precision", "pair_recall", "pair_f1"],
        "Pair metrics, as the threshold falls"))  # fmt: skip
    page.section("Precision against recall")
    page.chart("precision-recall", C.precision_recall(frames, "", "Means over items"))
    page.chart("pair-precision-recall", C.precision_recall(frames, "pair_", "Pair metrics"))
    page.section("Clusters")
    page.chart("clusters", C.curve_lines(frames, "threshold", ["clusters"],
                                         "Number of clusters, as the threshold falls"))  # fmt: skip


def report(
    result: Any,
    path: str | Path,
    *,
    slices: Sequence[str] = (),
    png: str | Path | None = None,
    title: str | None = None,
) -> None:
    """Writes `result` (from `evaluate`, `compare`, `diff`, `estimate` or
    `threshold_curve`, or a dict of curves by model) as one
    self-contained HTML file that opens offline: coverage, overall metrics with their
    intervals, deltas coloured by direction and significance, per-slice views for the
    items-table columns `slices`, cluster sizes, the worst clusters as sortable tables,
    flows of a diff, and an estimate's judged draws. `png`: a folder to write each chart
    to as a PNG as well. Needs the `report` extra (altair, vl-convert-python)."""
    kind, fill = _kind(result)
    page = Page(title or f"clusterscore {kind}", f"clusterscore {__version__}")
    if isinstance(slices, str):
        slices = [slices]
    if kind == "estimate":
        fill(page, result)
    else:
        fill(page, result, list(slices))
    page.write(Path(path), None if png is None else Path(png))


def _kind(result: Any) -> tuple[str, Any]:
    if isinstance(result, Evaluation):
        return "evaluate", _evaluation
    if isinstance(result, RunComparison):
        return "compare", _comparison
    if isinstance(result, Diff):
        return "diff", _diff
    if isinstance(result, ThresholdCurve):
        return "curve", lambda page, c, slices: _curves(page, {"curve": c}, slices)
    if (
        isinstance(result, dict)
        and result
        and all(isinstance(v, ThresholdCurve) for v in result.values())
    ):
        return "curve", _curves
    if (
        isinstance(result, dict)
        and result
        and all(isinstance(v, dict) and "estimate" in v for v in result.values())
    ):
        return "estimate", _estimates
    raise ValueError(
        "report: expected the result of evaluate, compare, diff, estimate or threshold_curve"
        " (or a dict of curves by model), got"
        f" {type(result).__name__}"
    )
