"""The `clusterscore` command."""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import importlib
import importlib.util
import json
import os
import re
import signal
import sys
import warnings
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import pyarrow as pa
import typer

from . import _progress as progress
from . import _report as report
from . import _stops as stops
from ._cli_options import input_arg, path_of
from ._diff import Diff
from ._estimates import CommonScopeWarning
from ._evaluate import Evaluation
from ._io import EXHAUSTED
from ._io_source import DELIMITER
from ._lake import LakeFolder, is_lake
from ._output import Staging, file_part
from ._terms import command_line
from ._threads import set_threads


class _Command(typer.core.TyperCommand):
    """A command whose usage line names its arguments as the help's text does
    (`TRUTH ACTUAL`, `[RUN]...`), where typer writes `{truth}`."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, typer.core.TyperArgument) and param.name:
                name = param.name.upper() + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        return pieces


app = typer.Typer(
    help="Fast, exact evaluation of clusterings.",
    no_args_is_help=True,
    # Plain help: paragraphs rewrapped to the terminal, flags without a type label.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])

# The running command's outputs, and what to say once they are in place.
_staging: Staging | None = None
_after_commit: list[Callable[[], None]] = []


def command(fn: F) -> F:
    """A subcommand that shows its progress unless --quiet, puts its outputs in place
    only when it is done, and ends on SIGINT (Ctrl-C), SIGTERM or SIGHUP with status
    128 + the signal's number and one line, having removed whatever it was writing."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        global _staging
        staging = _staging = Staging()
        _after_commit.clear()
        try:
            try:
                # From here a stopping signal raises Stopped, which the core's loops poll
                # for (the entry point exits at once before).
                stops.install()
                warnings.showwarning = _warning_line
                # The tables print the common scope's caveat themselves, in place.
                warnings.filterwarnings("ignore", category=CommonScopeWarning)
                if kwargs.get("threads") is not None:
                    set_threads(kwargs["threads"])
                chosen = kwargs.get("delimiter")
                delimiter = DELIMITER.set(None if chosen is None else _delimiter(chosen))
                try:
                    with command_line(), progress.shown(not kwargs.get("quiet", False)):
                        result = fn(*args, **kwargs)
                finally:
                    DELIMITER.reset(delimiter)  # this command's alone
                staging.commit()
            except BaseException:
                staging.discard()
                stops.ignore()
                raise
            stops.ignore()
            for say in _after_commit:
                say()
            return result
        except KeyboardInterrupt as e:
            signum = stops.signal_number(e)
            words = "interrupted" if signum == signal.SIGINT else f"stopped by {e}"
            with contextlib.suppress(OSError):  # a terminal gone with SIGHUP
                print(words, file=sys.stderr, flush=True)
            raise SystemExit(128 + signum) from None
        except MemoryError:
            raise ValueError(out_of_memory()) from None
        except RuntimeError as e:  # the system's words for no memory, from a library
            if any(m in str(e) for m in EXHAUSTED):
                raise ValueError(out_of_memory()) from None
            raise
        except OSError as e:
            if e.filename is None and e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise ValueError(
                    f"no space left on the device writing {', '.join(map(str, staging.targets()))}"
                    " (nothing was written)"
                ) from None
            raise
        finally:
            _staging = None

    name = fn.__name__.replace("_", "-")  # draw_truth: `clusterscore draw-truth`
    return app.command(name, cls=_Command)(run)  # type: ignore[return-value]


def _warning_line(message: Any, *_: Any, **__: Any) -> None:
    """A warning as one line on stderr, `warning: ...` (not Python's two, with a file)."""
    with contextlib.suppress(OSError):
        print(f"warning: {message}", file=sys.stderr, flush=True)


def out_of_memory() -> str:
    """What ran out of memory: the step under way and the size of the command's inputs."""
    where = progress.failed_step() or "working"
    return (
        f"out of memory while {where} (inputs: {_size(command_inputs())}); nothing was"
        " written. Free memory, raise the process's limit, or use --engine spark"
    )


def command_inputs() -> list[Path]:
    """The files named on the command line that exist (to size a failure)."""
    found = []
    for arg in sys.argv[1:]:
        p = Path(arg.partition("=")[2] if "=" in arg and not Path(arg).exists() else arg)
        with contextlib.suppress(OSError, ValueError):
            if p.is_file():
                found.append(p)
    return found


def _size(paths: list[Path]) -> str:
    total = float(sum(p.stat().st_size for p in paths))
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if total < 1000 or unit == "TB":
            return f"{total:,.0f} {unit}" if unit == "bytes" else f"{total:.1f} {unit}"
        total /= 1000
    return ""


