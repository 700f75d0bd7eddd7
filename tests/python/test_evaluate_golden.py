"""the worked example of docs/metrics.md, at every level, through the Python API and the CLI."""

import json
from fractions import Fraction as F

import pandas as pd
import pyarrow.parquet as pq
import pytest

import clusterscore as cs

EXPECTED_ITEMS = {  # tp, fp, fn, tn, precision, recall, jaccard_distance
    "i1": (1, 3, 2, 0, F(1, 4), F(1, 3), F(5, 6)),
    "i2": (2, 0, 1, 3, F(1), F(2, 3), F(1, 3)),
    "i3": (3, 1, 0, 2, F(3, 4), F(1), F(1, 4)),
}
OVERALL = {"precision": F(3, 4), "recall": F(7, 9), "jaccard_distance": F(3, 8)}
TRUTH_T1 = {"precision": F(3, 4), "recall": F(5, 9), "jaccard_distance": F(1, 2)}
ACTUAL_A1 = {"precision": F(5, 8), "recall": F(5, 6), "jaccard_distance": F(19, 48)}
SLICE_I2_I3 = {"precision": F(17, 20), "recall": F(13, 15), "jaccard_distance": F(17, 60)}


def close(row, expected):
    for k, v in expected.items():
        assert row[k] == pytest.approx(float(v), rel=1e-15, abs=1e-15), k


@pytest.fixture
def result(figure2):
    truth, actual, w = figure2
    items = pd.DataFrame({"item_id": list(w), "weight": list(w.values()), "part": ["a", "b", "b"]})
    return cs.evaluate(truth, actual, items)


def test_per_item(result):
    df = result.per_item().set_index("item_id")
    for item, (tp, fp, fn, tn, p, r, jd) in EXPECTED_ITEMS.items():
        row = df.loc[item]
        close(
            row,
            {
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "tn": tn,
                "precision": p,
                "recall": r,
                "jaccard_distance": jd,
            },
        )
    assert list(df.truth_cluster) == ["T1", "T1", "T2"]
    assert list(df.actual_cluster) == ["A1", "A2", "A1"]
    assert list(df.weight) == [1.0, 2.0, 3.0]


def test_overall_and_identities(result):
    o = result.overall
    close(o, OVERALL)
    assert o["jaccard_index"] == pytest.approx(5 / 8)
    assert o["over_merge_rate"] == pytest.approx(1 / 4)
    assert o["under_merge_rate"] == pytest.approx(2 / 9)
    p, r = 3 / 4, 7 / 9
    assert o["f1_of_means"] == pytest.approx(2 * p * r / (p + r))
    # f1 is the mean of per-item f1, not the harmonic mean of the means
    f1_items = [2 * 1 / (2 + 5), 2 * 2 / (4 + 1), 2 * 3 / (6 + 1)]
    assert o["f1"] == pytest.approx((1 * f1_items[0] + 2 * f1_items[1] + 3 * f1_items[2]) / 6)
    assert o["accuracy"] == pytest.approx((1 * 1 / 6 + 2 * 5 / 6 + 3 * 5 / 6) / 6)


def test_clusters_and_slices(result):
    truth = result.per_cluster("truth").set_index("cluster_id")
    close(truth.loc["T1"], TRUTH_T1)
    assert truth.loc["T1", "items"] == 2 and truth.loc["T1", "weight"] == 3.0
    actual = result.per_cluster("actual").set_index("cluster_id")
    close(actual.loc["A1"], ACTUAL_A1)
    part = result.per_slice("part").set_index("part")
    close(part.loc["b"], SLICE_I2_I3)


def test_coverage(result):
    c = result.coverage
    assert c["common_items"] == 3 and c["common_weight"] == 6.0
    assert c["truth_clusters_common"] == 2 and c["actual_clusters_common"] == 2


def test_cli_writes_summary_and_tables(tmp_path, figure2, run_cli):
    truth, actual, w = figure2
    pd.DataFrame({"item_id": list(truth), "cluster_id": list(truth.values())}).to_csv(
        tmp_path / "truth.csv", index=False
    )
    pd.DataFrame({"item_id": list(actual), "cluster_id": list(actual.values())}).to_parquet(
        tmp_path / "actual.parquet"
    )
    pd.DataFrame({"item_id": list(w), "weight": list(w.values()), "part": ["a", "b", "b"]}).to_csv(
        tmp_path / "items.tsv", sep="\t", index=False
    )
    out = tmp_path / "out"
    proc = run_cli(
        "evaluate",
        tmp_path / "truth.csv",
        tmp_path / "actual.parquet",
        "--items",
        tmp_path / "items.tsv",
        "--slice",
        "part",
        "--out",
        out,
        "--classic",
    )
    assert proc.returncode == 0, proc.stderr
    assert "precision" in proc.stdout and "Coverage" in proc.stdout
    assert "Classic metrics" in proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    close(summary["overall"], OVERALL)
    assert set(summary) == {"command", "version", "inputs", "coverage", "overall", "slices",
                            "classic", "truth_scope", "cluster_weights", "average", "estimand",
                            "options",
                            "intervals", "slice_intervals"}  # fmt: skip
    assert summary["truth_scope"] == "common" and summary["options"]["resamples"] == 1000
    by_metric = {r["metric"]: r for r in summary["intervals"]}
    assert by_metric["precision"]["estimate"] == pytest.approx(OVERALL["precision"])
    # classic metrics on T from counts: truth {i1,i2}{i3}, actual {i1,i3}{i2}
    from sklearn.metrics import adjusted_rand_score

    assert summary["classic"]["adjusted_rand_score"] == pytest.approx(
        adjusted_rand_score([0, 0, 1], [0, 1, 0])
    )
    assert summary["classic"]["purity_score"] == pytest.approx(2 / 3)
    b = next(r for r in summary["slices"]["part"] if r["part"] == "b")
    close(b, SLICE_I2_I3)
    truth_t = pq.read_table(out / "per_truth_cluster.parquet").to_pandas().set_index("cluster_id")
    close(truth_t.loc["T1"], TRUTH_T1)
    actual_t = pq.read_table(out / "per_actual_cluster.parquet").to_pandas()
    close(actual_t.set_index("cluster_id").loc["A1"], ACTUAL_A1)
    items_t = pq.read_table(out / "per_item.parquet").to_pandas().set_index("item_id")
    assert items_t.loc["i1", "fp"] == 3
    assert (out / "per_slice_part.parquet").exists()
