"""Output paths, checked before any work starts.

Every command that writes checks each output path here first, so a typo in
``--out`` fails in a second with a message naming the option, not after a
long simulation with ``[Errno 2]``.  A check creates the missing folders and
writes (then removes) a probe file, because only that proves a place is
writable (``os.access`` says yes to root everywhere, and /sys says no only
when written to).  ``Outputs`` remembers the folders it created so an error
or an interrupt later in the run removes them again if they are still empty:
a failed run leaves nothing behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from simcore.errors import UsageError


class Outputs:
    """The output paths of one command; use as a context manager.

    ``folder(path, option)`` and ``file(path, option)`` check a path (and
    create its missing folders); leaving the ``with`` block by an exception
    removes the folders created here that are still empty.
    """

    def __init__(self):
        self.created: list[Path] = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.remove_empty()
        return False

    def remove_empty(self) -> None:
        for folder in reversed(self.created):
            try:
                folder.rmdir()  # only succeeds while empty: never removes anything written
            except OSError:
                pass
        self.created = []

    def folder(self, path, option: str) -> Path:
        """Check that ``path`` is (or can become) a writable folder; create it."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise UsageError(f"{option} {path}: this is an existing file, not a folder; give a folder")
        self._make(path, option)
        self._probe(path, option)
        return path

    def file(self, path, option: str) -> Path:
        """Check that a file can be written at ``path`` (creating its folder)."""
        path = Path(path)
        if str(path).endswith(os.sep) or path.is_dir():
            raise UsageError(f"{option} {path}: this is a folder; give a file name")
        self._make(path.parent, option, whole=path)
        self._probe(path.parent, option, whole=path)
        if path.exists() and not os.access(path, os.W_OK):
            raise UsageError(f"{option} {path}: the file exists and cannot be overwritten")
        return path

    def place(self, path, option: str) -> Path:
        """Check that ``path`` can be created by the command itself (a folder written atomically,
        say): it is not an existing file, and its parent folder exists (created here) and is writable."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise UsageError(f"{option} {path}: this is an existing file, not a folder")
        self._make(path.parent, option, whole=path)
        self._probe(path.parent, option, whole=path)
        return path

    def _make(self, folder: Path, option: str, whole: Path | None = None) -> None:
        shown = whole if whole is not None else folder
        missing = []
        p = folder
        while not p.exists():
            if p.is_symlink():  # a dangling link: mkdir would fail with a puzzling error
                raise UsageError(f"{option} {shown}: {p} is a broken symbolic link")
            missing.append(p)
            if p.parent == p:
                break
            p = p.parent
        if p.exists() and not p.is_dir():
            raise UsageError(f"{option} {shown}: {p} is a file, not a folder")
        for q in reversed(missing):
            try:
                q.mkdir()
            except OSError as exc:
                raise UsageError(f"{option} {shown}: cannot create the folder {q} "
                                 f"({exc.strerror or exc})") from None
            self.created.append(q)

    def _probe(self, folder: Path, option: str, whole: Path | None = None) -> None:
        shown = whole if whole is not None else folder
        try:
            fd, name = tempfile.mkstemp(prefix=".simcore-probe-", dir=folder)
            os.close(fd)
            os.unlink(name)
        except OSError as exc:
            raise UsageError(f"{option} {shown}: cannot write in {folder} ({exc.strerror or exc})") from None


def write_atomic(path, write) -> None:
    """Call ``write(tmp_path)`` then move the file into place, so an interrupted
    write never leaves a half-written ``path``."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
