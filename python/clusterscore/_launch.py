"""The `clusterscore` command's entry point, kept light: the package's libraries load
inside it, where Ctrl-C during their second of loading is still the command's one line
`interrupted` and exit status 130, not a traceback or death by signal."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    run()
