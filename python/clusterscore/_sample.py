"""Judging a diff (docs/metrics.md, judging): weighted pair sampling, the sample file round trip
through human raters, and estimates with confidence intervals. Sampling and estimation run in
C++; this module moves columns, files and names."""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from . import _arrays, _core
from . import _sheets as sheets
from ._diff import Diff, diff
from ._io import clip, short
from ._notebook import headline, result_html, sample_html
from ._terms import term
from ._verdicts import Counts, match_rows, verdict_counts

# The core's codes of a pair's kind, by name.
KINDS = [k.name for k in sorted(_core.PairKind, key=lambda k: k.value)]
_MAX_DRAWS = _core.MOST_DRAWS


def kind_column(codes: np.ndarray) -> pa.Array:
    """The kind of each drawn pair as text, from the core's codes (indices into KINDS)."""
    return pa.DictionaryArray.from_arrays(codes, pa.array(KINDS)).cast(pa.string())


_NONE = _core.NONE  # the core's "no such row" in index arrays
# /2: the checksum covers the metadata; /3: the totals hold the self pairs' known part.
_FORMAT = "clusterscore-pair-sample/3"
_OLDER = ("clusterscore-pair-sample/1", "clusterscore-pair-sample/2")
_CORE_COLUMNS = ["item_i", "item_j", "kind", "draws", "stratum", "U_i", "B_i", "E_i"]


