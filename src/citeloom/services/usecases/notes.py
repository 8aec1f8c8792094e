"""notes: text kept citable beside a project's papers (MCP store_chunks), listed (``citeloom
notes list``, MCP list_notes) and deleted by id (``citeloom notes delete``, MCP
delete_notes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from citeloom.domain.notes import MAX_PAGE, MAX_TAGS, NoteItem
from citeloom.services.notes import MAX_ITEMS
from citeloom.services.usecases.base import Request, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.notes import StoreReport
    from citeloom.services.usecases.dependencies import Dependencies


class NoteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="The text to keep citable.")
    citekey: str | None = Field(None, description="The library entry it comes from.")
    title: str | None = Field(None, description="A title (default: the entry's title).")
    section: str | None = Field(None, description="The section it comes from.")
    page: int | None = Field(None, ge=1, le=MAX_PAGE, description="The page it comes from.")
    tags: list[str] = Field(
        default_factory=list, max_length=MAX_TAGS, description="Tags to filter by later."
    )

    def item(self) -> NoteItem:
        fields = self.model_dump()
        return NoteItem(**{**fields, "tags": tuple(self.tags)})


class StoreNotesRequest(Request):
    items: list[NoteRequest] = Field(
        max_length=MAX_ITEMS, description=f"At most {MAX_ITEMS} per call."
    )


class DeleteNotesRequest(Request):
    doc_ids: list[str] = Field(
        min_length=1,
        max_length=MAX_ITEMS,
        description="Note ids (store_chunks' or list_notes' doc_id).",
    )


class StoredNoteOut(Response):
    doc_id: str = Field(description="The note's document id.")
    citekey: str | None = Field(description="The paper it is stored beside.")
    chunks: int = Field(description="Chunks stored.")
    chunk_ids: list[str] = Field(description="The stored chunks.")


class StoreResponse(Response):
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


class NoteOut(Response):
    doc_id: str = Field(description="The note's document id.")
    citekey: str | None = Field(description="The paper it is stored beside.")
    page: int | None = Field(description="The page of that paper it is about.")
    section: str | None = Field(description="The section it is about.")
    tags: list[str] = Field(description="Its tags.")
    text: str = Field(description="The note.")
    chunks: int = Field(description="Chunks stored.")


class NotesResponse(Response):
    """``citeloom notes list --json`` and MCP list_notes."""

    project: str = Field(description="The project.")
    notes: list[NoteOut] = Field(description="Every stored note.")


class DeletedNotesResponse(Response):
    """``citeloom notes delete --json`` and MCP delete_notes."""

    project: str = Field(description="The project.")
    deleted: list[str] = Field(description="The ids of the notes deleted.")


def store_notes(
    deps: Dependencies, request: StoreNotesRequest, deadline: Deadline | None
) -> StoreResponse:
    """Nothing is written once the deadline has passed; once writing, all of it is."""
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import CALL_S

    deps.project(request.project)
    items = [item.item() for item in request.items]
    embedder = deps.embedder(request.project)
    deadline = deadline or Deadline(CALL_S)
    with deps.index(deadline, request.project) as index:
        service = deps.builders.note_service(request.project, index, embedder)
        report = service.store(items, should_stop=deadline.expired, may_write=deadline.may_write)
    return StoreResponse.of(report)


def list_notes(deps: Dependencies, request: Request, deadline: Deadline | None) -> NotesResponse:
    deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        notes = deps.builders.note_book(request.project, index).stored()
    return NotesResponse(
        project=request.project,
        notes=[NoteOut.model_validate(n, from_attributes=True) for n in notes],
    )


def delete_notes(
    deps: Dependencies, request: DeleteNotesRequest, deadline: Deadline | None
) -> DeletedNotesResponse:
    deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        deleted = deps.builders.note_book(request.project, index).delete(request.doc_ids)
    return DeletedNotesResponse(project=request.project, deleted=deleted)


STORE_NOTES = UseCase("store_notes", StoreNotesRequest, StoreResponse, store_notes)
LIST_NOTES = UseCase("list_notes", Request, NotesResponse, list_notes)
DELETE_NOTES = UseCase("delete_notes", DeleteNotesRequest, DeletedNotesResponse, delete_notes)
