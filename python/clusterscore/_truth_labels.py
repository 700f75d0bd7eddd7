"""Labels back as a truth (docs/metrics.md, "drawing the truth sample"): each seed's entity
is the seed with every record labelled the same entity as it (and, as "same entity" is
transitive, with every entity those records were labelled into); each entity's design weight
is 1/π for its labelled size. π, the union of labels and the matching of ids are the core's."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _arrays, _core
from ._io import Source, clip, load_table, revive_ids
from ._truth_sample import TruthSample, load_truth_sample
from ._verdicts import bad_lines

ANSWERS = ("yes", "no")
_COLUMNS = ("seed", "item_id", "same_entity")


class LabelledTruth(NamedTuple):
    """`truth`: item_id, cluster_id (each entity named by its first seed's id); `weights`:
    cluster_id, weight (1/π of the entity's labelled size)."""

    truth: pd.DataFrame
    weights: pd.DataFrame


def truth_from_labels(labels: Any, sample: Any) -> LabelledTruth:
    """The truth of complete entities and its design weights from the labelling page's
    export (`labels`: one file or table, or a list: seed, item_id, same_entity in yes/no,
    optional labeller and note) and the sample they label (a TruthSample or its folder).
    Every bad line (an unknown seed or record, an answer that is not yes or no, a record
    labelled both ways for one seed) and every seed left unlabelled is an error."""
    s = sample if isinstance(sample, TruthSample) else load_truth_sample(sample)
    sources = _sources(labels)
    records = s.records
    n = len(records)
    seed_rows = _rows(records, [pa.chunked_array([pa.array(s.seeds)])])[0]
    first_seed = np.full(n, -1, np.int64)
    first_seed[seed_rows[::-1]] = np.arange(len(seed_rows))[::-1]
    left, right, yes, where = [], [], [], []
    bad: list[tuple[list[tuple[Source, int]], str]] = []
    for src in sources:
        t = src.table
        cols = [t.column("seed"), t.column("item_id")]
        at_seed, at_item = _rows(records, cols)
        answers = [("" if v is None else str(v).strip().lower()) for v in
                   t.column("same_entity").to_pylist()]  # fmt: skip
        for row in range(t.num_rows):
            what = _bad(at_seed[row], at_item[row], answers[row], first_seed, cols, row)
            if what:
                bad.append(([(src, row)], what))
                continue
            left.append(at_seed[row])
            right.append(at_item[row])
            yes.append(answers[row] == "yes")
            where.append((src, row))
    unlabelled = sorted(set(range(len(seed_rows))) - {int(first_seed[r]) for r in left})
    if unlabelled:
        shown = ", ".join(clip(repr(s.seeds[k]), 40) for k in unlabelled[:10])
        more = f" and {len(unlabelled) - 10:,} more" if len(unlabelled) > 10 else ""
        bad.append(([], f"{len(unlabelled):,} seed records have no label: {shown}{more}"
                        " (label every seed: the weights assume all were)"))  # fmt: skip
    if bad:
        raise ValueError(_message(bad))
    component = _entities(n, np.asarray(left), np.asarray(right), np.asarray(yes))
    _check_no(component, left, right, yes, where, s)
    return _truth(records, component, seed_rows, s)


def _sources(labels: Any) -> list[Source]:
    many = labels if isinstance(labels, (list, tuple)) else [labels]
    if not many:
        raise ValueError("no labels given")
    sources = [load_table(v, "labels", (*_COLUMNS, "labeller")) for v in many]
    for src in sources:
        revive_ids(src, ("seed", "item_id"))  # the page's export: ids made inert
        names = src.table.column_names
        for c in _COLUMNS:
            if c not in names:
                raise ValueError(f"{src.name}: no column {c!r} (columns: {', '.join(names)})")
    return sources


def _rows(records: pa.Array, columns: list[pa.ChunkedArray]) -> list[np.ndarray]:
    """Per column, each value's row among `records` (≥ len(records): not a record)."""
    codes = _arrays.shared_codes([pa.chunked_array([records]), *columns])[1].astype(np.int64)
    out, start = [], len(records)
    for c in columns:
        out.append(codes[start : start + len(c)])
        start += len(c)
    return out


def _bad(seed: int, item: int, answer: str, first_seed: np.ndarray, cols: list, row: int) -> str:
    n = len(first_seed)
    if seed >= n or first_seed[seed] < 0:
        return f"seed {clip(repr(cols[0][row].as_py()), 40)} is not a seed of the sample"
    if item >= n:
        return f"record {clip(repr(cols[1][row].as_py()), 40)} is not a record of the sample"
    if answer not in ANSWERS:
        return f"same_entity {clip(repr(answer), 40)} is not yes or no"
    return ""


def _entities(n: int, left: np.ndarray, right: np.ndarray, yes: np.ndarray) -> np.ndarray:
    """Each record's entity: records labelled the same entity as a seed, joined (the
    core's union–find); every other record alone."""
    keep = yes.astype(bool) & (left != right)  # a seed is its own entity's already
    pick = np.ascontiguousarray
    return np.asarray(_core.components_at(
        n, pick(left[keep].astype(np.uint32)), pick(right[keep].astype(np.uint32)),
        np.ones(int(keep.sum())), 0.5))  # fmt: skip


def _check_no(component: np.ndarray, left: list, right: list, yes: list, where: list,
              s: TruthSample) -> None:  # fmt: skip
    """A record labelled not the seed's entity that the labels put there all the same."""
    bad = []
    for seed, item, y, line in zip(left, right, yes, where, strict=True):
        if not y and component[seed] == component[item]:
            what = ("labelled not the seed's entity, but other labels put it in that entity"
                    " (same entity is transitive): check both")  # fmt: skip
            bad.append(([line], what))
    if bad:
        raise ValueError(_message(bad))


def _truth(records: pa.Array, component: np.ndarray, seed_rows: np.ndarray,
           s: TruthSample) -> LabelledTruth:  # fmt: skip
    """The entities that hold a seed, each named by its first seed's id, with 1/π."""
    name_of: dict[int, Any] = {}
    for k, r in enumerate(seed_rows.tolist()):
        name_of.setdefault(int(component[r]), s.seeds[k])
    members = np.flatnonzero(np.isin(component, np.fromiter(name_of, np.int64)))
    entity = component[members]
    ids = _arrays.take(records, pa.array(members.astype(np.int64))).to_pylist()
    truth = pd.DataFrame({"item_id": ids, "cluster_id": [name_of[int(c)] for c in entity]})
    comps, code, sizes = np.unique(entity, return_inverse=True, return_counts=True)
    pi: Any
    if s.chances is None:
        pi = _core.inclusion_probabilities(int(s.meta["records"]), int(s.meta["draws"]),
                                           sizes.astype(np.uint64))  # fmt: skip
    else:
        pi = _core.entity_inclusion_probabilities(s.chances, members.astype(np.uint64),
                                                  code.astype(np.uint32), len(comps))  # fmt: skip
    weights = pd.DataFrame({"cluster_id": [name_of[int(c)] for c in comps], "weight": 1.0 / pi})
    return LabelledTruth(truth, weights)


def _message(bad: list) -> str:
    lines = [b for b in bad if b[0]]
    whole = [what for rows, what in bad if not rows]
    text = bad_lines(lines) if lines else ""
    return "; ".join([t for t in (text, *whole) if t])
