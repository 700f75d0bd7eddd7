"""The page for judging a sample's pairs (`PairSample.page`, `clusterscore page`): the
raters' table of `PairSample.raters_table()`, one pair at a time, blind to the pair's kind
and to the clusterings; each rater's verdicts exported as a file `estimate` reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ._pages import EXPORT_RULES, texts, tool_page, write_page
from ._sample import checksum

_BODY = """
<header><h1>Judge pairs</h1><p id="progress" class="note" aria-live="polite"></p>
<button id="switch" hidden>change rater</button></header>
<main>
<form id="who" class="card" autocomplete="off">
  <p>Each pair shows two records. Say whether they describe the <b>same</b> real-world entity.
  Your verdicts are kept in this browser as you give them; export them when you stop.</p>
  <label>Your name <input id="rater" required maxlength="80"></label>
  <button type="submit">Start</button>
  <p id="storage-warning" class="warning" hidden></p>
</form>
<section id="work" hidden>
  <p id="position" class="note"></p>
  <table id="pair"><thead><tr><th></th><th>Record A</th><th>Record B</th></tr></thead>
  <tbody></tbody></table>
  <div class="buttons">
    <button id="same" data-verdict="same"><kbd>S</kbd> same</button>
    <button id="different" data-verdict="different"><kbd>D</kbd> different</button>
    <button id="unsure" data-verdict="unsure"><kbd>U</kbd> unsure</button>
    <button id="back"><kbd>B</kbd> back</button>
    <button id="undo"><kbd>Z</kbd> undo</button>
    <button id="export"><kbd>E</kbd> export</button>
  </div>
  <label class="note-field"><kbd>N</kbd> note
    <input id="note" maxlength="500" placeholder="optional, kept with your next verdict">
  </label>
</section>
<section id="done" class="card" hidden>
  <p id="done-text"></p>
  <button id="export-done"><kbd>E</kbd> export my verdicts</button>
  <button id="back-done"><kbd>B</kbd> back</button>
</section>
<p class="help">Keys: <kbd>S</kbd> same, <kbd>D</kbd> different, <kbd>U</kbd> unsure,
<kbd>B</kbd> or <kbd>&larr;</kbd> back, <kbd>Z</kbd> undo, <kbd>N</kbd> note
(<kbd>Enter</kbd> leaves it), <kbd>E</kbd> export.</p>
</main>
"""


def judge_data(sample: Any, name: str, since: Any = None) -> dict[str, Any]:
    """What the page shows and exports: the raters' table in a seeded random order (first
    copies, then the second copies of the replicated pairs), each pair's attributes in the
    items table's column order, and which first copy a second copy repeats."""
    t = sample.raters_table(since)
    attrs = [c for c in t.column_names if c not in ("item_i", "item_j", "copy", "verdict")]
    half = len(attrs) // 2
    columns = [c.removesuffix("_i") for c in attrs[:half]]
    ids = [texts(t.column("item_i")), texts(t.column("item_j"))]
    values = [
        [texts(t.column(c)) for c in attrs[:half]],
        [texts(t.column(c)) for c in attrs[half:]],
    ]
    copy = t.column("copy").to_numpy()
    rng = np.random.default_rng(int(sample.meta["seed"]))  # display order only: no estimate
    first, second = np.flatnonzero(copy == 1), np.flatnonzero(copy == 2)
    order = np.concatenate([rng.permutation(first), rng.permutation(second)])
    position: dict[tuple[Any, Any], int] = {}
    tasks = []
    for k, row in enumerate(order.tolist()):
        pair = (ids[0][row], ids[1][row])
        twin = -1
        if copy[row] == 1:
            position[pair] = k
        else:
            twin = position.get(pair, -1)
        a, b = ([v[row] for v in side] for side in values)
        tasks.append({"i": pair[0], "j": pair[1], "copy": int(copy[row]), "twin": twin,
                      "a": a, "b": b})  # fmt: skip
    return {"key": checksum(sample.table, sample.meta),
            "name": name, "columns": columns, "tasks": tasks, "export": EXPORT_RULES}  # fmt: skip


def write_judge_page(sample: Any, path: str | Path, since: Any, name: str) -> Path:
    """Writes the judging page of `sample` (the pairs new since `since`, a sample this one
    continues) to `path`; `name` goes into the exported files' names."""
    p = Path(path)
    data = judge_data(sample, name, since)
    return write_page(tool_page(f"Judge pairs: {name}", _BODY, data, "judge.js"), p)
