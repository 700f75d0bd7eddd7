"""One list of metrics (the core's registry): every name the library reports is in it,
with its direction and range, and docs/metrics.md describes each one."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
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


def _labelings(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two labelings of 400 items that split and merge each other, and item weights."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 40, 400)
    b = np.where(rng.random(400) < 0.3, rng.integers(0, 25, 400), a % 25)
    return a, b, rng.lognormal(0.0, 1.0, 400)


def _swapped(group: str, a, b, w) -> list[tuple[dict, dict]]:
    """The group's overall values for (a, b) and (b, a), without and with weights."""
    ids = np.arange(len(a))

    def table(labels):
        return pd.DataFrame({"item_id": ids, "cluster_id": labels})

    items = pd.DataFrame({"item_id": ids, "weight": w})
    if group == "classic":
        scores = M.all_scores
        return [(scores(a, b), scores(b, a)), (scores(a, b, w), scores(b, a, w))]

    def run(x, y, weights):
        if group == "pointwise":
            return cs.evaluate(table(x), table(y), weights, resamples=1).overall
        return cs.diff(table(x), table(y), weights).overall

    return [(run(a, b, None), run(b, a, None)), (run(a, b, items), run(b, a, items))]


@pytest.mark.parametrize("group", ["pointwise", "impact", "classic"])
def test_symmetric_means_the_same_value_with_the_clusterings_swapped(group):
    """A metric marked symmetric keeps its value when the two clusterings swap, weighted or
    not; one marked one-sided changes on some input (so neither mark is a default)."""
    changed: set[str] = set()
    for seed in range(3):
        for forward, backward in _swapped(group, *_labelings(seed)):
            for m in (m for m in REGISTRY if m.group.name == group):
                x, y = forward[m.name], backward[m.name]
                if x is None or y is None:
                    assert x is None and y is None, m.name
                elif m.symmetric:
                    assert x == pytest.approx(y, rel=1e-12, abs=1e-15), m.name
                elif not math.isclose(x, y, rel_tol=1e-9):
                    changed.add(m.name)
    one_sided = {m.name for m in REGISTRY if m.group.name == group and not m.symmetric}
    assert one_sided == changed


def test_weightable_means_a_value_with_weights():
    """With weights, the classic metrics not weightable are null and every other is a value;
    without, all are values (on labelings where each is defined)."""
    a, b, w = _labelings(4)
    weighted, plain = M.all_scores(a, b, sample_weight=w), M.all_scores(a, b)
    for m in (m for m in REGISTRY if m.group.name == "classic"):
        assert plain[m.name] is not None, m.name
        assert (weighted[m.name] is not None) == m.weightable, m.name
    assert not any(not m.weightable for m in REGISTRY if m.group.name != "classic")
