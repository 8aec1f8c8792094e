"""What ingest and reindex share: the ports of a project, and the steps that turn a converted
document into index points (chunk, embed, build the points).

One place for these steps means a reindexed document is chunked, embedded and labelled exactly
as an ingested one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from citeloom.domain.errors import DocumentError
from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import ConvertedDocument, DocumentSummary, IndexPoint, MetadataMatch
from citeloom.domain.notes import NOTE_FIELD, NoteItem, is_note_path
from citeloom.domain.page_labels import LABEL_RULES
from citeloom.domain.records import RELATION_FACTS, index_points
from citeloom.ports import (
    AuditLog,
    Chunker,
    Converter,
    Embedder,
    Index,
    LibraryFiles,
    MetadataResolver,
    SearchFilter,
)


@dataclass(kw_only=True)
class DocumentPipeline:
    project: str
    collection: str
    converter: Converter
    chunker: Chunker
    metadata: MetadataResolver
    embedder: Embedder
    index: Index
    audit: AuditLog
    # what the project's BM25 stems for: a collection is created for them and refuses
    # writes when it was made for others (the write guard)
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    # a library that holds its files itself (a Zotero data directory): what ``ingest`` with no
    # path ingests, and the annotations it mirrors
    library_files: LibraryFiles | None = None
    # Chunks per embedder call: a whole document of ordinary length (about 3 chunks a page).
    # The embedder sorts a call's texts by length and runs them in small batches of its own,
    # so one call per document pads less than calls of a few chunks in document order; the
    # limit only bounds the tokenised texts a very long document holds at once.
    embed_call_size: int = 512

    def points(
        self,
        document: ConvertedDocument,
        match: MetadataMatch,
        doc_id: str,
        durations: dict[str, float],
        note: NoteItem | None = None,
        embedded: Callable[[int, int], None] | None = None,
    ) -> list[IndexPoint]:
        """Chunk, embed and label a converted document; a document without text is an error.
        ``embedded``: told the chunks embedded so far and the document's chunks, before the
        first embedder call and after each (a terminal's progress inside a long book)."""
        with timed(durations, "chunk"):
            chunks = self.chunker.chunk(document, doc_id)
        if not chunks:
            raise DocumentError(
                f"{document.source_path}: no text found (not even by OCR). If it is a scan, "
                "check that Tesseract is installed and [conversion] ocr is not 'never'."
            )
        texts = [c.embed_text for c in chunks]
        vectors: list[list[float]] = []
        with timed(durations, "embed"):
            for start in range(0, len(texts), self.embed_call_size):
                if embedded is not None:
                    embedded(start, len(texts))
                vectors.extend(
                    self.embedder.embed_documents(texts[start : start + self.embed_call_size])
                )
            if embedded is not None:
                embedded(len(texts), len(texts))
        return index_points(
            project=self.project,
            document=document,
            match=match,
            chunks=chunks,
            vectors=vectors,
            embed_model=self.embedder.model_id,
            ingest_id=self.audit.correlation_id,
            library=self.labels_key,
            note=note,
        )

    @property
    def labels_key(self) -> str:
        """What a stored document's labels were made from: the library's content and the page
        label rules. A document stored under another key is labelled again."""
        return f"{self.metadata.fingerprint}+labels-{LABEL_RULES}+facts-{RELATION_FACTS}"

    def stored_document(
        self, doc: DocumentSummary, hint: str
    ) -> tuple[ConvertedDocument, MetadataMatch, NoteItem | None]:
        """A stored document converted again (from the conversion cache) and matched to the
        library again: what relabelling and reindex start from. A note is rebuilt from its
        own payload and keeps its own citekey; it is never matched by its text."""
        if not is_note_path(doc.path):
            document = self.converter.convert(Path(doc.path), doc.sha256)
            return document, self.metadata.resolve(document, hint=hint), None
        first = self.index.chunks(
            self.collection,
            SearchFilter(self.project, doc_ids=(doc.doc_id,), chunk_range=(0, 0)),
            limit=1,
        )
        stored = next((p[NOTE_FIELD] for p in first.values() if NOTE_FIELD in p), None)
        if stored is None:
            # stored by an older citeloom, which kept a note's text in the conversion cache
            document = self.converter.convert(Path(doc.path), doc.sha256)
            return document, self.metadata.resolve(document, hint=hint), None
        note = NoteItem.from_json(stored)
        references = {r.citekey: r for r in self.metadata.references()}
        match = note.match(references)
        title = match.reference.title if match.reference else None
        return note.document(title), match, note


def hint_for(doc: DocumentSummary, citekeys: Collection[str]) -> str:
    """What to resolve a stored document with again: the citekey the user named with
    --citekey, while the library still has it, or else the file name (which may be one)."""
    named = doc.match == "hint" and doc.citekey in citekeys
    return doc.citekey if named and doc.citekey else Path(doc.path).stem


@contextmanager
def timed(sink: dict[str, float], stage: str) -> Iterator[None]:
    """Record how long one stage of one document took, for the audit."""
    start = time.perf_counter()
    try:
        yield
    finally:
        sink[stage] = time.perf_counter() - start
