"""Option names in the words of whoever called: `--item-col` on the command line,
`item_col` in Python. Errors are raised deep in the package, far from the CLI, and a
user should read the name of the thing they typed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

_CLI: ContextVar[bool] = ContextVar("clusterscore_cli_terms", default=False)

# Python keyword → command-line option, where the two differ beyond '_' → '-'.
_SPECIAL = {"pairs": "--pairs", "metrics": "--metric", "pilot": "--pilot-sample/--pilot-verdicts"}


def term(keyword: str) -> str:
    """How the caller names the option `keyword` (a Python keyword argument)."""
    if not _CLI.get():
        return keyword
    return _SPECIAL.get(keyword, "--" + keyword.replace("_", "-"))


def setting(keyword: str, value: object) -> str:
    """`keyword='value'` in Python, `--keyword value` on the command line; `...` for a
    value left to the reader."""
    shown = "..." if value is ... else value
    if _CLI.get():
        return f"{term(keyword)} {shown}"
    return f"{keyword}={shown if value is ... else repr(value)}"


@contextlib.contextmanager
def command_line() -> Iterator[None]:
    """Within it, errors name command-line options."""
    token = _CLI.set(True)
    try:
        yield
    finally:
        _CLI.reset(token)
