"""How ``GET /file`` sends a stored document's file: so that nothing in it ever runs on the
server's origin.

A library holds whatever was saved into it, a web page with its scripts among them. Served
from this origin as ``text/html``, such a page could read ``/projects``, queries and passages
with the server's own authority, and send them anywhere. So every answer of ``/file``, errors
included, carries a Content Security Policy that sandboxes the document (a unique origin, no
script, nothing loaded) and ``nosniff``; and only a PDF is shown as what it is (the browser's
viewer, which runs no script of the page). HTML, Markdown and plain text are shown as plain
text; anything else (a DOCX) is a download.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi.responses import Response
from starlette.datastructures import MutableHeaders
from starlette.routing import get_route_path

from citeloom.entrypoints.use_case_table import FILE_ROUTE
from citeloom.services.stored_file import StoredFile

FILE_HEADERS = {
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "X-Content-Type-Options": "nosniff",
}
PDF = "application/pdf"
TEXT = "text/plain; charset=utf-8"
DOWNLOAD = "application/octet-stream"
# stored documents that are text: shown as text, never as the markup they may hold
TEXT_SUFFIXES = frozenset({".html", ".htm", ".md", ".markdown", ".txt", ".text"})
# what /docs says GET /file answers
FILE_RESPONSES: dict[int | str, Any] = {
    200: {
        "content": {PDF: {}, TEXT: {}, DOWNLOAD: {}},
        "description": "The file: a PDF as itself, HTML, Markdown and text as plain text, "
        "anything else as a download; always sandboxed by its Content-Security-Policy.",
    },
}


def sent_as(path: Path) -> tuple[str, str]:
    """The media type and disposition a stored file is sent with."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return PDF, "inline"  # the browser's own viewer, not a download
    if suffix in TEXT_SUFFIXES:
        return TEXT, "inline"
    return DOWNLOAD, "attachment"


def file_response(stored: StoredFile) -> Response:
    """The answer of ``/file``: the bytes read as ingested, never the path read again."""
    media, disposition = sent_as(stored.path)
    name = stored.path.name
    quoted = quote(name)
    named = f'filename="{name}"' if quoted == name else f"filename*=utf-8''{quoted}"
    headers = {
        **FILE_HEADERS,
        "Content-Disposition": f"{disposition}; {named}",
        "Cache-Control": "private, no-store",
    }
    return Response(stored.content, media_type=media, headers=headers)


class SealedFiles:
    """Adds ``FILE_HEADERS`` to every answer of ``/file``, whatever gave it (the route, an
    error, the token check), so that no answer of that route can be a page that runs."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or get_route_path(scope) != FILE_ROUTE:
            await self.app(scope, receive, send)
            return

        async def sealed(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in FILE_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, sealed)
