"""What the other use cases answer, which the CLI's ``--json`` and MCP print: inspect,
ingest, validate, reindex, notes, drop, export/import, the audit's run summaries, and
``mcp --check``.

The use cases return plain dataclasses; each model here is built from one of them in one place
(``of``), so the CLI and MCP cannot name a field differently, and what leaves the process is
checked against the model on the way out. The search use cases' models are in ``responses``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ConfigDict, Field

from citeloom.domain.models import Candidate, DocumentSummary, Resemblance
from citeloom.services.audit_report import RunSummary
from citeloom.services.drop import DropReport
from citeloom.services.ingest import IngestReport
from citeloom.services.inspection import InspectReport, RelationsReport
from citeloom.services.notes import NoteSummary, StoreReport
from citeloom.services.reindex import ReindexReport
from citeloom.services.responses import ProjectOut, _Response
from citeloom.services.transfer import TransferReport
from citeloom.services.validate import ValidationReport


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


class RelationOut(_Response):
    """One relation between two entries of the library."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True)

    kind: str = Field(description="version_of, supersedes, retracts, has_erratum, replies_to, ...")
    source: str = Field(alias="from", description="The entry it goes from.")
    target: str | None = Field(alias="to", description="The entry it goes to (null: none).")
    evidence: str = Field(description="What it rests on, in words.")
    certainty: str = Field(description="certain: applied; possible: shown, never applied.")
    origin: str = Field(description="library, document (a stored PDF) or file (declared).")


class RelationsResponse(_Response):
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


class IngestDocumentOut(_Response):
    """One file of an ingest run, as ``citeloom ingest --json`` lists it."""

    path: str = Field(description="The file.")
    doc_id: str | None = Field(description="The stored document's id.")
    status: str = Field(description="ingested, skipped or failed.")
    citekey: str | None = Field(description="The library entry it is matched to.")
    match: str | None = Field(description="How it was matched.")
    item: str | None = Field(
        description="Its Zotero item's key: what it is cited by when it has no usable citekey."
    )
    pages: int | None = Field(description="PDF pages.")
    page_labels: str | None = Field(description="Where its printed page labels came from.")
    printed_pages: str | None = Field(description="The printed range: 272-278.")
    pages_disagree: str | None = Field(
        description="The library's range and the PDF's numbers, when they disagree."
    )
    chunks: int = Field(description="Chunks stored.")
    error: str | None = Field(description="Why it failed, with the fix.")
    renamed_from: str | None = Field(description="The stored path this content had before.")
    copy_of: str | None = Field(description="The file with the same content that is stored.")
    removed_copies: list[str] = Field(description="Stale copies removed (doc ids).")
    kept_as: list[str] = Field(description="Files that now hold its old content.")


class RelabelOut(_Response):
    doc_id: str = Field(description="The stored document.")
    path: str = Field(description="Its file.")
    old: str | None = Field(description="The citekey it had.")
    new: str | None = Field(description="The citekey it has now.")
    match: str | None = Field(description="How it was matched now.")


class LibraryAttachmentOut(_Response):
    """An attachment of a Zotero library that was not ingested, with the reason."""

    path: str = Field(description="The file (under storage/, or a linked file).")
    item_key: str = Field(description="The attachment's key in Zotero.")
    parent_key: str | None = Field(description="The item it is attached to.")
    citekey: str | None = Field(description="That item's citation key.")
    content_type: str | None = Field(description="The attachment's content type.")
    skipped: str | None = Field(description="Why it was not ingested.")


class LibraryProblemOut(_Response):
    """Something wrong with the library's citation keys, with the fix."""

    kind: str = Field(description="shared-key, no-key or key-disagreement.")
    detail: str = Field(description="The entries, and where each one's key is written.")
    fix: str = Field(description="What to change in the library.")
    fails: bool = Field(description="Whether validate fails on it (else it warns).")


