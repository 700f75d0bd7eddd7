"""What the commands print on the bundled example, against golden files (set
CLUSTERSCORE_UPDATE_GOLDEN=1 to rewrite them after a deliberate change), and what they
write: --json on stdout for every command, summary.json's inputs, options and version,
runs named NAME=PATH."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import EXAMPLE, ROOT

import clusterscore as cs

GOLDEN = ROOT / "tests" / "data" / "golden"
UPDATE = os.environ.get("CLUSTERSCORE_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """The example's files, a judged sample of its diff, in one folder: commands run
    there with relative paths, so that what they print names no temporary folder."""
    d = tmp_path_factory.mktemp("example")
    for f in ("truth.csv", "actual.csv", "actual_v2.csv", "items.csv"):
        shutil.copy(EXAMPLE / f, d / f)
    s = cs.sample_pairs(d / "actual.csv", d / "truth.csv", pairs=500, stable_pairs=200, seed=7,
                        items=d / "items.csv")  # fmt: skip
    s.save(d / "pairs.parquet")
    truth = pd.read_csv(d / "truth.csv", dtype=str).set_index("item_id")["cluster_id"]
    judged = s.raters_table().to_pandas()
    judged["verdict"] = [
        "same" if truth.get(i) is not None and truth.get(i) == truth.get(j) else "different"
        for i, j in zip(judged["item_i"], judged["item_j"], strict=True)
    ]
    judged.to_csv(d / "judged.csv", index=False)
    return d


COMMANDS = {
    "evaluate": ["evaluate", "truth.csv", "actual.csv", "--items", "items.csv", "--slice",
                 "country"],
    "compare": ["compare", "truth.csv", "actual.csv", "v2=actual_v2.csv", "--items", "items.csv",
                "--slice", "country"],
    "diff": ["diff", "actual.csv", "truth.csv", "--items", "items.csv", "--slice", "country"],
    "estimate": ["estimate", "pairs.parquet", "--verdicts", "judged.csv"],
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
def test_terminal_output_matches_the_golden_file(workdir, run_cli, command):
    env = {**os.environ, "COLUMNS": "100"}
    proc = run_cli(*COMMANDS[command], cwd=workdir, env=env)
    assert proc.returncode == 0, proc.stderr
    golden = GOLDEN / f"{command}.txt"
    if UPDATE:
        golden.write_text(proc.stdout)
    assert proc.stdout == golden.read_text(), f"differs from {golden}"


def test_golden_outputs_use_one_format_per_column():
    """Rates with four decimals, counts and weights with thousands separators."""
    text = (GOLDEN / "evaluate.txt").read_text()
    assert "│ precision        │ 0.9601 │" in text
    assert "│ actual          │ 4,946 │ 6,721.83 │" in text
    compare = (GOLDEN / "compare.txt").read_text()
    assert (
        "Overall metrics by run" in compare.splitlines()[12] or "Overall metrics by run" in compare
    )
    assert "▲" in compare  # the second run's recall is better, and says so


@pytest.mark.parametrize("command", list(COMMANDS))
def test_json_on_stdout_for_every_command(workdir, run_cli, command):
    proc = run_cli(*COMMANDS[command], "--json", "--quiet", cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    if command == "estimate":
        assert summary["good_split_distance"]["estimate"] > 0
        return
    assert summary["command"] == command and summary["version"] == cs.__version__
    assert "NaN" not in proc.stdout
    for role, given in summary["inputs"].items():
        assert len(given["fingerprint"]) == 16, role
    if command == "compare":
        assert summary["runs"] == ["actual", "v2"]
        assert summary["inputs"]["v2"]["path"] == "actual_v2.csv"


def test_sample_and_plan_print_json(workdir, run_cli, tmp_path):
    proc = run_cli("sample", "actual.csv", "truth.csv", "--pairs", "50", "--seed", "1", "--out",
                   tmp_path / "s.parquet", "--json", cwd=workdir)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["draws"] == 50 and summary["options"]["seed"] == 1
    plan = run_cli("plan", "actual.csv", "truth.csv", "--half-width", "0.05", "--json", cwd=workdir)
    assert json.loads(plan.stdout)["pairs"] > 0


def test_sample_prints_counts_as_whole_numbers(workdir, run_cli, tmp_path):
    proc = run_cli("sample", "actual.csv", "truth.csv", "--pairs", "50", "--seed", "1", "--out",
                   tmp_path / "s.parquet", cwd=workdir)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {
        m.group(1).strip(): m.group(2) for m in re.finditer(r"│ (.+?) +│ +(\S+) │", proc.stdout)
    }
    assert rows["draws"] == "50"
    assert re.fullmatch(r"\d+", rows["distinct pairs"])
    assert re.fullmatch(r"\d+", rows["to judge (no self pairs)"])


def test_summary_json_records_inputs_options_and_version(workdir, run_cli, tmp_path):
    out = tmp_path / "out"
    proc = run_cli("evaluate", "truth.csv", "actual.csv", "--items", "items.csv", "--out", out,
                   "--resamples", "50", "--quiet", cwd=workdir)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["version"] == cs.__version__ and s["command"] == "evaluate"
    assert s["inputs"]["truth"]["path"] == "truth.csv"
    assert s["inputs"]["items"]["path"] == "items.csv"
    ev = cs.evaluate(workdir / "truth.csv", workdir / "actual.csv", workdir / "items.csv")
    assert s["inputs"]["actual"]["fingerprint"] == ev.input_fingerprints["actual"]
    assert s["options"]["resamples"] == 50 and s["options"]["item_col"] == "item_id"


def test_runs_are_named_by_file_name_without_extension_or_by_name(tmp_path, run_cli):
    truth = tmp_path / "truth.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\nc,2\n")
    for name in ("model.v1.csv", "model.v2.csv"):
        (tmp_path / name).write_text("item_id,cluster_id\na,1\nb,2\nc,2\n")
    proc = run_cli("compare", truth, tmp_path / "model.v1.csv", tmp_path / "model.v2.csv",
                   "--json", "--resamples", "5")  # fmt: skip
    assert json.loads(proc.stdout)["runs"] == ["model.v1", "model.v2"]
    proc = run_cli("compare", truth, f"old={tmp_path / 'model.v1.csv'}",
                   f"new={tmp_path / 'model.v2.csv'}", "--json", "--resamples", "5")  # fmt: skip
    assert json.loads(proc.stdout)["runs"] == ["old", "new"]
    same = run_cli("compare", truth, f"a={tmp_path / 'model.v1.csv'}",
                   f"a={tmp_path / 'model.v2.csv'}")  # fmt: skip
    assert same.returncode == 2 and "two runs are named 'a'" in same.stderr


def test_long_slice_tables_show_50_rows_and_say_how_many_more(tmp_path, run_cli):
    n = 120
    items = pd.DataFrame({"item_id": range(n), "zip": [f"z{i:03d}" for i in range(n)]})
    clusters = pd.DataFrame({"item_id": range(n), "cluster_id": [i // 2 for i in range(n)]})
    items.to_csv(tmp_path / "items.csv", index=False)
    clusters.to_csv(tmp_path / "c.csv", index=False)
    c = tmp_path / "c.csv"
    proc = run_cli("diff", c, c, "--items", tmp_path / "items.csv", "--slice", "zip")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if re.match(r"z\d", line)]
    assert len(rows) == 50
    assert "and 70 more values" in proc.stdout
