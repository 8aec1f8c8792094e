"""Storing text an agent or a person wants to keep citable (notes, excerpts) beside the papers.

A note (``domain.notes``) is a small document of its own: chunked, embedded and labelled by the
same steps as an ingested file (``DocumentPipeline``), behind the same write guard, with one
audit file per call. Its identity is its content, so storing the same note twice changes
nothing. It is kept in the index only (its first chunk holds it as given), never in the
conversion cache beside the papers' text, which is what quotes are verified against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeloom.domain.errors import CiteloomError, ConfigError, ExitCode, TimeLimitExceeded
from citeloom.domain.notes import NOTE_FIELD, NoteItem
from citeloom.ports import AuditLog, Index, SearchFilter
from citeloom.services.pipeline import DocumentPipeline

MAX_ITEMS = 200


@dataclass
class StoredNote:
    doc_id: str
    citekey: str | None
    chunks: int
    chunk_ids: list[str]


@dataclass
class StoreReport:
    correlation_id: str
    project: str
    collection: str
    audit_path: str
    notes: list[StoredNote] = field(default_factory=list)


def check_items(items: Sequence[NoteItem]) -> None:
    if not items:
        raise ConfigError("items is empty: pass at least one {text: ...} to store.")
    if len(items) > MAX_ITEMS:
        raise ConfigError(
            f"{len(items)} items in one call; at most {MAX_ITEMS} are stored per call. Split "
            "them over several calls."
        )
    for number, item in enumerate(items):
        if problems := item.problems():
            raise ConfigError(f"items[{number}].{problems[0]}")


@dataclass(kw_only=True)
class NoteService(DocumentPipeline):
    def store(
        self,
        items: Sequence[NoteItem],
        should_stop: Callable[[], bool] = lambda: False,
        may_write: Callable[[], bool] = lambda: True,
    ) -> StoreReport:
        """Chunk and embed every item, then write them, one document each.

        ``should_stop`` is asked before each item, ``may_write`` once before the first write
        (a caller's time limit: once it says yes, the writes are finished whatever the
        clock says). Either stopping raises ``TimeLimitExceeded`` with nothing written."""
        check_items(items)
        references = {r.citekey: r for r in self.metadata.references()}
        for number, item in enumerate(items):
            if item.citekey is not None and item.citekey not in references:
                raise ConfigError(
                    f"items[{number}].citekey '{item.citekey}' is not in the project's "
                    "references. Use a citekey of the library, or leave it out (the note is "
                    "then labelled [no reference match])."
                )
        report = StoreReport(
            self.audit.correlation_id, self.project, self.collection, self.audit.location
        )
        self.audit.record(
            "run_started",
            project=self.project,
            collection=self.collection,
            embed_model=self.embedder.model_id,
            inputs=["store_chunks"],
            files=len(items),
        )
        try:
            # the write guard first, as in ingest: a mismatch embeds and writes nothing
            self.index.ensure_collection(
                self.collection,
                self.embedder.model_id,
                self.embedder.dimensions,
                self.languages,
                project=self.project,
            )
            prepared = []
            for item in items:
                if should_stop():
                    raise TimeLimitExceeded("time limit reached before anything was written")
                prepared.append(self._prepare(item, references))
            if not may_write():
                raise TimeLimitExceeded("time limit reached before anything was written")
            for document, match, points, durations in prepared:
                self.index.replace_document(
                    self.collection, points[0].payload["doc_id"], document.source_path, points
                )
                note = StoredNote(
                    doc_id=points[0].payload["doc_id"],
                    citekey=match.citekey,
                    chunks=len(points),
                    chunk_ids=[p.id for p in points],
                )
                report.notes.append(note)
                self.audit.record(
                    "document",
                    path=document.source_path,
                    doc_id=note.doc_id,
                    status="ingested",
                    citekey=note.citekey,
                    match=match.kind,
                    pages=None,
                    chunks=note.chunks,
                    error=None,
                    warnings=[],
                    durations_s={k: round(v, 4) for k, v in durations.items()},
                )
        except CiteloomError as error:
            self.audit.record("run_aborted", error=str(error), exit_code=int(error.exit_code))
            raise
        except Exception as error:
            reason = f"internal error ({type(error).__name__}: {error})"
            self.audit.record("run_aborted", error=reason, exit_code=int(ExitCode.INTERNAL))
            raise
        finally:
            totals = {
                "documents": len(items),
                "ingested": len(report.notes),
                "skipped": 0,
                "failed": len(items) - len(report.notes),
                "chunks": sum(n.chunks for n in report.notes),
            }
            self.audit.record("run_finished", totals=totals)
            self.audit.close()
        return report

    def _prepare(self, item: NoteItem, references: dict[str, Any]) -> tuple[Any, ...]:
        match = item.match(references)
        document = item.document(match.reference.title if match.reference else None)
        durations: dict[str, float] = {}
        points = self.points(document, match, item.doc_id, durations, note=item)
        return document, match, points, durations


@dataclass(frozen=True)
class NoteSummary:
    """A stored note as `notes list` shows it."""

    doc_id: str
    citekey: str | None
    page: int | None
    section: str | None
    tags: tuple[str, ...]
    text: str
    chunks: int


@dataclass
class NoteBook:
    """The notes of a project, to list and to remove: nothing stored is permanent by
    accident. Needs only the index (no model is loaded)."""

    project: str
    collection: str
    index: Index
    audit: AuditLog

    def stored(self) -> list[NoteSummary]:
        notes = [d for d in self.index.documents(self.collection, self.project) if d.kind == "note"]
        if not notes:
            return []
        firsts = self.index.chunks(
            self.collection,
            SearchFilter(self.project, doc_ids=tuple(d.doc_id for d in notes), chunk_range=(0, 0)),
            limit=len(notes),
        )
        given = {p["doc_id"]: p.get(NOTE_FIELD) or {} for p in firsts.values()}
        out = []
        for doc in notes:
            note = given.get(doc.doc_id, {})
            out.append(
                NoteSummary(
                    doc_id=doc.doc_id,
                    citekey=doc.citekey,
                    page=note.get("page"),
                    section=note.get("section"),
                    tags=tuple(note.get("tags") or ()),
                    text=str(note.get("text") or ""),
                    chunks=doc.chunks,
                )
            )
        return out

    def delete(self, doc_ids: Sequence[str]) -> list[str]:
        """Remove these notes (every chunk of each). Nothing is removed when one of the ids is
        not a note of the project: a paper leaves the project through its file and `ingest
        --prune`, never through here."""
        documents = {d.doc_id: d for d in self.index.documents(self.collection, self.project)}
        for doc_id in doc_ids:
            doc = documents.get(doc_id)
            if doc is None:
                raise ConfigError(
                    f"{doc_id}: no note with this id in project '{self.project}'. "
                    f"List them with: citeloom notes list -p {self.project}"
                )
            if doc.kind != "note":
                raise ConfigError(
                    f"{doc_id} is a document of {doc.path}, not a note: remove the file and "
                    "run citeloom ingest FOLDER --prune."
                )
        self.audit.record(
            "run_started", project=self.project, collection=self.collection, inputs=["notes"]
        )
        deleted = []
        try:
            for doc_id in dict.fromkeys(doc_ids):
                self.index.delete_document(self.collection, doc_id)
                self.audit.record("note_deleted", doc_id=doc_id, citekey=documents[doc_id].citekey)
                deleted.append(doc_id)
        finally:
            self.audit.record("run_finished", totals={"notes_deleted": len(deleted)})
            self.audit.close()
        return deleted
