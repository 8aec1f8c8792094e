"""What the search use cases answer (query, answer, check, the projects, health), one model
each for every door: ``citeloom query|answer|check --json`` print these models, ``citeloom
serve`` returns them and MCP's tools return them or projections of them
(``entrypoints/mcp_views.py``), so a script can move from one door to another without changing
a key. They sit beside the requests (``requests``) as the use cases' side of the boundary; the
doors keep only how they show them (text, OpenAPI examples, MCP's trimmed views).

Responses are built here from the services' plain dataclasses (``from_report`` and friends):
the one place that turns a report into what leaves the process, so no door writes a key by
hand. Every field has a description, shown at ``/docs`` with the examples of
``entrypoints/examples.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citeloom.domain.records import Passage
from citeloom.domain.relations import CitationNote, WorkFlags
from citeloom.domain.verdicts import VERDICTS, Verdict
from citeloom.services.answer import AnswerReport
from citeloom.services.application import Health
from citeloom.services.browse import PassageContext
from citeloom.services.check import CheckReport, CitationCheck
from citeloom.services.evidence import Support
from citeloom.services.inspection import ProjectSummary
from citeloom.services.query import QueryReport
from citeloom.services.relation_words import banner, note_message

_RENDERED = "The text the CLI prints, when the request asked for render."


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def dump(self) -> dict[str, Any]:
        """As the CLI prints it: optional keys only when the report had them."""
        return self.model_dump(mode="json", exclude_unset=True)


class VersionOut(_Response):
    citekey: str = Field(description="Another entry of the library that is the same work.")
    version_of_record: bool = Field(description="This one is the work's version of record.")


class ConflictOut(_Response):
    citekey: str = Field(description="The entry it conflicts with.")
    reason: str = Field(description="Why, as the relations file says.")


class RelatedOut(_Response):
    citekey: str = Field(description="The related entry.")
    relation: Literal["erratum_of", "has_erratum", "reply_to", "has_reply", "retraction_notice"] = (
        Field(
            description="erratum_of/reply_to: this one corrects or answers it; has_erratum/"
            "has_reply: it corrects or answers this one; retraction_notice: it retracts this one."
        )
    )


class RelationFlags(_Response):
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
    """The RelationFlags fields of one paper, for any model that carries them."""
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


class ZoteroOut(_Response):
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


class QueryResponse(_Response):
    query: str = Field(description="The query as sent.")
    project: str = Field(description="The project searched.")
    answerable: bool = Field(
        description="Whether the passages seem to answer the query (confidence over the "
        "project's threshold); false: they are listed, but treat them as leads."
    )
    confidence: float = Field(description="0 to 1: how well the best passages match.")
    min_confidence: float | None = Field(
        None,
        description="The project's confidence floor ([query] min_confidence): answerable when "
        "confidence reaches it; a passage whose own confidence is under it is a weaker match.",
    )
    results: list[PassageOut] = Field(description="The passages, best first.")
    phrases: list[str] | None = Field(
        None, description='The "quoted phrases" every result contains (only when quoted).'
    )
    note: str | None = Field(
        None, description="Why results are missing or few: nothing ingested, nothing fits."
    )
    rendered: str | None = Field(None, description=_RENDERED)

    @classmethod
    def from_report(cls, report: QueryReport) -> QueryResponse:
        optional: dict[str, Any] = {}
        if report.phrases:
            optional["phrases"] = list(report.phrases)
        if report.note:
            optional["note"] = report.note
        return cls(
            query=report.query,
            project=report.project,
            answerable=report.answerable,
            confidence=round(report.confidence, 3),
            min_confidence=report.min_confidence,
            results=[PassageOut.from_passage(p) for p in report.results],
            **optional,
        )


class PassageContextResponse(_Response):
    """POST /passage: a passage between its neighbours (MCP get_passage, untrimmed)."""

    project: str = Field(description="The project the passage is in.")
    passage: PassageOut = Field(description="The passage asked for (rank 0, score 0).")
    before: list[PassageOut] = Field(description="The chunks before it, nearest last.")
    after: list[PassageOut] = Field(description="The chunks after it, nearest first.")

    @classmethod
    def of(cls, found: PassageContext) -> PassageContextResponse:
        return cls(
            project=found.project,
            passage=PassageOut.from_passage(found.passage),
            before=[PassageOut.from_passage(p) for p in found.before],
            after=[PassageOut.from_passage(p) for p in found.after],
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
            verified=s.verified,
            zotero=zotero_out(s.passage, s.page),
            **flag_fields(s.passage.flags),
            **extra,
        )


class AnswerResponse(_Response):
    question: str = Field(description="The question as sent.")
    project: str = Field(description="The project searched.")
    answer: str | None = Field(
        description="Sentences of the papers, verbatim; null when there is no answer."
    )
    citations: list[CitationOut] = Field(description="One per sentence of the answer, in order.")
    confidence: float = Field(description="0 to 1: how well the passages cover the question.")
    fallback: bool = Field(description='True: "No answer found in the library." See leads.')
    leads: list[PassageOut] | None = Field(
        None, description="Fallback only: the passages that came closest, to read yourself."
    )
    reason: str | None = Field(None, description="Why there is no answer (fallback only).")
    absent: list[str] | None = Field(
        None, description="Names in the question that no document of the project mentions."
    )
    note: str | None = Field(None, description="Why passages are missing: nothing ingested.")
    rendered: str | None = Field(None, description=_RENDERED)

    @classmethod
    def from_report(cls, report: AnswerReport) -> AnswerResponse:
        optional: dict[str, Any] = {}
        if report.fallback:
            optional["leads"] = [PassageOut.from_passage(p) for p in report.leads]
            optional["reason"] = report.reason
        if report.absent:
            optional["absent"] = report.absent
        if report.note:
            optional["note"] = report.note
        return cls(
            question=report.question,
            project=report.project,
            answer=report.answer,
            citations=[CitationOut.from_support(s) for s in report.citations],
            confidence=round(report.confidence, 3),
            fallback=report.fallback,
            **optional,
        )


class EvidenceOut(CitationOut):
    score: float = Field(description="0 to 1: how closely the sentence states the claim.")

    @classmethod
    def of(cls, s: Support) -> EvidenceOut:
        out: EvidenceOut = cls.from_support(s, score=round(s.score, 3))
        return out


class DifferenceOut(_Response):
    kind: Literal["number", "unit", "negation", "direction", "term"] = Field(
        description="What differs between the draft's claim and the page."
    )
    draft: str = Field(description="What the draft says: '12 sites'.")
    page: str = Field(description="What the page says: '8 sites'; empty when not stated.")


class CheckNoteOut(_Response):
    severity: Literal["note", "warning"] = Field(
        description="warning: the cited paper is retracted; note: anything else worth knowing."
    )
    message: str = Field(description="What to know, and what to do about it.")
    citekey: str | None = Field(
        description="The entry the note is about: the version to cite instead, the erratum, "
        "the conflicting paper, the retraction notice."
    )

    @classmethod
    def of(cls, note: CitationNote) -> CheckNoteOut:
        return cls(severity=note.severity, message=note_message(note), citekey=note.citekey)


class CitationCheckOut(RelationFlags):
    citekey: str = Field(
        description="The key the draft cites; empty for a malformed citation that names none."
    )
    pages: list[str] = Field(description="The printed pages the citation names: ['273'].")
    line: int = Field(description="Line of the citation in the draft (1-based).")
    column: int = Field(description="Column of the citation on that line (1-based).")
    sentence: str = Field(description="The citing sentence, citations and markup taken out.")
    citation: str = Field(description="The citation as written in the draft.")
    locator: str = Field(description="The citation's locator as written: 'p. 118'.")
    verdict: Verdict = Field(description="supported, or what is wrong (the README lists each).")
    message: str = Field(description="What is wrong and what to do; empty when supported.")
    suggested_page: str | None = Field(description="The printed page to cite instead.")
    suggested_pdf_page: int | None = Field(
        description="The PDF page (1-based) of suggested_page, for opening the file."
    )
    differences: list[DifferenceOut] = Field(
        description="mismatch: what the draft states differently from the page."
    )
    printed_range: str | None = Field(description="no-such-page: the paper's printed pages.")
    evidence: EvidenceOut | None = Field(
        description="The paper's sentence the verdict rests on, if any."
    )
    elsewhere: list[EvidenceOut] = Field(
        description="not-found: sentences of other papers of the project that state the "
        "claim; unconfirmed: the sentence of another page of the cited paper that states it."
    )
    notes: list[CheckNoteOut] = Field(
        description="About the cited paper, not the claim (the verdict is the same without "
        "them): a version of record to cite instead, a retraction, an erratum, a conflict."
    )

    @classmethod
    def of(cls, c: CitationCheck) -> CitationCheckOut:
        cited = c.citation
        return cls(
            citekey=cited.citekey,
            pages=list(cited.pages),
            line=cited.line,
            column=cited.column,
            sentence=cited.sentence,
            citation=cited.raw,
            locator=cited.locator,
            verdict=c.verdict,
            message=c.message,
            suggested_page=c.suggested_page,
            suggested_pdf_page=c.evidence.page if c.evidence and c.suggested_page else None,
            differences=[
                DifferenceOut(kind=d.kind, draft=d.draft, page=d.page) for d in c.differences
            ],
            printed_range=c.printed_range,
            evidence=EvidenceOut.of(c.evidence) if c.evidence else None,
            elsewhere=[EvidenceOut.of(s) for s in c.elsewhere],
            notes=[CheckNoteOut.of(n) for n in c.notes],
            **flag_fields(c.flags),
        )


class CheckResponse(_Response):
    draft: str = Field(description="The draft's name, as sent.")
    project: str = Field(description="The project checked against.")
    ok: bool = Field(
        description="No citation has a verdict of fail_on (the CLI exits 0; 1 otherwise)."
    )
    fail_on: list[Verdict] = Field(description="The verdicts this check fails on.")
    counts: dict[str, int] = Field(description="Citations per verdict, every verdict named.")
    citations: list[CitationCheckOut] = Field(description="One per citation, in draft order.")
    rendered: str | None = Field(None, description=_RENDERED)

    @classmethod
    def from_report(cls, report: CheckReport) -> CheckResponse:
        return cls(
            draft=report.draft,
            project=report.project,
            ok=report.ok,
            fail_on=[v for v in VERDICTS if v in report.fail_on],
            counts=report.counts,
            citations=[CitationCheckOut.of(c) for c in report.checks],
        )


class ProjectOut(_Response):
    """One project, as MCP list_projects gives it: both are this model, built from
    ``services.inspection.ProjectSummary``, so the two doors cannot name a field differently."""

    project: str = Field(description='The project id: a [project."ID"] of the config.')
    collection: str = Field(description="The Qdrant collection holding its chunks.")
    embedding_model: str = Field(description="The embedding model the config names.")
    stored_model: str | None = Field(
        description="The model its stored vectors were made with; null: nothing ingested yet."
    )
    documents: int = Field(description="Documents stored (papers and notes).")
    chunks: int = Field(description="Chunks stored across those documents.")


class ProjectsResponse(_Response):
    """GET /projects and MCP list_projects."""

    projects: list[ProjectOut] = Field(description="Every configured project, by id.")

    @classmethod
    def of(cls, summaries: Sequence[ProjectSummary]) -> ProjectsResponse:
        return cls(projects=[ProjectOut.model_validate(s, from_attributes=True) for s in summaries])


class HealthResponse(_Response):
    status: Literal["ok", "degraded"] = Field(
        description="ok: the index answers and every project's model is loaded."
    )
    models_loaded: list[str] = Field(description="Embedding models loaded in this server.")
    index_reachable: bool = Field(description="Whether the index could be opened just now.")
    index_detail: str = Field(description="What opening the index said (the error if not).")
    versions: dict[str, str] = Field(description="Versions of citeloom, Python and its engines.")

    @classmethod
    def of(cls, health: Health, versions: dict[str, str]) -> HealthResponse:
        return cls(
            status="ok" if health.ok else "degraded",
            models_loaded=health.models_loaded,
            index_reachable=health.index_reachable,
            index_detail=health.index_detail,
            versions=versions,
        )


class ErrorResponse(_Response):
    error: str = Field(description="What went wrong and, where one exists, the fix.")
    field: str | None = Field(
        None, description="The request field at fault (dotted path); null when none is."
    )
