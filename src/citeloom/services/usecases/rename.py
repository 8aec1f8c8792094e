"""rename-project: a project renamed on purpose in the config takes its collection over from
the name it was made under; nothing is re-embedded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from citeloom.services.usecases.base import Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies


class RenameRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    old: str = Field(min_length=1, description="The name the project's collection was made under.")
    new: str = Field(min_length=1, description='The project\'s name now: its [project."NEW"].')


class RenameResponse(Response):
    old: str = Field(description="The name the collection was made under.")
    new: str = Field(description="The project that now owns it.")
    collection: str = Field(description="The collection.")
    points: int = Field(description="Chunks moved from the old name to the new one.")


def rename(deps: Dependencies, request: RenameRequest, deadline: Deadline | None) -> RenameResponse:
    from citeloom.services.rename import rename_project

    collection = deps.project(request.new).collection
    with deps.index(None) as index:
        report = rename_project(index, request.old, request.new, collection)
    return RenameResponse.model_validate(report, from_attributes=True)


RENAME = UseCase("rename", RenameRequest, RenameResponse, rename)
