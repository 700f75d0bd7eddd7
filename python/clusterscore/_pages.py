"""Pages for the human half (judging pairs, labelling the truth sample): one self-contained
HTML file each, that works offline from a file or a shared drive. Python chooses and
formats everything the page shows and everything its export writes; the page's script
only displays, keeps the person's answers in the browser and writes them out. Every value
reaches the page as script-safe JSON and is put on screen as text (never as markup)."""

from __future__ import annotations

import html
from importlib import resources
from pathlib import Path
from typing import Any

from . import _sheets as sheets
from ._html_report import script_hash, script_json

# The rules the page's export applies, handed to it so that they are written once: a cell a
# spreadsheet would evaluate gets a leading apostrophe, as every CSV the project writes.
EXPORT_RULES = {"active": sheets.ACTIVE}


def texts(column: Any) -> list[str | None]:
    """A column's values as a page shows them: the text a CSV holds, null kept null."""
    return sheets.as_text(column).to_pylist()


def _asset(name: str) -> str:
    return (resources.files("clusterscore") / "pages" / name).read_text(encoding="utf-8")


def _policy(script: str) -> str:
    """Nothing from the network, no script but the page's own (by hash), inline styles."""
    return (
        f"default-src 'none'; script-src {script_hash(script)}; style-src 'unsafe-inline';"
        " img-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'"
    )


def tool_page(title: str, body: str, data: dict[str, Any], script: str) -> str:
    """The HTML of a page: `body` (static markup, no value from the inputs in it), `data`
    as JSON in a script element, then common.js and the page's `script` (a file of
    pages/)."""
    code = _asset("common.js") + "\n" + _asset(script)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(_policy(code))}">'
        f"<title>{html.escape(title)}</title><style>{_asset('pages.css')}</style></head>"
        f"<body>{body}"
        f'<script type="application/json" id="page-data">{script_json(data)}</script>'
        f"<script>{code}</script></body></html>\n"
    )


def write_page(text: str, path: str | Path) -> Path:
    p = Path(path)
    p.write_text(text, encoding="utf-8")
    return p
