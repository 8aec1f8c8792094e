"""inspect: what a project's collection holds, document by document (``citeloom inspect``, MCP
inspect_collection); and relations: the relations between the library's entries, with those
its stored PDFs add (``citeloom inspect --relations``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from citeloom.services.usecases.base import Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.domain.models import Candidate, DocumentSummary, Resemblance
    from citeloom.services.deadline import Deadline
    from citeloom.services.inspection import InspectReport, RelationsReport
    from citeloom.services.usecases.dependencies import Dependencies


class CandidateOut(Response):
    citekey: str = Field(description="A library entry the document might be.")
    score: float = Field(description="0 to 1: how well page 1 fits the entry.")

    @classmethod
    def of(cls, c: Candidate) -> CandidateOut:
        return cls(citekey=c.citekey, score=c.score)


class ResemblanceOut(Response):
    citekey: str = Field(description="Another entry page 1 also fits.")
    score: float = Field(description="Title score against that entry.")
    authors: float = Field(description="Share of that entry's authors printed on page 1.")

    @classmethod
    def of(cls, r: Resemblance) -> ResemblanceOut:
        return cls(citekey=r.citekey, score=r.score, authors=r.authors)


class StoredDocumentOut(Response):
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
    attachment: str | None = Field(
        description="The Zotero attachment it is (library id/key), whatever its file name."
    )
    item: str | None = Field(
        description="Its Zotero item's key: what it is cited by when it has no usable citekey."
    )
    detail: str | None = Field(description="Why it has no citekey, when the library says.")
    pages_disagree: str | None = Field(
        description="The library's range and the PDF's numbers, when they disagree: both, "
        "and which one its labels follow."
    )

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
            attachment=doc.attachment,
            item=doc.item,
            detail=doc.detail,
            pages_disagree=str(labels.disagree) if labels and labels.disagree else None,
        )


class InspectResponse(Response):
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


class PreprintPdfOut(Response):
    doc_id: str = Field(description="The stored document.")
    path: str = Field(description="Its file.")
    citekey: str = Field(description="The entry it is a preprint of.")
    evidence: str = Field(description="Why: arXiv's stamp on page 1.")


class RelationOut(Response):
    """One relation between two entries of the library."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True)

    kind: str = Field(description="version_of, supersedes, retracts, has_erratum, replies_to, ...")
    source: str = Field(alias="from", description="The entry it goes from.")
    target: str | None = Field(alias="to", description="The entry it goes to (null: none).")
    evidence: str = Field(description="What it rests on, in words.")
    certainty: str = Field(description="certain: applied; possible: shown, never applied.")
    origin: str = Field(description="library, document (a stored PDF) or file (declared).")


class RelationsResponse(Response):
    """``citeloom inspect --relations --json``, and MCP inspect_collection's ``relations``."""

    project: str = Field(description="The project inspected.")
    sources: list[str] = Field(description="Where the relations came from.")
    certain: int = Field(description="Relations applied.")
    possible: int = Field(description="Relations shown, never applied.")
    relations: list[RelationOut] = Field(description="Each relation, certain ones first.")
    preprint_pdfs: list[PreprintPdfOut] = Field(description="Stored PDFs that are preprints.")
    problems: list[str] = Field(description="What could not be read.")

    @classmethod
    def of(cls, report: RelationsReport) -> RelationsResponse:
        return cls(
            project=report.project,
            sources=list(report.sources),
            certain=len(report.certain),
            possible=len(report.possible),
            relations=[
                RelationOut.model_validate(r, from_attributes=True) for r in report.relations
            ],
            preprint_pdfs=[
                PreprintPdfOut.model_validate(p, from_attributes=True) for p in report.preprint_pdfs
            ],
            problems=report.problems,
        )


def inspect(deps: Dependencies, request: Request, deadline: Deadline | None) -> InspectResponse:
    from citeloom.services.inspection import inspect_project

    chosen = deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        report = inspect_project(index, request.project, chosen.collection)
    return InspectResponse.of(report)


def relations(deps: Dependencies, request: Request, deadline: Deadline | None) -> RelationsResponse:
    """The library's relations, with those its stored PDFs add."""
    from citeloom.services.inspection import inspect_relations

    source = deps.builders.relations(request.project)
    collection = deps.project(request.project).collection
    with deps.index(deadline, request.project) as index:
        report = inspect_relations(index, request.project, collection, source)
    return RelationsResponse.of(report)


INSPECT = UseCase("inspect", Request, InspectResponse, inspect)
RELATIONS = UseCase("relations", Request, RelationsResponse, relations)
