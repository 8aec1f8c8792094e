"""The parts of responses several use cases share: a passage and a citation as they leave the
process, with what every result says about its paper (versions, retraction, errata: the
``RelationFlags``) and the way back to Zotero; and the error HTTP answers with.

Each is built from the services' plain dataclasses in one place (``from_passage``,
``from_support``), so no entry point writes a key by hand. Every field has a description, shown at
``/docs`` with the examples of ``entrypoints/examples.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from citeloom.services.usecases.base import Response

if TYPE_CHECKING:
    from citeloom.domain.records import Passage
    from citeloom.domain.relations import WorkFlags
    from citeloom.services.evidence import Support


class VersionOut(Response):
    citekey: str = Field(description="Another entry of the library that is the same work.")
    version_of_record: bool = Field(description="This one is the work's version of record.")


class ConflictOut(Response):
    citekey: str = Field(description="The entry it conflicts with.")
    reason: str = Field(description="Why, as the relations file says.")


class RelatedOut(Response):
    citekey: str = Field(description="The related entry.")
    relation: Literal["erratum_of", "has_erratum", "reply_to", "has_reply", "retraction_notice"] = (
        Field(
            description="erratum_of/reply_to: this one corrects or answers it; has_erratum/"
            "has_reply: it corrects or answers this one; retraction_notice: it retracts this one."
        )
    )


class RelationFlags(Response):
    """What every result says about its paper's versions, supersession, retraction and
    conflicts (``domain.relations.WorkFlags``, by ``flag_fields``): the same fields in query
    results, answer citations and check verdicts, from the CLI's --json, HTTP and MCP. Only
    certain relations are applied; ``citeloom inspect --relations`` lists the possible ones."""

    versions: list[VersionOut] = Field(
        description="The other citekeys of the same work in the library (a preprint, the "
        "journal article, an earlier edition), each saying whether it is the version of record."
    )
    superseded_by: str | None = Field(
        description="The citekey to cite instead: the version of record, a later version or "
        "edition, or what the relations file says supersedes it."
    )
    retracted: bool = Field(description="The paper is retracted (the banner says how we know).")
    conflicts_with: list[ConflictOut] = Field(
        description="Entries the relations file says disagree with it, with the reason."
    )
    related: list[RelatedOut] = Field(
        description="Errata, corrections, replies and retraction notices in the library."
    )
    banner: str | None = Field(
        description="All of the above in one line for people (text output shows it); null "
        "when there is nothing to say."
    )


def flag_fields(flags: WorkFlags) -> dict[str, Any]:
    """The RelationFlags fields of one paper, for any model that carries them (the words
    of the banner imported here: a CLI printing a server's answer reads it, never makes it)."""
    from citeloom.services.relation_words import banner

    return {
        "versions": [
            VersionOut(citekey=v.citekey, version_of_record=v.record) for v in flags.versions
        ],
        "superseded_by": flags.superseded_by,
        "retracted": flags.retracted,
        "conflicts_with": [
            ConflictOut(citekey=c.citekey, reason=c.reason) for c in flags.conflicts_with
        ],
        "related": [RelatedOut.model_validate(r, from_attributes=True) for r in flags.related],
        "banner": banner(flags),
    }


class ZoteroOut(Response):
    """The way back to Zotero (``domain.zotero_links``): only on results of documents read
    from a Zotero data directory (``zotero = DIR``); null otherwise, and for documents stored
    before links existed until the next ingest."""

    item_key: str = Field(description="The entry's key in Zotero (ABCD2345).")
    attachment_key: str = Field(description="The key of the PDF attachment it was read from.")
    library: str = Field(
        description='The library in Zotero\'s links: "library" (your own) or "groups/<id>".'
    )
    open_pdf: str = Field(
        description="Opens the PDF in Zotero's reader at this PDF page (1-based, as page_start):"
        " zotero://open-pdf/library/items/<attachment key>?page=<N>."
    )
    select: str = Field(
        description="Selects the entry in Zotero: zotero://select/library/items/<item key>."
    )


def zotero_out(passage: Passage, page: int | None) -> ZoteroOut | None:
    """A result's Zotero links at PDF page ``page``, for every model that carries them."""
    links = passage.zotero(page)
    return None if links is None else ZoteroOut.model_validate(links, from_attributes=True)


_ZOTERO = "The passage in Zotero, its reader opened at this page; null: not a Zotero PDF."


class PassageOut(RelationFlags):
    rank: int = Field(description="1 for the best passage.")
    score: float = Field(description="The fused relevance score; higher is better.")
    citekey: str | None = Field(description="The paper's key in the library; null: unmatched.")
    title: str | None = Field(description="The paper's title, from the library.")
    authors: list[str] = Field(description='"Family, Given" for each author, in order.')
    year: int | None = Field(description="Year of publication.")
    doi: str | None = Field(description="The paper's DOI, without https://doi.org/.")
    url: str | None = Field(description="The paper's URL in the library, if any.")
    page_start: int | None = Field(description="PDF page (1-based), for opening the file.")
    page_end: int | None = Field(description="PDF page (1-based) the passage ends on.")
    page_label_start: str | None = Field(
        description="The printed page a reader finds in the journal (what a citation names)."
    )
    page_label_end: str | None = Field(description="The printed page the passage ends on.")
    page_label_source: str | None = Field(
        description="Where the labels came from: pdf-labels, printed, library or pdf-page."
    )
    section: str | None = Field(description="The innermost heading above the passage.")
    section_path: list[str] = Field(description="The headings above the passage, outermost first.")
    text: str = Field(description="The passage as stored (trimmed to fit a budget if trimmed).")
    source: str = Field(description="The file it was ingested from.")
    chunk_id: str = Field(description="The stored chunk, for MCP get_passage.")
    doc_id: str = Field(description="The stored document (a note's id for MCP delete_notes).")
    kind: Literal["paper", "note"] = Field(
        description="note: stored beside the paper (MCP store_chunks), never the paper's words."
    )
    label: str = Field(description="The pandoc citation: [@key, p. 273].")
    zotero: ZoteroOut | None = Field(description=_ZOTERO)
    trimmed: bool | None = Field(
        None, description="Present and true when text was cut to fit the budget."
    )
    confidence: float | None = Field(
        None,
        description="0 to 1: how well this passage alone matches the query, on the scale of "
        "the results' confidence; under the response's min_confidence it does not seem to "
        "answer it (a weaker match). Present on query results only.",
    )

    @classmethod
    def from_passage(cls, p: Passage) -> PassageOut:
        return cls(
            rank=p.rank,
            score=round(p.score, 6),
            citekey=p.citekey,
            title=p.title,
            authors=list(p.authors),
            year=p.year,
            doi=p.doi,
            url=p.url,
            page_start=p.page_start,
            page_end=p.page_end,
            page_label_start=p.page_label_start,
            page_label_end=p.page_label_end,
            page_label_source=p.page_label_source,
            section=p.section,
            section_path=list(p.section_path),
            text=p.text,
            source=p.source,
            chunk_id=p.chunk_id,
            doc_id=p.doc_id,
            kind=p.kind,
            label=p.label,
            zotero=zotero_out(p, p.page_start),
            **flag_fields(p.flags),
            **({"trimmed": True} if p.trimmed else {}),
            **({"confidence": round(p.confidence, 3)} if p.confidence is not None else {}),
        )


class CitationOut(RelationFlags):
    citekey: str | None = Field(description="The paper's key in the library.")
    page: int | None = Field(description="PDF page (1-based) the quote is on.")
    page_label: str | None = Field(description="The printed page the quote is on.")
    label: str = Field(description="The pandoc citation: [@key, p. 273].")
    kind: Literal["paper", "note"] = Field(
        description="note: a stored note (MCP store_chunks), never the paper's words."
    )
    section_path: list[str] = Field(description="The headings above the quote, outermost first.")
    quote: str = Field(description="Exactly as stored.")
    chunk_id: str = Field(description="The stored chunk the quote is in.")
    source: str = Field(description="The file the paper was ingested from, to open it.")
    verified: bool = Field(description="Found verbatim on this page of the stored text.")
    zotero: ZoteroOut | None = Field(description=_ZOTERO)

    @classmethod
    def from_support(cls, s: Support, **extra: Any) -> Any:
        return cls(
            citekey=s.passage.citekey,
            page=s.page,
            page_label=s.page_label,
            label=s.label,
            kind=s.passage.kind,
            section_path=list(s.passage.section_path),
            quote=s.quote,
            chunk_id=s.passage.chunk_id,
            source=s.passage.source,
            verified=s.verified,
            zotero=zotero_out(s.passage, s.page),
            **flag_fields(s.passage.flags),
            **extra,
        )


class ErrorResponse(Response):
    error: str = Field(description="What went wrong and, where one exists, the fix.")
    field: str | None = Field(
        None, description="The request field at fault (dotted path); null when none is."
    )
