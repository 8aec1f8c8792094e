"""projects: the configured projects and what each holds (GET /projects, MCP list_projects),
and one of them (the TUI's top line)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.usecases.base import NoRequest, Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies


class ProjectOut(Response):
    """One project, as MCP list_projects gives it: both are this model, built from
    ``services.inspection.ProjectSummary``, so the two cannot name a field differently."""

    project: str = Field(description='The project id: a [project."ID"] of the config.')
    collection: str = Field(description="The Qdrant collection holding its chunks.")
    embedding_model: str = Field(description="The embedding model the config names.")
    stored_model: str | None = Field(
        description="The model its stored vectors were made with; null: nothing ingested yet."
    )
    documents: int = Field(description="Documents stored (papers and notes).")
    chunks: int = Field(description="Chunks stored across those documents.")


class ProjectsResponse(Response):
    """GET /projects and MCP list_projects."""

    projects: list[ProjectOut] = Field(description="Every configured project, by id.")


def list_projects(
    deps: Dependencies, request: NoRequest, deadline: Deadline | None
) -> ProjectsResponse:
    """Every configured project and what its collection holds."""
    from citeloom.services.inspection import summarise_project

    with deps.index(deadline) as index:
        summaries = [
            summarise_project(index, name, p.collection, p.embedding_model)
            for name, p in sorted(deps.builders.projects.items())
        ]
    return ProjectsResponse(
        projects=[ProjectOut.model_validate(s, from_attributes=True) for s in summaries]
    )


def project_summary(deps: Dependencies, request: Request, deadline: Deadline | None) -> ProjectOut:
    """One project and what its collection holds."""
    from citeloom.services.inspection import summarise_project

    chosen = deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        summary = summarise_project(
            index, request.project, chosen.collection, chosen.embedding_model
        )
    return ProjectOut.model_validate(summary, from_attributes=True)


LIST_PROJECTS = UseCase("list_projects", NoRequest, ProjectsResponse, list_projects)
PROJECT = UseCase("project", Request, ProjectOut, project_summary)
