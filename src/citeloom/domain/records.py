"""The stored record of a chunk (the Qdrant payload) and the passage a query returns.

One function writes the payload and one reads it back, so the layout the issue fixes
(project, source, zotero, doc, embed_model, version, fulltext) lives in exactly one place.

Pages: ``doc.page_start``/``page_end`` are PDF pages (for opening the file, and part of the
chunk id); ``doc.page_labels`` holds the document's printed labels as ranges
(``domain.page_labels``), written with the library fields, so a changed library entry
relabels every chunk without re-embedding. ``kind`` tells a paper's text from a note stored
beside it: only a paper's own text is ever quoted as its words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from citeloom.domain.citation import citation_label, family_names, pdf_pages_differ
from citeloom.domain.ids import chunk_id
from citeloom.domain.matching import arxiv_stamp
from citeloom.domain.models import (
    Candidate,
    Chunk,
    ConvertedDocument,
    DocumentSummary,
    IndexPoint,
    MetadataMatch,
    Resemblance,
)
from citeloom.domain.notes import ANNOTATION, NOTE_FIELD, NoteItem, is_note_path
from citeloom.domain.page_labels import PageLabels, PagesDisagree, decide_labels
from citeloom.domain.relations import NO_FLAGS, DocumentFacts, WorkFlags
from citeloom.domain.zotero_links import ZoteroLinks, zotero_links

PAYLOAD_VERSION = 1
# What label_fields records for relations (arXiv's stamp, the other entries page 1 fits);
# part of the labels key, so documents stored before are labelled again once.
RELATION_FACTS = 1
Kind = Literal["paper", "note"]
# every chunk of a note mirrored from a Zotero annotation says so ("annotation"): its label
NOTE_KIND_FIELD = "note_kind"

# The library's tags and collections (paths from the top) of a chunk's paper
TAGS_FIELD = "zotero.tags"
COLLECTIONS_FIELD = "zotero.collections"
# Payload keys the index adapters build keyword indexes on (filters stay fast).
INDEXED_KEYWORDS = (
    "project",
    "doc_id",
    "source.path",
    "zotero.citekey",
    TAGS_FIELD,
    COLLECTIONS_FIELD,
)
INDEXED_INTEGERS = ("doc.year", "doc.page_start", "doc.page_end")
# Full-text indexes: phrases and words in the chunk text, words of the section path.
INDEXED_TEXT = ("fulltext", "doc.section_path")


def label_fields(
    match: MetadataMatch,
    document: ConvertedDocument,
    library: str,
    note: NoteItem | None = None,
) -> dict[str, dict[str, Any]]:
    """The parts of a payload that come from the library: re-written when it changes.

    Written in this order, one update each: ``zotero`` last, because it carries the library
    fingerprint that marks the labels as current; a run killed after ``doc`` leaves the old
    fingerprint, so the next run labels the document again."""
    ref = match.reference
    labels = decide_labels(
        document.page_count,
        document.page_marks,
        ref.page if ref else None,
        document.ocr_pages,
        ref.pages_choice if ref else None,
    )
    return {
        "doc": {
            "title": ref.title if ref else document.title,
            "authors": list(ref.authors) if ref else [],
            "year": ref.year if ref else None,
            "doi": ref.doi if ref else None,
            "url": ref.url if ref else None,
            "page_labels": labels.to_json(),
            "page_label_source": labels.source,
            # the library's range and the PDF's numbers, when they disagree: both
            "page_disagreement": labels.disagree.to_json() if labels.disagree else None,
            # arXiv's watermark: this PDF is the arXiv copy (domain.relations)
            "arxiv_stamp": None if note else arxiv_stamp(document.front_text(pages=1)),
        },
        "zotero": {
            "citekey": ref.citekey if ref else None,
            "match": match.kind,
            "problem": match.problem,
            "candidates": [{"citekey": c.citekey, "score": c.score} for c in match.candidates],
            # a note keeps its own tags beside its paper's, also when the library changes
            "tags": sorted({*(ref.tags if ref else ()), *(note.tags if note else ())}),
            "collections": list(ref.collections) if ref else [],
            "library": library,
            "also_fits": [r.to_json() for r in match.also],
            # the Zotero attachment it is, and its entry: identity and, without a usable
            # citekey, the label
            "attachment": match.item.attachment if match.item else None,
            "item": match.item.item_key if match.item else None,
            # its library in a zotero:// link ("library", "groups/4711"): absent from indexes
            # written before links existed, whose results have none until the next ingest
            "link_library": match.item.link_library if match.item else None,
            "detail": match.detail,
        },
    }


def index_points(
    *,
    project: str,
    document: ConvertedDocument,
    match: MetadataMatch,
    chunks: Sequence[Chunk],
    vectors: Sequence[Sequence[float]],
    embed_model: str,
    ingest_id: str,
    library: str,
    note: NoteItem | None = None,
) -> list[IndexPoint]:
    """A document's chunks as index points: id, vector, the text BM25 indexes, the payload.
    A note's first chunk also carries the note as given, to rebuild it from the index.

    The library's labels are worked out once for the document, not once a chunk: they read
    every page's marks, so a book's 3,000 chunks would cost chunks x pages."""
    labels = label_fields(match, document, library, note)
    points = [
        IndexPoint(
            id=chunk_id(c.doc_id, c.section_path, c.page_start, c.page_end, embed_model, c.index),
            vector=list(vector),
            text=c.embed_text,
            payload=build_payload(
                project=project,
                chunk=c,
                document=document,
                match=match,
                embed_model=embed_model,
                ingest_id=ingest_id,
                library=library,
                chunk_total=len(chunks),
                note=note,
                labels=labels,
            ),
        )
        for c, vector in zip(chunks, vectors, strict=True)
    ]
    if note is not None and points:
        points[0].payload[NOTE_FIELD] = note.to_json()
    return points


def build_payload(
    *,
    project: str,
    chunk: Chunk,
    document: ConvertedDocument,
    match: MetadataMatch,
    embed_model: str,
    ingest_id: str,
    library: str = "",
    chunk_total: int = 0,
    note: NoteItem | None = None,
    labels: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``labels``: ``label_fields`` of the document, when the caller has them already."""
    if labels is None:
        labels = label_fields(match, document, library, note)
    return {
        "project": project,
        "kind": "note" if is_note_path(document.source_path) else "paper",
        **({NOTE_KIND_FIELD: note.kind} if note is not None and note.is_annotation else {}),
        "doc_id": chunk.doc_id,
        "chunk_index": chunk.index,
        # every chunk knows how many its document has: a document is stored completely when
        # that many of its chunks are there (a run killed half-way is repaired next time)
        "chunk_total": chunk_total,
        "ingest_id": ingest_id,
        "source": {"path": document.source_path, "sha256": document.sha256},
        "zotero": dict(labels["zotero"]),
        "doc": {
            **labels["doc"],
            "page_start": chunk.page_start,
            "page_end": chunk.page_end,
            "page_count": document.page_count,
            "section": chunk.section,
            "section_path": list(chunk.section_path),
        },
        "embed_model": embed_model,
        "version": PAYLOAD_VERSION,
        "fulltext": chunk.text,
    }


