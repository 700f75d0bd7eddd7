"""What a newcomer trips on, each once: usage errors are one line with status 2; a
comma-separated .tsv is told to be renamed .csv; --report without its extra fails before
any work; every file written is named; estimate's JSON opens with the envelope every
command's has; sample and plan offer no --slice; compare warns of a run given twice."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import EXAMPLE

TRUTH, ACTUAL, V2 = (str(EXAMPLE / f) for f in ("truth.csv", "actual.csv", "actual_v2.csv"))


@pytest.mark.parametrize(
    "args, says",
    [
        (["evaluate"], "error: Missing argument 'truth'. (clusterscore evaluate -h for help)"),
        (["evaluate", TRUTH, ACTUAL, "--nope"], "error: No such option: --nope"),
        (["evaluate", TRUTH, ACTUAL, "--resamples", "x"], "Invalid value for '--resamples'"),
        (["nope"], "error: No such command 'nope'. (clusterscore -h for help)"),
    ],
)
def test_usage_errors_are_one_line(run_cli, args, says):
    r = run_cli(*args)
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr


def test_a_comma_separated_tsv_is_told_to_be_renamed_csv(run_cli, tmp_path):
    path = tmp_path / "commas.tsv"
    path.write_text("item_id,cluster_id\na,1\nb,1\n")
    r = run_cli("evaluate", path, path)
    assert r.returncode == 2 and r.stderr.rstrip().endswith("rename it .csv"), r.stderr


def test_report_without_its_extra_fails_before_any_work(tmp_path):
    block = (
        "import sys; sys.modules['altair'] = None; from clusterscore._launch import main; main()"
    )
    r = subprocess.run([sys.executable, "-c", block, "evaluate", TRUTH, ACTUAL, "--report",
                        str(tmp_path / "r.html"), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 2 and "pip install 'clusterscore[report]'" in r.stderr, r.stderr
    assert r.stdout == "" and not (tmp_path / "out").exists()  # no table: no work was done


def test_every_file_written_is_named(run_cli, tmp_path):
    """By the paths asked for (never a staging folder's), on stdout; on stderr beside JSON."""
    r = run_cli("diff", ACTUAL, V2, "--report", tmp_path / "d.html", "--png", tmp_path / "p",
                "--out", tmp_path / "o", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert f"wrote {tmp_path / 'd.html'} and {tmp_path / 'p'}/\n" in r.stdout
    assert f"wrote {tmp_path / 'o'}" in r.stdout and r.stderr == ""
    r = run_cli("diff", ACTUAL, V2, "--report", tmp_path / "e.html", "--json", "-q")
    assert r.returncode == 0 and json.loads(r.stdout)["command"] == "diff"
    assert r.stderr == f"wrote {tmp_path / 'e.html'}\n"


def test_estimate_json_opens_with_the_envelope(run_cli, tmp_path):
    out = tmp_path / "pairs.parquet"
    assert run_cli("sample", ACTUAL, V2, "--pairs", "60", "--seed", "1", "--out", out,
                   "-q").returncode == 0  # fmt: skip
    raters = tmp_path / "pairs.raters.csv"
    raters.write_text(raters.read_text().replace('""\n', '"same"\n').replace(",\n", ",same\n"))
    r = run_cli("estimate", out, "--verdicts", raters, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert list(d)[:3] == ["command", "version", "options"] and d["command"] == "estimate"
    assert "good_merge_distance" in d and "raters" in d


@pytest.mark.parametrize("command", ["sample", "plan"])
def test_help_offers_no_slice_where_there_is_none(run_cli, command):
    r = run_cli(command, "-h")
    assert r.returncode == 0 and "slice" not in r.stdout.lower()


def test_compare_warns_of_a_run_given_twice(run_cli):
    r = run_cli("compare", TRUTH, f"a={ACTUAL}", f"b={ACTUAL}", "--resamples", "20", "-q")
    assert r.returncode == 0
    assert "warning: runs 'a' and 'b' are the same clustering" in r.stderr


def test_spark_in_a_terminal_shows_nothing_of_its_own(run_cli):
    r = run_cli("evaluate", TRUTH, ACTUAL, "--engine", "spark", "--spark-master", "local[1]",
                "--no-intervals", "-q")  # fmt: skip
    assert r.returncode == 0 and "precision" in r.stdout
    assert r.stderr == "", r.stderr  # no JVM notice, no Spark log line


def test_spark_workers_without_clusterscore_are_one_line_naming_the_fix(run_cli):
    bare = shutil.which("python3", path="/usr/bin")  # the system's: no clusterscore there
    assert bare is not None
    env = {**os.environ, "PYSPARK_PYTHON": bare}
    r = run_cli("evaluate", TRUTH, ACTUAL, "--engine", "spark", "--spark-master", "local[1]",
                "--no-intervals", "-q", env=env)  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cannot import" in r.stderr and "PYSPARK_PYTHON" in r.stderr


def test_a_semicolon_csv_is_read_with_delimiter(run_cli, tmp_path):
    truth, actual = tmp_path / "truth.csv", tmp_path / "actual.csv"
    truth.write_text("item_id;cluster_id\na;1\nb;1\nc;2\n")
    actual.write_text("item_id;cluster_id\na;1\nb;2\nc;2\n")
    r = run_cli("evaluate", truth, actual, "--resamples", "20", "-q")
    assert r.returncode == 2 and r.stderr.rstrip().endswith("give --delimiter ';'"), r.stderr
    r = run_cli("evaluate", truth, actual, "--resamples", "20", "--delimiter", ";", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["overall"]["precision"] == pytest.approx(2 / 3)
    r = run_cli("evaluate", truth, actual, "--delimiter", ";;")
    assert r.returncode == 2 and "give one character" in r.stderr
