"""Raters who err, in simulation (docs/metrics.md, judging): the worlds of
test_estimate_simulation small enough that a sample of 2,500 draws repeats ~150 pairs, each
verdict of each rater flipped at random, the estimand what such raters report on average (a
pair's expected verdict), computed exactly by enumerating every pair.

With the sample's replicated pairs (the 50 most drawn) judged by a second rater, the variance
counts the draws and the raters' noise that a pair drawn many times carries into every draw:
over 500 seeds every estimate covers its exact value in 93-97% of runs (within the
simulation's own error, one binomial standard error) with a standard error 0.9-1.1 times the
estimates' spread, for honest raters, raters flipping 10% of verdicts,
flip rates that differ by pair, unsure rates that differ by class, two strata, and
heavy-tailed weights crossed with each of these but one: flip rates that differ by pair in
the heavy-tailed world leave the affected index at 90.6% (a known failure, below: the same
formula with each pair's true noise covers, so the pooled noise is what fails). Without
replicates the output says the raters were not measured and
the distinct-pair form covers at least 93%.

CLUSTERSCORE_RATERS_RUNS sets the seeds per scenario (default 500), CLUSTERSCORE_RATERS_FIRST
the first (default 0)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from test_estimate_simulation import ESTIMATES, assert_within_range, world

import clusterscore as cs
from clusterscore._plan import plan_from_diff
from clusterscore._sample import sample_from_diff

RUNS = int(os.environ.get("CLUSTERSCORE_RATERS_RUNS", "500"))
FIRST = int(os.environ.get("CLUSTERSCORE_RATERS_FIRST", "0"))  # the first seed


def by_pair(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """A flip rate that differs by pair (and not by order): 25% for three pairs in ten, 5%
    for the rest."""
    return np.where((i + j) % 10 < 3, 0.25, 0.05)


def flips(kind: str):
    """(the flip rate per pair of items, as arrays) for a scenario's raters."""
    if kind == "by-pair":
        return by_pair
    rate = {"honest": 0.0, "flip": 0.1}[kind]
    return lambda i, j: np.full(len(i), rate)


def run(ideal, d, flip, *, replicates=50, unsure=None, sizes=(2500, None), runs=RUNS):
    """Estimates and raters' reports of `runs` seeds; every verdict of every copy drawn
    independently, flipped with the pair's rate."""
    rows: dict[str, list] = {k: [] for k in ESTIMATES}
    raters = []
    for seed in range(FIRST, FIRST + runs):
        s = sample_from_diff(d, sizes[0], seed, stable_pairs=sizes[1], replicates=replicates)
        shown = s.raters_table().to_pandas()
        i, j = shown.item_i.to_numpy(), shown.item_j.to_numpy()
        rng = np.random.default_rng(20_000 + seed)
        same = (ideal[i] == ideal[j]) ^ (rng.random(len(shown)) < flip(i, j))
        verdict = np.where(same, "same", "different").astype(object)
        if unsure is not None:
            kind = dict(zip(zip(s.pairs.item_i, s.pairs.item_j, strict=True), s.pairs.kind,
                            strict=True))  # fmt: skip
            share = np.array([unsure[kind[p]] for p in zip(i, j, strict=True)])
            verdict[rng.random(len(shown)) < share] = "unsure"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cs.estimate(s, shown[["item_i", "item_j", "copy"]].assign(verdict=verdict))
        for k in ESTIMATES:
            rows[k].append(est[k])
        raters.append(est.raters)
    return rows, raters


def monte_carlo_error(runs: int) -> float:
    """One binomial standard error of a coverage near 95% measured over `runs` seeds: the
    simulation's own error (0.97% at 500 seeds), which the 93-97% band is read within. At
    1,500 seeds every scenario's coverage lies in 93-97.1%."""
    return float(np.sqrt(0.95 * 0.05 / runs))


