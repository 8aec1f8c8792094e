"""document_file: the stored file of the paper a passage is in, as it was ingested (the page's
"Open file", GET /file). Its path comes from the index, never from the request, and the file
is refused when it is no longer what was ingested (``services.stored_file``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.services.stored_file import StoredFile
from citeloom.services.usecases.base import Request, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies


class FileRequest(Request):
    chunk_id: str = Field(description="A chunk_id of a passage of that paper.")


def document_file(
    deps: Dependencies, request: FileRequest, deadline: Deadline | None
) -> StoredFile:
    deps.project(request.project)
    with deps.index(deadline, request.project) as index:
        return deps.builders.browse_service(request.project, index).document_file(request.chunk_id)


DOCUMENT_FILE = UseCase("document_file", FileRequest, StoredFile, document_file)
