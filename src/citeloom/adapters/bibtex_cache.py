"""A ``.bib`` library read once per content: its entries as CSL-JSON items, kept in
``cache_dir/libraries`` under the file's SHA-256 and the version of what reads it.

Reading BibTeX is slow where reading CSL-JSON is not: pybtex parses in Python and every field
goes through a LaTeX decoder, so a 20 MB library of 44,000 entries takes a minute, and
``validate``, ``ingest`` and ``check`` each read it. The items it gives depend on the file's
bytes, pybtex's version and this reading code alone, so those are the key: a changed file, a
new pybtex or a change to ``bibtex_references`` reads the file again, and nothing else does.
The file is sealed (``cache_files``), so a damaged one is read again, never trusted; the
newest ``KEEP`` are kept, so re-exporting a large library every day does not fill the disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from functools import cache
from pathlib import Path
from typing import Any

import pybtex

from citeloom.adapters import bibtex_references
from citeloom.adapters.cache_files import read_sealed, write_sealed

FORMAT = "citeloom-bibtex-library"
KEEP = 16  # libraries (and versions of one) kept: a config holds a few projects
log = logging.getLogger(__name__)


@cache
def reading_version() -> str:
    """What reads a ``.bib``: pybtex's version and a hash of ``bibtex_references``'s own
    source, so a change there needs no version number to be remembered by hand."""
    source = Path(bibtex_references.__file__).read_bytes()
    return f"pybtex {pybtex.__version__}, reader {hashlib.sha256(source).hexdigest()[:16]}"


def bibtex_items(
    path: Path, text: str, sha256: str, cache_dir: Path | None
) -> list[dict[str, Any]]:
    """The entries of ``path`` (its text, and the SHA-256 of its bytes) as
    ``bibtex_references.parse_bibtex`` gives them: from the cache when it holds this content,
    else parsed and kept. A library that is refused (``ReferencesError``) is not kept: it is
    read again, and refused again, each time."""
    if cache_dir is None:
        return bibtex_references.parse_bibtex(path, text)
    key = hashlib.sha256(f"{reading_version()}\0{sha256}".encode()).hexdigest()[:32]
    target = cache_dir / "libraries" / f"{key}.json"
    if (items := _read(target)) is not None:
        with contextlib.suppress(OSError):
            os.utime(target)  # recently used: the last to be removed
        return items
    items = bibtex_references.parse_bibtex(path, text)
    try:
        write_sealed(target, FORMAT, json.dumps(items, ensure_ascii=False).encode())
        _forget_old(target.parent)
    except OSError as error:  # a cache that cannot be written only costs time
        log.debug("library not cached: %s", error)
    return items


def _read(target: Path) -> list[dict[str, Any]] | None:
    body = read_sealed(target, FORMAT)
    if body is None:
        return None
    try:
        items = json.loads(body)
    except ValueError:
        return None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        return None
    return items


def _forget_old(folder: Path) -> None:
    """All but the ``KEEP`` most recently used libraries removed."""
    kept = sorted(folder.glob("*.json"), key=_used, reverse=True)
    for old in kept[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()


def _used(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # removed by another process meanwhile
        return 0.0
