"""Drawing the truth sample to label (docs/metrics.md, "drawing the truth sample"): seed
records drawn uniformly without replacement, or each at a chance in proportion to its
actual cluster's size or a weight column; each seed's candidates (the records any given
clustering puts with it, and those sharing a blocking value), a labelling page, and the
labels back as a truth of complete entities with their design weights 1/π. The draw, the
candidates and π are the core's; this module moves ids, columns and files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import _arrays, _core
from . import _sheets as sheets
from ._io import (
    DEFAULT_WEIGHT_COL,
    Source,
    clip,
    load_clustering,
    load_items,
    require_columns,
)

_FORMAT = "clusterscore-truth-sample/1"
# How the seeds were drawn (sample.json's "design"; a sample without one is uniform).
UNIFORM, CLUSTER_SIZE, WEIGHT_COL = "uniform", "cluster_size", "weight_col"
_META, _CANDIDATES, _RECORDS = "sample.json", "candidates.parquet", "records.parquet"
# A group (a cluster, a blocking value) larger than this adds no candidates: a labeller
# cannot read it, and a blocking value shared by half the file is no candidate list.
MOST_PER_GROUP = 200


class TruthSample:
    """Seed records to label and their candidates.

    `.seeds`: the seed records' ids in the order drawn. `.candidates`: a DataFrame of
    `seed` (the seed's id), `item_id` and the items table's attributes, the seed's own
    record first. `.meta`: the population's size (`records`), the number drawn or expected
    (`draws`), how (`design`: uniform, cluster_size or weight_col, with `weight_col`), the
    seed, the runs and blocking column the candidates came from. `.chances`: each record's
    chance of being a seed when drawn in proportion (None when uniform)."""

    def __init__(self, candidates: pa.Table, records: pa.Array, meta: dict[str, Any],
                 chances: np.ndarray | None = None) -> None:  # fmt: skip
        self._candidates = candidates
        self._records = records
        self.meta = meta
        self.chances = chances

    @property
    def seeds(self) -> list[Any]:
        return list(self.meta["seeds"])

    @property
    def candidates(self) -> pd.DataFrame:
        return self._candidates.to_pandas()

    @property
    def records(self) -> pa.Array:
        """Every record of the population the seeds were drawn from."""
        return self._records

    def __repr__(self) -> str:
        m = self.meta
        return (f"TruthSample({len(m['seeds']):,} seed records of {m['records']:,},"
                f" {self._candidates.num_rows:,} candidates, seed {m['seed']})")  # fmt: skip

    def save(self, folder: str | Path) -> Path:
        """Writes the sample to `folder` (created): what truth_from_labels reads."""
        d = Path(folder)
        d.mkdir(parents=True, exist_ok=True)
        pq.write_table(self._candidates, d / _CANDIDATES)
        columns = {"item_id": self._records}
        if self.chances is not None:
            columns["chance"] = pa.array(self.chances, pa.float64())
        pq.write_table(pa.table(columns), d / _RECORDS)
        (d / _META).write_text(json.dumps(self.meta, indent=2) + "\n", encoding="utf-8")
        return d

    def page(self, path: str | Path, *, name: str | None = None) -> Path:
        """Writes the labelling page: per seed record, its candidates with their attributes
        and a tick for "same entity as the seed", a way to add a record by id, progress,
        answers kept in the browser, and an export that truth_from_labels reads."""
        from ._page_label import write_label_page

        return write_label_page(self, path, name=name or Path(path).stem)


def draw_truth_sample(
    actual: Any,
    other_runs: Any = (),
    items: Any = None,
    *,
    records: int,
    seed: int,
    block_col: str | None = None,
    by_cluster_size: bool = False,
    weight_col: str | None = None,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    most_per_group: int = MOST_PER_GROUP,
) -> TruthSample:
    """Draws `records` seed records uniformly without replacement from every record known
    (the items table's and every run's), and gathers each seed's candidates: the records
    that `actual` or any of `other_runs` puts in its cluster, and, with `block_col` (a
    column of `items`), the records sharing its value there. Label each seed's whole
    entity, then truth_from_labels() gives the truth and its weights 1/π.

    `by_cluster_size=True` draws each record independently instead, with a chance in
    proportion to the size of its cluster in `actual` (`records` seeds expected): the
    design whose pair metrics' intervals hold their confidence, as the records that carry
    most pairs are drawn more often. `weight_col` (a column of `items` with a number > 0
    for every record) draws in proportion to it."""
    if isinstance(records, bool) or not isinstance(records, int) or records < 1:
        raise ValueError(f"records must be a whole number ≥ 1, not {records!r}")
    if by_cluster_size and weight_col is not None:
        raise ValueError("draw by_cluster_size or in proportion to weight_col, not both")
    runs = [actual, *(other_runs.values() if isinstance(other_runs, dict) else other_runs)]
    clusterings = [load_clustering(r, "actual" if k == 0 else f"run {k + 1}", item_col,
                                   cluster_col) for k, r in enumerate(runs)]  # fmt: skip
    if weight_col is not None and items is None:
        raise ValueError(f"weight_col {weight_col!r} is a column of the items table: give items")
    item_src = None if items is None else load_items(items, item_col,
                                                      weight_col or DEFAULT_WEIGHT_COL)  # fmt: skip
    if block_col is not None:
        if item_src is None:
            raise ValueError(f"block_col {block_col!r} is a column of the items table: give items")
        require_columns(item_src, [block_col], "name the blocking column with block_col")
    id_columns = ([] if item_src is None else [item_src.table.column(item_col)]) + [
        c.table.column(item_col) for c in clusterings
    ]
    ids, rows = _arrays.shared_codes(id_columns)
    n_records = len(ids)
    if records > n_records:
        raise ValueError(f"records: {records:,} asked, but there are {n_records:,} records")
    groups = []
    offset = 0 if item_src is None else item_src.table.num_rows
    for src in clusterings:
        at = rows[offset : offset + src.table.num_rows]
        offset += src.table.num_rows
        groups.append(_scatter(n_records, at, src.table.column(cluster_col)))
    if block_col is not None and item_src is not None:
        groups.append(_scatter(n_records, rows[: item_src.table.num_rows],
                               item_src.table.column(block_col)))  # fmt: skip
    design = CLUSTER_SIZE if by_cluster_size else WEIGHT_COL if weight_col else UNIFORM
    chances: Any = None
    if design == UNIFORM:
        seeds: Any = _core.draw_records(n_records, records, seed)  # a uint64 array
    else:
        if design == CLUSTER_SIZE:
            weights = _cluster_sizes(groups[0])
        else:
            assert item_src is not None and weight_col is not None
            weights = _record_weights(n_records, rows[: item_src.table.num_rows], item_src,
                                      weight_col, ids)  # fmt: skip
        chances = _core.seed_chances(weights, records)
        seeds = _core.draw_records_in_proportion(chances, seed)
        if len(seeds) == 0:
            raise ValueError(f"no record was drawn with {records:,} expected: draw more records")
    seed_of, record, too_large = _core.gather_candidates(groups, seeds, most_per_group)
    seed_ids = _arrays.take(ids, pa.array(seeds.astype(np.int64))).to_pylist()
    candidates = _candidate_table(ids, seeds, seed_of, record, item_src, item_col, rows)
    meta = {"format": _FORMAT, "records": n_records, "draws": records, "seed": seed,
            "design": design, "weight_col": weight_col,
            "seeds": seed_ids, "runs": len(clusterings), "block_col": block_col,
            "most_per_group": most_per_group, "groups_too_large": int(too_large),
            "item_col": item_col}  # fmt: skip
    return TruthSample(candidates, _arrays.flat(ids), meta, chances)


def _cluster_sizes(codes: np.ndarray) -> np.ndarray:
    """Each record's cluster's size in records (a record in no cluster: 1)."""
    inside = codes != _core.NO_GROUP
    sizes = np.bincount(codes[inside]).astype(np.float64)
    out = np.ones(len(codes))
    out[inside] = sizes[codes[inside]]
    return out


def _record_weights(n: int, at: np.ndarray, src: Source, column: str, ids: pa.Array) -> np.ndarray:
    """The items table's `column` per record (`at`: each row's record): every record needs
    one, each once, a finite number > 0."""
    values = _arrays.float_array(src.table.column(column))
    row = _arrays.first_bad_weight(values)
    if row is not None:
        shown = clip(repr(src.table.column(column)[row].as_py()), 60)
        raise ValueError(f"{src.where(row)}: {column} {shown} is not a finite number > 0")
    first = np.full(n, -1, np.int64)
    rows = np.arange(len(at))
    first[at[::-1]] = rows[::-1]
    again = np.flatnonzero(first[at] != rows)
    if len(again):
        twice = clip(repr(ids[int(at[again[0]])].as_py()), 60)
        raise ValueError(f"{src.where(int(again[0]))}: record {twice} is listed twice; each"
                         f" record needs one {column}")  # fmt: skip
    if (first < 0).any():
        missing = clip(repr(ids[int(np.argmax(first < 0))].as_py()), 60)
        raise ValueError(f"{src.name}: record {missing} of a clustering has no row, so no"
                         f" {column} to draw it by")  # fmt: skip
    return values[first]


def _scatter(n: int, at: np.ndarray, column: pa.ChunkedArray) -> np.ndarray:
    """A group code per record of the population: `column`'s value's code at the records
    `at` (a missing value, and a record not listed: no group)."""
    out = np.full(n, _core.NO_GROUP, np.uint32)
    valid = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), bool)
    values = column.filter(pa.array(valid)) if not valid.all() else column
    if len(values) == 0:
        return out
    normal = _arrays.normalize_ids(values, not _arrays.is_integer(values))
    codes, _ = _core.column_codes(_arrays.id_tuple(normal))
    out[at[valid]] = codes
    return out


def _candidate_table(ids: pa.Array, seeds: np.ndarray, seed_of: np.ndarray,
                     record: np.ndarray, item_src: Source | None, item_col: str,
                     rows: np.ndarray) -> pa.Table:  # fmt: skip
    """seed, item_id, then the items table's attributes as text (the seed's own record
    first among its candidates, the others in the order the core gives them)."""
    seed_record = np.asarray(seeds, np.int64)[seed_of]
    record = record.astype(np.int64)
    take = np.lexsort((record != seed_record, seed_of))  # stable: the core's order within
    cols: dict[str, Any] = {
        "seed": _arrays.take(ids, pa.array(seed_record[take])),
        "item_id": _arrays.take(ids, pa.array(record[take])),
    }
    if item_src is not None:
        t = item_src.table
        where = np.full(len(ids), -1, np.int64)
        where[rows[: t.num_rows][::-1]] = np.arange(t.num_rows)[::-1]  # an id's first row
        at = where[record[take]]
        found = pa.array(np.where(at < 0, 0, at))
        missing = pa.array(at < 0)
        for name in t.column_names:
            if name in (item_col, DEFAULT_WEIGHT_COL):
                continue
            values = sheets.as_text(t.column(name).take(found))
            cols[name] = pc.if_else(missing, pa.scalar(None, values.type), values)
    return pa.table(cols)


def load_truth_sample(folder: str | Path) -> TruthSample:
    """A sample saved by TruthSample.save (or `clusterscore draw-truth --out`)."""
    d = Path(folder)
    meta_file = d / _META
    if not meta_file.is_file():
        raise ValueError(f"{d}: not a truth sample (no {_META}; write one with draw-truth --out)")
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{meta_file}: not the JSON draw-truth writes ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        raise ValueError(f"{meta_file}: not a truth sample of this version ({_FORMAT})")
    try:
        candidates = pq.read_table(d / _CANDIDATES)
        table = pq.read_table(d / _RECORDS)
        records = table.column("item_id")
        uniform = meta.get("design", UNIFORM) == UNIFORM
        chances = None if uniform else _arrays.float_array(table.column("chance"))
    except (OSError, KeyError, pa.ArrowException) as e:
        raise ValueError(f"{d}: cannot read the truth sample's tables ({e})") from None
    return TruthSample(candidates, _arrays.flat(records), meta, chances)
