"""ingest: documents converted, chunked, embedded and stored in a project's collection, each
matched to its library entry; what it reads when given no path (the project's Zotero library,
else [paths] raw_dir) is decided here. The command shows the run and asks it to stop through
``Dependencies.display``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.domain.errors import ConfigError, EveryPathRefused
from citeloom.services.usecases.base import Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.ingest import DocumentOutcome, IngestReport
    from citeloom.services.usecases.dependencies import Builders, Dependencies


class IngestRequest(Request):
    paths: list[Path] = Field(
        default_factory=list,
        description="Documents or folders (searched recursively); empty: the project's Zotero "
        "library when it has one, else [paths] raw_dir.",
    )
    zotero: Path | None = Field(
        None, description="A Zotero data directory to read the library and its PDFs from."
    )
    citekey: str | None = Field(None, description="The library entry of the one file given.")
    prune: bool = Field(False, description="Remove stored documents whose files are gone.")
    jobs: int | None = Field(
        1, ge=1, le=64, description="Documents converted at once (None: as the machine suits)."
    )


@dataclass
class Sources:
    """What an ingest or a watch reads: the paths given that can be read, those refused at
    once (a named pipe or a device would hold the index for ever), and whether the project's
    Zotero library lists its own files."""

    given: list[Path]
    refused: list[DocumentOutcome] = field(default_factory=list)
    from_library: bool = False
    default: list[Path] = field(default_factory=list)  # read when nothing is given

    @property
    def paths(self) -> list[Path]:
        return self.given or self.default

    def reported(self, deps: Dependencies) -> Sources:
        """Each refused path told to the display; when nothing is left to run, one error naming
        every refusal (exit 1)."""
        if bool(self.refused) and not self.given and not self.from_library:
            raise EveryPathRefused([o.error or o.path for o in self.refused])
        for outcome in self.refused:
            deps.display.refused(outcome)
        return self


def refused_apart(paths: Sequence[Path]) -> tuple[list[Path], list[DocumentOutcome]]:
    from citeloom.services.ingest import refuse_unreadable

    return refuse_unreadable(paths)


class IngestDocumentOut(Response):
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


class RelabelOut(Response):
    doc_id: str = Field(description="The stored document.")
    path: str = Field(description="Its file.")
    old: str | None = Field(description="The citekey it had.")
    new: str | None = Field(description="The citekey it has now.")
    match: str | None = Field(description="How it was matched now.")


class LibraryAttachmentOut(Response):
    """An attachment of a Zotero library that was not ingested, with the reason."""

    path: str = Field(description="The file (under storage/, or a linked file).")
    item_key: str = Field(description="The attachment's key in Zotero.")
    parent_key: str | None = Field(description="The item it is attached to.")
    citekey: str | None = Field(description="That item's citation key.")
    content_type: str | None = Field(description="The attachment's content type.")
    skipped: str | None = Field(description="Why it was not ingested.")


class LibraryProblemOut(Response):
    """Something wrong with the library's citation keys, with the fix."""

    kind: str = Field(description="shared-key, no-key or key-disagreement.")
    detail: str = Field(description="The entries, and where each one's key is written.")
    fix: str = Field(description="What to change in the library.")
    fails: bool = Field(description="Whether validate fails on it (else it warns).")


class IngestResponse(Response):
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


def ingest_sources(deps: Dependencies, request: IngestRequest) -> Sources:
    """What ``ingest`` reads: the paths given, else the project's Zotero library when it
    has one (``--zotero``: that data directory), else [paths] raw_dir."""
    builders = _builders(deps, request)
    from_library = builders.project(request.project).zotero is not None and (
        not request.paths or request.zotero is not None
    )
    raw_dir = builders.raw_dir
    if not request.paths and not from_library and not raw_dir.exists():
        raise ConfigError(
            f"no path given, and the default folder [paths] raw_dir ({raw_dir}) does not "
            f"exist. Pass the folder of your papers (citeloom ingest ~/papers -p "
            f"{request.project}), or put them in raw_dir."
        )
    given, refused = refused_apart(request.paths)
    return Sources(given, refused, from_library, [] if from_library else [raw_dir])


def _builders(deps: Dependencies, request: IngestRequest) -> Builders:
    """The project's builders, its library read from ``--zotero`` when given."""
    if request.zotero is None:
        return deps.builders
    return deps.builders.with_zotero(request.project, request.zotero)


def ingest(deps: Dependencies, request: IngestRequest, deadline: Deadline | None) -> IngestResponse:
    """Convert, chunk, embed and store the sources. The command's display (its progress and
    its Ctrl-C handling) is set up around the run itself, once the index is held."""
    sources = ingest_sources(deps, request).reported(deps)
    builders = _builders(deps, request)
    display = deps.display
    with deps.index(None, request.project, builders) as index:
        service = builders.ingest_service(request.project, index, request.jobs)
        with display.running() as progress:
            report = service.run(
                sources.paths,
                progress=progress,
                citekey=request.citekey,
                prune=request.prune,
                should_stop=display.should_stop,
                from_library=sources.from_library,
                refused=sources.refused,
            )
    return IngestResponse.of(report)


INGEST = UseCase("ingest", IngestRequest, IngestResponse, ingest)
