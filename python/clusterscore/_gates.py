"""Gates for pipelines (docs/pipelines.md): `evaluate --require "f1>=0.95"` fails when the
metric's interval lies on the wrong side of its bound, `compare --fail-if-worse f1` when a
later run's metric is significantly worse than the first run's. A failed gate is exit
status 1 (2 stays "bad input"). Nothing is estimated here: the intervals and marks are the
results'; a gate reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pandas as pd

from . import _format as F
from ._io import clip

_SPEC = re.compile(r"^\s*([a-z_0-9]+)\s*(>=|<=)\s*([-+0-9.eE]+)\s*$")


@dataclass(frozen=True)
class Requirement:
    metric: str
    op: str  # ">=" or "<="
    bound: float

    def __str__(self) -> str:
        return f"{self.metric} {self.op} {self.bound:g}"


def parse_requirements(specs: list[str] | None) -> list[Requirement]:
    """ "METRIC>=X" or "METRIC<=X" each, for a metric of evaluate's overall values."""
    out = []
    for spec in specs or []:
        m = _SPEC.match(spec)
        if m is None:
            raise ValueError(f"--require {clip(repr(spec), 60)}: write METRIC>=X or METRIC<=X,"
                             " e.g. --require 'f1>=0.95'")  # fmt: skip
        name, op, number = m.groups()
        if F.metric(name, "pointwise") is None:
            raise ValueError(f"--require {clip(repr(spec), 60)}: {name!r} is not a metric of"
                             " evaluate (precision, recall, f1, pair_f1, ...)")  # fmt: skip
        try:
            bound = float(number)
        except ValueError:
            raise ValueError(
                f"--require {clip(repr(spec), 60)}: {number!r} is not a number"
            ) from None
        out.append(Requirement(name, op, bound))
    return out


def parse_metrics(specs: list[str] | None) -> list[str]:
    """--fail-if-worse f1,pair_f1 (repeatable): metric names of compare's deltas."""
    names = [n.strip() for spec in specs or [] for n in spec.split(",") if n.strip()]
    for name in names:
        if F.metric(name, "pointwise") is None or F.better(name, "pointwise") == "neither":
            raise ValueError(f"--fail-if-worse: {clip(repr(name), 40)} is not a metric with a"
                             " better direction (precision, recall, f1, pair_f1, ...)")  # fmt: skip
    return list(dict.fromkeys(names))


def check_requirements(
    reqs: list[Requirement], result: Any, intervals: Any
) -> list[dict[str, Any]]:
    """Each requirement against `result`'s overall values and their `intervals` (an Arrow
    table, or None when not computed): failed when the interval lies wholly beyond the
    bound (below a floor, above a ceiling); without an interval, when the estimate does."""
    if not reqs:
        return []
    if intervals is not None:
        values = intervals.to_pandas()
    else:
        overall = result.overall
        values = pd.DataFrame({"metric": list(overall), "estimate": list(overall.values())})
    rows = values.set_index("metric")
    out = []
    for r in reqs:
        v = rows.loc[r.metric] if r.metric in rows.index else None
        est = None if v is None else _number(v.get("estimate"))
        lo = None if v is None else _number(v.get("ci_low"))
        hi = None if v is None else _number(v.get("ci_high"))
        near = hi if r.op == ">=" else lo  # the interval's end nearest the bound's side
        edge = near if near is not None else est
        if edge is None:
            failed, why = True, "the metric has no value"
        elif r.op == ">=":
            failed = edge < r.bound
            why = f"{'interval' if near is not None else 'estimate'} below {r.bound:g}"
        else:
            failed = edge > r.bound
            why = f"{'interval' if near is not None else 'estimate'} above {r.bound:g}"
        out.append({"gate": str(r), "metric": r.metric, "estimate": est, "ci_low": lo,
                    "ci_high": hi, "failed": bool(failed),
                    "reason": why if failed else None})  # fmt: skip
    return out


def check_worse(metrics: list[str], deltas: pd.DataFrame, first: str) -> list[dict[str, Any]]:
    """Each later run against the first (`first`) on each metric: failed when the delta is
    significantly worse (its interval lies on the worse side of 0, as its ▼ mark says)."""
    out = []
    rows = deltas[(deltas["run_a"] == first) & deltas["metric"].isin(metrics)]
    for r in rows.to_dict("records"):
        sign = F.mark(r["ci_low"], r["ci_high"], F.better(r["metric"], "pointwise"))
        out.append({"gate": f"{r['metric']} of {r['run_b']} not worse than {first}",
                    "metric": r["metric"], "run": r["run_b"], "delta": _number(r["delta"]),
                    "ci_low": _number(r["ci_low"]), "ci_high": _number(r["ci_high"]),
                    "failed": sign == "▼",
                    "reason": "significantly worse" if sign == "▼" else None})  # fmt: skip
    return out


def lines(gates: list[dict[str, Any]]) -> list[str]:
    """One line per gate, as the terminal shows it."""
    out = []
    for g in gates:
        value = g.get("delta", g.get("estimate"))
        shown = F.delta(value) if "delta" in g else F.share(value)
        if g.get("ci_low") is not None:
            shown += " " + F.interval(
                g["ci_low"], g["ci_high"], F.delta if "delta" in g else F.share
            )
        verdict = f"FAILED ({g['reason']})" if g["failed"] else "passed"
        out.append(f"gate {g['gate']}: {shown}: {verdict}")
    return out


def _number(v: Any) -> float | None:
    return None if F.missing(v) else float(v)