# A sample as the core reads it: kind, stratum, draws, U_i, B_i, E_i.
Codes = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class PairSample:
    """Sampled pairs with their draw counts and everything the estimate needs.

    `.pairs` is a DataFrame: item_i, item_j, kind, draws, stratum, U_i, B_i, E_i, then the
    items-table attributes of both items (`<column>_i`, `<column>_j`). `.meta` holds the
    mode, sizes, seed, population totals and the fingerprint of the inputs.
    """

    def __init__(self, pairs: pa.Table, meta: dict[str, Any]) -> None:
        self._table = pairs
        self.meta = meta
        self._units: np.ndarray | None = None

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per distinct pair drawn: item_i, item_j, kind (split, merge, stable,
        self), draws, stratum, U_i, B_i, E_i, and both items' attributes."""
        return self._table.to_pandas()

    @property
    def table(self) -> pa.Table:
        """`pairs` as an Arrow table."""
        return self._table

    def __len__(self) -> int:
        return self._table.num_rows

    def __repr__(self) -> str:
        m = self.meta
        return (f"PairSample({m['mode']}, {m['pairs']:,} draws"
                f"{', ' + format(m['stable_pairs'], ',') + ' stable' if m['stable_pairs'] else ''},"
                f" {len(self):,} distinct pairs, seed {m['seed']})")  # fmt: skip

    def _repr_html_(self) -> str:
        return sample_html(self)

    # -- files ------------------------------------------------------------------------------

    def save(self, path: str | Path, *, meta_path: str | Path | None = None) -> None:
        """Parquet (metadata in the file) or CSV (metadata in `meta_path`, by default
        `<path>.meta.json`)."""
        p = Path(path)
        meta = dict(self.meta, checksum=checksum(self._table, self.meta))
        if p.suffix.lower() == ".csv":
            sheets.write(self._table, p, every_column=False)
            meta_file = Path(meta_path) if meta_path is not None else Path(str(p) + ".meta.json")
            meta_file.write_text(json.dumps(meta, indent=2) + "\n")
            return
        schema = self._table.schema.with_metadata({"clusterscore": json.dumps(meta)})
        pq.write_table(self._table.cast(schema), p)

    def raters_table(self, since: PairSample | None = None) -> pa.Table:
        """What raters see: both items' attributes side by side, a `copy` column and an
        empty verdict column, one row per pair however many orders it was drawn in; no pair
        kind (it would bias them) and no self pairs (never judged). The replicated pairs
        (`replicated()`) follow again at the end as copy 2, for a second rater. `since`: the
        sample this one continues; only what it did not show already (a new round)."""
        t = self._table
        shown = self.first_of_pair() & (t.column("kind").to_numpy(zero_copy_only=False) != "self")
        again = self.replicated()
        if since is not None:
            before = match_rows(since, t.column("item_i"), t.column("item_j"))
            known = before != _NONE
            shown &= ~known
            was = np.zeros(len(self), bool)
            was[known] = np.isin(since.units()[before[known]], since.replicated())
            again = again[~was[again]]
        rows = np.concatenate([np.flatnonzero(shown), again])
        copy = np.repeat(np.array([1, 2], np.int8), [int(shown.sum()), len(again)])
        t = t.take(pa.array(rows, pa.int64()))
        attrs = [c for c in t.column_names if c not in _CORE_COLUMNS]
        cols = {"item_i": t.column("item_i"), "item_j": t.column("item_j")}
        cols.update({c: t.column(c) for c in attrs})
        cols["copy"] = pa.array(copy)
        cols["verdict"] = pa.array([""] * t.num_rows, pa.string())
        return pa.table(cols)

    def replicated(self) -> np.ndarray:
        """The rows of the pairs a second rater judges (the `replicates` most-drawn distinct
        non-self pairs, the most drawn first): their verdicts measure the raters' noise."""
        kind, _, draws, *_ = self.codes()
        count = int(self.meta.get("replicates", 0))
        return np.asarray(_core.replicated_pairs(kind, draws, self.units(), count), np.int64)

    def first_of_pair(self) -> np.ndarray:
        """Per row, whether it is the first of its unordered pair: a pair drawn in both
        orders is one pair to judge, shown once (its verdict serves both rows)."""
        return np.asarray(self.units() == np.arange(len(self)))

    def units(self) -> np.ndarray:
        """Per row, the row of its unordered pair's first order (uint32): the unit that
        one verdict, and the standard error, count once."""
        if self._units is None:
            si, sj = self._table.column("item_i"), self._table.column("item_j")
            as_string = not all(_arrays.is_integer(c) for c in (si, sj))
            ids = (_arrays.id_tuple(_arrays.normalize_ids(c, as_string)) for c in (si, sj))
            twin = _twins(*ids)
            row = np.arange(len(twin))
            self._units = np.where((twin != _NONE) & (twin < row), twin, row).astype(np.uint32)
        return self._units

    def save_for_raters(self, path: str | Path, since: PairSample | None = None) -> pa.Table:
        """Writes the pairs that need a verdict as CSV: both items' attributes side by
        side, a `copy` column (2: a replicated pair's second copy, for another rater)
        and an empty `verdict` column (same / different / unsure). A cell a
        spreadsheet would run as a formula is written with a leading "'" (estimate reads
        the ids back as they were). `since`: as raters_table's. Returns the table written."""
        table = self.raters_table(since)
        sheets.write(table, Path(path), every_column=True)
        return table

    def page(
        self, path: str | Path, since: PairSample | None = None, *, name: str | None = None
    ) -> Path:
        """Writes the judging page: one self-contained HTML file (offline, no external
        script) that shows raters one pair at a time, blind to its kind and to the
        clusterings, keeps their verdicts in the browser as they are given, and exports
        each rater's verdicts as a file `estimate` reads. The replicated pairs' second
        copies wait for a rater other than the first copy's. `since`: as raters_table's.
        `name`: the sample's name, which the exported files carry (default: the page's)."""
        from ._page_judge import write_judge_page

        return write_judge_page(self, path, since, name=name or Path(path).stem)

    # -- exploring the distance ------------------------------------------------------------

    def contributions(self, by: str) -> pd.DataFrame:
        """Each value of item i's attribute `by` with its share of jaccard_distance,
        split_distance and merge_distance (a pair drawn k of N times carries k/N of its
        stratum's total)."""
        col = f"{by}_i" if f"{by}_i" in self._table.column_names else by
        if col not in self._table.column_names or col in _CORE_COLUMNS[1:]:
            have = sorted(
                {c[:-2] for c in self._table.column_names if c.endswith("_i")}
                - {"item", "U", "B", "E"}
            )  # noqa: E501
            raise ValueError(
                f"no attribute {by!r} in the sample (attributes: {', '.join(have) or 'none'})"
            )
        values = self._table.column(col)
        none = np.zeros(len(self), np.uint32)  # shares need no verdicts
        d = self._core_sample(Counts(none, none, none.astype(bool))).contributions(
            _arrays.id_tuple(_arrays.normalize_ids(values), True)
        )
        return (
            pa.table(
                {
                    by: _arrays.take(values, d["first_pair"]),
                    "draws": d["draws"].astype(np.int64),
                    "jaccard_distance": d["jaccard_distance"],
                    "split_distance": d["split_distance"],
                    "merge_distance": d["merge_distance"],
                }
            )
            .to_pandas()
            .sort_values("jaccard_distance", ascending=False, kind="stable")
        )

    def _core_sample(self, counts: Counts, codes: Codes | None = None) -> Any:
        """The core's judged sample: these pairs with the verdicts `counts`; `codes`: this
        sample's codes() when the caller has them already."""
        return _core.JudgedSample(*(codes or self.codes()), counts.same, counts.votes,
                                  self.meta["totals"], mode_of(self.meta["mode"]),
                                  self.units(), _needed(self.meta))  # fmt: skip

    def codes(self) -> Codes:
        """The sample as the core reads it: kind, stratum, draws, U_i, B_i, E_i."""
        t = self._table
        kind = pc.index_in(t.column("kind"), pa.array(KINDS)).to_numpy(zero_copy_only=False)
        return (
            kind.astype(np.uint8),
            t.column("stratum").to_numpy().astype(np.uint8),
            t.column("draws").to_numpy().astype(np.uint64),
            t.column("U_i").to_numpy().astype(np.float64),
            t.column("B_i").to_numpy().astype(np.float64),
            t.column("E_i").to_numpy().astype(np.float64),
        )


