"""The JSON of the reports only the CLI's ``--json`` and MCP print: inspect, ingest, validate,
reindex, notes, drop, export and the audit's run summary.

The services return plain dataclasses (they know nothing of pydantic); each model here is
built from one of them in one place (``of``), so the CLI and MCP cannot name a field
differently, and what leaves the process is checked against the model on the way out. The
HTTP API's models, with their OpenAPI examples, are in ``schemas``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from citeloom.domain.models import Candidate, DocumentSummary, Resemblance
from citeloom.entrypoints.schemas import _Response
from citeloom.services.inspection import InspectReport, RelationsReport


class CandidateOut(_Response):
    citekey: str = Field(description="A library entry the document might be.")
    score: float = Field(description="0 to 1: how well page 1 fits the entry.")

    @classmethod
    def of(cls, c: Candidate, digits: int | None = None) -> CandidateOut:
        return cls(citekey=c.citekey, score=c.score if digits is None else round(c.score, digits))


class ResemblanceOut(_Response):
    citekey: str = Field(description="Another entry page 1 also fits.")
    score: float = Field(description="Title score against that entry.")
    authors: float = Field(description="Share of that entry's authors printed on page 1.")

    @classmethod
    def of(cls, r: Resemblance) -> ResemblanceOut:
        return cls(citekey=r.citekey, score=r.score, authors=r.authors)


class StoredDocumentOut(_Response):
    """One stored document, as ``citeloom inspect --json`` lists it."""

    doc_id: str = Field(description="The stored document's id.")
    path: str = Field(description="The file it was ingested from.")
    sha256: str = Field(description="The file's SHA-256 when ingested.")
    citekey: str | None = Field(description="The library entry it is matched to.")
    match: str | None = Field(description="How it was matched (doi, title, ...).")
    title: str | None = Field(description="The title, from the library.")
    page_count: int | None = Field(description="PDF pages.")
    chunks: int = Field(description="Chunks stored.")
    chunk_total: int = Field(description="Chunks it has when stored completely.")
    library: str = Field(description="Fingerprint of the references file its labels came from.")
    problem: str | None = Field(description="Why it is unmatched, if it is.")
    candidates: list[CandidateOut] = Field(description="Entries it might be, if unmatched.")
    year: int | None = Field(description="Year of publication.")
    kind: str = Field(description="paper or note.")
    arxiv_stamp: str | None = Field(description="arXiv's stamp on page 1, if any.")
    also_fits: list[ResemblanceOut] = Field(description="Other entries page 1 fits.")
    pages: int | None = Field(description="PDF pages (as page_count).")
    complete: bool = Field(description="Every chunk is stored (false: a killed run).")
    page_labels: str | None = Field(description="Where its printed page labels came from.")
    printed_pages: str | None = Field(description="The printed range: 272-273.")

    @classmethod
    def of(cls, doc: DocumentSummary) -> StoredDocumentOut:
        labels = doc.labels
        return cls(
            doc_id=doc.doc_id,
            path=doc.path,
            sha256=doc.sha256,
            citekey=doc.citekey,
            match=doc.match,
            title=doc.title,
            page_count=doc.page_count,
            chunks=doc.chunks,
            chunk_total=doc.chunk_total,
            library=doc.library,
            problem=doc.problem,
            candidates=[CandidateOut.of(c) for c in doc.candidates],
            year=doc.year,
            kind=doc.kind,
            arxiv_stamp=doc.arxiv_stamp,
            also_fits=[ResemblanceOut.of(r) for r in doc.also_fits],
            pages=doc.page_count,
            complete=doc.complete,
            page_labels=labels.source if labels else None,
            printed_pages=labels.span() if labels else None,
        )


class InspectResponse(_Response):
    """``citeloom inspect --json``: what a project's collection holds."""

    project: str = Field(description="The project inspected.")
    collection: str = Field(description="Its Qdrant collection.")
    exists: bool = Field(description="Whether the collection exists yet.")
    points: int = Field(description="Chunks stored.")
    embed_model: str | None = Field(description="The model its vectors were made with.")
    dimensions: int | None = Field(description="The vectors' dimensions.")
    documents: list[StoredDocumentOut] = Field(description="Every stored document.")
    incomplete: int = Field(description="Documents a killed run stored only in part.")
    fix: str | None = Field(description="How to make the incomplete ones whole.")

    @classmethod
    def of(cls, report: InspectReport) -> InspectResponse:
        info = report.info
        return cls(
            project=report.project,
            collection=report.collection,
            exists=info is not None,
            points=info.points if info else 0,
            embed_model=info.embed_model if info else None,
            dimensions=info.dimensions if info else None,
            documents=[StoredDocumentOut.of(d) for d in report.documents],
            incomplete=len(report.incomplete),
            fix=report.fix,
        )