class IngestResponse(_Response):
    """``citeloom ingest --json``: every file of the run and the totals."""

    correlation_id: str = Field(description="The run's id; its audit file is named by it.")
    project: str = Field(description="The project ingested into.")
    collection: str = Field(description="Its Qdrant collection.")
    embed_model: str = Field(description="The embedding model used.")
    audit: str = Field(description="The run's audit file.")
    documents: list[IngestDocumentOut] = Field(description="Every file, in order.")
    relabelled: list[RelabelOut] = Field(description="Stored documents whose citekey changed.")
    pruned: list[str] = Field(description="Stored documents removed: their file is gone.")
    interrupted: int = Field(description="Documents left undone after Ctrl-C.")
    library_skipped: list[LibraryAttachmentOut] = Field(
        description="Attachments of a Zotero library that were not ingested, with the reason."
    )
    annotations: dict[str, int] = Field(
        description="Zotero PDF annotations mirrored as notes: stored and removed."
    )
    totals: dict[str, int] = Field(description="Documents by status, and chunks stored.")
    relations: dict[str, int] = Field(description="Relations of the library after the run.")
    library_problems: list[LibraryProblemOut] = Field(
        description="What is wrong with the library's citation keys (shared, missing)."
    )

    @classmethod
    def of(cls, report: IngestReport) -> IngestResponse:
        return cls(
            correlation_id=report.correlation_id,
            project=report.project,
            collection=report.collection,
            embed_model=report.embed_model,
            audit=report.audit_path,
            documents=[
                IngestDocumentOut.model_validate(d, from_attributes=True) for d in report.documents
            ],
            relabelled=[
                RelabelOut.model_validate(r, from_attributes=True) for r in report.relabelled
            ],
            pruned=report.pruned,
            interrupted=report.interrupted,
            library_skipped=[
                LibraryAttachmentOut.model_validate(a, from_attributes=True)
                for a in report.library_skipped
            ],
            annotations=report.annotations,
            totals=report.totals,
            relations=report.relations,
            library_problems=[
                LibraryProblemOut.model_validate(p, from_attributes=True)
                for p in report.library_problems
            ],
        )


class ValidationCheckOut(_Response):
    check: str = Field(description="What was checked.")
    ok: bool = Field(description="Whether it passed.")
    warning: bool = Field(description="Passes, but a run will not do what you likely expect.")
    detail: str = Field(description="What was found.")
    fix: str | None = Field(description="What to do, when it failed or warns.")


class ValidationResponse(_Response):
    """``citeloom validate --json``."""

    project: str | None = Field(description="The project validated; null: the config only.")
    ok: bool = Field(description="Every check passed.")
    checks: list[ValidationCheckOut] = Field(description="Each check, in order.")

    @classmethod
    def of(cls, report: ValidationReport) -> ValidationResponse:
        return cls(
            project=report.project,
            ok=report.ok,
            checks=[
                ValidationCheckOut(
                    check=c.name, ok=c.ok, warning=c.warning, detail=c.detail, fix=c.fix
                )
                for c in report.checks
            ],
        )


class ReindexResponse(_Response):
    """``citeloom reindex --json`` (the run's audit ends with the same totals)."""

    correlation_id: str = Field(description="The run's id.")
    project: str = Field(description="The project reindexed.")
    collection: str = Field(description="Its collection name.")
    old_model: str = Field(description="The model its vectors were made with.")
    new_model: str = Field(description="The model they are made with now.")
    built: str = Field(description="The physical collection that was built.")
    switched: bool = Field(description="Whether the project now uses it.")
    documents: int = Field(description="Documents rebuilt.")
    chunks: int = Field(description="Chunks rebuilt.")
    failures: list[str] = Field(description="What could not be rebuilt.")
    old_languages: list[str] = Field(description="BM25's languages before.")
    languages: list[str] = Field(description="BM25's languages after.")
    embedded: bool = Field(description="False: only the BM25 vectors were rebuilt.")

    @classmethod
    def of(cls, report: ReindexReport) -> ReindexResponse:
        return cls.model_validate(report, from_attributes=True)


class StoredNoteOut(_Response):
    doc_id: str = Field(description="The note's document id.")
    citekey: str | None = Field(description="The paper it is stored beside.")
    chunks: int = Field(description="Chunks stored.")
    chunk_ids: list[str] = Field(description="The stored chunks.")


class StoreResponse(_Response):
    """MCP store_chunks: the notes stored."""

    correlation_id: str = Field(description="The run's id.")
    project: str = Field(description="The project stored into.")
    collection: str = Field(description="Its collection.")
    audit: str = Field(description="The run's audit file.")
    stored: list[StoredNoteOut] = Field(description="Each note stored.")
    chunks: int = Field(description="Chunks stored in all.")

    @classmethod
    def of(cls, report: StoreReport) -> StoreResponse:
        return cls(
            correlation_id=report.correlation_id,
            project=report.project,
            collection=report.collection,
            audit=report.audit_path,
            stored=[StoredNoteOut.model_validate(n, from_attributes=True) for n in report.notes],
            chunks=sum(n.chunks for n in report.notes),
        )


class NoteOut(_Response):
    doc_id: str = Field(description="The note's document id.")
    citekey: str | None = Field(description="The paper it is stored beside.")
    page: int | None = Field(description="The page of that paper it is about.")
    section: str | None = Field(description="The section it is about.")
    tags: list[str] = Field(description="Its tags.")
    text: str = Field(description="The note.")
    chunks: int = Field(description="Chunks stored.")


class NotesResponse(_Response):
    """``citeloom notes list --json`` and MCP list_notes."""

    project: str = Field(description="The project.")
    notes: list[NoteOut] = Field(description="Every stored note.")

    @classmethod
    def of(cls, project: str, notes: Sequence[NoteSummary]) -> NotesResponse:
        return cls(
            project=project,
            notes=[NoteOut.model_validate(n, from_attributes=True) for n in notes],
        )