def _stage() -> Staging:
    assert _staging is not None, "outside a command"
    return _staging


def staged(out: str | None, engine: Any = None) -> Path | LakeFolder | None:
    """--out, checked and claimed now (before the work): the hidden folder to write into,
    which becomes --out when the command is done. A lake path (scheme://...) is written
    through Spark (`engine` Engine.spark, its session started), as a LakeFolder."""
    if out is None:
        return None
    if not is_lake(out):
        return _stage().folder(Path(out), _OUT_FILES)
    if getattr(engine, "value", None) != "spark":
        how = "add --engine spark" if engine is not None else "this command runs on this machine"
        raise ValueError(f"--out {out}: a lake path is written by Spark; {how}, or name a"
                         " local folder")  # fmt: skip
    from pyspark.sql import SparkSession

    return _stage().lake(SparkSession.getActiveSession(), out, _OUT_FILES)


# What --out folders hold: an existing one with anything else is not replaced.
_OUT_FILES = (".parquet", "summary.json")


def _delimiter(text: str) -> str:
    """--delimiter's value: one character (\\t, as a shell passes a tab, is one)."""
    d = "\t" if text in ("\\t", "tab") else text
    if len(d) != 1 or d in ('"', "\n", "\r"):
        raise ValueError(f"--delimiter {text!r}: give one character, such as ';' or '\\t'")
    return d


def _has_module(name: str) -> bool:
    """Whether `name` can be imported, without importing it (altair takes a second)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a module set aside (None in sys.modules)
        return False


class Outputs:
    """--report and --png: checked before the work, written when it is done (the report
    out of sight until complete)."""

    def __init__(self, report_path: Path | None, png: Path | None, json_out: bool = False) -> None:
        if png is not None and report_path is None:
            raise ValueError("--png writes the report's charts: give --report FILE.html too")
        if report_path is not None and report_path.suffix.lower() not in (".html", ".htm"):
            raise ValueError(f"--report {report_path}: name an .html file")
        if report_path is not None and not all(map(_has_module, ("altair", "vl_convert"))):
            raise ValueError("--report needs the report extra: pip install 'clusterscore[report]'")
        self.report_path, self.png_path, self.json_out = report_path, png, json_out
        self.staged = None if report_path is None else _stage().file(report_path)
        self.png = None if png is None else _stage().folder(png, (".png",))

    def write(self, result: Any, slices: Any = ()) -> None:
        if self.staged is None:
            return
        from ._html_report import report as write_report

        with progress.step(f"writing {self.report_path}"):
            write_report(result, self.staged, slices=list(slices or []), png=self.png)
        png = "" if self.png_path is None else f" and {self.png_path}/"
        wrote(self.json_out, f"{self.report_path}{png}")


def wrote(json_out: bool, what: str) -> None:
    """Says what was written, on stdout, or on stderr when stdout carries JSON, once it is
    in place."""

    def say() -> None:
        try:
            print(f"wrote {what}", file=sys.stderr if json_out else sys.stdout, flush=True)
        except BrokenPipeError:
            report.silence_stdout()

    _after_commit.append(say)


def show_json(summary: dict[str, Any]) -> None:
    """--json: the summary on stdout, nothing else (progress and warnings go to stderr).
    A reader that has gone (`| head`) stops the printing, not the command."""
    try:
        print(json.dumps(report.json_safe(summary), indent=2, allow_nan=False), flush=True)
    except BrokenPipeError:
        report.silence_stdout()


def inputs(paths: dict[str, Any], fingerprints: dict[str, str]) -> dict[str, Any]:
    """summary.json's record of each input: where it was read from and its fingerprint."""
    return {role: {"path": None if p is None else str(path_of(input_arg(p))),
                   "fingerprint": fingerprints.get(role)} for role, p in paths.items()}  # fmt: skip


def header(command: str, **options: Any) -> dict[str, Any]:
    """What every summary opens with: the command, the version and its options."""
    from ._version import __version__

    return {
        "command": command,
        "version": __version__,
        "options": {k: (v.value if isinstance(v, Enum) else v) for k, v in options.items()},
    }


