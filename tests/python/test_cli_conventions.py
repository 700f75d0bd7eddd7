"""The conventions users expect of a command: --version, -h on every command, help that
renders cleanly, completion, errors in the command line's own terms, a delimiter hint."""

from __future__ import annotations

import os

import pytest

import clusterscore as cs


def test_version(run_cli):
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"clusterscore {cs.__version__}"


def test_short_help_on_every_command(run_cli):
    for command in ([], ["evaluate"], ["compare"], ["diff"], ["sample"], ["estimate"], ["plan"]):
        proc = run_cli(*command, "-h")
        assert proc.returncode == 0, (command, proc.stderr)
        assert "Usage" in proc.stdout, command


USAGE = {
    "evaluate": "TRUTH ACTUAL",
    "compare": "TRUTH RUNS...",
    "diff": "BASE EXP",
    "sample": "BASE EXP",
    "estimate": "SAMPLE_FILE",
    "plan": "BASE EXP",
}


def test_help_renders_cleanly(run_cli):
    """Arguments named as the text names them, no type label on flags, no markup, and
    paragraphs rewrapped rather than broken where the source code breaks them."""
    for command, arguments in USAGE.items():
        proc = run_cli(command, "-h", env={**os.environ, "COLUMNS": "80"})
        assert proc.returncode == 0, proc.stderr
        usage = proc.stdout.splitlines()[0]
        assert usage == f"Usage: clusterscore {command} [OPTIONS] {arguments}", usage
        assert "<bool>" not in proc.stdout and "{" not in proc.stdout, proc.stdout
        assert not any(len(line) > 80 for line in proc.stdout.splitlines()), proc.stdout
        assert "╭" not in proc.stdout


def test_completion_is_offered_and_completes(run_cli):
    proc = run_cli("-h")
    assert "--install-completion" in proc.stdout and "--show-completion" in proc.stdout

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_CLUSTERSCORE_COMPLETE": "complete_bash", "COMP_WORDS": words}
        env["COMP_CWORD"] = str(len(words.split()) - 1)
        done = run_cli(env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("clusterscore ev") == ["evaluate"]
    assert complete("clusterscore evaluate --truth-sc") == ["--truth-scope"]
    assert complete("clusterscore evaluate --truth-scope e") == ["entities"]


@pytest.mark.parametrize(
    "options, cli_terms, python_terms",
    [
        (["--item-col", "id"], ["--item-col", "--cluster-col"], ["item_col", "cluster_col"]),
        (["--resamples", "0"], ["--resamples"], ["resamples"]),
        (["--cluster-weights", "inverse_size"], ["--truth-scope entities"], ["truth_scope="]),
    ],
)
def test_errors_speak_the_callers_terms(tmp_path, run_cli, options, cli_terms, python_terms):
    truth, actual = tmp_path / "t.csv", tmp_path / "a.csv"
    truth.write_text("item_id,cluster_id\na,1\nb,1\n")
    actual.write_text("item_id,cluster_id\na,1\nb,2\n")
    proc = run_cli("evaluate", truth, actual, *options)
    assert proc.returncode == 2
    for t in cli_terms:
        assert t in proc.stderr, (t, proc.stderr)
    assert "item_col" not in proc.stderr and "truth_scope=" not in proc.stderr
    pairs = zip(options[::2], options[1::2], strict=True)
    kwargs = {o.lstrip("-").replace("-", "_"): v for o, v in pairs}
    if "resamples" in kwargs:
        kwargs["resamples"] = int(kwargs["resamples"])
    with pytest.raises(ValueError) as e:
        cs.evaluate(str(truth), str(actual), **kwargs)
    for t in python_terms:
        assert t in str(e.value), (t, str(e.value))
    assert "--" not in str(e.value)


@pytest.mark.parametrize("sep, name", [(";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")])
def test_a_wrong_delimiter_gets_a_hint(tmp_path, run_cli, sep, name):
    truth, actual = tmp_path / "t.csv", tmp_path / "a.csv"
    truth.write_text(f"item_id{sep}cluster_id\na{sep}1\nb{sep}1\n")
    actual.write_text("item_id,cluster_id\na,1\nb,2\n")
    proc = run_cli("evaluate", truth, actual)
    assert proc.returncode == 2
    assert f"its header looks separated by {name}" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