def sample_pairs(
    base: Any,
    exp: Any,
    pairs: int,
    seed: int,
    items: Any = None,
    stable_pairs: int | None = None,
    *,
    distance_only: bool = False,
    replicates: int = 50,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    engine: str | None = None,
) -> PairSample:
    """Draws `pairs` pairs with replacement in proportion to w_ij (docs/metrics.md, judging). With
    `stable_pairs=M`: stratified, `pairs` diff pairs and M stable pairs. With
    `distance_only=True`: diff pairs only. The `replicates` most-drawn pairs are marked for a
    second rater (0: none). The same seed gives the same sample. `engine` as for evaluate:
    on Spark the core draws each pair down to its cells and Spark picks the items, so a seed
    gives the same pairs whatever the partitioning (other pairs than in-process)."""
    d = diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
             engine=engine, slices=[])  # fmt: skip
    return sample_from_diff(
        d, pairs, seed, stable_pairs, distance_only=distance_only, replicates=replicates
    )


def sample_from_diff(
    d: Diff,
    pairs: int,
    seed: int,
    stable_pairs: int | None = None,
    *,
    distance_only: bool = False,
    replicates: int = 50,
) -> PairSample:
    """sample_pairs on a Diff already built (to draw many samples from one diff), on the
    engine that built it."""
    from . import spark  # no pyspark import: only its own module

    if isinstance(d, spark.SparkDiff):
        return spark.sample_from_diff(
            d, pairs, seed, stable_pairs, distance_only=distance_only, replicates=replicates
        )
    pairs, stable, mode = sample_request(pairs, seed, stable_pairs, distance_only)
    replicates = _count(replicates, "replicates")
    base, exp, _ = d.sources
    item_col = d.columns[0]
    try:
        raw = d.core.sample_pairs(pairs, stable, mode_of(mode), int(seed))
    except ValueError as e:
        raise ValueError(f"{base.name} vs {exp.name}: {e}") from None
    meta = sample_meta(d, mode, pairs, stable, seed, replicates)
    return PairSample(_sample_table(d, raw, item_col), meta)


