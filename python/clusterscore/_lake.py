"""Where the command line writes an --out that names a lake path (`s3a://…`, `abfss://…`,
`hdfs://…`, `file://…`) on the Spark engine: through the Hadoop file system of the Spark
session, so that wherever Spark can read, it writes. The large tables (per item, per
cluster, a diff's flows) are written by Spark's writer from the workers, as folders of
Parquet files; summary.json and the per-slice tables, which the driver holds, as single
files. Everything goes into a staging folder beside the target, renamed into place when
the command is done (replacing an earlier run's output whole) or removed if it fails."""

from __future__ import annotations

import contextlib
import io
import re
import threading
import uuid
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*:"  # a URL's scheme and its colon
_URL = re.compile(_SCHEME + "//")
_COLLAPSED = re.compile(_SCHEME + "/")
# What a staging name carries, beside the target, here and on a local disk (_output.py).
TAG = "clusterscore"


def is_lake(path: str) -> bool:
    """Whether an output path names a URL (scheme://...) rather than a local path."""
    return _URL.match(path) is not None


def mangled_url(path: str) -> bool:
    """Whether a local path is a URL whose `//` a path type collapsed (`s3a:/bucket/x`):
    written as given, it would make a folder named `s3a:` here."""
    return _COLLAPSED.match(path) is not None


class LakeFolder:
    """An output folder at `url`, written through the Hadoop file system of `session`:
    checked now (an existing folder holding anything but `keeps`, names or suffixes of what
    clusterscore writes, is refused), staged beside it, and put in place by commit()."""

    def __init__(self, session: Any, url: str, keeps: tuple[str, ...]) -> None:
        self._session = session
        jvm = session.sparkContext._jvm
        self._Path = jvm.org.apache.hadoop.fs.Path
        self.url = url.rstrip("/")
        self._target = self._Path(self.url)
        conf = session.sparkContext._jsc.hadoopConfiguration()
        try:
            self._fs = self._target.getFileSystem(conf)
        except Exception as e:  # noqa: BLE001 - py4j's error: no file system for the scheme
            raise ValueError(f"--out {url}: Spark cannot write there ({_first_line(e)})") from None
        # A local file system would put a checksum file beside each file the driver writes.
        self._fs.setWriteChecksum(False)
        if self._fs.exists(self._target):
            self._check_ours(keeps)
        parent = self._target.getParent()
        if parent is None:
            raise ValueError(f"--out {url}: name a folder below the root")
        name = f".{self._target.getName()}.{TAG}-{uuid.uuid4().hex[:12]}"
        self._staging = self._Path(parent, name)
        if not self._fs.mkdirs(self._staging):
            raise ValueError(f"--out {url}: cannot make a folder in {parent.toString()}")

    def _check_ours(self, keeps: tuple[str, ...]) -> None:
        if not self._fs.getFileStatus(self._target).isDirectory():
            raise ValueError(f"--out {self.url}: exists and is not a folder")
        for status in self._fs.listStatus(self._target):
            name = status.getPath().getName()
            if not (name in keeps or any(name.endswith(k) for k in keeps if k.startswith("."))):
                raise ValueError(
                    f"--out {self.url}: exists and holds {name!r}, which clusterscore did not"
                    " write; name a new folder or empty this one (it would be replaced whole)"
                )

    def path(self, name: str) -> str:
        """Where the output `name` is staged (for Spark's writer)."""
        return str(self._Path(self._staging, name).toString())

    def write_bytes(self, name: str, data: bytes) -> None:
        """The output `name` holding `data` (a file the driver writes)."""
        stream = self._fs.create(self._Path(self._staging, name), False)
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()

    def write_table(self, name: str, table: pa.Table) -> None:
        """The output `name`: one Parquet file of `table`."""
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        self.write_bytes(name, buffer.getvalue())

    def commit(self) -> None:
        """The staged folder in place of the target (an earlier output removed first)."""
        if self._fs.exists(self._target) and not self._fs.delete(self._target, True):
            raise ValueError(f"--out {self.url}: could not remove the earlier output")
        if not self._fs.rename(self._staging, self._target):
            raise ValueError(f"--out {self.url}: could not move {self.path('')} there")

    def discard(self) -> None:
        """Stops Spark (the command is ending: its jobs, and any write a signal cut short
        on the Python side, which the JVM would go on with, starting new jobs that write
        here), then removes the staged folder. On a thread of its own: a signal may have
        cut the main thread's call to the JVM short, leaving its connection mid-answer, and
        a new thread talks to the JVM on a new one."""
        failure: list[BaseException] = []

        def run() -> None:
            # Each step on its own, so that the folder goes whatever the others raise: under
            # load, a discard after a signal that cut a call to the JVM short raised before
            # the folder was removed.
            for step in (lambda: self._session.sparkContext.cancelAllJobs(), self._session.stop):
                with contextlib.suppress(Exception):
                    step()
            try:
                if not self._fs.delete(self._staging, True) and self._fs.exists(self._staging):
                    raise OSError(f"could not remove {self.path('')}")
            except BaseException as e:  # noqa: BLE001 - raised on the caller's thread
                failure.append(e)

        thread = threading.Thread(target=run, name="removing the staged output", daemon=True)
        thread.start()
        thread.join()
        if failure:
            raise failure[0]


def _first_line(e: BaseException) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    for line in lines:
        if "Exception:" in line:
            return line.split("Exception:", 1)[1].strip() or line
    return lines[0] if lines else type(e).__name__
