"""The things citeloom reasons about: converted documents, references, chunks, passages.

Plain frozen dataclasses so that every layer can pass them around and tests can build them
by hand. Pages are always 1-based physical PDF pages; ``None`` means the format has no pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.library_files import LibraryItem
from citeloom.domain.page_labels import PageLabels, PageMarks, PagesChoice


class BlockKind(StrEnum):
    """What a block of converted text is, as far as chunking and citing care."""

    TITLE = "title"
    HEADING = "heading"
    TEXT = "text"
    LIST_ITEM = "list_item"
    CAPTION = "caption"
    TABLE = "table"
    FOOTNOTE = "footnote"
    FORMULA = "formula"
    CODE = "code"


@dataclass(frozen=True)
class Block:
    """One paragraph-like unit of a document in reading order."""

    text: str
    kind: BlockKind
    page: int | None
    level: int = 0  # heading depth, 1 = top level; 0 for everything that is not a heading


class WarningKind(StrEnum):
    """What a conversion warning is about, so that nothing downstream reads its wording."""

    # pages left out: past [conversion] max_pages, or pages the converter could not read
    PARTIAL = "partial"
    # the conversion stopped at [conversion] timeout_s; the pages done by then are kept
    TIMEOUT = "timeout"
    # a page without a text layer stays empty: OCR is off or cannot run
    OCR = "ocr"


@dataclass(frozen=True)
class ConversionWarning:
    """Something the reader of an ingest report should know about one conversion."""

    kind: WarningKind
    message: str

    @property
    def partial(self) -> bool:
        """Part of the document is missing: such a conversion is never cached (raising the
        limit must convert it whole next time), and the audit marks the document partial."""
        return self.kind in (WarningKind.PARTIAL, WarningKind.TIMEOUT)

    def __str__(self) -> str:
        return f"partial: {self.message}" if self.partial else self.message


@dataclass(frozen=True)
class ConvertedDocument:
    """A document after conversion: reading-ordered blocks plus what metadata matching needs."""

    source_path: str
    sha256: str
    title: str | None
    page_count: int | None
    blocks: tuple[Block, ...]
    converter: str  # converter id and version; part of the conversion cache key
    pdf_metadata: dict[str, str] = field(default_factory=dict)
    ocr_pages: tuple[int, ...] = ()
    warnings: tuple[ConversionWarning, ...] = ()
    # Running heads, footers and margin stamps of the first pages: never chunked, but that is
    # where publishers print DOIs and arXiv ids.
    margin_text: str = ""
    # What the PDF prints about its own pagination (page labels, margin numbers): the
    # printed page a citation names is decided from it when the document is labelled.
    page_marks: PageMarks = field(default_factory=PageMarks)

    @property
    def partial(self) -> bool:
        """Whether part of the document was not converted (see ``ConversionWarning``)."""
        return any(w.partial for w in self.warnings)

    def front_text(self, pages: int = 2, max_chars: int = 20_000) -> str:
        """Text of the first pages, where DOIs, arXiv ids and author lines are printed."""
        parts = [b.text for b in self.blocks if b.page is None or b.page <= pages]
        return "\n".join([*parts, self.margin_text])[:max_chars]


@dataclass(frozen=True)
class Reference:
    """One entry of the project's library (CSL-JSON, or BibTeX read as CSL-JSON, or Zotero),
    reduced to what citing needs."""

    citekey: str
    title: str
    authors: tuple[str, ...] = ()  # family names first: "Curie, Marie"
    year: int | None = None
    doi: str | None = None  # normalised: lower case, no resolver prefix
    url: str | None = None
    arxiv_id: str | None = None
    container_title: str | None = None
    page: str | None = None  # the printed page range as the library holds it: "272-273"
    # the entry's CSL "id": pandoc resolves [@key] by it, so it must be the citation key
    entry_id: str | None = None
    tags: tuple[str, ...] = ()
    # full paths from the library's top: "Thesis/Chapter 2"
    collections: tuple[str, ...] = ()
    # What relations between entries are inferred from (``domain.relations``): the CSL type
    # and the fields that say an entry is a preprint, a report, an edition or retracted.
    csl_type: str | None = None
    genre: str | None = None
    publisher: str | None = None
    archive: str | None = None
    note: str | None = None
    status: str | None = None
    edition: str | None = None
    arxiv_version: int | None = None  # 2 for "arXiv:2501.10120v2"
    item_type: str | None = None  # Zotero's item type ("journalArticle"); None from CSL-JSON
    # which pages to cite when the PDF prints other numbers than ``page``: "printed" or
    # "library", from a "citeloom-pages: ..." line in Extra (``domain.page_labels``)
    pages_choice: PagesChoice | None = None

    @property
    def family_names(self) -> tuple[str, ...]:
        return tuple(a.split(",", 1)[0].strip() for a in self.authors if a.strip())


# "zotero": the file is an attachment of the entry in the Zotero database (no guess)
MatchKind = Literal["doi", "arxiv", "title", "hint", "zotero"]


@dataclass(frozen=True)
class Resemblance:
    """Another entry a document's page 1 also fits: the title score and the share of the
    entry's authors printed there. A PDF matched to a preprint entry that prints the title
    and authors of a journal entry is that journal article's preprint (``domain.relations``).
    """

    citekey: str
    score: float
    authors: float

    def to_json(self) -> dict[str, Any]:
        return {"citekey": self.citekey, "score": self.score, "authors": self.authors}

    @classmethod
    def from_json(cls, data: Any) -> Resemblance | None:
        try:
            return cls(str(data["citekey"]), float(data["score"]), float(data["authors"]))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class Candidate:
    citekey: str
    score: float


@dataclass(frozen=True)
class MetadataMatch:
    """The outcome of matching a document to the library. No match is a valid outcome."""

    reference: Reference | None
    kind: MatchKind | None
    score: float | None = None
    candidates: tuple[Candidate, ...] = ()
    problem: Literal["MetadataMissing", "MetadataAmbiguous"] | None = None
    # other entries whose title and authors page 1 also prints (a version of the same work)
    also: tuple[Resemblance, ...] = ()
    # why there is no match, when the library knows it ("Zotero item ABCD2345 has no
    # citation key"): shown instead of the candidates
    detail: str | None = None
    # the library attachment the document is (a Zotero PDF): known by it whatever its file
    # is called, and cited by its entry when the entry has no usable citation key
    item: LibraryItem | None = None

    @property
    def citekey(self) -> str | None:
        return self.reference.citekey if self.reference else None


def chunk_token_limit(model_max_tokens: int) -> int:
    """Word pieces a chunk may hold: the model's window less its [CLS] and [SEP] tokens;
    anything past it would be cut off before embedding."""
    return model_max_tokens - 2


@dataclass(frozen=True)
class Chunk:
    """A citable piece of a document, sized to the embedder's window."""

    doc_id: str
    index: int
    text: str  # what the reader sees
    embed_text: str  # what the embedder sees: heading context, then the text
    section_path: tuple[str, ...]
    page_start: int | None
    page_end: int | None
    token_count: int  # word pieces of embed_text, without [CLS]/[SEP]

    @property
    def section(self) -> str | None:
        return self.section_path[-1] if self.section_path else None


