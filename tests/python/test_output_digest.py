"""Every fast path's output on the benchmarks' data shapes (bench/synth.py) at a small size,
held against a stored digest of its exact bits: a restructure of the core must change no
result. Each output is hashed on its own, so a failure names the output that moved.

A deliberate change of results regenerates the stored digests with
    python tests/python/test_output_digest.py --update
and says why in its commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import clusterscore as cs
from clusterscore import metrics

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import synth  # noqa: E402

STORED = Path(__file__).with_name("data") / "output_digests.json"
N = 40_000


def _digest(value: Any) -> str:
    """SHA-256 of a result's exact bits: floats by their bytes, text by its UTF-8."""
    h = hashlib.sha256()

    def feed(v: Any) -> None:
        if isinstance(v, pd.DataFrame):
            for name in v.columns:
                h.update(f"[{name}]".encode())
                feed(v[name])
        elif isinstance(v, pd.Series):
            if v.dtype == object or isinstance(v.dtype, pd.StringDtype):
                for x in v:
                    feed(x)
            else:
                h.update(str(v.dtype).encode())
                h.update(np.ascontiguousarray(v.to_numpy()).tobytes())
        elif isinstance(v, pa.Table):
            feed(v.to_pandas())
        elif isinstance(v, dict):
            for k in v:
                h.update(f"<{k}>".encode())
                feed(v[k])
        elif isinstance(v, (list, tuple)):
            for x in v:
                feed(x)
        elif isinstance(v, float):
            h.update(np.float64(v).tobytes())
        elif isinstance(v, (np.generic,)):
            h.update(v.tobytes())
        else:
            h.update(repr(v).encode())

    feed(value)
    return h.hexdigest()


def _shapes() -> dict[str, tuple[pa.Table, pa.Table, pa.Table, pa.Table]]:
    """Per shape: truth, actual, items, and a truth of a few whole clusters (job 1's)."""
    truth, actual, items = synth.make(N, moved=0.10, seed=3)
    rng = np.random.default_rng(4)
    labels = truth.column("cluster_id").to_numpy()
    moved = truth.set_column(1, "cluster_id", pa.array(synth.random_moves(rng, labels, 0.10)))
    small = synth.small_truth(truth, clusters=400, seed=6)
    return {
        "splits_merges": (truth, actual, items, small),
        "random_moves": (truth, moved, items, small),
        "strings": (*synth.with_string_ids(truth, actual, items),
                    synth.with_string_ids(small, actual, items)[0]),
    }  # fmt: skip


def _outputs() -> Iterator[tuple[str, Callable[[], Any]]]:
    for shape, (truth, actual, items, small) in _shapes().items():
        ev = cs.evaluate(truth, actual, items, resamples=40, seed=5)
        yield f"{shape}/evaluate/overall", lambda ev=ev: ev.overall
        yield f"{shape}/evaluate/coverage", lambda ev=ev: ev.coverage
        yield f"{shape}/evaluate/truth", lambda ev=ev: ev.per_cluster("truth")
        yield f"{shape}/evaluate/actual", lambda ev=ev: ev.per_cluster("actual")
        yield f"{shape}/evaluate/country", lambda ev=ev: ev.per_slice("country")
        yield f"{shape}/evaluate/per_item", lambda ev=ev: ev.per_item()
        yield f"{shape}/evaluate/intervals", lambda ev=ev: ev.intervals("country")
        yield f"{shape}/evaluate/intervals_overall", lambda ev=ev: ev.intervals()
        yield f"{shape}/evaluate/classic", lambda ev=ev: ev.classic
        whole = cs.evaluate(small, actual, items, truth_scope="entities",
                            cluster_weights="inverse_size", resamples=40, seed=7)  # fmt: skip
        yield f"{shape}/entities/overall", lambda w=whole: w.overall
        yield f"{shape}/entities/intervals", lambda w=whole: w.intervals()
        yield f"{shape}/entities/country", lambda w=whole: w.per_slice("country")
        runs = {"a": actual, "b": _moved_again(actual)}
        yield (
            f"{shape}/compare_overall",
            lambda r=runs, t=small, i=items: cs.compare(t, r, i, resamples=40, seed=8).deltas(),
        )
        yield (
            f"{shape}/compare",
            lambda r=runs, t=small, i=items: cs.compare(t, r, i, resamples=40, seed=8).deltas(
                "country"
            ),
        )
        d = cs.diff(truth, actual, items)
        yield f"{shape}/diff/overall", lambda d=d: d.overall
        yield f"{shape}/diff/base", lambda d=d: d.per_cluster("base")
        yield f"{shape}/diff/exp", lambda d=d: d.per_cluster("exp")
        yield f"{shape}/diff/country", lambda d=d: d.per_slice("country")
        yield f"{shape}/diff/flows", lambda d=d: d.flows()
        yield f"{shape}/diff/totals", lambda d=d: d.sample_totals
        yield f"{shape}/sample+estimate", lambda t=truth, a=actual, i=items: _judged(t, a, i)
    a = synth.power_law_labels(np.random.default_rng(9), N)
    b = synth.random_moves(np.random.default_rng(10), a, 0.2)
    w = np.random.default_rng(11).uniform(0.5, 2.0, N)
    for name in sorted(n for n in metrics.__all__ if n.endswith("_score") or "cluster" in n):
        fn = getattr(metrics, name)
        yield f"metrics/{name}", lambda fn=fn: fn(a, b)
        if "sample_weight" in fn.__code__.co_varnames:
            yield f"metrics/{name}/weighted", lambda fn=fn: fn(a, b, sample_weight=w)


def _moved_again(actual: pa.Table) -> pa.Table:
    labels = actual.column("cluster_id")
    if pa.types.is_string(labels.type):
        return actual
    moved = synth.random_moves(np.random.default_rng(12), labels.to_numpy(), 0.05)
    return actual.set_column(1, "cluster_id", pa.array(moved))


def _judged(truth: pa.Table, actual: pa.Table, items: pa.Table) -> Any:
    s = cs.sample_pairs(truth, actual, pairs=600, seed=13, items=items, stable_pairs=200)
    pairs = s.raters_table().to_pandas()[["item_i", "item_j", "copy"]]
    words = np.array(["same", "different", "unsure"])
    verdict = words[np.random.default_rng(14).integers(0, 3, len(pairs))]
    return [s.pairs, cs.estimate(s, pairs.assign(verdict=verdict))]


def _computed() -> dict[str, str]:
    return {name: _digest(make()) for name, make in _outputs()}


@pytest.fixture(scope="module")
def computed() -> dict[str, str]:
    return _computed()


def test_every_output_is_the_same_bits_as_stored(computed: dict[str, str]) -> None:
    stored = json.loads(STORED.read_text())
    assert sorted(computed) == sorted(stored), "outputs added or removed: --update"
    moved = [name for name in stored if computed[name] != stored[name]]
    assert not moved, f"{len(moved)} outputs changed: {moved}"


def test_a_changed_bit_changes_the_digest() -> None:
    frame = pd.DataFrame({"x": [0.1, 0.2]})
    nudged = pd.DataFrame({"x": [0.1, np.nextafter(0.2, 1.0)]})
    assert _digest(frame) != _digest(nudged)
    assert _digest({"a": None}) != _digest({"a": 0.0})


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    STORED.parent.mkdir(exist_ok=True)
    STORED.write_text(json.dumps(_computed(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {STORED}")
