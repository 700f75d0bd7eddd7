"""How results show themselves in a notebook (`_repr_html_`) and in a terminal (`__repr__`):
the headline of the HTML report (coverage, caveats, every overall value with its interval,
the overall deltas, where a curve is best), made by the report's own sections, without
charts or script, in a block of its own style. Values are escaped as the report escapes
them."""

from __future__ import annotations

import functools
import html
from typing import Any

from . import _format as F

_STYLE = """
.clusterscore-result table { border-collapse: collapse; margin: 0.3em 0 0.8em; font-size: 0.9em; }
.clusterscore-result th, .clusterscore-result td { padding: 0.15em 0.6em;
  border-bottom: 1px solid #eee; text-align: right; }
.clusterscore-result th.label, .clusterscore-result td.label { text-align: left; }
.clusterscore-result h2 { font-size: 1.05em; margin: 0.8em 0 0.2em; }
.clusterscore-result .note { color: #555; font-size: 0.9em; }
.clusterscore-result .better { color: #1a9850; font-weight: 600; }
.clusterscore-result .worse { color: #d73027; font-weight: 600; }
.clusterscore-result .unsure { color: #9e9e9e; }
"""


@functools.cache
def _view_class() -> Any:
    """A report page's sections as a fragment: no charts (none is built), no script. (The
    report's module loads the result classes, which load this one: so it loads here.)"""
    from . import _html_report as H

    class View(H.Page):
        draws_charts = False

        def html(self) -> str:
            return (
                f'<div class="clusterscore-result"><style>{_STYLE}</style>'
                f"<strong>{html.escape(self.title)}</strong>" + "".join(self.parts) + "</div>"
            )

    return View


def _view(title: str) -> Any:
    return _view_class()(title, "")


def result_html(result: Any) -> str:
    """The notebook view of a result of evaluate, compare, diff, estimate or
    threshold_curve."""
    from . import _html_report as H
    from ._curve import ThresholdCurve
    from ._diff import Diff
    from ._evaluate import Evaluation
    from ._runs import RunComparison

    if isinstance(result, Evaluation):
        view = _view(f"Evaluation ({result.estimand})")
        H.evaluation_headline(view, result)
    elif isinstance(result, RunComparison):
        view = _view(f"Comparison of {', '.join(result.evaluations)}")
        H.comparison_headline(view, result)
    elif isinstance(result, Diff):
        view = _view("Diff")
        H.diff_headline(view, result)
    elif isinstance(result, ThresholdCurve):
        view = _view(f"Threshold curve over {len(result.curve):,} thresholds")
        H.curves_headline(view, {"curve": result})
    else:
        view = _view("Estimates from judged pairs")
        H.estimates_headline(view, result)
    return view.html()


def sample_html(sample: Any) -> str:
    """The notebook view of a PairSample: its draws and the totals of its diff."""
    view = _view(repr(sample))
    m = sample.meta
    view.values({"draws": m["pairs"] + m["stable_pairs"], "distinct pairs": len(sample),
                 "seed": m["seed"]}, "impact")  # fmt: skip
    view.section("Totals of the diff")
    view.values(m["totals"], "impact")
    return view.html()


def headline(name: str, values: dict[str, Any], metrics: tuple[str, ...]) -> str:
    """`name(metric value, …)` for the metrics present: a result's one-line repr."""
    shown = []
    for metric in metrics:
        v = values.get(metric)
        if isinstance(v, dict):
            v = v.get("estimate")
        if v is not None:
            shown.append(f"{metric} {F.for_column(metric, 'pointwise')(v)}")
    return f"{name}({', '.join(shown)})"
