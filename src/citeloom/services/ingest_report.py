"""What an ingest run reports: one outcome per document, the relabelled documents, the
pruned paths, the library's problems and skipped attachments; and what the log and the audit
record of each document (the --json report's fields, and more)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from citeloom.domain.citekeys import LibraryProblem
from citeloom.domain.library_files import LibraryAttachment
from citeloom.domain.page_labels import PageLabels

Status = Literal["ingested", "skipped", "failed"]

# INFO: one line per document (path, status, citekey, pages, chunks, seconds per stage), never
# its text; DEBUG: the stages as they start. The audit file has the full record.
log = logging.getLogger("citeloom.ingest")


@dataclass
class DocumentOutcome:
    path: str
    status: Status
    doc_id: str | None = None
    citekey: str | None = None
    match: str | None = None
    # the Zotero entry of an attachment: what it is cited by when it has no usable citekey
    item: str | None = None
    title: str | None = None
    pages: int | None = None
    # the rule that gave the printed page labels, and the printed range: "printed", "272-278"
    page_labels: str | None = None
    printed_pages: str | None = None
    # the library's range and the PDF's numbers, when they disagree and the entry did not
    # choose between them: both, and which one the labels follow
    pages_disagree: str | None = None
    chunks: int = 0
    error: str | None = None
    metadata_problem: str | None = None
    ocr_pages: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    partial: bool = False  # part of the document was not converted (a ConversionWarning says)
    durations: dict[str, float] = field(default_factory=dict)
    # what the run changed in the index besides this document, shown on its line
    renamed_from: str | None = None  # the stored path this content had before
    copy_of: str | None = None  # another file with the same content, which is the one stored
    removed_copies: list[str] = field(default_factory=list)  # stale copies removed (doc ids)
    kept_as: list[str] = field(default_factory=list)  # files that now hold its old content


@dataclass
class Relabel:
    """A stored document whose citekey changed because the library changed."""

    doc_id: str
    path: str
    old: str | None
    new: str | None
    match: str | None


@dataclass
class IngestReport:
    correlation_id: str
    project: str
    collection: str
    embed_model: str
    audit_path: str
    documents: list[DocumentOutcome] = field(default_factory=list)
    relabelled: list[Relabel] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    interrupted: int = 0  # documents left undone after Ctrl-C
    # relations between library entries after the run: certain, possible, problems
    relations: dict[str, int] = field(default_factory=dict)
    # the library's attachments that were not ingested, each with the reason
    library_skipped: list[LibraryAttachment] = field(default_factory=list)
    # the library's PDF annotations mirrored as notes: how many were stored, and removed
    annotations: dict[str, int] = field(default_factory=dict)
    # what is wrong with the library's citation keys (shared keys, keyless entries): warned
    # of at every run until the library is fixed
    library_problems: list[LibraryProblem] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        counts = {"documents": len(self.documents), "ingested": 0, "skipped": 0, "failed": 0}
        for doc in self.documents:
            counts[doc.status] += 1
        counts["chunks"] = sum(d.chunks for d in self.documents if d.status == "ingested")
        return counts


ProgressHook = Callable[[DocumentOutcome, int, int], None]


@runtime_checkable
class RunProgress(Protocol):
    """A progress hook that is also told when the run starts, with how many documents it
    holds, and when it has ended (``--progress json``); a plain ``ProgressHook`` is told of
    each document only."""

    def __call__(self, outcome: DocumentOutcome, number: int, total: int) -> None: ...

    def started(self, total: int, correlation_id: str) -> None: ...

    def finished(self, report: IngestReport) -> None: ...


@runtime_checkable
class WorkProgress(Protocol):
    """A progress hook that is also told of the work inside a document: its pages converted
    (on the thread that converts it, which may run ahead of the document in hand) and its
    chunks embedded, for a long book to show signs of life between its start and its line."""

    def __call__(self, outcome: DocumentOutcome, number: int, total: int) -> None: ...

    def pages(self, path: Path, done: int, total: int) -> None: ...

    def chunks(self, path: Path, done: int, total: int) -> None: ...


def labels_of(outcome: DocumentOutcome, labels: PageLabels | None) -> None:
    """The printed page labels a document is stored with, on its outcome line; a disagreement
    between the library's range and the PDF's numbers that nobody chose between is a warning."""
    if labels is not None:
        outcome.page_labels, outcome.printed_pages = labels.source, labels.span()
        if labels.disagree is not None and not labels.disagree.chosen:
            outcome.pages_disagree = str(labels.disagree)
            outcome.warnings.append(f"pages: {labels.disagree}")


def log_outcome(outcome: DocumentOutcome, correlation_id: str) -> None:
    """One INFO line per document: what happened and how long each stage took, never text."""
    fields = {
        "path": outcome.path,
        "citekey": outcome.citekey,
        "match": outcome.match,
        "pages": outcome.pages,
        "chunks": outcome.chunks,
        "seconds": {k: round(v, 2) for k, v in outcome.durations.items()},
        "correlation_id": correlation_id,
    }
    # INFO, also for a failure: the CLI prints failures anyway; -v adds the stage timings
    fields = {"error": outcome.error, "warnings": len(outcome.warnings), **fields}
    log.info(f"document {outcome.status}", extra={"fields": fields})


def audit_fields(outcome: DocumentOutcome) -> dict[str, Any]:
    """What the audit records of one document (the --json report's fields, and more)."""
    fields: dict[str, Any] = {
        "path": outcome.path,
        "doc_id": outcome.doc_id,
        "status": outcome.status,
        "citekey": outcome.citekey,
        "match": outcome.match,
        "item": outcome.item,
        "pages": outcome.pages,
        "page_labels": outcome.page_labels,
        "printed_pages": outcome.printed_pages,
        "pages_disagree": outcome.pages_disagree,
        "chunks": outcome.chunks,
        "error": outcome.error,
        "renamed_from": outcome.renamed_from,
        "copy_of": outcome.copy_of,
        "removed_copies": outcome.removed_copies,
        "kept_as": outcome.kept_as,
    }
    fields["warnings"] = outcome.warnings
    fields["durations_s"] = {k: round(v, 4) for k, v in outcome.durations.items()}
    fields["metadata"] = outcome.metadata_problem
    fields["ocr_pages"] = outcome.ocr_pages
    fields["partial"] = outcome.partial
    return fields
