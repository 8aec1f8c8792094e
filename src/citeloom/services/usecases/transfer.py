"""export and import: a project's chunks with their vectors written to a versioned JSONL file,
and such a file loaded into a project's collection (new or empty) without re-embedding,
refused when its model or tokenizer is not the project's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.usecases.base import Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.transfer import TransferReport
    from citeloom.services.usecases.dependencies import Dependencies


class ExportRequest(Request):
    file: Path = Field(description="The JSONL file to write.")


class ImportRequest(Request):
    file: Path = Field(description="A file written by citeloom export.")
    to: str | None = Field(
        None, description="A Qdrant server to import into instead of [qdrant] url."
    )


class TransferResponse(Response):
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


def export(
    deps: Dependencies, request: ExportRequest, deadline: Deadline | None
) -> TransferResponse:
    from citeloom.services.transfer import export_project

    project = request.project
    chosen = deps.project(project)
    with deps.index(None, project) as index:
        info = index.collection_info(chosen.collection)
        tokenizer = deps.builders.tokenizer_id(info.embed_model) if info else None
        report = export_project(index, project, chosen.collection, tokenizer, request.file)
    return TransferResponse.of(report)


def import_(
    deps: Dependencies, request: ImportRequest, deadline: Deadline | None
) -> TransferResponse:
    """Load an export into the project's collection (``to``: on this Qdrant server)."""
    from citeloom.services.export_file import refuse_unreadable_import
    from citeloom.services.transfer import import_project

    refuse_unreadable_import(request.file)
    project = request.project
    builders = deps.builders.with_server(request.to) if request.to else deps.builders
    chosen = builders.project(project)
    tokenizer = builders.tokenizer_id(chosen.embedding_model)
    with deps.index(None, project, builders) as index:
        report = import_project(
            index,
            project,
            chosen.collection,
            chosen.embedding_model,
            tokenizer,
            request.file,
            lambda: builders.model_dimensions(project),
            tuple(chosen.languages),
        )
    return TransferResponse.of(report)


EXPORT = UseCase("export", ExportRequest, TransferResponse, export)
IMPORT = UseCase("import", ImportRequest, TransferResponse, import_)
