"""reindex: a project's collection rebuilt beside the old one, with another embedding model
from the cached conversions or only its BM25 vectors for new languages, and switched to when
whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.usecases.base import Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.reindex import ReindexReport
    from citeloom.services.usecases.dependencies import Dependencies


class ReindexRequest(Request):
    embedding_model: str | None = Field(
        None, description="The new collection's model; None: only the BM25 vectors are rebuilt."
    )
    allow_download: bool = Field(False, description="Let FastEmbed download the model.")


class ReindexResponse(Response):
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


def reindex(
    deps: Dependencies, request: ReindexRequest, deadline: Deadline | None
) -> ReindexResponse:
    deps.project(request.project)
    with deps.index(None, request.project) as index:
        service = deps.builders.reindex_service(
            request.project, index, request.embedding_model, request.allow_download
        )
        return ReindexResponse.of(service.run())


REINDEX = UseCase("reindex", ReindexRequest, ReindexResponse, reindex)