def summary(rows, exact) -> dict[str, tuple[float, float]]:
    """Per estimate: (coverage, mean standard error / spread of the estimates)."""
    out = {}
    for k in ESTIMATES:
        est = np.array([r["estimate"] for r in rows[k]], dtype=float)
        lo = np.array([r["ci_low"] for r in rows[k]], dtype=float)
        hi = np.array([r["ci_high"] for r in rows[k]], dtype=float)
        se = np.array([r["std_error"] for r in rows[k]], dtype=float)
        cover = np.mean((lo - 1e-12 <= exact[k]) & (exact[k] <= hi + 1e-12))
        out[k] = (float(cover), float(se.mean() / est.std(ddof=1)))
    return out


def exact_for(flip_kind: str, heavy: bool = False):
    """The world and what its raters report on average, exactly."""
    if flip_kind == "by-pair":
        return world(heavy=heavy, flip=lambda i, j: float(by_pair(np.array(i), np.array(j))))
    return world(heavy=heavy, flip={"honest": 0.0, "flip": 0.1}[flip_kind])


SCENARIOS = {
    "honest": dict(flip="honest"),
    "flip-10%": dict(flip="flip"),
    "flip-by-pair": dict(flip="by-pair"),
    "unsure-by-class": dict(
        flip="flip", unsure={"split": 0.4, "merge": 0.1, "stable": 0.25, "self": 0.0}
    ),  # fmt: skip
    "strata": dict(flip="flip", sizes=(1500, 1000)),
    "heavy-honest": dict(flip="honest", heavy=True),
    "heavy-flip-10%": dict(flip="flip", heavy=True),
    "heavy-unsure-by-class": dict(
        flip="flip", heavy=True, unsure={"split": 0.4, "merge": 0.1, "stable": 0.25, "self": 0.0}
    ),  # fmt: skip
    "heavy-strata": dict(flip="flip", heavy=True, sizes=(1500, 1000)),
}


# The pooled noise of SPEC §4 misses a heavily drawn pair whose raters err more than most:
# with flip rates that differ by pair in the heavy-tailed world the affected index covers
# 90.6% (SE/SD 0.88). Kept as a known failure: it passes the day the variance covers it.
# test_the_known_failure_is_the_pooled_noise shows why it is not the formula.
KNOWN = pytest.param(
    "heavy-flip-by-pair",
    marks=pytest.mark.xfail(strict=True, reason="pooled rater noise, pair-dependent flips"),
)
SCENARIOS["heavy-flip-by-pair"] = dict(flip="by-pair", heavy=True)


@pytest.mark.parametrize("name", [n for n in SCENARIOS if n != "heavy-flip-by-pair"] + [KNOWN])
def test_replicates_give_honest_intervals(name):
    spec = dict(SCENARIOS[name])
    flip_kind, heavy = spec.pop("flip"), spec.pop("heavy", False)
    ideal, d, exact = exact_for(flip_kind, heavy)
    rows, raters = run(ideal, d, flips(flip_kind), **spec)
    assert_within_range(rows, d)
    assert all(r["measured"] for r in raters)
    noise = np.mean([r["noise"] for r in raters])
    if flip_kind == "honest":
        assert noise == 0
    elif flip_kind == "flip":
        assert abs(noise - 0.09) < 0.01, noise  # a flip rate f gives f·(1 − f)
    slack = monte_carlo_error(RUNS)
    bad = {k: v for k, v in summary(rows, exact).items()
           if not (0.93 - slack <= v[0] <= 0.97 + slack and 0.9 <= v[1] <= 1.1)}  # fmt: skip
    assert not bad, bad


def _units(t: pd.DataFrame) -> list[tuple[int, int]]:
    """Each row's unordered pair."""
    return [(min(k), max(k)) for k in zip(t.item_i, t.item_j, strict=True)]


