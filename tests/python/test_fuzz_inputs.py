"""Seeded mutations of CSV and Parquet inputs, for a bounded time: every one must either
be scored or be refused with the project's one-line ValueError naming the input; no
other exception, no crash, no hang. CLUSTERSCORE_FUZZ_SECONDS sets the time per case
(default 4 here), CLUSTERSCORE_FUZZ_SEED the mutations (default 0)."""

import os
import time
import zlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import clusterscore as cs
import clusterscore.metrics as M

SECONDS = float(os.environ.get("CLUSTERSCORE_FUZZ_SECONDS", "4"))
SEED = int(os.environ.get("CLUSTERSCORE_FUZZ_SEED", "0"))


def mutate(rng, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        op = rng.integers(0, 4)
        at = int(rng.integers(0, max(1, len(b))))
        if op == 0 and b:
            b[at] = int(rng.integers(0, 256))
        elif op == 1 and b:
            del b[at : at + int(rng.integers(1, 8))]
        elif op == 2:
            b[at:at] = bytes(rng.choice(list(b',\n"\t0x-.e9 \xff\x00'), int(rng.integers(1, 6))))
        elif b:
            b[at:at] = b[at : at + int(rng.integers(1, 32))]  # a run repeated
    return bytes(b)


def score_or_refuse(fn, names):
    try:
        fn()
    except ValueError as e:
        assert not isinstance(e, pa.ArrowException), f"{type(e).__name__}: {e}"
        text = str(e)
        assert "\n" not in text and len(text) < 500, text
        assert any(n in text for n in names), text


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(0)
    ids = [f"r{i}" for i in range(40)]
    truth = pd.DataFrame({"item_id": ids, "cluster_id": rng.integers(0, 8, 40)})
    actual = pd.DataFrame({"item_id": ids, "cluster_id": rng.integers(0, 8, 40)})
    items = pd.DataFrame({"item_id": ids, "weight": rng.uniform(0.5, 2, 40),
                          "country": rng.choice(["US", "DE"], 40)})  # fmt: skip
    for name, df in (("truth", truth), ("actual", actual), ("items", items)):
        df.to_csv(d / f"{name}.csv", index=False)
        df.to_parquet(d / f"{name}.parquet", index=False)
    return d


@pytest.mark.parametrize("ext", ["csv", "parquet"])
@pytest.mark.parametrize("target", ["truth", "actual", "items"])
def test_mutated_inputs_are_scored_or_refused(seeds, tmp_path, ext, target):
    rng = np.random.default_rng([SEED, zlib.crc32(f"{ext}/{target}".encode())])
    original = (seeds / f"{target}.{ext}").read_bytes()
    paths = {n: seeds / f"{n}.{ext}" for n in ("truth", "actual", "items")}
    paths[target] = tmp_path / f"{target}.{ext}"
    end, runs = time.monotonic() + SECONDS, 0
    while time.monotonic() < end:
        paths[target].write_bytes(mutate(rng, original))

        def run():
            e = cs.evaluate(paths["truth"], paths["actual"], paths["items"])
            e.per_slice("country")
            cs.diff(paths["truth"], paths["actual"], paths["items"]).overall  # noqa: B018

        score_or_refuse(run, [str(paths[target]), target])
        runs += 1
    assert runs > 10


def test_mutated_labels_are_scored_or_refused():
    rng = np.random.default_rng(7)
    end = time.monotonic() + SECONDS
    pool = [0, 1, -1, 2**63 - 1, 2**64 + 5, 1.5, float("nan"), float("inf"), "a", "", None,
            True, b"x"]  # fmt: skip
    while time.monotonic() < end:
        n = int(rng.integers(0, 12))
        a = [pool[i] for i in rng.integers(0, len(pool), n)]
        b = [pool[i] for i in rng.integers(0, len(pool), n + int(rng.integers(0, 2)))]
        w = rng.choice([1.0, 0.0, -1.0, 1e308, 1e-308, np.nan], len(a))
        score_or_refuse(lambda a=a, b=b: M.all_scores(a, b), ["labels", "samples"])
        score_or_refuse(lambda a=a, b=b, w=w: M.all_scores(a, b[: len(a)], w),
                        ["labels", "sample_weight"])  # fmt: skip
