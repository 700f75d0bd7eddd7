"""Where the command line writes: checked before any work, written out of sight, and put
in place only when complete, so that a failed or interrupted run leaves nothing
half-written under the name the user gave."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def check_writable(path: Path, *, directory: bool) -> None:
    """Raises ValueError now, before hours of work, if `path` cannot be written later:
    it is the wrong kind of thing, or its nearest existing folder cannot be written."""
    if path.exists():
        if directory and not path.is_dir():
            raise ValueError(f"{path}: exists and is not a directory")
        if not directory and path.is_dir():
            raise ValueError(f"{path}: is a directory; give a file name")
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{path}: cannot write in {parent} (permission denied)")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _as_if_created(path: Path, mode: int) -> None:
    """The permissions `path` would have had if made by open() or mkdir() (the temporary
    ones are private: 0600 files, 0700 folders)."""
    os.chmod(path, mode & ~_umask())


class StagedDir:
    """`with StagedDir(out) as tmp:` the files written into `tmp` (a hidden folder beside
    `out`) become `out`'s when the block ends without an error; otherwise they are
    removed. Files already in `out` and not rewritten are kept."""

    def __init__(self, out: Path) -> None:
        check_writable(out, directory=True)
        self.out = out
        self.tmp: Path | None = None

    def __enter__(self) -> Path:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=self.out.parent))
        _as_if_created(self.tmp, 0o777)
        return self.tmp

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        assert self.tmp is not None
        if kind is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return
        if not self.out.exists():
            os.replace(self.tmp, self.out)
            return
        for f in sorted(self.tmp.iterdir()):
            os.replace(f, self.out / f.name)
        self.tmp.rmdir()


class StagedFiles:
    """The same for single files: `with StagedFiles(a, b) as (ta, tb):` writes go to hidden
    files beside `a` and `b`, renamed over them together at the end."""

    def __init__(self, *paths: Path) -> None:
        for p in paths:
            check_writable(p, directory=False)
        self.paths = paths
        self.tmps: list[Path] = []

    def __enter__(self) -> list[Path]:
        for p in self.paths:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=p.suffix, dir=p.parent)
            os.close(fd)
            _as_if_created(Path(name), 0o666)
            self.tmps.append(Path(name))
        return self.tmps

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            for t in self.tmps:
                t.unlink(missing_ok=True)
            return
        for t, p in zip(self.tmps, self.paths, strict=True):
            os.replace(t, p)