@dataclass(frozen=True)
class Passage:
    """A query result: a chunk with everything needed to cite it."""

    rank: int
    score: float
    chunk_id: str
    citekey: str | None
    title: str | None
    authors: tuple[str, ...]
    year: int | None
    doi: str | None
    url: str | None
    page_start: int | None
    page_end: int | None
    section: str | None
    section_path: tuple[str, ...]
    text: str
    source: str
    doc_id: str
    trimmed: bool = False  # cut short to fit a token budget
    # printed page labels of page_start and page_end (PDF pages), and the rule that gave them
    page_label_start: str | None = None
    page_label_end: str | None = None
    page_label_source: str | None = None
    kind: Kind = "paper"
    labels: PageLabels | None = None  # the document's, to label any page of the span
    # relations: what ingest recorded of the document, and the flags the query gave it
    arxiv_stamp: str | None = None
    also_fits: tuple[Resemblance, ...] = ()
    flags: WorkFlags = NO_FLAGS
    annotation: bool = False  # a note mirrored from a Zotero PDF annotation
    # the Zotero entry of a document without a usable citekey: what its passages are cited by
    item: str | None = None
    # the Zotero attachment ("1/PDFKEY01") and its library's part of a zotero:// link
    attachment: str | None = None
    link_library: str | None = None
    # how well this passage alone answers the query, on the scale of the set's confidence
    # (``domain.abstention``: below the project's floor it does not seem to); None where no
    # query judged it (a passage read around, a note read back)
    confidence: float | None = None

    def zotero(self, page: int | None) -> ZoteroLinks | None:
        """Its document's entry and PDF in Zotero, the reader at PDF page ``page``; None for a
        document not read from a Zotero data directory, or stored before links existed."""
        return zotero_links(self.link_library, self.attachment, self.item, page)

    def page_label(self, page: int | None) -> str | None:
        """The printed label of a PDF page of this passage's document."""
        if self.labels is not None:
            return self.labels.label(page)
        if page == self.page_start:
            return self.page_label_start
        if page == self.page_end:
            return self.page_label_end
        return _as_label(page)

    def cite(self, page: int | None) -> str:
        """The citation of one page of this passage (a quoted sentence is on one page)."""
        label = self.page_label(page)
        return citation_label(
            self.citekey,
            label,
            label,
            note=self.kind == "note",
            annotation=self.annotation,
            item=self.item,
        )

    @property
    def label(self) -> str:
        return citation_label(
            self.citekey,
            self.page_label_start,
            self.page_label_end,
            note=self.kind == "note",
            annotation=self.annotation,
            item=self.item,
        )

    @property
    def family_names(self) -> tuple[str, ...]:
        return family_names(self.authors)

    @property
    def pdf_pages_differ(self) -> bool:
        """Whether the PDF pages are worth showing beside the printed ones."""
        return pdf_pages_differ(
            self.page_start, self.page_end, self.page_label_start, self.page_label_end
        )

    @property
    def facts(self) -> DocumentFacts | None:
        """What its document says about versions, for ``domain.relations``."""
        if not self.citekey or self.kind != "paper":
            return None
        return DocumentFacts(
            self.doc_id, self.source, self.citekey, self.arxiv_stamp, self.also_fits
        )