def _version(value: bool) -> None:
    if value:
        from ._version import __version__

        print(f"clusterscore {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Fast, exact evaluation of clusterings. Files are CSV, TSV or Parquet (by extension)
    with columns item_id and cluster_id (see --item-col, --cluster-col)."""


def _per_item(result: Evaluation | Diff) -> Iterator[Any]:
    """The per-item table's batches, the writing step's progress counted in its rows."""
    return progress.counted(result.per_item_batches(), int(result.coverage["common_items"]))


def _write(
    out: Path | LakeFolder, summary: dict, tables: dict, clusters: dict, slices: dict
) -> None:  # fmt: skip
    """summary.json, then one Parquet table per table, per cluster of each side, per slice."""
    put(out, "summary.json", summary)
    for name, table in tables.items():
        put(out, f"{name}.parquet", table)
    for side, table in clusters.items():
        put(out, f"per_{side}_cluster.parquet", table)
    for name, table in slices.items():
        put(out, f"per_slice_{file_part(name)}.parquet", table)


def put(out: Path | LakeFolder, name: str, data: Any) -> None:
    """Output `name` of an --out folder: summary.json (a dict), or a Parquet table from an
    Arrow table, from batches, or (a lake's) from a Spark DataFrame by Spark's writer, which
    makes it a folder of Parquet files."""
    if isinstance(out, Path):
        if name.endswith(".json"):
            report.write_json(out / name, data)
        else:
            report.write_parquet(out / name, data)
    elif name.endswith(".json"):
        out.write_bytes(name, report.json_text(data).encode())
    elif isinstance(data, pa.Table):
        out.write_table(name, data)
    else:
        data.write.parquet(out.path(name))


def for_lake(staging: Any) -> bool:
    """Whether --out names a lake path: its large tables go as Spark DataFrames (put)."""
    return isinstance(staging, LakeFolder)


def _spark_message(e: BaseException) -> str:
    """The line of a Spark error that says what went wrong: py4j's first line only names
    the call ("An error occurred while calling o27.parquet."); the JVM's message follows."""
    text = str(e)
    # A worker whose Python lacks what it runs: the commonest set-up error, and the one
    # whose traceback (sixty lines of Java and Python) least says what to do.
    missing = re.search(r"No module named '([\w.]+)'", text)
    if missing is not None and ("PythonException" in type(e).__name__ or "worker" in text.lower()
                                or "Py4JJavaError" in type(e).__name__):  # fmt: skip
        python = os.environ.get("PYSPARK_PYTHON", "the workers' python")
        return (f"the Python of Spark's workers ({python}) cannot import {missing.group(1)!r}:"
                " install clusterscore (with pyspark) there, or set PYSPARK_PYTHON to a Python"
                " that has it")  # fmt: skip
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].startswith("An error occurred while calling"):
        return lines[1].lstrip(": ")
    return lines[0] if lines else type(e).__name__


def main() -> None:
    """Entry point: bad input is one line on stderr and exit status 2, no traceback."""
    status: Any = 2
    try:
        # Not standalone: a usage error comes here, to be one line like every other error.
        status = app(prog_name="clusterscore", standalone_mode=False)
        status = status if isinstance(status, int) else 0
    except SystemExit as e:  # every other end: a gate, a stopping signal
        status = e.code
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)  # one line, never wrapped
    except Exception as e:
        kinds = {k.__name__ for k in type(e).__mro__}
        if "NoArgsIsHelpError" in kinds:  # `clusterscore` alone: the help, as -h gives it
            print(e.format_message(), file=sys.stderr)  # type: ignore[attr-defined]
        elif "UsageError" in kinds:  # the command line's parser (click, as typer ships it)
            where = getattr(getattr(e, "ctx", None), "command_path", None) or "clusterscore"
            print(f"error: {e.format_message()} ({where} -h for help)", file=sys.stderr)  # type: ignore[attr-defined]
        elif "Abort" in kinds:  # Ctrl-C while the parser reads
            print("interrupted", file=sys.stderr)
            status = 130
        elif type(e).__module__.startswith(("pyspark", "py4j")):
            # Spark's errors (--engine spark) carry the JVM's stack: their first line says it.
            print(f"error: Spark: {_spark_message(e)}", file=sys.stderr)
        else:
            raise
    # The error's traceback keeps the command's frames, and the Arrow data they hold, in
    # reference cycles: freed in the interpreter's teardown, Arrow sometimes aborted there
    # ("terminate called without an active exception", 6 runs of 600 under load) instead
    # of exiting with status 2. So they are collected now, outside the handler (inside
    # it, SystemExit would keep the traceback as its context): 0 runs of 600. A stopped
    # command's frames likewise: the bindings' teardown would report the core's objects
    # they hold as leaked.
    gc.collect()
    sys.exit(status)


# The commands register themselves on `app` as they load, in the order --help lists them.
for _commands in ("_cli_score", "_cli_curve", "_cli_judge", "_cli_truth"):
    importlib.import_module(f".{_commands}", __package__)