def _stable_class(s, shown: pd.DataFrame, same: np.ndarray, flip) -> dict[str, float]:
    """The stable class mean of the verdicts (what the affected index scales) and its
    variance by SPEC §4's formula, V_draw + Σ_j n_j(n_j − 1)/N² · σ²/m_j, with three noises
    σ²: the pooled within-pair variance of every replicated pair (the rule's), each pair's
    true flip variance, and each replicated pair's own within-pair variance."""
    by_unit = shown.assign(v=same.astype(float), key=_units(shown)).groupby("key").v
    by_unit = by_unit.agg(["mean", "count", "var"])
    pooled = by_unit.loc[by_unit["count"] >= 2, "var"].mean()
    p = s.pairs[s.pairs.kind == "stable"]
    draws = p.assign(key=_units(p)).groupby("key").draws.sum()
    n, unit = draws.to_numpy(float), by_unit.loc[draws.index]
    v, m = unit["mean"].to_numpy(), unit["count"].to_numpy()
    ij = np.array(list(draws.index))
    f = flip(ij[:, 0], ij[:, 1])
    N = n.sum()
    q = (n * v).sum() / N
    v_draw = (n * (v - q) ** 2).sum() / (N - 1) / N
    shared = n * (n - 1) / m / N**2
    own = unit["var"].fillna(pooled).to_numpy()
    return {"q": q, "pooled": v_draw + pooled * shared.sum(),
            "true": v_draw + (shared * f * (1 - f)).sum(),
            "own": v_draw + (shared * own).sum()}  # fmt: skip


def test_the_known_failure_is_the_pooled_noise():
    """The heavy-tailed world with flip rates that differ by pair, replayed outside the core:
    the formula with the pooled noise gives the core's standard error to the last bits and
    the known failure; the same formula with each stable pair's true flip variance covers
    (so the formula is right, its noise is not); the only per-pair noise a sample holds, a
    replicated pair's own two verdicts, covers worse than the pool (mostly 0, sometimes ½)."""
    ideal, d, exact = exact_for("by-pair", heavy=True)
    rows = []
    for seed in range(500):
        s = sample_from_diff(d, 2500, seed, replicates=50)
        shown = s.raters_table().to_pandas()
        i, j = shown.item_i.to_numpy(), shown.item_j.to_numpy()
        same = (ideal[i] == ideal[j]) ^ (np.random.default_rng(seed).random(len(i)) < by_pair(i, j))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cs.estimate(s, shown[["item_i", "item_j", "copy"]].assign(
                verdict=np.where(same, "same", "different")))["affected_good_index"]  # fmt: skip
        rows.append({**_stable_class(s, shown, same, by_pair), "estimate": est["estimate"],
                     "std_error": est["std_error"]})  # fmt: skip
    df = pd.DataFrame(rows)
    slope, known = np.polyfit(df.q, df.estimate, 1)  # the index is known + slope × q
    assert np.allclose(df.estimate, known + slope * df.q, rtol=0, atol=1e-12)
    assert np.allclose(df.std_error, slope * np.sqrt(df.pooled), rtol=1e-9)
    target = (exact["affected_good_index"] - known) / slope
    cover = {c: np.mean(np.abs(df.q - target) <= 1.959964 * np.sqrt(df[c]))
             for c in ("pooled", "true", "own")}  # fmt: skip
    spread = {c: np.sqrt(df[c]).mean() / df.q.std(ddof=1) for c in ("pooled", "true", "own")}
    assert cover["pooled"] < 0.93, (cover, spread)
    assert 0.93 <= cover["true"] <= 0.97 and 0.9 <= spread["true"] <= 1.1, (cover, spread)
    assert cover["own"] < cover["pooled"], cover


def test_without_replicates_the_output_says_so():
    ideal, d, exact = exact_for("flip")
    rows, raters = run(ideal, d, flips("flip"), replicates=0)
    assert not any(r["measured"] for r in raters)
    low = {k: v for k, v in summary(rows, exact).items() if v[0] < 0.93}
    assert not low, low


