"""One list of metrics (the core's registry): every name the library reports is in it,
with its direction and range, and docs/metrics.md describes each one."""

from __future__ import annotations

import math

import pytest
from conftest import EXAMPLE, ROOT

import clusterscore as cs
import clusterscore.metrics as M
from clusterscore import _core
from clusterscore import _format as F

REGISTRY = _core.metric_registry()


def _names(group: str) -> set[str]:
    return {m.name for m in REGISTRY if m.group.name == group}


def test_every_reported_metric_is_registered():
    truth, actual = EXAMPLE / "truth.csv", EXAMPLE / "actual.csv"
    ev = cs.evaluate(truth, actual)
    assert set(ev.overall) == _names("pointwise")
    assert set(ev.classic) == _names("classic")
    assert set(M.all_scores([1, 1, 2, 2], [1, 2, 2, 2])) == _names("classic")
    assert set(cs.diff(actual, truth).overall) == _names("impact")
    s = cs.sample_pairs(actual, truth, pairs=200, stable_pairs=50, seed=1)
    verdicts = s.raters_table().to_pandas().assign(verdict="same")
    assert set(cs.estimate(s, verdicts)) == _names("estimate")


def test_registry_entries_are_consistent():
    seen = set()
    for m in REGISTRY:
        assert (m.group, m.name) not in seen, m.name
        seen.add((m.group, m.name))
        assert m.low < m.high
        if m.unit.name == "share":
            assert m.low >= -1 and m.high == 1, m.name
    assert F.better("precision", "pointwise") == "higher"
    assert F.better("jaccard_distance", "pointwise") == "lower"
    assert F.better("jaccard_distance", "impact") == "neither"
    assert F.metric("adjusted_mutual_info_score", "classic").low == -math.inf


def test_docs_describe_every_metric():
    text = (ROOT / "docs" / "metrics.md").read_text()
    missing = sorted({m.name for m in REGISTRY if f"`{m.name}`" not in text})
    assert not missing, f"docs/metrics.md does not name: {missing}"


@pytest.mark.parametrize(
    "low, high, direction, expected",
    [(0.01, 0.02, "higher", "▲"), (0.01, 0.02, "lower", "▼"), (-0.02, -0.01, "lower", "▲"),
     (-0.01, 0.01, "higher", ""), (0.01, 0.02, "neither", "≠"), (None, 0.1, "higher", "")],
)  # fmt: skip
def test_delta_marks_follow_direction_and_significance(low, high, direction, expected):
    assert F.mark(low, high, direction) == expected
