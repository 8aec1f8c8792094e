"""The page for a person at ``/``: one more door over the same API, written in HTML, CSS and a
little JavaScript that ship with citeloom (``web/``), with no CDN and no build step, so it
works offline like ``/docs``.

The page and its two files hold no data, so they are served without the token, as ``/docs``
is; every call the page makes goes to the API routes, which check it. Its Content Security
Policy lets it load and call nothing but this server, and run no inline script: text drawn
from a document that slipped into markup still could not run.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse

WEB = Path(__file__).with_name("web")
PAGE_ASSETS = "/web"
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def mount_page(app: FastAPI) -> None:
    """``/`` and its script and style at ``/web``."""
    from fastapi.staticfiles import StaticFiles

    app.mount(PAGE_ASSETS, StaticFiles(directory=str(WEB)), name="page-assets")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(WEB / "index.html", media_type="text/html", headers=_HEADERS)