def continue_sample(
    previous: Any,
    base: Any,
    exp: Any,
    items: Any = None,
    *,
    pairs: int,
    stable_pairs: int | None = None,
    item_col: str = "item_id",
    cluster_col: str = "cluster_id",
    weight_col: str = "weight",
    engine: str | None = None,
) -> PairSample:
    """`previous` (a PairSample, or the path of a saved one) with `pairs` more draws, and
    `stable_pairs` more stable draws if it is stratified, from the same seeded stream: the
    sample that a first draw of the larger size gives, bit for bit. Base, Exp and items
    must be those it was drawn from (on the engine it was drawn on). `.raters_table(
    since=previous)` holds the new round."""
    prev = previous if isinstance(previous, PairSample) else load_sample(previous)
    d = diff(base, exp, items, item_col=item_col, cluster_col=cluster_col, weight_col=weight_col,
             engine=engine, slices=[])  # fmt: skip
    total, seed, stable, distance_only, replicates = continued(prev, d.fingerprint, pairs,
                                                               stable_pairs)  # fmt: skip
    return sample_from_diff(
        d, total, seed, stable, distance_only=distance_only, replicates=replicates
    )


def continued(
    prev: PairSample, fingerprint: str, pairs: Any, stable_pairs: Any
) -> tuple[int, int, int | None, bool, int]:
    """What to draw to continue `prev` by `pairs` (and `stable_pairs`) more draws: (pairs,
    seed, stable pairs or None, distance only, replicates) of the larger sample."""
    m = prev.meta
    if fingerprint != m["fingerprint"]:
        raise ValueError(
            "the inputs differ from those the sample was drawn from (another Base, Exp, items"
            " or weight): a sample continues only on the same inputs"
        )
    more = _count(pairs, "pairs")
    if stable_pairs is not None and m["mode"] != "stratified":
        raise ValueError(f"{term('stable_pairs')} continues a stratified sample; this one is"
                         f" {m['mode'].replace('_', ' ')}")  # fmt: skip
    stable = None
    if m["mode"] == "stratified":
        stable = m["stable_pairs"] + (_count(stable_pairs, "stable_pairs") if stable_pairs else 0)
    return (m["pairs"] + more, m["seed"], stable, m["mode"] == "distance_only",
            int(m.get("replicates", 0)))  # fmt: skip


def sample_request(
    pairs: Any, seed: Any, stable_pairs: Any, distance_only: bool
) -> tuple[int, int, str]:
    """(pairs, stable pairs, mode) of a sample asked for, checked."""
    pairs = _count(pairs, "pairs")
    stable = _count(stable_pairs, "stable_pairs") if stable_pairs is not None else 0
    if pairs + stable > _MAX_DRAWS:
        raise ValueError(
            f"{pairs + stable:,} draws asked for; at most {_MAX_DRAWS:,} (each distinct pair is"
            " a row for raters, and a run that size would take hours)"
        )
    if distance_only and stable_pairs is not None:
        raise ValueError(f"{term('distance_only')} and {term('stable_pairs')} exclude each other")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ValueError(f"{term('seed')} must be an integer in [0, 2^64), got {seed!r}")
    mode = "plain"
    if stable_pairs is not None:
        mode = "stratified"
    elif distance_only:
        mode = "distance_only"
    return pairs, stable, mode


def sample_meta(
    d: Any, mode: str, pairs: int, stable: int, seed: int, replicates: int
) -> dict[str, Any]:
    """A sample's metadata: how it was drawn, the diff's totals and the inputs' fingerprint."""
    return {
        "format": _FORMAT, "mode": mode, "pairs": pairs, "stable_pairs": stable,
        "seed": int(seed), "totals": d.sample_totals, "fingerprint": d.fingerprint,
        "item_col": d.columns[0], "replicates": replicates,
        "draws_needed": d.draws_needed(mode),
    }  # fmt: skip


def _count(n: Any, name: str) -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"{term(name)} must be a whole number ≥ 0, got {n!r}")
    return int(n)


def _sample_table(d: Diff, raw: Any, item_col: str) -> pa.Table:
    base, _, items = d.sources
    ids = base.table.column(item_col)
    cols: dict[str, Any] = {
        "item_i": ids.take(raw.item_i),
        "item_j": ids.take(raw.item_j),
        "kind": kind_column(raw.kind),
        "draws": raw.draws.astype(np.int64),
        "stratum": raw.stratum.astype(np.int8),
        "U_i": raw.U_i,
        "B_i": raw.B_i,
        "E_i": raw.E_i,
    }
    if items is not None:
        table = items.table
        attrs = [c for c in table.column_names if c != item_col]
        for side in ("i", "j"):
            rows = d.core.items_rows(getattr(raw, f"item_{side}"))
            idx = pa.array(rows.astype(np.int64), mask=rows == _NONE)
            for c in attrs:
                cols[f"{c}_{side}"] = _arrays.take(table.column(c), idx)
    return pa.table(cols)


