"""The command line as a user meets it on real data: Ctrl-C ends it at once with status
130 and no half-written --out; --out is checked before the work; progress lines appear
on a terminal only; a reader that stops early (`| head`) does not stop --out."""

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE

CLI = [sys.executable, "-m", "clusterscore"]
EXAMPLE_ARGS = [str(EXAMPLE / "truth.csv"), str(EXAMPLE / "actual.csv"), "--items",
                str(EXAMPLE / "items.csv"), "--slice", "country"]  # fmt: skip


@pytest.fixture(scope="module")
def slow_inputs(tmp_path_factory):
    """Two unrelated labelings of 1e6 items in 3e5 clusters each: the classic metrics'
    matching then takes tens of seconds, long enough to interrupt."""
    d = tmp_path_factory.mktemp("slow")
    rng = np.random.default_rng(0)
    ids = np.arange(1_000_000)
    for name in ("truth", "actual"):
        labels = rng.integers(0, 300_000, len(ids))
        pq.write_table(pa.table({"item_id": ids, "cluster_id": labels}), d / f"{name}.parquet")
    return d


def hidden_leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def test_ctrl_c_exits_130_within_a_second_and_leaves_no_out(slow_inputs, tmp_path):
    out = tmp_path / "out"
    p = subprocess.Popen(
        [*CLI, "evaluate", slow_inputs / "truth.parquet", slow_inputs / "actual.parquet",
         "--classic", "--out", out],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(5)  # reading and the cells take ~1 s; the matching is under way
    assert p.poll() is None, "finished before it could be interrupted"
    start = time.monotonic()
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=30)
    took = time.monotonic() - start
    stderr = p.stderr.read()
    assert rc == 130, stderr
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert stderr.strip().splitlines()[-1] == "interrupted"
    assert not out.exists() and hidden_leftovers(tmp_path) == []


def test_out_that_cannot_be_written_is_refused_before_the_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for args, message in [
        (["evaluate", *EXAMPLE_ARGS, "--out", blocker], "exists and is not a directory"),
        (["evaluate", *EXAMPLE_ARGS, "--out", blocker / "sub"], "is not a directory"),
        (["diff", *EXAMPLE_ARGS[:2], "--out", blocker], "exists and is not a directory"),
        (["sample", *EXAMPLE_ARGS[:2], "--pairs", "5", "--seed", "1", "--out", tmp_path],
         "is a directory"),
    ]:  # fmt: skip
        proc = subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stdout == ""  # nothing was computed and shown first


def test_an_existing_out_is_replaced_whole_or_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("kept")
    proc = subprocess.run([*CLI, "evaluate", *EXAMPLE_ARGS, "--out", out], capture_output=True,
                          text=True)  # fmt: skip
    assert proc.returncode == 2 and "holds files clusterscore did not write" in proc.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"] and proc.stdout == ""
    (out / "notes.txt").unlink()
    proc = subprocess.run([*CLI, "diff", *EXAMPLE_ARGS, "--out", out], capture_output=True)
    assert proc.returncode == 0 and (out / "flows.parquet").exists()
    # An earlier run's folder is replaced whole: diff's flows do not stay beside evaluate's.
    proc = subprocess.run([*CLI, "evaluate", *EXAMPLE_ARGS, "--out", out], capture_output=True)
    assert proc.returncode == 0
    assert {"summary.json", "per_item.parquet"} <= {p.name for p in out.iterdir()}
    assert not (out / "flows.parquet").exists()
    assert hidden_leftovers(tmp_path) == [] and hidden_leftovers(out) == []


def read_pty(fd, proc):
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    return b"".join(chunks).decode(errors="replace")


