"""The page for labelling the truth sample (`TruthSample.page`, `clusterscore draw-truth
--page`): per seed record, its candidates with their attributes, ticks for "same entity as
the seed", records added by id; the labels exported as a file truth_from_labels reads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ._pages import EXPORT_RULES, texts, tool_page, write_page

_BODY = """
<header><h1>Label the truth sample</h1><p id="progress" class="note" aria-live="polite"></p>
<button id="switch" hidden>change labeller</button></header>
<main>
<form id="who" class="card" autocomplete="off">
  <p>Each seed record comes with the records that might be the same real-world entity. Tick
  every record that is the <b>same entity as the seed</b>; add any other by its id. Your
  labels are kept in this browser as you give them; export them when you stop.</p>
  <label>Your name <input id="rater" required maxlength="80"></label>
  <button type="submit">Start</button>
  <p id="storage-warning" class="warning" hidden></p>
</form>
<section id="work" hidden>
  <p id="position"></p>
  <p id="status" class="note"></p>
  <table id="candidates"><thead><tr></tr></thead><tbody></tbody></table>
  <div class="buttons">
    <button id="done"><kbd>Enter</kbd> labelled, next seed</button>
    <button id="back"><kbd>B</kbd> previous seed</button>
    <button id="export"><kbd>E</kbd> export</button>
  </div>
  <form id="add-form" autocomplete="off"><label><kbd>A</kbd> add a record by id
    <input id="add" maxlength="500"></label> <button type="submit">add</button></form>
  <label class="note-field"><kbd>N</kbd> note
    <input id="note" maxlength="500" placeholder="optional, kept with this seed"></label>
</section>
<p class="help">Keys: <kbd>&darr;</kbd>/<kbd>J</kbd> and <kbd>&uarr;</kbd>/<kbd>K</kbd> move,
<kbd>Space</kbd> or <kbd>X</kbd> ticks, <kbd>Enter</kbd> finishes the seed, <kbd>B</kbd> goes
back, <kbd>A</kbd> adds a record by id, <kbd>N</kbd> note, <kbd>E</kbd> export.</p>
</main>
"""


def label_data(sample: Any, name: str) -> dict[str, Any]:
    """Per seed, in the order drawn: its id and its candidates' ids and attributes (the
    seed's own record first), as text."""
    t = sample._candidates
    columns = [c for c in t.column_names if c not in ("seed", "item_id")]
    seed, ids = texts(t.column("seed")), texts(t.column("item_id"))
    values = [texts(t.column(c)) for c in columns]
    rows: dict[str | None, list] = {}
    for k, s in enumerate(seed):
        rows.setdefault(s, []).append([ids[k], [v[k] for v in values]])
    seeds = [{"id": str(s), "rows": rows[str(s)]} for s in sample.seeds]
    what = json.dumps([sample.meta["seed"], sample.meta["records"], seeds], default=str)
    key = hashlib.sha256(what.encode()).hexdigest()[:32]
    return {"key": key, "name": name, "columns": columns, "seeds": seeds,
            "export": EXPORT_RULES}  # fmt: skip


def write_label_page(sample: Any, path: str | Path, name: str) -> Path:
    """Writes the labelling page of `sample` to `path`; `name` goes into the exported
    files' names."""
    data = label_data(sample, name)
    return write_page(tool_page(f"Label the truth sample: {name}", _BODY, data, "label.js"), path)
