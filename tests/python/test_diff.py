"""`diff` (docs/metrics.md, diff): brute-force oracle at every level, identities, properties,
CLI."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE, SHAPES, random_clustering
from reference import IMPACT_METRICS, groups_of, impact_items, impact_mean
from typer.testing import CliRunner

import clusterscore as cs
from clusterscore.cli import app

GROUP_COLS = [*IMPACT_METRICS, "affected_weight", "items", "weight"]


def case(seed, shape_b, shape_e):
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(1, 60))
    universe = list(range(n + 8))
    b_items = [i for i in universe if rng.random() < 0.9] or universe[:1]
    e_items = sorted(set(i for i in universe if rng.random() < 0.9) | {b_items[0]})
    rng.shuffle(e_items)
    base = random_clustering(rng, b_items, shape_b)
    exp = random_clustering(rng, e_items, shape_e)
    if seed % 3 == 0:  # Exp derived from Base by a few moves: mostly unaffected
        exp = {i: base.get(i, -1) if rng.random() < 0.8 else int(rng.integers(5)) for i in e_items}
    w = {i: float(rng.choice([1.0, rng.uniform(0.1, 10)])) for i in universe}
    src = {i: str(rng.choice(["p", "q"])) for i in universe}
    items = pd.DataFrame({"item_id": universe, "weight": [w[i] for i in universe],
                          "src": [src[i] for i in universe]})  # fmt: skip
    return base, exp, w, src, items


def check(got, want, cols):
    for c in cols:
        assert got[c] == pytest.approx(want[c], rel=1e-12, abs=1e-12), c


@pytest.mark.parametrize(
    ("seed", "shape_b", "shape_e"), [(s, b, e) for s in range(9) for b in SHAPES for e in SHAPES]
)
def test_matches_reference_at_every_level(seed, shape_b, shape_e):
    base, exp, w, src, items = case(seed, shape_b, shape_e)
    d = cs.diff(base, exp, items)
    ref = impact_items(base, exp, w)
    per_item = d.per_item().set_index("item_id")
    assert list(per_item.index) == [i for i in base if i in exp]
    for i, want in ref.items():
        row = per_item.loc[i]
        check(row, want, [*IMPACT_METRICS, "B", "E", "X", "U"])
        assert bool(row["affected"]) == want["affected"]
        assert row["base_cluster"] == base[i] and row["exp_cluster"] == exp[i]

    overall = d.overall
    want = impact_mean(ref, w, ref)
    check(overall, want, IMPACT_METRICS)
    affected = [i for i in ref if ref[i]["affected"]]
    total = sum(w[i] for i in ref)
    assert overall["affected_items"] == len(affected)
    assert overall["affected_weight"] == pytest.approx(sum(w[i] for i in affected))
    assert overall["affected_jaccard_index"] == pytest.approx(
        sum(w[i] * ref[i]["jaccard_index"] for i in affected) / total, abs=1e-15
    )
    assert overall["unaffected_jaccard_index"] == pytest.approx(
        sum(w[i] for i in ref if not ref[i]["affected"]) / total, abs=1e-15
    )
    # identities of docs/metrics.md, diff
    assert overall["jaccard_distance"] == pytest.approx(
        overall["split_distance"] + overall["merge_distance"], abs=1e-14
    )
    assert overall["jaccard_index"] + overall["jaccard_distance"] == pytest.approx(1.0, abs=1e-14)
    assert overall["affected_jaccard_index"] + overall["unaffected_jaccard_index"] == (
        pytest.approx(overall["jaccard_index"], abs=1e-14)
    )
    b_groups, e_groups = groups_of(base, ref), groups_of(exp, ref)
    assert overall["base_clusters_split"] == sum(
        len({exp[i] for i in m}) > 1 for m in b_groups.values()
    )
    assert overall["exp_clusters_merged"] == sum(
        len({base[i] for i in m}) > 1 for m in e_groups.values()
    )
    for side, groups in (("base", b_groups), ("exp", e_groups)):
        df = d.per_cluster(side).set_index("cluster_id")
        assert set(df.index) == set(groups)
        for cluster, members in groups.items():
            check(df.loc[cluster], impact_mean(ref, w, members), GROUP_COLS)
    df = d.per_slice("src").set_index("src")
    for value, members in groups_of(src, ref).items():
        check(df.loc[value], impact_mean(ref, w, members), GROUP_COLS)


@pytest.mark.parametrize("seed", range(12))
def test_flows_cover_every_changed_cluster(seed):
    base, exp, w, _, items = case(seed, "powerlaw", "powerlaw")
    d = cs.diff(base, exp, items)
    ref = impact_items(base, exp, w)
    flows = d.flows()
    cells = {}
    for i in ref:
        cells.setdefault((base[i], exp[i]), []).append(i)
    changed = {k for k, m in cells.items() if any(ref[i]["affected"] for i in m)}
    assert {(r.base_cluster, r.exp_cluster) for r in flows.itertuples()} == changed
    assert list(flows.weight) == sorted(flows.weight, reverse=True)
    for r in flows.itertuples():
        members = cells[(r.base_cluster, r.exp_cluster)]
        assert r.items == len(members)
        assert r.weight == pytest.approx(sum(w[i] for i in members))
        some = members[0]
        assert r.share_of_base == pytest.approx(r.weight / ref[some]["B"])
        assert r.share_of_exp == pytest.approx(r.weight / ref[some]["E"])


@pytest.mark.parametrize("seed", range(12))
def test_diff_with_itself_is_zero(seed):
    base, _, _, _, items = case(seed, SHAPES[seed % 4], "few")
    relabelled = {i: f"other-{c}" for i, c in base.items()}
    d = cs.diff(base, relabelled, items)
    o = d.overall
    assert o["jaccard_distance"] == 0 and o["split_distance"] == 0 and o["merge_distance"] == 0
    assert o["jaccard_index"] == 1.0 and o["affected_items"] == 0
    assert o["base_clusters_split"] == 0 and o["exp_clusters_merged"] == 0
    assert not d.per_item().affected.any()
    assert d.flows().empty


@pytest.mark.parametrize("seed", range(12))
def test_swapping_base_and_exp_swaps_split_and_merge(seed):
    base, exp, _, _, items = case(seed, "powerlaw", SHAPES[seed % 4])
    ab, ba = cs.diff(base, exp, items).overall, cs.diff(exp, base, items).overall
    for x, y in (("split_distance", "merge_distance"), ("split_rate", "merge_rate"),
                 ("base_clusters_split", "exp_clusters_merged")):  # fmt: skip
        assert ab[x] == pytest.approx(ba[y], abs=1e-15)
        assert ab[y] == pytest.approx(ba[x], abs=1e-15)
    assert ab["affected_items"] == ba["affected_items"]


@pytest.mark.parametrize("seed", range(12))
def test_weight_scaling_changes_nothing(seed):
    base, exp, _, _, items = case(seed, "powerlaw", "powerlaw")
    a = cs.diff(base, exp, items).overall
    scaled = items.assign(weight=items.weight * 1e6)
    b = cs.diff(base, exp, scaled).overall
    for k in [*IMPACT_METRICS, "affected_jaccard_index", "unaffected_jaccard_index"]:
        assert b[k] == pytest.approx(a[k], rel=1e-12, abs=1e-15)
    assert b["affected_weight"] == pytest.approx(a["affected_weight"] * 1e6)


def test_cli_diff_writes_everything(tmp_path, run_cli):
    base = pd.DataFrame({"item_id": [1, 2, 3, 4, 9], "cluster_id": ["a", "a", "a", "b", "z"]})
    exp = pd.DataFrame({"item_id": [1, 2, 3, 4, 8], "cluster_id": ["x", "x", "y", "y", "w"]})
    base.to_csv(tmp_path / "base.csv", index=False)
    exp.to_parquet(tmp_path / "exp.parquet")
    pd.DataFrame({"item_id": [1, 2, 3, 4], "s": ["u", "u", "v", "v"]}).to_csv(
        tmp_path / "items.csv", index=False
    )
    out = tmp_path / "out"
    p = run_cli("diff", tmp_path / "base.csv", tmp_path / "exp.parquet", "--items",
                tmp_path / "items.csv", "--slice", "s", "--out", out)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "split_distance" in p.stdout and "Largest flows" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    # item 3: B=3 E=2 X=1 U=4; items 1,2: B=3 E=2 X=2 U=3; item 4: B=1 E=2 X=1 U=2
    assert s["overall"]["split_distance"] == pytest.approx((1 / 3 + 1 / 3 + 2 / 4 + 0) / 4)
    assert s["overall"]["merge_distance"] == pytest.approx((0 + 0 + 1 / 4 + 1 / 2) / 4)
    assert s["coverage"]["base_only_items"] == 1 and s["coverage"]["exp_only_items"] == 1
    assert {r["s"] for r in s["slices"]["s"]} == {"u", "v"}
    for name in ("per_item", "flows", "per_base_cluster", "per_exp_cluster", "per_slice_s"):
        assert pq.read_table(out / f"{name}.parquet").num_rows > 0


def test_cli_diff_of_the_example_fits_80_columns(monkeypatch):
    """The bundled example with two slice columns, at 80 columns: no name or value cut
    short (the per-slice table, bordered, elided "affected_weight")."""
    monkeypatch.setenv("COLUMNS", "80")
    ex = [str(EXAMPLE / f) for f in ("actual.csv", "truth.csv")]
    items = ["--items", str(EXAMPLE / "items.csv"), "--slice", "country", "--slice", "source"]
    r = CliRunner().invoke(app, ["diff", *ex, *items])
    assert r.exit_code == 0, r.output
    assert "…" not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80
    for name in ("country", "source"):
        table = r.output.split(f"Per {name}")[1].split("\n\n")[0]
        assert table.splitlines()[1].split() == [name, "┃", "items", "┃", "weight", "┃",
            "split_distance", "┃", "merge_distance", "┃", "affected_weight"]  # fmt: skip


def test_cli_diff_bad_input(tmp_path, run_cli):
    (tmp_path / "base.csv").write_text("item_id,cluster_id\n1,a\n1,b\n")
    (tmp_path / "exp.csv").write_text("item_id,cluster_id\n1,a\n")
    p = run_cli("diff", tmp_path / "base.csv", tmp_path / "exp.csv")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "base.csv line 3" in p.stderr and "twice" in p.stderr
    with pytest.raises(ValueError, match="unknown side 'truth'"):
        cs.diff({1: 1}, {1: 1}).per_cluster("truth")