@dataclass(frozen=True)
class IndexPoint:
    """A chunk ready for the index: its id, dense vector, text for BM25 and payload."""

    id: str
    vector: list[float]
    text: str
    payload: dict[str, Any]
    # The BM25 vector as an index stored it (indices, values). A point read back from an index
    # (an export) carries it and is written again exactly so; otherwise it is encoded from text.
    sparse: tuple[list[int], list[float]] | None = None


@dataclass(frozen=True)
class ScoredPoint:
    """A candidate returned by one retrieval signal (dense or BM25)."""

    id: str
    score: float
    payload: dict[str, Any] | None = None


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    embed_model: str
    dimensions: int
    points: int
    languages: tuple[str, ...] = DEFAULT_LANGUAGES  # what its BM25 terms were stemmed for
    # the project that made it (None: made before collections recorded one; the first
    # project that writes to it adopts it)
    owner: str | None = None


@dataclass(frozen=True)
class DocumentSummary:
    """What the index holds for one document (for inspect and incremental ingest)."""

    doc_id: str
    path: str
    sha256: str
    citekey: str | None
    match: str | None
    title: str | None
    page_count: int | None
    chunks: int
    chunk_total: int = 0  # how many chunks the document has when stored completely
    library: str = ""  # fingerprint of the references file the labels came from
    problem: str | None = None  # MetadataMissing / MetadataAmbiguous
    candidates: tuple[Candidate, ...] = ()
    year: int | None = None
    labels: PageLabels | None = None  # printed page labels; None: none stored
    kind: str = "paper"  # or "note"
    # what ingest recorded for relations: arXiv's stamp on page 1, other entries page 1 fits
    arxiv_stamp: str | None = None
    also_fits: tuple[Resemblance, ...] = ()
    # the library attachment it was ingested from ("1/PDFKEY01") and that attachment's entry
    # ("ABCD2345"): how a renamed attachment file is recognised, and how a document whose
    # entry has no usable citation key is cited
    attachment: str | None = None
    item: str | None = None
    detail: str | None = None  # why it has no citekey, when the library says ("shares ...")

    @property
    def complete(self) -> bool:
        return self.chunks > 0 and self.chunks >= self.chunk_total