class PreprintPdfOut(_Response):
    doc_id: str = Field(description="The stored document.")
    path: str = Field(description="Its file.")
    citekey: str = Field(description="The entry it is a preprint of.")
    evidence: str = Field(description="Why: arXiv's stamp on page 1.")


class RelationsResponse(_Response):
    """``citeloom inspect --relations --json``, and MCP inspect_collection's ``relations``."""

    project: str = Field(description="The project inspected.")
    sources: list[str] = Field(description="Where the relations came from.")
    certain: int = Field(description="Relations applied.")
    possible: int = Field(description="Relations shown, never applied.")
    relations: list[dict[str, Any]] = Field(
        description="Each relation as the relations cache stores it (kind, from, to, "
        "evidence, certainty, origin)."
    )
    preprint_pdfs: list[PreprintPdfOut] = Field(description="Stored PDFs that are preprints.")
    problems: list[str] = Field(description="What could not be read.")

    @classmethod
    def of(cls, report: RelationsReport) -> RelationsResponse:
        return cls(
            project=report.project,
            sources=list(report.sources),
            certain=len(report.certain),
            possible=len(report.possible),
            relations=[r.to_json() for r in report.relations],
            preprint_pdfs=[
                PreprintPdfOut.model_validate(p, from_attributes=True) for p in report.preprint_pdfs
            ],
            problems=report.problems,
        )


class McpDocumentOut(_Response):
    """One document, as MCP inspect_collection lists it (a shorter view than the CLI's)."""

    doc_id: str = Field(description="The stored document's id.")
    citekey: str | None = Field(description="The library entry it is matched to.")
    title: str | None = Field(description="The title, from the library.")
    year: int | None = Field(description="Year of publication.")
    pages: int | None = Field(description="PDF pages.")
    chunks: int = Field(description="Chunks stored.")
    match: str | None = Field(description="How it was matched.")
    complete: bool = Field(description="Every chunk is stored.")
    path: str = Field(description="The file it was ingested from.")

    @classmethod
    def of(cls, doc: DocumentSummary) -> McpDocumentOut:
        return cls(
            doc_id=doc.doc_id,
            citekey=doc.citekey,
            title=doc.title,
            year=doc.year,
            pages=doc.page_count,
            chunks=doc.chunks,
            match=doc.match,
            complete=doc.complete,
            path=doc.path,
        )


class UnmatchedOut(_Response):
    doc_id: str = Field(description="The stored document's id.")
    title: str | None = Field(description="The title, if known.")
    path: str = Field(description="The file it was ingested from.")
    problem: str | None = Field(description="Why it is unmatched.")
    candidates: list[CandidateOut] = Field(description="Entries it might be, best first.")

    @classmethod
    def of(cls, doc: DocumentSummary) -> UnmatchedOut:
        return cls(
            doc_id=doc.doc_id,
            title=doc.title,
            path=doc.path,
            problem=doc.problem,
            candidates=[CandidateOut.of(c, digits=3) for c in doc.candidates],
        )


class McpInspectResponse(_Response):
    """MCP inspect_collection: the collection, its documents and the unmatched ones."""

    project: str = Field(description="The project inspected.")
    collection: str = Field(description="Its Qdrant collection.")
    embedding_model: str | None = Field(description="The model its vectors were made with.")
    chunks: int = Field(description="Chunks stored.")
    documents: list[McpDocumentOut] = Field(description="Every stored document.")
    unmatched: list[UnmatchedOut] = Field(description="Documents matched to no entry.")
    relations: RelationsResponse | None = Field(None, description="Only when asked for.")

    @classmethod
    def of(cls, report: InspectReport, relations: RelationsReport | None) -> McpInspectResponse:
        optional = {"relations": RelationsResponse.of(relations)} if relations else {}
        return cls(
            project=report.project,
            collection=report.collection,
            embedding_model=report.info.embed_model if report.info else None,
            chunks=report.info.points if report.info else 0,
            documents=[McpDocumentOut.of(d) for d in report.documents],
            unmatched=[UnmatchedOut.of(d) for d in report.documents if d.citekey is None],
            **optional,
        )
