"""find_chunks: one paper's chunks in reading order, a page of them at a time, optionally one
section or PDF page of it (MCP find_chunks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.usecases.base import Request, Response, UseCase
from citeloom.services.usecases.wire import PassageOut

if TYPE_CHECKING:
    from citeloom.services.browse import ChunkPage
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies


class FindChunksRequest(Request):
    citekey: str = Field(description="The paper, by its citekey.")
    section: str | None = Field(None, description="Words of the section path to keep.")
    page: int | None = Field(None, ge=1, description="Only chunks on this (1-based) page.")
    cursor: str | None = Field(None, description="next_cursor of the previous answer.")
    limit: int = Field(20, ge=1, le=100, description="Chunks per answer.")


class ChunksResponse(Response):
    project: str = Field(description="The project the paper is in.")
    citekey: str = Field(description="The paper, by its citekey.")
    total: int = Field(description="The paper's chunks in all.")
    chunks: list[PassageOut] = Field(description="This page of them, in reading order.")
    next_cursor: str | None = Field(description="For the next page; null: no more.")

    @classmethod
    def of(cls, page: ChunkPage) -> ChunksResponse:
        return cls(
            project=page.project,
            citekey=page.citekey,
            total=page.total,
            chunks=[PassageOut.from_passage(p) for p in page.passages],
            next_cursor=page.next_cursor,
        )


def find_chunks(
    deps: Dependencies, request: FindChunksRequest, deadline: Deadline | None
) -> ChunksResponse:
    deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        found = deps.builders.browse_service(request.project, index).find_chunks(
            request.citekey, request.section, request.page, request.cursor, request.limit
        )
    return ChunksResponse.of(found)


FIND_CHUNKS = UseCase("find_chunks", FindChunksRequest, ChunksResponse, find_chunks)
