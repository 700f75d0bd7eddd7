"""The conventions users expect of a command: --version, -h on every command."""

from __future__ import annotations

import clusterscore as cs


def test_version(run_cli):
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"clusterscore {cs.__version__}"


def test_short_help_on_every_command(run_cli):
    for command in ([], ["evaluate"], ["compare"], ["diff"], ["sample"], ["estimate"], ["plan"]):
        proc = run_cli(*command, "-h")
        assert proc.returncode == 0, (command, proc.stderr)
        assert "Usage" in proc.stdout, command
