"""Files in ``cache_dir``: written whole or not at all, and a sealed file read back only when
it is whole and of its kind.

Every cache of citeloom only saves time, so one rule serves them all: a file is written beside
its target under a name of its own and renamed over it (a reader, or another process writing
the same entry, sees the old file or the new one, never a part of either), and a file that
cannot be read, or reads as something else than was written, is made again, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from pathlib import Path


def write_atomically(target: Path, data: bytes) -> None:
    """``data`` as the whole of ``target``, through a temporary file beside it and a rename
    (created under the process's umask, as any file the user writes). ``OSError`` when it
    cannot be written, the temporary file removed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with tmp.open("xb") as file:
            file.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_sealed(target: Path, kind: str, body: bytes) -> None:
    """``body`` under a first line naming its kind and its SHA-256, so a reader tells a whole
    file from a damaged one (a disk error, a hand edit, a copy cut short) without parsing
    it. ``OSError`` as ``write_atomically``."""
    header = {"format": kind, "sha256": hashlib.sha256(body).hexdigest()}
    write_atomically(target, json.dumps(header).encode() + b"\n" + body)


def read_sealed(target: Path, kind: str) -> bytes | None:
    """The body ``write_sealed`` wrote, or None when the file is absent, unreadable, of
    another kind or not whole."""
    try:
        data = target.read_bytes()
    except OSError:
        return None
    head, newline, body = data.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError:
        return None
    if not newline or not isinstance(header, dict) or header.get("format") != kind:
        return None
    return body if header.get("sha256") == hashlib.sha256(body).hexdigest() else None
