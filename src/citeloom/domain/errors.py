"""Errors a user can act on, each tied to the exit code the CLI documents.

Entry points map these to exit codes and print ``str(error)``; nothing that subclasses
``CiteloomError`` should ever surface as a traceback.
"""

from __future__ import annotations

import errno
import json
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    DOCUMENTS_FAILED = 1
    USAGE = 2
    INDEX_UNAVAILABLE = 3
    MODEL_MISMATCH = 4
    STORAGE = 5
    INTERNAL = 70  # a bug: never the user's doing
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)


class CiteloomError(Exception):
    """Base of all errors with a message meant for the user."""

    exit_code: ExitCode = ExitCode.USAGE


class ConfigError(CiteloomError):
    """The config file, a referenced file or a command-line value is wrong."""

    exit_code = ExitCode.USAGE


class ReferencesError(ConfigError):
    """The project's references file (CSL-JSON or BibTeX) is missing or malformed."""


class StoredFileChanged(ConfigError):
    """The file a stored document was ingested from is no longer that document: overwritten,
    replaced by a link or by something that is not a regular file, or reached through a
    folder swapped for a link. A door that hands files out refuses it (HTTP 409) rather than
    send whatever is at the path now."""


class UnknownProject(ConfigError):
    """No project of this name is configured (HTTP 404, MCP INVALID_PROJECT)."""

    def __init__(self, message: str, name: str, known: tuple[str, ...]) -> None:
        super().__init__(message)
        self.name = name
        self.known = known


class EveryPathRefused(CiteloomError):
    """Every path given to ingest or watch was refused before the run (a named pipe, a
    device, a missing file): there is nothing to run. Each refusal is printed on its own line."""

    exit_code = ExitCode.DOCUMENTS_FAILED

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class IndexUnavailable(CiteloomError):
    """The index cannot be opened or reached (server down, shard held by another process)."""

    exit_code = ExitCode.INDEX_UNAVAILABLE


class IndexBusy(IndexUnavailable):
    """The embedded index is open in another process (one at a time may hold a project)."""


class TimeLimitExceeded(CiteloomError):
    """A call ran out of its time before anything was written; it can be repeated as is."""

    exit_code = ExitCode.USAGE


class EmbeddingModelMismatch(CiteloomError):
    """The write guard: a collection only ever holds vectors of one embedding model."""

    exit_code = ExitCode.MODEL_MISMATCH

    def __init__(self, collection: str, stored: str, configured: str) -> None:
        self.collection = collection
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"collection '{collection}' holds vectors of embedding model '{stored}', but the "
            f"project is configured for '{configured}'. Mixing models would make scores "
            f'meaningless, so nothing was written. Set embedding_model = "{stored}" in the '
            f"project config, move the project to the new model (citeloom reindex "
            f"--embedding-model {configured}), or use a new collection name for it."
        )


class LanguagesMismatch(CiteloomError):
    """The write guard's second half: a collection's BM25 terms were stemmed for one set of
    languages, and a query or a chunk stemmed for another would not meet them."""

    exit_code = ExitCode.MODEL_MISMATCH

    def __init__(
        self, collection: str, stored: tuple[str, ...], configured: tuple[str, ...]
    ) -> None:
        self.collection = collection
        self.stored = stored
        self.configured = configured
        wanted = ", ".join(configured)
        super().__init__(
            f"collection '{collection}' holds full-text (BM25) terms for languages "
            f"{', '.join(stored)}, but the project is configured for {wanted}. Terms stemmed "
            "for other languages would not meet them, so nothing was done. Run citeloom "
            "reindex for this project without --embedding-model: it rebuilds the BM25 vectors "
            f"for {wanted} without re-embedding. Or set languages = {json.dumps(list(stored))} "
            "in the project config."
        )


class CollectionOwnerMismatch(CiteloomError):
    """The write guard's third part: a collection belongs to the project that made it. Two
    configs naming the same index (a folder, a lab's server) and the same collection under
    different project names would otherwise read, overwrite and drop each other's documents."""

    exit_code = ExitCode.MODEL_MISMATCH

    def __init__(self, collection: str, owner: str, project: str) -> None:
        self.collection = collection
        self.owner = owner
        self.project = project
        super().__init__(
            f"collection '{collection}' belongs to project '{owner}', which made it, but this "
            f"config calls its project '{project}'. Another project's collection is neither "
            "read, written nor dropped under a different name, so nothing was done. Give "
            f"project '{project}' a collection of its own (collection = \"...\" in its table "
            f"of the config), or, if '{owner}' was renamed to '{project}' on purpose, hand the "
            f"collection over: citeloom rename-project {owner} {project}"
        )


class EmbedderUnavailable(CiteloomError):
    """The embedding model cannot be loaded offline."""

    exit_code = ExitCode.USAGE


class ConverterUnavailable(CiteloomError):
    """The conversion stack itself cannot run (a broken install): every document would fail."""

    exit_code = ExitCode.USAGE


class StorageError(CiteloomError):
    """A disk citeloom writes to is full or failing (the index, the conversion cache, the
    audit). Every later document would fail the same way, so the run stops at once, before
    the document in hand is stored."""

    exit_code = ExitCode.STORAGE


# OSError numbers that mean the disk, not the document: no space, no quota, an I/O error, a
# file system mounted read-only.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS})


class DocumentError(CiteloomError):
    """One document of a batch cannot be ingested; the batch goes on without it."""

    exit_code = ExitCode.DOCUMENTS_FAILED
