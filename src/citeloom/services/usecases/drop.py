"""drop: a project's collection removed, with the staging collections interrupted runs left
beside it; never a collection another configured project uses. ``DROP_PLAN`` says what it
would remove, for the question asked first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.usecases.base import Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.drop import DropReport
    from citeloom.services.usecases.dependencies import Dependencies


class DropResponse(Response):
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


def _others(deps: Dependencies, project: str) -> dict[str, str]:
    """Every other project's collection: a drop never takes one of them."""
    return {n: p.collection for n, p in deps.builders.projects.items() if n != project}


def drop_plan(deps: Dependencies, request: Request, deadline: Deadline | None) -> DropResponse:
    """What ``drop`` removes, without removing it."""
    from citeloom.services.drop import drop_plan as plan

    collection = deps.project(request.project).collection
    with deps.index(None, request.project) as index:
        report = plan(index, request.project, collection, _others(deps, request.project))
    return DropResponse.of(report)


def drop(deps: Dependencies, request: Request, deadline: Deadline | None) -> DropResponse:
    from citeloom.services.drop import drop_project

    collection = deps.project(request.project).collection
    with deps.index(None, request.project) as index:
        report = drop_project(index, request.project, collection, _others(deps, request.project))
    return DropResponse.of(report)


DROP_PLAN = UseCase("drop_plan", Request, DropResponse, drop_plan)
DROP = UseCase("drop", Request, DropResponse, drop)
