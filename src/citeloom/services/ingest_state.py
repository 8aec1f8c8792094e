"""What one ingest run knows while it changes the index.

``RunFiles``: the content of the run's files, each hashed at most once, so the run can ask
which file holds a content before it moves or removes a stored document. ``StoredDocuments``:
the project's stored documents, kept current as the run moves, replaces and removes them.

Both exist because deciding from a list read before the loop loses documents: after a rename
the list still names the old path, and a prune or an edit elsewhere then removed a document
whose content was still in the folder (issue 12). And how the run tells a file it cannot read
(``not_a_document``, ``hash_file``: that file fails) from a disk it cannot write
(``storage_error``: the run stops).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from citeloom.domain.errors import STORAGE_ERRNOS, DocumentError, StorageError
from citeloom.domain.file_kinds import kind_of
from citeloom.domain.ids import sha256_of_file
from citeloom.domain.models import DocumentSummary, IndexPoint
from citeloom.domain.records import summarise_documents
from citeloom.ports import Index


class RunFiles:
    """The files of one run and their SHA-256, each read at most once (also when the thread
    that converts ahead asks for the same file)."""

    def __init__(self, files: Sequence[Path]) -> None:
        self.files = list(files)
        self._members = set(self.files)
        self._hashes: dict[Path, str | DocumentError] = {}
        self._lock = threading.Lock()
        self.seconds: dict[Path, float] = {}

    def sha256(self, path: Path) -> str:
        """The file's hash; ``DocumentError`` when it cannot be read."""
        with self._lock:
            if path not in self._hashes:
                start = time.perf_counter()
                try:
                    self._hashes[path] = hash_file(path)
                except DocumentError as error:
                    self._hashes[path] = error
                self.seconds[path] = time.perf_counter() - start
            found = self._hashes[path]
        if isinstance(found, DocumentError):
            raise found
        return found

    def _readable(self, path: Path) -> str | None:
        try:
            return self.sha256(path)
        except DocumentError:
            return None

    def holds(self, path: Path, sha256: str) -> bool:
        """Whether ``path`` still holds this content: a file of the run, or one outside it
        (a document stored from another folder)."""
        if path in self._members:
            return self._readable(path) == sha256
        try:
            return path.is_file() and hash_file(path) == sha256
        except DocumentError:
            return False

    def holder(self, sha256: str, besides: Path) -> Path | None:
        """The first file of the run other than ``besides`` that holds this content."""
        return next(
            (f for f in self.files if f != besides and self._readable(f) == sha256),
            None,
        )


class StoredDocuments:
    """The project's documents in the index, changed only through these methods so that the
    run always decides from what the index holds now."""

    def __init__(self, index: Index, collection: str, project: str) -> None:
        self.index = index
        self.collection = collection
        self.project = project
        self._docs: dict[str, DocumentSummary] = {}
        self._by_path: dict[str, set[str]] = {}  # stored path -> doc ids (one lookup a file)
        # library attachments the run found renamed or moved: new path -> the stored one
        self.followed: dict[str, str] = {}
        self.reload()

    def reload(self) -> None:
        self._docs, self._by_path = {}, {}
        for doc in self.index.documents(self.collection, self.project):
            self._put(doc)

    def _put(self, doc: DocumentSummary) -> None:
        self._drop(doc.doc_id)
        self._docs[doc.doc_id] = doc
        self._by_path.setdefault(doc.path, set()).add(doc.doc_id)

    def _drop(self, doc_id: str) -> None:
        old = self._docs.pop(doc_id, None)
        if old is not None:
            self._by_path[old.path].discard(doc_id)

    def __iter__(self) -> Iterator[DocumentSummary]:
        return iter(list(self._docs.values()))

    def get(self, doc_id: str) -> DocumentSummary | None:
        return self._docs.get(doc_id)

    def at(self, path: Path, besides: str | None = None) -> list[DocumentSummary]:
        """Documents stored under ``path`` other than ``besides`` (earlier versions)."""
        ids = sorted(self._by_path.get(str(path), ()))
        return [self._docs[i] for i in ids if i != besides]

    def move(self, doc: DocumentSummary, path: Path) -> None:
        """The content now lives at ``path``: only the stored path changes."""
        self.index.relabel_document(self.collection, doc.doc_id, {"source": {"path": str(path)}})
        self._put(replace(doc, path=str(path)))

    def remove(self, doc: DocumentSummary) -> None:
        self.index.delete_document(self.collection, doc.doc_id)
        self._drop(doc.doc_id)

    def replace(self, doc_id: str, path: Path, points: Sequence[IndexPoint]) -> None:
        """Store a document's chunks; the index removes the other chunks of its content and
        of its path (new before old, see ADR 0005)."""
        self.index.replace_document(self.collection, doc_id, str(path), points)
        for other in self.at(path):
            self._drop(other.doc_id)
        for doc in summarise_documents(p.payload for p in points):
            self._put(doc)


def not_a_document(path: Path) -> str | None:
    """Why an existing ``path`` cannot be read as a document, or None: a named pipe, a device
    or a socket, or a link to one. Reading one would wait for a writer for ever (a pipe) or
    never end (/dev/zero), holding the index all the while. A missing path or a folder is
    judged elsewhere."""
    try:
        status = path.stat()  # through links: what would be read
    except OSError:
        return None
    kind = kind_of(status.st_mode)
    if kind is None or stat.S_ISDIR(status.st_mode):
        return None
    if path.is_symlink():
        kind = f"a link to {os.path.realpath(path)}, {kind}"
    return (
        f"{kind}, not a document file, so it was not read (citeloom reads regular files only). "
        "Save the document to a regular file and pass that."
    )


def hash_file(path: Path) -> str:
    """SHA-256 of a file, or a ``DocumentError`` that names the file and the fix."""
    if reason := not_a_document(path):  # also when a file was replaced by one since
        raise DocumentError(f"{path}: {reason}")
    try:
        return sha256_of_file(path)
    except FileNotFoundError as error:
        raise DocumentError(
            f"{path}: cannot be read (a broken link, or the file was removed). Restore the file "
            "or remove the link."
        ) from error
    except PermissionError as error:
        raise DocumentError(
            f"{path}: cannot be read (permission denied). Make it readable: chmod u+r '{path}'."
        ) from error
    except OSError as error:
        raise DocumentError(
            f"{path}: cannot be read ({error.strerror}). Check that the file is readable."
        ) from error


def storage_error(error: OSError, path: Path) -> StorageError | None:
    """A full or failing disk under the cache, the index or a temporary folder: every later
    document would fail the same way, so the run stops before ``path`` is stored."""
    if error.errno not in STORAGE_ERRNOS:
        return None
    where = error.filename or "a disk citeloom writes to"
    return StorageError(
        f"{where}: {error.strerror} (while storing {path}). The disk is full or failing: free "
        "some space or check the disk, then run the same command again. Nothing of this "
        "document was stored; the index is as it was before it."
    )
