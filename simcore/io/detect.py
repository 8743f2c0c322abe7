"""Which reader a results file needs, told from its content (never its extension).

* USEBIO XML: a ``<USEBIO`` root element in the first kilobytes;
* BridgeWebs CSV: a line ``#SCORES`` or ``#TRAVELLERS``;
* PBN: tag lines ``[Name "value"]`` (``[Board "..."]``, ``[Event "..."]``...).

``find_files`` expands files and folders (recursively, sorted by path);
``read_any`` reads one file with the right reader.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from simcore.io.imported import ImportFileError

FORMATS = ("usebio", "pbn", "bridgewebs")
_PBN_TAG = re.compile(rb'^\s*\[[A-Za-z][A-Za-z0-9_]*\s+"', re.M)
_BW = re.compile(rb"^\s*#(SCORES|TRAVELLERS)\b", re.M | re.I)


def detect(head: bytes) -> str | None:
    """The format of a file from its first bytes, or None."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    from simcore.io.usebio import looks_like
    if looks_like(head):
        return "usebio"
    if _BW.search(head):
        return "bridgewebs"
    if _PBN_TAG.search(head):
        return "pbn"
    return None


def find_files(paths) -> list[tuple[Path, bool]]:
    """(file, named) for every path: files as given, folders walked in sorted order.

    named is True for a file given by name (an unreadable one is an error)
    and False for one found in a folder (an unrecognised one is skipped with a note).
    """
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out += [(Path(root) / f, False) for f in sorted(files) if not f.startswith(".")]
        elif path.is_file():
            out.append((path, True))
        else:
            raise ImportFileError(f"{p}: no such file or folder")
    return out


def read_any(path: Path, data: bytes | None = None):
    """(format, sessions) of one file; format None (and no sessions) when no reader knows it."""
    if data is None:
        with open(path, "rb") as fh:
            data = fh.read()
    fmt = detect(data[:65536])
    if fmt is None:
        return None, []
    if fmt == "usebio":
        from simcore.io.usebio import read_usebio
        return fmt, read_usebio(path, data)
    if fmt == "pbn":
        from simcore.io.pbn import read_pbn
        return fmt, read_pbn(path, data)
    from simcore.io.bridgewebs import read_bridgewebs
    return fmt, read_bridgewebs(path, data)
