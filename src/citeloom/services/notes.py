"""Storing text an agent or a person wants to keep citable (notes, excerpts) beside the papers.

A note is a small document of its own: chunked, embedded and labelled by the same steps as an
ingested file (``DocumentPipeline``), behind the same write guard, with one audit file per call.
Its identity is its content (text and metadata), so storing the same note twice changes
nothing. Its converted form goes into the conversion cache, so a later ``ingest`` re-labels it
and ``reindex`` rebuilds it like any other document.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeloom.domain.errors import CiteloomError, ConfigError, TimeLimitExceeded
from citeloom.domain.ids import doc_id_from_sha256
from citeloom.domain.models import Block, BlockKind, ConvertedDocument, MetadataMatch
from citeloom.services.pipeline import DocumentPipeline

MAX_ITEMS = 200
MAX_NOTE_CHARS = 100_000
NOTE_SCHEME = "note:"  # stored path of a note: note:<doc id>; no file, never pruned


@dataclass(frozen=True)
class NoteItem:
    text: str
    citekey: str | None = None
    title: str | None = None
    section: str | None = None
    page: int | None = None
    tags: tuple[str, ...] = ()

    @property
    def sha256(self) -> str:
        fields = [self.text, self.citekey, self.title, self.section, self.page, list(self.tags)]
        return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode()).hexdigest()


@dataclass
class StoredNote:
    doc_id: str
    citekey: str | None
    chunks: int
    chunk_ids: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "citekey": self.citekey,
            "chunks": self.chunks,
            "chunk_ids": self.chunk_ids,
        }


@dataclass
class StoreReport:
    correlation_id: str
    project: str
    collection: str
    audit_path: str
    notes: list[StoredNote] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "correlation_id": self.correlation_id,
            "project": self.project,
            "collection": self.collection,
            "audit": self.audit_path,
            "stored": [n.to_json() for n in self.notes],
            "chunks": sum(n.chunks for n in self.notes),
        }


def check_items(items: Sequence[NoteItem]) -> None:
    if not items:
        raise ConfigError("items is empty: pass at least one {text: ...} to store.")
    if len(items) > MAX_ITEMS:
        raise ConfigError(
            f"{len(items)} items in one call; at most {MAX_ITEMS} are stored per call. Split "
            "them over several calls."
        )
    for number, item in enumerate(items):
        if not item.text.strip():
            raise ConfigError(f"items[{number}].text is empty: give the text to keep.")
        if len(item.text) > MAX_NOTE_CHARS:
            raise ConfigError(
                f"items[{number}].text has {len(item.text)} characters; at most "
                f"{MAX_NOTE_CHARS} per item. Split it into several items."
            )
        if item.page is not None and item.page < 1:
            raise ConfigError(f"items[{number}].page {item.page}: pages count from 1.")


@dataclass(kw_only=True)
class NoteService(DocumentPipeline):
    # puts a note's converted form where the converter finds it again (the conversion cache)
    remember: Callable[[ConvertedDocument], None] = lambda document: None

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
                self.collection, self.embedder.model_id, self.embedder.dimensions
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
                self.remember(document)
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
            self.audit.record("run_aborted", error=reason, exit_code=70)
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
        sha256 = item.sha256
        doc_id = doc_id_from_sha256(sha256)
        blocks = []
        if item.section:
            blocks.append(Block(item.section, BlockKind.HEADING, item.page, 1))
        blocks.append(Block(item.text, BlockKind.TEXT, item.page))
        reference = references.get(item.citekey) if item.citekey else None
        document = ConvertedDocument(
            source_path=f"{NOTE_SCHEME}{doc_id}",
            sha256=sha256,
            title=item.title or (reference.title if reference else None),
            page_count=None,
            blocks=tuple(blocks),
            converter="note",
        )
        # a named citekey is what --citekey is for a file: the "hint" match, kept on relabel
        match = (
            MetadataMatch(reference, "hint", 1.0)
            if reference is not None
            else MetadataMatch(None, None, problem="MetadataMissing")
        )
        durations: dict[str, float] = {}
        points = self.points(document, match, doc_id, durations)
        for point in points:
            zotero = point.payload["zotero"]
            zotero["tags"] = sorted({*zotero["tags"], *item.tags})
        return document, match, points, durations
