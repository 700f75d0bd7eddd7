"""Do the intervals cover what they claim to, at every level? A population of 4,000
entities in four slices, two runs that cluster every item with known false merges and
splits, and 300 truths drawn from it for each design a team uses: both scopes, 10% and
50% of the entities, drawn uniformly or in proportion to size.

Every interval is checked at every level (overall, per slice, compare's deltas): within
its metric's range, holding its estimate, never of zero width, and missing only with a
reason. Coverage is then counted where the level holds enough truth clusters (a slice
of 5 truth clusters is checked for honesty only): bands() says where it must lie.

The entities scope estimates the population value (each run scored against the full
truth). The common scope's intervals target the expectation of the sample's value over
truth samples, found here by Monte Carlo over the same samples. At 50% the design is
stated per cluster (1/π), which corrects the variance for the share drawn; in the
entities scope the uniform and size-proportional designs get the share from the whole
actual clustering.

Measured at levels of 200 truth clusters or more (pooled over the six metrics): the
entities scope 93-96%, single metrics 89-99% (precision lowest, with a capped
size-proportional design at 50%); the common scope 94-97%, and 97-98% with half the
entities drawn in proportion to size (the largest drawn surely: one share for all clusters
is conservative), where the pair metrics cover up to 100%."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import clusterscore as cs

METRICS = ["precision", "recall", "f1", "pair_precision", "pair_recall", "pair_f1"]
SEEDS = int(os.environ.get("CLUSTERSCORE_SIM_SEEDS", "300"))
ENTITIES, RESAMPLES = 4000, int(os.environ.get("CLUSTERSCORE_SIM_RESAMPLES", "300"))
# Each slice's share of the entities: 5, 30, 165 and 200 truth clusters at 10%.
SLICES = {"tiny": 0.0125, "small": 0.075, "mid": 0.4125, "large": 0.5}


@pytest.fixture(scope="module")
def population() -> dict[str, Any]:
    return make_population()


def make_population() -> dict[str, Any]:
    rng = np.random.default_rng(0)
    sizes = 1 + rng.poisson(2.0, ENTITIES)
    entity = np.repeat(np.arange(ENTITIES), sizes)
    items = np.arange(len(entity))
    slice_of = rng.choice(list(SLICES), ENTITIES, p=list(SLICES.values()))

    def run(merge: float, split: float) -> pd.DataFrame:
        # A share of entities merged into another's cluster; records split off alone.
        partner = rng.integers(0, ENTITIES, ENTITIES)
        cluster = np.where((rng.random(ENTITIES) < merge)[entity], partner[entity], entity)
        cluster = np.where(rng.random(len(items)) < split, 10**7 + items, cluster)
        return pd.DataFrame({"item_id": items, "cluster_id": cluster})

    truth = pd.DataFrame({"item_id": items, "cluster_id": entity})
    table = pd.DataFrame({"item_id": items, "slice": slice_of[entity]})
    runs = {"a": run(0.3, 0.05), "b": run(0.15, 0.1)}
    values = {}
    for name, r in runs.items():
        ev = cs.evaluate(truth, r, table, resamples=1)
        by = ev.per_slice("slice").set_index("slice")
        values[name] = {("all", m): ev.overall[m] for m in METRICS} | {
            (s, m): by.loc[s, m] for s in SLICES for m in METRICS
        }
    return {"truth": truth, "items": table, "runs": runs, "sizes": sizes, "values": values,
            "slice_of": slice_of}  # fmt: skip


def _draw(p: dict[str, Any], fraction: float, design: str, seed: int) -> tuple[np.ndarray, Any]:
    """The entities drawn and their inclusion probabilities."""
    rng = np.random.default_rng(10_000 + seed)
    n = int(fraction * ENTITIES)
    if design == "uniform":
        return rng.choice(ENTITIES, n, replace=False), np.full(ENTITIES, fraction)
    # Poisson sampling in proportion to size, entities past probability 1 taken whole.
    sizes = p["sizes"].astype(float)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.minimum(1, mid * sizes).sum() < n else (lo, mid)
    pi = np.minimum(1, hi * sizes)
    return np.flatnonzero(rng.random(ENTITIES) < pi), pi


def _weights(scope: str, fraction: float, design: str, drawn, pi) -> Any:
    """The design as a team would state it: in the entities scope by name where the
    probabilities are proportional to it, else 1/π per cluster; in the common scope only
    at 50%, where the share drawn matters."""
    stated = {int(c): float(1 / pi[c]) for c in drawn}
    if scope == "entities":
        if design == "uniform":
            return None
        return "inverse_size" if fraction < 0.5 else stated
    return stated if fraction >= 0.5 else None


def _rows(c: Any) -> pd.DataFrame:
    ev = c.evaluations["a"]
    parts = []
    for by in (None, "slice"):
        iv, d = ev.intervals(by), c.deltas(by)
        level = "all" if by is None else iv["slice"]
        parts.append(pd.DataFrame({"level": level, "metric": iv.metric, "kind": "value",
                                   "est": iv.estimate, "lo": iv.ci_low, "hi": iv.ci_high,
                                   "se": iv.std_error, "note": iv.interval_note}))  # fmt: skip
        level = "all" if by is None else d["slice"]
        parts.append(pd.DataFrame({"level": level, "metric": d.metric, "kind": "delta",
                                   "est": d.delta, "lo": d.ci_low, "hi": d.ci_high,
                                   "se": d.std_error, "note": d.interval_note}))  # fmt: skip
    rows = pd.concat(parts, ignore_index=True)
    return rows[rows.metric.isin(METRICS)]


def _dishonest(rows: pd.DataFrame) -> pd.DataFrame:
    lowest = np.where(rows.kind == "value", 0.0, -1.0)
    given = rows.lo.notna()
    bad = given & ~((lowest <= rows.lo) & (rows.lo <= rows.est) & (rows.est <= rows.hi)
                    & (rows.hi <= 1) & (rows.hi > rows.lo))  # fmt: skip
    unexplained = ~given & rows.est.notna() & rows.note.isna()
    return rows[bad | unexplained]


CONFIGS = [(s, f, d) for s in ("entities", "common") for f in (0.1, 0.5)
           for d in ("uniform", "size")]  # fmt: skip


def simulate(p: dict[str, Any], scope: str, fraction: float, design: str, seeds: int = SEEDS):
    """Every interval of `seeds` samples (asserted honest as they come), with its target
    and whether it covers it; and how many truth clusters each level held on average."""
    samples, clusters = [], []
    for seed in range(seeds):
        drawn, pi = _draw(p, fraction, design, seed)
        truth = p["truth"][p["truth"].cluster_id.isin(drawn)]
        weights = _weights(scope, fraction, design, drawn, pi)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cs.CommonScopeWarning)
            c = cs.compare(truth, p["runs"], p["items"], truth_scope=scope,
                           cluster_weights=weights, resamples=RESAMPLES, seed=seed)  # fmt: skip
        rows = _rows(c)
        bad = _dishonest(rows)
        assert bad.empty, bad.head()
        samples.append(rows.assign(seed=seed))
        counts = pd.Series(p["slice_of"][drawn]).value_counts()
        clusters.append({"all": len(drawn), **{s: counts.get(s, 0) for s in SLICES}})
    rows = pd.concat(samples, ignore_index=True)
    if scope == "entities":
        a, b = p["values"]["a"], p["values"]["b"]
        keys = list(zip(rows.level, rows.metric, strict=True))
        rows["target"] = [a[k] if kind == "value" else b[k] - a[k]
                          for k, kind in zip(keys, rows.kind, strict=True)]  # fmt: skip
    else:
        rows["target"] = rows.groupby(["level", "metric", "kind"]).est.transform("mean")
    rows["covered"] = (rows.lo <= rows.target) & (rows.target <= rows.hi)
    return rows, pd.DataFrame(clusters).mean()


def bands(scope: str, fraction: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where coverage must lie at a level of 200 truth clusters or more: pooled over the
    metrics, and each metric's own rate (300 samples: ±2.5 points of noise)."""
    if scope == "entities":  # pair_recall's delta covers 99.7% with a capped design
        return (0.92, 0.97), (0.88, 1.0)
    if fraction < 0.5:
        return (0.93, 0.975), (0.90, 0.99)
    # The common scope at half the entities, stated: the pair metrics over-cover.
    return (0.93, 0.985), (0.90, 1.0)


