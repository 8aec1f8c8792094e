"""passage: one stored chunk between its neighbours in its paper, to read around a hit before
citing it (MCP get_passage, POST /passage, the TUI's reading view)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.browse import MAX_CONTEXT
from citeloom.services.usecases.base import Request, Response, UseCase
from citeloom.services.usecases.wire import PassageOut

if TYPE_CHECKING:
    from citeloom.services.browse import PassageContext
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies


class PassageRequest(Request):
    chunk_id: str = Field(description="A chunk_id from query_hybrid or find_chunks.")
    context: int = Field(
        0, ge=0, le=MAX_CONTEXT, description="Neighbouring chunks on each side (0-3)."
    )


class PassageContextResponse(Response):
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


def passage(
    deps: Dependencies, request: PassageRequest, deadline: Deadline | None
) -> PassageContextResponse:
    deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        service = deps.builders.browse_service(request.project, index)
        found = service.get_passage(request.chunk_id, request.context)
    return PassageContextResponse.of(found)


PASSAGE = UseCase("passage", PassageRequest, PassageContextResponse, passage)
