"""What an error means at each door: one table from error class to the CLI's exit code, the
HTTP status and the MCP error code, with the fix an agent is told.

The exit code is the error class's own (``domain.errors``: audits record it too); this table
adds what HTTP and MCP answer. Rows are checked in order, most specific first, so every door
answers the same error the same way, and none has to read a message to tell errors apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from citeloom.domain.errors import (
    CiteloomError,
    CollectionOwnerMismatch,
    ConverterUnavailable,
    DocumentError,
    EmbedderUnavailable,
    EmbeddingModelMismatch,
    ExitCode,
    IndexBusy,
    IndexUnavailable,
    LanguagesMismatch,
    StorageError,
    StoredFileChanged,
    TimeLimitExceeded,
    UnknownProject,
)


class McpCode(StrEnum):
    INVALID_PROJECT = "INVALID_PROJECT"
    INVALID_INPUT = "INVALID_INPUT"
    EMBEDDING_MISMATCH = "EMBEDDING_MISMATCH"
    INDEX_UNAVAILABLE = "INDEX_UNAVAILABLE"
    INDEX_BUSY = "INDEX_BUSY"
    TIMEOUT = "TIMEOUT"
    INTERNAL_ERROR = "INTERNAL_ERROR"  # a bug in citeloom, never the caller's doing


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    http_status: int
    mcp_code: McpCode
    fix: str  # what an agent should do, when the message names no better fix
    retry: bool = False  # worth sending again later (HTTP: 503 with Retry-After)


_VALIDATE = "ask the user to check the index (citeloom validate --project P); nothing was changed"

# (error class, HTTP status, MCP code, fix, retry), most specific first
TABLE: tuple[tuple[type[CiteloomError], int, McpCode, str, bool], ...] = (
    (
        UnknownProject,
        404,
        McpCode.INVALID_PROJECT,
        "call list_projects and pass one of the project ids it returns",
        False,
    ),
    (
        IndexBusy,
        503,
        McpCode.INDEX_BUSY,
        "another citeloom process (an ingest) holds the project; call again in a little while",
        True,
    ),
    (
        TimeLimitExceeded,
        503,
        McpCode.TIMEOUT,
        "nothing was written; call again with less (fewer items, a draft in parts), or ask "
        "the user to raise the time limit",
        True,
    ),
    (StorageError, 507, McpCode.INDEX_UNAVAILABLE, _VALIDATE, False),
    (IndexUnavailable, 503, McpCode.INDEX_UNAVAILABLE, _VALIDATE, False),
    (
        LanguagesMismatch,
        409,
        McpCode.EMBEDDING_MISMATCH,
        "ask the user to run: citeloom reindex --project P (it rebuilds the full-text index for "
        "the project's languages without re-embedding), or to set the project's languages back "
        "to the stored ones",
        False,
    ),
    (
        EmbeddingModelMismatch,
        409,
        McpCode.EMBEDDING_MISMATCH,
        "ask the user to run: citeloom reindex --project P --embedding-model M, or to set the "
        "project's embedding_model back to the stored one",
        False,
    ),
    (
        CollectionOwnerMismatch,
        409,
        McpCode.INVALID_PROJECT,
        "the project's collection belongs to another project (another config names the same "
        "index and collection); ask the user to give this project a collection of its own, "
        "or to run: citeloom rename-project OLD P if the project was renamed on purpose",
        False,
    ),
    (
        EmbedderUnavailable,
        503,
        McpCode.INVALID_PROJECT,
        "the project's embedding model cannot load here; ask the user to run: citeloom validate",
        False,
    ),
    (ConverterUnavailable, 503, McpCode.INDEX_UNAVAILABLE, _VALIDATE, False),
    (
        StoredFileChanged,
        409,
        McpCode.INVALID_INPUT,
        "the paper's file changed since it was ingested; ask the user to ingest its folder "
        "again (citeloom ingest FOLDER -p P)",
        False,
    ),
    (DocumentError, 422, McpCode.INVALID_INPUT, "correct the input the message names", False),
    (
        CiteloomError,
        400,
        McpCode.INVALID_INPUT,
        "correct the argument the message names and call again",
        False,
    ),
)

INTERNAL = Outcome(
    int(ExitCode.INTERNAL),
    500,
    McpCode.INTERNAL_ERROR,
    "tell the user; `citeloom mcp --check` shows what fails",
)


def internal(error: BaseException) -> str:
    """A bug, named as one at every door: its class and message (each door adds what to do)."""
    return f"internal error ({type(error).__name__}: {error})"


def outcome(error: BaseException) -> Outcome:
    """The row of the first class ``error`` is an instance of; ``INTERNAL`` for a bug."""
    if isinstance(error, CiteloomError):
        for kind, status, code, fix, retry in TABLE:
            if isinstance(error, kind):
                return Outcome(int(error.exit_code), status, code, fix, retry)
    return INTERNAL
