"""Where the command line writes: every output checked before any work, claimed by one
process at a time, written out of sight, and put in place only when the whole command is
done, all outputs together, so that a failed, interrupted or killed run leaves nothing
half-written under the names the user gave.

An output folder that exists is replaced whole by the new one, never mixed with it; one
that holds files clusterscore did not write is refused. Staging files and folders sit
beside their output under a name that says whose they are (`.NAME.clusterscore-…`): a run
killed outright (SIGKILL, a power cut) leaves them, and the next run that claims the output
removes them."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from . import _stops as stops
from ._lake import TAG, LakeFolder, mangled_url


def _check_writable(path: Path, *, directory: bool) -> Path:
    """`path` with a link to an existing target resolved; raises ValueError now, before
    hours of work, if it cannot be written later."""
    if mangled_url(str(path)):
        raise ValueError(
            f"{path}: names a URL; this output is written on this machine: name a local path"
        )
    if path.is_symlink():
        if not path.exists():
            raise ValueError(f"{path}: is a link to {os.readlink(path)}, which does not exist")
        path = path.resolve()
    if path.exists():
        if directory and not path.is_dir():
            raise ValueError(f"{path}: exists and is not a directory")
        if not directory and path.is_dir():
            raise ValueError(f"{path}: is a directory; give a file name")
        if not directory and not os.access(path, os.W_OK):
            raise ValueError(f"{path}: cannot be replaced (permission denied)")
    parent = path.parent
    while not parent.exists():
        if parent.is_symlink():
            raise ValueError(f"{path}: {parent} is a link to nothing")
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{path}: cannot write in {parent} (permission denied)")
    return path


def _ours(folder: Path, names: tuple[str, ...]) -> bool:
    """Whether an existing folder holds only what a clusterscore run writes there (files
    named by `names`' suffixes or exactly), so replacing it loses nothing of the user's."""
    for f in folder.iterdir():
        if not f.is_file() or not (f.name in names or f.suffix in names):
            return False
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _as_if_created(path: Path, mode: int) -> None:
    """The permissions `path` would have had if made by open() or mkdir() (the temporary
    ones are private: 0600 files, 0700 folders)."""
    os.chmod(path, mode & ~_umask())


class _Lock:
    """One writer per output: an advisory lock on `.NAME.clusterscore-lock` beside it,
    holding the writer's process id. The kernel releases it when the process ends, however
    it ends."""

    def __init__(self, target: Path) -> None:
        self.path = target.parent / f".{target.name}.{TAG}-lock"
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                other = os.read(fd, 32).decode(errors="replace").strip() or "another"
                os.close(fd)
                raise ValueError(
                    f"{target}: process {other} is writing it; wait for it to end or choose"
                    " another name"
                ) from None
            # The file may have been removed by the writer before us, after we opened it.
            if os.path.exists(self.path) and os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)


def _remove_stale(target: Path) -> None:
    """Staging left beside `target` by a run that was killed outright (we hold its lock,
    so no live run owns them)."""
    for p in target.parent.glob(f".{glob_escape(target.name)}.{TAG}-*"):
        if p.name.endswith("-lock"):
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def file_part(name: str) -> str:
    """`name` (a slice column's, from someone's items table) as part of a file name: as it
    is when made of letters, digits, "_", "-" and "."; otherwise those characters with a
    short hash of the whole name, so that it never leaves its folder and two names never
    meet."""
    if re.fullmatch(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,99}", name):
        return name
    kept = re.sub(r"[^A-Za-z0-9_\-]+", "_", name).strip("_")[:60]
    return f"{kept}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


class Staging:
    """A command's outputs: `folder(out)` and `file(path)` check and claim each output at
    once and return where to write it; `commit()` puts them all in place at the end (no
    stopping signal can come between two of them); `discard()` removes what was
    written. The two are the only ways out."""

    def __init__(self) -> None:
        self._moves: list[tuple[Path, Path, bool]] = []  # (staged, target, is folder)
        self._lakes: list[LakeFolder] = []  # folders written through Spark (_lake.py)
        self._locks: list[_Lock] = []
        self._targets: list[Path | str] = []  # every output claimed, to name in messages

    def _claim(self, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        if any(t == target for _, t, _ in self._moves):
            raise ValueError(f"{target}: named for two outputs")
        self._locks.append(_Lock(target))
        self._targets.append(target)
        _remove_stale(target)

    def folder(self, out: Path, keeps: tuple[str, ...]) -> Path:
        """A hidden folder that becomes `out`; `keeps`: the names and suffixes of the files
        clusterscore writes there (an existing `out` holding anything else is refused)."""
        out = _check_writable(out, directory=True)
        if out.exists() and not _ours(out, keeps):
            raise ValueError(
                f"{out}: exists and holds files clusterscore did not write; name a new folder"
                " or empty this one (it would be replaced whole)"
            )
        # A signal between creating the lock or the staging and recording it would leave
        # them behind: it waits until both are recorded.
        with stops.held(drop=False):
            self._claim(out)
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.{TAG}-", dir=out.parent))
            self._moves.append((tmp, out, True))
        _as_if_created(tmp, 0o777)
        return tmp

    def file(self, path: Path) -> Path:
        """A hidden file that becomes `path`."""
        path = _check_writable(path, directory=False)
        with stops.held(drop=False):  # as in folder()
            self._claim(path)
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.{TAG}-", suffix=path.suffix,
                                        dir=path.parent)  # fmt: skip
            os.close(fd)
            self._moves.append((Path(name), path, False))
        _as_if_created(Path(name), 0o666)
        return Path(name)

    def lake(self, session: Any, url: str, keeps: tuple[str, ...]) -> LakeFolder:
        """A staging folder beside the lake path `url` that becomes it (written through
        `session`'s file system; `keeps` as for folder())."""
        with stops.held(drop=False):  # as in folder()
            folder = LakeFolder(session, url, keeps)
            self._lakes.append(folder)
            self._targets.append(url)
        return folder

    def targets(self) -> list[Path | str]:
        """Every output claimed (put in place or discarded since)."""
        return list(self._targets)

    def commit(self) -> None:
        """Every staged output in place, in one stretch that stopping signals wait for
        (one that comes meanwhile is dropped: the work it would stop is done)."""
        with stops.held(drop=True):
            for staged, target, is_folder in self._moves:
                if is_folder and target.exists():
                    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.{TAG}-old-",
                                                dir=target.parent))  # fmt: skip
                    os.replace(target, old / "x")
                    os.replace(staged, target)
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    os.replace(staged, target)
            self._moves.clear()
            for lake in self._lakes:
                lake.commit()
            self._lakes.clear()
            self._release()

    def discard(self) -> None:
        """Removes every staged output (a stopping signal waits until it is done)."""
        with stops.held(drop=False):
            for staged, _, is_folder in self._moves:
                if is_folder:
                    shutil.rmtree(staged, ignore_errors=True)
                else:
                    staged.unlink(missing_ok=True)
            self._moves.clear()
            for lake in self._lakes:
                with contextlib.suppress(Exception):  # Spark may be gone: nothing to do then
                    lake.discard()
            self._lakes.clear()
            self._release()

    def _release(self) -> None:
        for lock in self._locks:
            lock.release()
        self._locks.clear()
