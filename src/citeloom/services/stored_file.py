"""The file a stored document was ingested from, read for a door that hands it out
(``GET /file``) only while it is still that document, and by no other way than its path.

The index gives the path, but what is at that path now is up to whoever can write to the
papers folder. Were the door to send whatever is there, the file swapped for a link to
``/etc/passwd``, a folder on the way swapped for a link to another tree, or the file simply
overwritten would let anyone who can write to that folder (a neighbour on a shared folder, a
crafted library) read any file the server's user can. So the rule is:

- every folder from ``/`` down is opened without following a link, each relative to the one
  before, and then the file itself, so no link anywhere on the path is followed and nothing
  can be swapped between a look at the path and the open;
- what was opened must be a regular file (a pipe would keep a read waiting for ever);
- its bytes, read once from that open file, must hash to the SHA-256 recorded at ingest, and
  those very bytes are what the door sends: a file changed during the read is refused, never
  half-served.

Anything else is ``StoredFileChanged`` (HTTP 409) naming the path and how to store what is
there now; a file that is gone or unreadable is a ``ConfigError`` (HTTP 400) as before.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from citeloom.domain.errors import ConfigError, StoredFileChanged
from citeloom.domain.file_kinds import kind_of

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a named pipe must not wait for a writer before fstat can refuse it
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_BLOCK = 1 << 20
# what open(2) answers for a link it was told not to follow (FreeBSD says EMLINK)
_A_LINK = frozenset({errno.ELOOP, errno.EMLINK})


@dataclass(frozen=True)
class StoredFile:
    """A stored document's file as it was ingested: ``content`` is what a door sends."""

    path: Path
    content: bytes


def read_as_ingested(path: Path, sha256: str, project: str, document: str) -> StoredFile:
    """The bytes of ``path`` if it is, by no link, the regular file whose SHA-256 ingest
    recorded; else ``StoredFileChanged`` or ``ConfigError`` naming the path and the fix.
    ``document``: the citekey (or doc id) the file is of, as a missing file's message says."""
    again = f"citeloom ingest FOLDER -p {project}"
    if not sha256:
        raise StoredFileChanged(
            f"{path}: no content hash was stored with this document, so the file cannot be "
            f"shown to be the one ingested and is not served. Ingest its folder again: {again}."
        )
    if not path.is_absolute():
        raise StoredFileChanged(
            f"{path}: the stored path is not absolute, so it is not served. Ingest its folder "
            f"again: {again}."
        )
    descriptor = _open_without_links(path, again, document)
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise StoredFileChanged(
                f"{path}: is now {kind_of(found.st_mode)}, not the regular file that was "
                f"ingested, so it is not served. Put the file back, or ingest the folder "
                f"again: {again}."
            )
        content = _read(descriptor, path)
    finally:
        os.close(descriptor)
    if hashlib.sha256(content).hexdigest() != sha256:
        raise StoredFileChanged(
            f"{path}: the file changed since it was ingested (its SHA-256 is not the one "
            f"stored), so it is not served. To store what it holds now: {again}."
        )
    return StoredFile(path, content)


def _open_without_links(path: Path, again: str, document: str) -> int:
    """A descriptor of ``path``, each folder of it and the file opened without following a
    link; the refusal names the part of the path that is not what ingest read."""
    folder = os.open("/", _FOLDER)
    try:
        here = Path("/")
        for part in path.parts[1:-1]:
            try:
                inner = os.open(part, _FOLDER, dir_fd=folder)
            except OSError as error:
                raise _refusal(error, folder, part, here / part, path, again, document) from None
            os.close(folder)
            folder, here = inner, here / part
        try:
            return os.open(path.name, _FILE, dir_fd=folder)
        except OSError as error:
            raise _refusal(error, folder, path.name, path, path, again, document) from None
    finally:
        os.close(folder)


def _refusal(
    error: OSError, folder: int, name: str, where: Path, path: Path, again: str, document: str
) -> ConfigError:
    """Why ``name`` (``where``, in the open ``folder``) could not be opened on the way to
    ``path``: a link or something that is no folder (409), or gone or unreadable (400)."""
    try:
        mode: int | None = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        mode = None
    part = "the file" if where == path else f"the folder {where} on its path"
    if error.errno in _A_LINK or (mode is not None and stat.S_ISLNK(mode)):
        return StoredFileChanged(
            f"{path}: {part} is a symbolic link, and a stored file is only served by its own "
            "path (a link can be made to lead to any file of this machine), so it is not "
            "served. If you made the link, remove it and ingest the folder the papers really "
            f"are in (only the stored paths change): {again}."
        )
    if mode is not None and error.errno == errno.ENOTDIR:
        kind = kind_of(mode) or "a regular file"
        return StoredFileChanged(
            f"{path}: {part} is now {kind}, not a folder, so the file is not served. Put the "
            f"folder back, or ingest the papers where they are now: {again}."
        )
    if isinstance(error, FileNotFoundError):
        return ConfigError(
            f"{path}: the file of {document} is no longer there (moved or deleted since it "
            "was ingested). "
            f"Put it back, or ingest it from its new place ({again})."
        )
    if isinstance(error, PermissionError):
        return ConfigError(
            f"{path}: {part} cannot be read (permission denied), so the file is not served. "
            f"Make it readable to the server's user, or ingest it from elsewhere: {again}."
        )
    return ConfigError(
        f"{path}: cannot be opened ({error.strerror}), so it is not served. Check the file, "
        f"or ingest it again: {again}."
    )


def _read(descriptor: int, path: Path) -> bytes:
    """The whole file, read once from the open descriptor."""
    blocks: list[bytes] = []
    try:
        while block := os.read(descriptor, _BLOCK):
            blocks.append(block)
    except OSError as error:
        raise ConfigError(
            f"{path}: cannot be read ({error.strerror}), so it is not served. Check the disk "
            "and the file."
        ) from error
    return b"".join(blocks)