@pytest.mark.parametrize("heavy", [True, False], ids=["heavy", "generic"])
@pytest.mark.parametrize("sizes", [(2000, 20), (50, None)], ids=["20-stable", "50-draws"])
def test_tiny_strata_cover_or_say_they_cannot(sizes, heavy, record_property):
    """20 stable draws beside 2,000 diff draws, or 50 draws in all: delta_precision's
    intervals cover at least 90%, or every one of them is marked unreliable (heavy weights,
    20 stable draws: 76% coverage, all marked); the share marked is reported."""
    ideal, d, exact = exact_for("flip", heavy)
    rows, _ = run(ideal, d, flips("flip"), sizes=sizes, runs=300)
    got = rows["delta_precision"]
    marked = np.array(["unreliable" in r for r in got])
    covers = np.array([r["ci_low"] - 1e-12 <= exact["delta_precision"] <= r["ci_high"] + 1e-12
                       for r in got])  # fmt: skip
    record_property("marked_share", float(marked.mean()))
    print(f"marked {marked.mean():.3f}, coverage {covers.mean():.3f} (unmarked"
          f" {covers[~marked].mean() if (~marked).any() else float('nan'):.3f})")  # fmt: skip
    assert covers.mean() >= 0.90 or marked.all()


PLANNED = ["good_split_distance", "bad_split_distance", "good_merge_distance",
           "bad_merge_distance", "affected_good_index", "affected_bad_index"]  # fmt: skip


def rounds(ideal, d, seed, half_width, batch=200):
    """Judging in rounds of `batch` draws, stratified as the plan of the verdicts so far
    asks, until it asks for no more: the last sample and every round's verdicts."""
    rng = np.random.default_rng(30_000 + seed)
    s = sample_from_diff(d, 3 * batch // 4, seed, stable_pairs=batch // 4)
    files, before = [], None
    while True:
        shown = s.raters_table(since=before).to_pandas()
        i, j = shown.item_i.to_numpy(), shown.item_j.to_numpy()
        same = (ideal[i] == ideal[j]) ^ (rng.random(len(shown)) < 0.1)
        files.append(shown.assign(verdict=np.where(same, "same", "different")))
        plan = plan_from_diff(d, half_width=half_width, pilot=(s, files))
        more, more_stable = plan["more_pairs"], plan["more_stable_pairs"]
        if more + more_stable == 0:
            return s, files
        if more + more_stable > batch:  # a round is a batch, shared as the plan shares them
            more = round(batch * more / (more + more_stable))
            more_stable = batch - more
        m = s.meta
        before, s = s, sample_from_diff(d, m["pairs"] + more, seed,
                                        stable_pairs=m["stable_pairs"] + more_stable)  # fmt: skip


def test_rounds_until_the_plan_is_met():
    """Batches of 200 until the plan of all verdicts so far needs no more draws: the
    intervals read at that stop cover as the rules say (the stop depends on the verdicts)."""
    ideal, d, exact = exact_for("flip")
    rows: dict[str, list] = {k: [] for k in PLANNED}
    sizes = []
    for seed in range(FIRST, FIRST + max(300, RUNS * 3 // 5)):
        s, files = rounds(ideal, d, seed, half_width=0.006)
        sizes.append(s.meta["pairs"] + s.meta["stable_pairs"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cs.estimate(s, files)
        for k in PLANNED:
            rows[k].append(est[k])
    assert np.median(sizes) >= 400 and max(sizes) > min(sizes)  # several rounds, not one size
    cover = {k: np.mean([r["ci_low"] - 1e-12 <= exact[k] <= r["ci_high"] + 1e-12 for r in rows[k]])
             for k in PLANNED}  # fmt: skip
    slack = monte_carlo_error(len(sizes))
    bad = {k: c for k, c in cover.items() if not 0.93 - slack <= c <= 0.97 + slack}
    assert not bad, (bad, np.median(sizes))


if __name__ == "__main__":  # one scenario's figures: python test_raters_simulation.py NAME
    import sys

    spec = dict(SCENARIOS[sys.argv[1]])
    flip_kind, heavy = spec.pop("flip"), spec.pop("heavy", False)
    ideal, d, exact = exact_for(flip_kind, heavy)
    rows, raters = run(ideal, d, flips(flip_kind), **spec)
    print("noise", np.mean([r["noise"] for r in raters]))
    for k, (cover, ratio) in summary(rows, exact).items():
        print(f"{k:22s} {cover:.3f} {ratio:.3f}")
