"""The core keeps freed big arrays for reuse; release_memory() hands them back."""

import numpy as np
import pyarrow as pa

import clusterscore as cs


def test_release_memory_returns_the_cached_bytes():
    cs.release_memory()
    assert cs.release_memory() == 0  # nothing left to release
    # A call big enough for big blocks (4 MiB and up) leaves them cached for the next one.
    n = 600_000
    big = pa.table({"item_id": np.arange(n), "cluster_id": np.arange(n) // 3})
    first = cs.evaluate(big, big).overall
    assert cs.release_memory() > 0
    assert cs.release_memory() == 0
    assert cs.evaluate(big, big).overall == first  # fresh or reused memory: same results