_TOTALS = ["split_distance", "merge_distance", "jaccard_distance", "affected_jaccard_index",
           "total_weight", "diff_mass", "stable_mass", "self_mass", "self_delta"]  # fmt: skip
_MODES = ["plain", "stratified", "distance_only"]
# Each metadata key with the type its value must have.
_META = {"format": str, "mode": str, "pairs": int, "stable_pairs": int, "seed": int,
         "totals": dict, "fingerprint": str, "item_col": str, "checksum": str}  # fmt: skip
# "replicates" and "draws_needed" are absent in samples drawn before them: none, not known.
_NEEDED = ("split_rate", "merge_rate")


def checksum(t: pa.Table, meta: dict[str, Any]) -> str:
    """SHA-256 of everything the estimate reads, in a canonical text form that survives a
    CSV round trip (ids as text, counts as integers, weights exactly as hex floats): the
    core columns and every metadata value but the checksum itself."""
    h = hashlib.sha256()
    for c in ("item_i", "item_j", "kind"):
        h.update("\x1f".join(str(v) for v in t.column(c).to_pylist()).encode())
        h.update(b"\x1e")
    for c in ("draws", "stratum"):
        h.update(",".join(str(int(v)) for v in t.column(c).to_pylist()).encode())
        h.update(b"\x1e")
    for c in ("U_i", "B_i", "E_i"):
        h.update(",".join(float(v).hex() for v in t.column(c).to_pylist()).encode())
        h.update(b"\x1e")
    h.update(json.dumps(_canonical({k: v for k, v in meta.items() if k != "checksum"}),
                        sort_keys=True).encode())  # fmt: skip
    return h.hexdigest()


def _canonical(value: Any) -> Any:
    """Floats as exact hex text: JSON's decimal form need not round-trip every bit."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, float):
        return value.hex()
    return value


def load_sample(path: str | Path) -> PairSample:
    """Reads a sample written by PairSample.save, checking that it is whole and unedited:
    any change to the pairs, their counts, U/B/E or the metadata is reported."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{p}: no such file")
    if p.is_dir():
        raise ValueError(f"{p}: is a directory, not a saved sample")
    try:
        table, meta = _read_sample(p)
    except (pa.ArrowException, OSError, UnicodeDecodeError, EOFError) as e:
        kind = "Parquet file" if p.suffix.lower() != ".csv" else "CSV sample"
        raise ValueError(f"{p}: not a readable {kind} ({short(e).replace(str(p), 'it')})") from None
    _validate_meta(p, meta)
    _validate(p, table, meta)
    return PairSample(table, meta)


def _read_sample(p: Path) -> tuple[pa.Table, Any]:
    if p.suffix.lower() == ".csv":
        meta_path = Path(str(p) + ".meta.json")
        if not meta_path.exists():
            raise ValueError(f"{p}: no {meta_path.name} beside it: not a saved clusterscore sample")
        meta = _json(meta_path, meta_path.read_bytes())
        table = pacsv.read_csv(
            p, convert_options=pacsv.ConvertOptions(
                column_types={"item_i": pa.string(), "item_j": pa.string()}))  # fmt: skip
        return sheets.revive_table(table), meta
    table = pq.read_table(p)
    raw = (table.schema.metadata or {}).get(b"clusterscore")
    if raw is None:
        raise ValueError(f"{p}: no clusterscore metadata: not a saved pair sample")
    return table.replace_schema_metadata(None), _json(p, raw)