@pytest.mark.parametrize(("scope", "fraction", "design"), CONFIGS)
def test_every_interval_is_honest_and_covers_at_every_level(population, scope, fraction, design):
    rows, held = simulate(population, scope, fraction, design)
    given = rows[rows.lo.notna()]
    rates = given.groupby(["level", "kind", "metric"]).covered.mean()
    pooled = given.groupby(["level", "kind"]).covered.mean()
    report = f"held {held.round(0).to_dict()}\npooled\n{pooled.round(3)}\nrates\n{rates.round(3)}"
    (lo, hi), (cell_lo, cell_hi) = bands(scope, fraction)
    for level, n in held.items():
        if n >= 200:
            # Every interval is there where the level is large, but where no resample moves
            # a value (in the common scope, a slice without a false merge seen).
            missing = rows[(rows.level == level) & rows.lo.isna()]
            assert (missing.note == "no resample moves it").all(), missing
            assert len(missing) <= 0.01 * len(rows[rows.level == level]), report
            for kind in ("value", "delta"):
                assert lo <= pooled[(level, kind)] <= hi, report
                assert rates[level, kind].between(cell_lo, cell_hi).all(), report
        elif n >= 30:
            for kind in ("value", "delta"):
                assert pooled[(level, kind)] >= 0.90, report