class DeletedNotesResponse(_Response):
    """``citeloom notes delete --json`` and MCP delete_notes."""

    project: str = Field(description="The project.")
    deleted: list[str] = Field(description="The ids of the notes deleted.")


class DropResponse(_Response):
    """``citeloom drop --json``."""

    project: str = Field(description="The project dropped.")
    collection: str = Field(description="Its collection name.")
    current: str | None = Field(description="The physical collection it used, if any.")
    leftovers: list[str] = Field(description="Staging collections of killed runs.")
    points: int = Field(description="Chunks removed from the current collection.")
    documents: int = Field(description="Documents removed.")
    removed: list[str] = Field(description="Every collection removed.")

    @classmethod
    def of(cls, report: DropReport) -> DropResponse:
        return cls.model_validate(report, from_attributes=True)


class TransferResponse(_Response):
    """``citeloom export --json`` and ``citeloom import --json``."""

    project: str = Field(description="The project.")
    collection: str = Field(description="Its collection.")
    embed_model: str = Field(description="The model of the vectors moved.")
    points: int = Field(description="Chunks moved.")
    documents: int = Field(description="Documents moved.")
    file: str = Field(description="The export file.")

    @classmethod
    def of(cls, report: TransferReport) -> TransferResponse:
        return cls.model_validate(report, from_attributes=True)


class RunOut(_Response):
    """One ingest run, read back from its audit (``citeloom audit show --json``)."""

    correlation_id: str = Field(description="The run's id.")
    started: str | None = Field(description="When it started.")
    finished: str | None = Field(description="When it finished.")
    outcome: str = Field(description="How it ended.")
    project: str | None = Field(description="The project.")
    collection: str | None = Field(description="Its collection.")
    embed_model: str | None = Field(description="The embedding model.")
    inputs: list[str] = Field(description="What it was asked to ingest.")
    documents: dict[str, int] = Field(description="Documents by status.")
    failures: list[dict[str, Any]] = Field(description="Files that failed, with the error.")
    unmatched: list[str] = Field(description="Files matched to no entry.")
    ocr: list[str] = Field(description="Files that needed OCR.")
    relabelled: list[dict[str, Any]] = Field(description="Documents whose citekey changed.")
    pruned: list[str] = Field(description="Documents removed.")
    document_seconds: float = Field(description="Seconds spent on documents.")

    @classmethod
    def of(cls, run: RunSummary) -> RunOut:
        return cls(
            correlation_id=run.correlation_id,
            started=run.started,
            finished=run.finished,
            outcome=run.outcome,
            project=run.project,
            collection=run.collection,
            embed_model=run.embed_model,
            inputs=run.inputs,
            documents=dict(run.statuses),
            failures=run.failures,
            unmatched=run.unmatched,
            ocr=run.ocr,
            relabelled=run.relabelled,
            pruned=run.pruned,
            document_seconds=round(run.seconds, 2),
        )


class RunsResponse(_Response):
    """``citeloom audit list --json``."""

    runs: list[RunOut] = Field(description="Every run with an audit file.")


class ToolErrorOut(_Response):
    code: str = Field(description="The MCP error code (entrypoints.outcomes).")
    message: str = Field(description="What is wrong, naming the file or argument.")
    fix: str = Field(description="What to do about it.")


class ToolOut(_Response):
    name: str = Field(description="The tool's name.")
    description: str | None = Field(description="What the client is told it does.")


class ModelLoadOut(_Response):
    model: str = Field(description="An embedding model of a configured project.")
    load_s: float = Field(description="Seconds it took to load.")


class CheckErrorOut(_Response):
    project: str | None = Field(None, description="The project whose model failed to load.")
    model: str | None = Field(None, description="That model.")
    code: str | None = Field(None, description="The MCP error code of a tool that failed.")
    message: str = Field(description="What went wrong.")
    fix: str | None = Field(None, description="What to do about it.")


class McpCheckResponse(_Response):
    """``citeloom mcp --check``: what an MCP client would see."""

    tools: list[ToolOut] = Field(description="The tools, as list_tools gives them.")
    projects: list[ProjectOut] = Field(description="list_projects' answer.")
    models: list[ModelLoadOut] = Field(description="Each project's model, loaded here.")
    errors: list[CheckErrorOut] = Field(description="What a client would be refused.")
    list_tools_s: float | None = Field(None, description="Seconds list_tools took.")


class ToolErrorResponse(_Response):
    """What an MCP tool answers when it fails (with isError set)."""

    error: ToolErrorOut = Field(description="The failure.")

    @classmethod
    def of(cls, code: str, message: str, fix: str) -> ToolErrorResponse:
        return cls(error=ToolErrorOut(code=code, message=message, fix=fix))