def _json(where: Path, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{where}: the sample's metadata is not valid JSON ({short(e)})") from None
    except RecursionError:  # arrays in arrays, deeper than any sample's metadata
        raise ValueError(f"{where}: the sample's metadata is nested too deeply") from None


def _validate_meta(p: Path, meta: Any) -> None:
    """Every key present with a value of its type, before anything reads one."""
    if not isinstance(meta, dict):
        raise ValueError(f"{p}: the sample's metadata is not a JSON object")
    if meta.get("format") in _OLDER:
        raise ValueError(
            f"{p}: written by an older clusterscore ({meta['format']}); run `clusterscore sample`"
            " again with the same inputs, sizes and seed: the pairs are the same, so the verdicts"
            " still apply"
        )
    if meta.get("format") != _FORMAT:
        raise ValueError(f"{p}: unknown sample format {clip(repr(meta.get('format')), 60)}")
    for key, kind in _META.items():
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{p}: metadata {key!r} is missing or not a {kind.__name__}")
    if not _whole(meta.get("replicates", 0)):
        raise ValueError(f"{p}: metadata 'replicates' is not a whole number ≥ 0")
    if "draws_needed" in meta and not _valid_needed(meta["draws_needed"]):
        raise ValueError(f"{p}: metadata 'draws_needed' is not what clusterscore writes")
    if meta["mode"] not in _MODES:
        raise ValueError(f"{p}: metadata 'mode' is {clip(repr(meta['mode']), 60)}; expected one of"
                         f" {', '.join(_MODES)}")  # fmt: skip
    for key in _TOTALS:
        v = meta["totals"].get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"{p}: metadata totals {key!r} is missing or not a finite number")
    extra = sorted(set(meta["totals"]) - set(_TOTALS))
    if extra:
        raise ValueError(f"{p}: metadata totals has unknown key(s) {', '.join(extra)}")


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64


def _valid_needed(n: Any) -> bool:
    """{"delta_precision": [n, n], "split_rate": n, "merge_rate": n}, n whole numbers."""
    if not isinstance(n, dict) or set(n) != {"delta_precision", *_NEEDED}:
        return False
    dp = n["delta_precision"]
    return (isinstance(dp, list | tuple) and len(dp) == 2 and all(map(_whole, dp))
            and all(_whole(n[k]) for k in _NEEDED))  # fmt: skip


def _needed(meta: dict) -> dict | None:
    """The core's DrawsNeeded of a sample's metadata (None: drawn before tails were known)."""
    n = meta.get("draws_needed")
    return None if n is None else {**n, "delta_precision": tuple(n["delta_precision"])}


def _validate(p: Path, table: pa.Table, meta: dict) -> None:
    missing = [c for c in _CORE_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"{p}: missing column(s) {', '.join(missing)}")
    for c in ("draws", "stratum"):
        if not pa.types.is_integer(table.column(c).type):
            raise ValueError(f"{p}: column {c!r} holds {table.column(c).type}, not integers")
    for c in ("U_i", "B_i", "E_i"):
        t = table.column(c).type
        if not (pa.types.is_floating(t) or pa.types.is_integer(t)):
            raise ValueError(f"{p}: column {c!r} holds {t}, not numbers")
    for c in _CORE_COLUMNS:
        if table.column(c).null_count:
            raise ValueError(f"{p}: column {c!r} has empty values")
    kinds = set(table.column("kind").to_pylist())
    if not kinds <= set(KINDS):
        bad = [str(k)[:40] for k in sorted(map(str, kinds - set(KINDS)))[:3]]
        raise ValueError(f"{p}: unknown pair kind(s) {bad}")
    draws = table.column("draws").to_numpy()
    stratum = table.column("stratum").to_numpy()
    expected = [meta["pairs"], meta["stable_pairs"]]
    for s in (0, 1):
        got = int(draws[stratum == s].sum())
        if got != expected[s]:
            raise ValueError(
                f"{p}: stratum {s} holds {got} draws but {expected[s]} were sampled: the file is"
                " truncated or was edited"
            )
    if meta["checksum"] != checksum(table, meta):
        raise ValueError(f"{p}: the pairs do not match the checksum saved with them: edited?")


class Estimates(dict):
    """Each estimate by metric name (estimate, std_error, ci_low, ci_high, pairs); `.raters`
    says what replicated pairs measured of the raters: `measured`, `noise` (the pooled
    within-pair variance of verdicts), and per class its `replicated_pairs` and
    `disagreement` (the share of two verdicts on one pair that differ)."""

    def __repr__(self) -> str:
        return headline("Estimates", self, ("good_split_distance", "bad_split_distance",
                                            "good_merge_distance", "bad_merge_distance",
                                            "delta_precision"))  # fmt: skip

    def _repr_html_(self) -> str:
        return result_html(self)

    raters: dict[str, Any]