def test_progress_on_a_terminal_only(tmp_path):
    master, slave = pty.openpty()
    proc = subprocess.Popen([*CLI, "evaluate", *EXAMPLE_ARGS, "--out", tmp_path / "o"],
                            stdout=subprocess.DEVNULL, stderr=slave)  # fmt: skip
    os.close(slave)
    shown = read_pty(master, proc)
    os.close(master)
    assert proc.wait() == 0
    for step in ("reading", "joining and building cells", "writing"):
        assert step in shown, shown
    piped = subprocess.run([*CLI, "evaluate", *EXAMPLE_ARGS], capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == ""
    master, slave = pty.openpty()
    quiet = subprocess.Popen([*CLI, "evaluate", *EXAMPLE_ARGS, "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=slave)  # fmt: skip
    os.close(slave)
    assert read_pty(master, quiet).strip() == ""
    os.close(master)
    assert quiet.wait() == 0


def test_progress_bars_fill_as_the_core_works(tmp_path):
    """The bootstrap's bar is seen part-way (a percentage between 0 and 100, reported by
    the core's loop as it goes), then full."""
    rng = np.random.default_rng(1)
    ids = np.arange(200_000)
    truth = rng.integers(0, 20_000, len(ids))
    for name, labels in (("t", truth), ("a", np.where(rng.random(len(ids)) < 0.1, 0, truth))):
        table = pa.table({"item_id": ids, "cluster_id": labels})
        pq.write_table(table, tmp_path / f"{name}.parquet")
    master, slave = pty.openpty()
    runs = [tmp_path / "t.parquet", tmp_path / "a.parquet", tmp_path / "a.parquet"]
    proc = subprocess.Popen([*CLI, "compare", *runs, "--resamples", "4000"],
                            stdout=subprocess.DEVNULL, stderr=slave)  # fmt: skip
    os.close(slave)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", read_pty(master, proc))
    os.close(master)
    assert proc.wait() == 0
    seen = [int(p) for p in re.findall(r"bootstrap \(4,000 resamples\)[^\r\n]*?(\d+)%", shown)]
    assert any(0 < p < 100 for p in seen), shown[-2000:]
    assert seen[-1] == 100 and seen == sorted(seen), seen


@pytest.mark.parametrize("json_out, read", [([], 10), (["--json"], 10), (["--json"], 0)])
def test_a_reader_that_stops_early_does_not_stop_out(tmp_path, json_out, read):
    out = tmp_path / "out"
    proc = subprocess.Popen([*CLI, "evaluate", *EXAMPLE_ARGS, "--out", out, *json_out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    proc.stdout.read(read)
    proc.stdout.close()  # as `| head -c 10` does, or a reader gone before any output
    assert proc.wait() == 0, proc.stderr.read()
    assert (out / "summary.json").exists() and (out / "per_item.parquet").exists()


def test_classic_block_only_when_asked(tmp_path):
    plain = subprocess.run([*CLI, "evaluate", *EXAMPLE_ARGS, "--out", tmp_path / "a"],
                           capture_output=True, text=True)  # fmt: skip
    assert "Classic" not in plain.stdout
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert "classic" not in summary and summary["options"]["classic"] is False
    asked = subprocess.run([*CLI, "evaluate", *EXAMPLE_ARGS, "--classic"],
                           capture_output=True, text=True)  # fmt: skip
    assert "Classic metrics" in asked.stdout and "clustering_error" in asked.stdout


def _wait_for_sigint_handler(pid: int, timeout: float = 30.0) -> None:
    """Waits until process `pid` catches SIGINT (Linux: SigCgt in /proc/PID/status)."""
    bit = 1 << (signal.SIGINT - 1)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with open(f"/proc/{pid}/status") as f:
            caught = next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt:"))
        if caught & bit:
            return
        time.sleep(0.005)
    raise AssertionError("the interpreter never installed its SIGINT handler")


@pytest.mark.parametrize("delay", [0.25, 0.5, 0.8])
def test_ctrl_c_while_the_command_starts_exits_130(delay):
    """Ctrl-C while the libraries load (the first second of every run): the one line
    `interrupted` and status 130, not a traceback or death by signal."""
    command = os.path.join(os.path.dirname(sys.executable), "clusterscore")
    # Resamples enough that the command is still at work when the signal comes.
    args = ["evaluate", *EXAMPLE_ARGS, "--resamples", "100000"]
    p = subprocess.Popen([command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)  # fmt: skip
    # Before the interpreter installs its handler, SIGINT kills any Python program, and
    # until the entry point's first line (site packages, the console script's imports: tens
    # of milliseconds) it is Python's traceback: no code of ours runs yet. On a loaded
    # machine that first moment can last a second, so the delay counts from the handler.
    _wait_for_sigint_handler(p.pid)
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=30)
    stderr = p.stderr.read()
    assert rc == 130, (rc, stderr)
    assert "Traceback" not in stderr and stderr.strip().splitlines()[-1] == "interrupted"


def test_importing_the_package_loads_no_heavy_library():
    """`import clusterscore` is cheap: the modules behind its names load on first use."""
    code = (
        "import sys, clusterscore; print(sorted({'pandas', 'pyarrow', 'numpy'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_outputs_get_the_permissions_of_a_file_written_directly(tmp_path):
    """Staged out of sight in private temporary files, they end with the umask's modes."""
    mask = os.umask(0o022)
    try:
        out, report = tmp_path / "out", tmp_path / "r.html"
        proc = subprocess.run([*CLI, "diff", *EXAMPLE_ARGS[:2], "--out", out, "--report", report],
                              capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert (out.stat().st_mode & 0o777) == 0o755
        assert ((out / "summary.json").stat().st_mode & 0o777) == 0o644
        assert (report.stat().st_mode & 0o777) == 0o644
    finally:
        os.umask(mask)