def passage_from_payload(
    rank: int, score: float, chunk_id: str, payload: dict[str, Any]
) -> Passage:
    doc = payload.get("doc") or {}
    zotero = payload.get("zotero") or {}
    source = payload.get("source") or {}
    labels = stored_labels(doc)
    start, end = _page_number(doc.get("page_start")), _page_number(doc.get("page_end"))
    return Passage(
        rank=rank,
        score=score,
        chunk_id=chunk_id,
        citekey=zotero.get("citekey"),
        title=doc.get("title"),
        authors=tuple(doc.get("authors") or ()),
        year=doc.get("year"),
        doi=doc.get("doi"),
        url=doc.get("url"),
        page_start=start,
        page_end=end,
        section=doc.get("section"),
        section_path=tuple(doc.get("section_path") or ()),
        text=payload.get("fulltext", ""),
        source=source.get("path", ""),
        doc_id=payload.get("doc_id", ""),
        page_label_start=labels.label(start) if labels else _as_label(start),
        page_label_end=labels.label(end) if labels else _as_label(end),
        page_label_source=labels.source if labels else ("pdf-page" if start else None),
        kind=payload_kind(payload),
        labels=labels,
        arxiv_stamp=_stamp(doc),
        also_fits=_also_fits(zotero),
        annotation=payload.get(NOTE_KIND_FIELD) == ANNOTATION,
        item=_text(zotero.get("item")),
        attachment=_text(zotero.get("attachment")),
        link_library=_text(zotero.get("link_library")),
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _stamp(doc: dict[str, Any]) -> str | None:
    stamp = doc.get("arxiv_stamp")
    return stamp if isinstance(stamp, str) and stamp else None


def _also_fits(zotero: dict[str, Any]) -> tuple[Resemblance, ...]:
    stored = zotero.get("also_fits")
    found = (Resemblance.from_json(r) for r in stored) if isinstance(stored, list) else ()
    return tuple(r for r in found if r is not None)


def stored_labels(doc: dict[str, Any]) -> PageLabels | None:
    """The printed labels a payload's ``doc`` holds; None for a document stored before
    labels existed (its PDF pages stand in) or one without pages."""
    labels = PageLabels.from_json(
        doc.get("page_labels"), doc.get("page_count"), doc.get("page_label_source")
    )
    disagree = PagesDisagree.from_json(doc.get("page_disagreement"))
    return replace(labels, disagree=disagree) if labels and disagree else labels


def _page_number(value: Any) -> int | None:
    """A stored page as a page number: anything else (a note once stored page 10^20, which
    came back as a float) reads as no page rather than failing every query."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1_000_000:
        return value
    return None


def _as_label(page: Any) -> str | None:
    return str(page) if isinstance(page, int) else None


def payload_kind(payload: dict[str, Any]) -> Kind:
    """A note or a paper's text; payloads stored before ``kind`` existed tell by their path."""
    kind = payload.get("kind")
    if kind in ("paper", "note"):
        return cast(Kind, kind)
    path = (payload.get("source") or {}).get("path", "")
    return "note" if is_note_path(str(path)) else "paper"


# Payload keys a document summary needs; adapters fetch only these when listing documents.
# What ``Index.documents`` reads of each chunk: enough to list documents and to tell a
# complete copy (``chunk_total`` chunks present) from one a killed run left half-written.
SUMMARY_FIELDS = ("doc_id", "chunk_total", "source", "zotero", "doc", "kind")


def summarise_documents(payloads: Iterable[dict[str, Any]]) -> list[DocumentSummary]:
    """One summary per document from the payloads of its chunks, sorted by path."""
    first: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    for payload in payloads:
        doc_id = payload.get("doc_id", "")
        counts[doc_id] = counts.get(doc_id, 0) + 1
        first.setdefault(doc_id, payload)
    summaries = []
    for doc_id, payload in first.items():
        source = payload.get("source") or {}
        zotero = payload.get("zotero") or {}
        doc = payload.get("doc") or {}
        summaries.append(
            DocumentSummary(
                doc_id=doc_id,
                path=source.get("path", ""),
                sha256=source.get("sha256", ""),
                citekey=zotero.get("citekey"),
                match=zotero.get("match"),
                title=doc.get("title"),
                page_count=doc.get("page_count"),
                chunks=counts[doc_id],
                chunk_total=payload.get("chunk_total") or counts[doc_id],
                library=zotero.get("library", ""),
                problem=zotero.get("problem"),
                candidates=tuple(
                    Candidate(c["citekey"], c["score"]) for c in zotero.get("candidates") or ()
                ),
                year=doc.get("year"),
                labels=stored_labels(doc),
                kind=payload_kind(payload),
                arxiv_stamp=_stamp(doc),
                also_fits=_also_fits(zotero),
                attachment=_text(zotero.get("attachment")),
                item=_text(zotero.get("item")),
                detail=_text(zotero.get("detail")),
            )
        )
    return sorted(summaries, key=lambda s: (s.path, s.doc_id))