def estimate(sample: PairSample, verdicts: Any) -> Estimates:
    """Unbiased estimates with standard errors and 95% intervals from judged pairs
    (`verdicts`: item_i, item_j, verdict in same/different/unsure, optional rater and copy;
    or a list of such files, from rounds or raters; pairs may be absent)."""
    judged = _judged(sample, verdicts)
    out = Estimates()
    for r in judged.estimate():
        out[r.pop("name")] = r
    for r in out.values():
        if not r["exact"]:
            del r["exact"]
        needed, of = r.pop("draws_needed"), r.pop("needed_of")
        if needed:
            r["unreliable"] = f"needs ≈ {needed:,} judged draws of {of}"
            r["draws_needed"] = needed
    totals = sample.meta["totals"]
    for name in ("split_distance", "merge_distance", "jaccard_distance", "affected_jaccard_index"):
        out[name] = {"estimate": totals[name], "std_error": 0.0, "ci_low": totals[name],
                     "ci_high": totals[name], "pairs": 0, "exact": True}  # fmt: skip
    out.raters = judged.raters()
    return out


def judged_shares(sample: PairSample, verdicts: Any) -> dict[str, float | None]:
    """The share of i ≡ j among the judged split, merge and stable non-self pairs (None
    for a class without a judged pair): what a judged pilot tells the planner."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a pilot is small by design
        return _judged(sample, verdicts).shares()


def _judged(sample: PairSample, verdicts: Any) -> Any:
    """The core's judged sample, once it has a verdict to work from."""
    counts = verdict_counts(sample, verdicts)
    pairs = sample.codes()
    kind, _, draws, *_ = pairs
    _require_judgements(sample, kind, draws, counts)
    return sample._core_sample(counts, pairs)


def mode_of(mode: str) -> Any:
    """The core's SampleMode named by a sample's mode ("plain", "stratified", "distance_only")."""
    return getattr(_core.SampleMode, mode)


_CLASSES = {0: "split", 1: "merge", 2: "stable (non-self)"}  # the core's PairKind codes
_FEW = 30  # judged draws under which a class's intervals rest on too little


def _require_judgements(
    sample: PairSample, kind: np.ndarray, draws: np.ndarray, counts: Counts
) -> None:
    """No verdict on any pair that needs one is an error, not an estimate from self pairs
    alone; a class with few judged draws gets one warning line."""
    judged = counts.votes > 0
    needs = np.isin(kind, list(_CLASSES))
    if not (judged & needs).any():
        raise ValueError(
            f"no verdict on any of the sample's {int(needs.sum()):,} pairs to judge: fill the"
            " verdict column (same / different / unsure) first"
        )
    # Counted as raters see them: a pair drawn in both orders once.
    blank, first = ~counts.answered, sample.first_of_pair()
    if (blank & needs & first).any():
        per_class = ", ".join(
            f"{name} {int((blank & first & (kind == code)).sum()):,}"
            f" of {int((first & (kind == code)).sum()):,}"
            for code, name in _CLASSES.items()
            if (kind == code).any()
        )
        warnings.warn(
            f"no verdict on {int((blank & needs & first).sum()):,} of the"
            f" {int((needs & first).sum()):,} pairs to judge ({per_class}): the estimates rest"
            " on the judged ones",
            stacklevel=4,
        )
    for code, name in _CLASSES.items():
        drawn = int(draws[kind == code].sum())
        used = int(draws[(kind == code) & judged].sum())
        if drawn and used < _FEW:
            warnings.warn(
                f"only {used} judged draws of {name} pairs (of {drawn} drawn): their intervals"
                " rest on few judgements",
                stacklevel=4,
            )


def _twins(i: Any, j: Any) -> np.ndarray:
    """Per pair (i[r], j[r]) of a sample, the row holding the same pair in the other order
    (NONE where there is none, and for a self pair)."""
    twin = np.asarray(_core.match_pairs(i, j, j, i)).astype(np.int64)
    twin[twin == np.arange(len(twin))] = _NONE
    return twin
