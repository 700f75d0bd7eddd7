"""How numbers read on screen: one format per column, chosen from the metric registry
(the core's list of every metric, its direction and unit) or from the column's name.

Shares and scores: four decimals. Counts: whole, with thousands separators. Weights:
thousands separators and two decimals. Files keep every digit; only the screen rounds."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import _core

Formatter = Callable[[Any], str]

_REGISTRY = {(m.group, m.name): m for m in _core.metric_registry()}
GROUPS = {
    "pointwise": _core.MetricGroup.pointwise,
    "impact": _core.MetricGroup.impact,
    "estimate": _core.MetricGroup.estimate,
    "classic": _core.MetricGroup.classic,
}


def metric(name: str, group: str) -> Any:
    """The registry's entry for metric `name` of `group`, or None."""
    return _REGISTRY.get((GROUPS[group], name))


def better(name: str, group: str) -> str:
    """'higher', 'lower' or 'neither': which direction of `name` is an improvement."""
    info = metric(name, group)
    return "neither" if info is None else info.better.name


def missing(value: Any) -> bool:
    """None, or NaN (how pandas holds a null number)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def share(value: Any) -> str:
    """0.9601; "—" when undefined."""
    value = _plain(value)
    if missing(value):
        return "—"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.4f}" if math.isfinite(value) else str(value)
    return str(value)


def delta(value: Any) -> str:
    """A difference as a share, with enough digits to show its sign: -0.0123, and
    -3.4e-05 where four decimals would read 0 (a "-0.0000 ▼" says nothing)."""
    value = _plain(value)
    if isinstance(value, float) and value != 0 and abs(value) < 0.00005:
        return f"{value:.1e}"
    return share(value)


def count(value: Any) -> str:
    """1,734; "—" when undefined."""
    value = _plain(value)
    if missing(value):
        return "—"
    return f"{int(value):,}" if isinstance(value, (int, float)) else str(value)


def weight(value: Any) -> str:
    """2,390.39; "—" when undefined."""
    value = _plain(value)
    if missing(value):
        return "—"
    return f"{value:,.2f}" if isinstance(value, (int, float)) else str(value)


def label(value: Any) -> str:
    """An id or a slice value as it is: cluster 573216 is not "573,216"."""
    value = _plain(value)
    if missing(value):
        return "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an integer column with nulls, which pandas made float
    return str(value)


_BY_UNIT: dict[str, Formatter] = {"share": share, "score": share, "count": count, "weight": weight}
_COUNTS = {"items", "pairs", "draws", "judged draws", "clusters", "resamples", "rows"}


def for_column(column: str, group: str | None = None) -> Formatter:
    """The format of a column: the registry's unit for a metric of `group`, else by its
    name (counts of items, sums of weights), else a share."""
    info = None if group is None else metric(column, group)
    if info is not None:
        return _BY_UNIT[info.unit.name]
    if column == "delta":
        return delta
    if column in _COUNTS or column.endswith(("_items", "_clusters", "_count")):
        return count
    if column == "weight" or column.endswith("_weight") or column.startswith("weight_"):
        return weight
    return share


def interval(low: Any, high: Any, number: Formatter = share) -> str:
    """[0.9455, 0.9712]; "—" when undefined."""
    if missing(_plain(low)) or missing(_plain(high)):
        return "—"
    return f"[{number(low)}, {number(high)}]"


def mark(low: Any, high: Any, direction: str) -> str:
    """▲ when an interval of a delta lies above 0 and higher is better (or below 0 and
    lower is better), ▼ when it lies on the worse side, ≠ when it excludes 0 for a metric
    with no better direction, and "" when it includes 0 or is undefined."""
    low, high = _plain(low), _plain(high)
    if missing(low) or missing(high) or low <= 0.0 <= high:
        return ""
    if direction == "neither":
        return "≠"
    up = low > 0.0
    return "▲" if up == (direction == "higher") else "▼"
