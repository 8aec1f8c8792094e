"""How ``citeloom serve`` answers what it refuses: one ``ErrorResponse`` shape for every
status, whatever refused the request (a route, FastAPI's body parser, the router, the body size
limit, the token check), with the status the one table of ``outcomes`` gives a use case's error
(the same table MCP and the CLI follow). No response ever carries a traceback.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from citeloom.domain.errors import CiteloomError, UnknownProject
from citeloom.entrypoints.http.access import NOT_ADDRESSED_HERE
from citeloom.entrypoints.outcomes import outcome
from citeloom.environment import SERVE_TOKEN_ENV as TOKEN_ENV
from citeloom.services.usecases.base import plain
from citeloom.services.usecases.wire import ErrorResponse

# Seconds a client is told to wait after a 503 (the index busy, a request over its time).
RETRY_AFTER_S = 5
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ErrorStatus:
    """A status an API route may answer with an ErrorResponse, as /docs shows it."""

    meaning: str  # when it is answered
    error: str  # a message of that kind, as the server words it
    field: str | None = None

    def example(self) -> dict[str, Any]:
        return ErrorResponse(error=self.error, field=self.field).dump()


# The rows of outcomes.TABLE, what the framework and the token check refuse, and a bug.
ERROR_STATUSES = {
    400: ErrorStatus(
        "A value the use case refuses (the message names it), or a body that is not UTF-8 or "
        "is nested too deeply to read.",
        "the body is not UTF-8 (invalid start byte at byte 31); send JSON encoded as UTF-8",
    ),
    401: ErrorStatus(
        f"The bearer token is missing or wrong (only when {TOKEN_ENV} is set).",
        f"missing or wrong bearer token (see {TOKEN_ENV})",
    ),
    403: ErrorStatus(
        "Without a token: a request whose Host header does not name this machine (a page "
        "re-pointing its own name at 127.0.0.1).",
        NOT_ADDRESSED_HERE,
    ),
    404: ErrorStatus(
        "An unknown project (field: project).",
        "citeloom.toml: unknown project 'nope' (configured: example). Add a "
        '[project."nope"] table or pick a configured one.',
        "project",
    ),
    409: ErrorStatus(
        "The project's embedding model is not the one its stored vectors were made with (or "
        "its languages are not those its full-text terms were stemmed for); or, for /file, "
        "the stored file is not the one ingested (changed since, a link, no regular file).",
        "collection 'proj-example' holds vectors of embedding model "
        "'fastembed/all-MiniLM-L6-v2', but the project is configured for "
        "'fastembed/BAAI/bge-small-en-v1.5'. Mixing models would make scores meaningless, so "
        'nothing was written. Set embedding_model = "fastembed/all-MiniLM-L6-v2" in the '
        "project config, move the project to the new model (citeloom reindex "
        "--embedding-model fastembed/BAAI/bge-small-en-v1.5), or use a new collection name "
        "for it.",
    ),
    413: ErrorStatus(
        "The body is larger than [serve] max_body_bytes.",
        "the request body is larger than [serve] max_body_bytes = 5000000 bytes; send less at "
        "a time (a draft in parts) or raise the limit",
    ),
    422: ErrorStatus(
        "A field is missing, misspelt or out of range, or the body is not JSON; field names it.",
        "top_k: Input should be less than or equal to 50",
        "top_k",
    ),
    503: ErrorStatus(
        "Over [serve] timeout_s, or the index busy (both with Retry-After: send again later); "
        "or the index or the embedding model unavailable.",
        "POST /check did not finish within [serve] timeout_s = 60 s (waiting for earlier calls "
        "or an ingest counts); nothing of it is reported. Send less at a time (a draft in "
        "parts), try again later, or raise [serve] timeout_s.",
    ),
    507: ErrorStatus(
        "A disk the index writes to is full or failing.",
        "var/qdrant: No space left on device. The disk is full or failing: free some space or "
        "check the disk, then run the same command again.",
    ),
    500: ErrorStatus(
        "A bug in citeloom; the server's log says more.",
        "internal error (KeyError); see the server's log",
    ),
}


def refusal(status: int, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse(ErrorResponse(error=message, field=field).dump(), status_code=status)


class UnauthorisedError(Exception):
    """A request without the right bearer token (answered 401 by its handler)."""


def unauthorised() -> JSONResponse:
    response = refusal(401, f"missing or wrong bearer token (see {TOKEN_ENV})")
    response.headers["WWW-Authenticate"] = "Bearer"
    return response


def _unreadable(cause: BaseException | None) -> str:
    """What was wrong with a body FastAPI could not read as JSON."""
    if isinstance(cause, UnicodeDecodeError):
        return (
            f"the body is not UTF-8 ({cause.reason} at byte {cause.start}); send JSON encoded "
            "as UTF-8"
        )
    if isinstance(cause, RecursionError):
        return "the body's JSON is nested too deeply to read; requests are flat objects (see /docs)"
    return "the body could not be read as JSON (see /docs for each route's body)"


def answer_errors(app: FastAPI) -> None:
    """Every refusal in the ``ErrorResponse`` shape, at the status it is documented with."""

    @app.exception_handler(UnauthorisedError)
    def _unauthorised_request(_: Request, __: Exception) -> JSONResponse:
        return unauthorised()

    @app.exception_handler(StarletteHTTPException)
    def _refused(request: Request, error: Exception) -> JSONResponse:
        """What the router and FastAPI's body parser refuse themselves, in our shape."""
        status = getattr(error, "status_code", 400)
        headers = dict(getattr(error, "headers", None) or {})
        where = f"{request.method} {request.url.path}"
        if status == 404:
            message = f"no route {where} (the routes are listed at /docs)"
        elif status == 405:
            message = f"{where}: method not allowed; use {headers.get('Allow', 'another')}"
        elif status == 400:
            message = _unreadable(error.__cause__)
        else:
            message = str(getattr(error, "detail", "")) or f"HTTP {status}"
        response = refusal(status, message)
        response.headers.update(headers)
        return response

    @app.exception_handler(RequestValidationError)
    def _invalid(_: Request, error: Exception) -> JSONResponse:
        problems = error.errors() if isinstance(error, RequestValidationError) else []
        first = problems[0] if problems else {}
        loc = [str(p) for p in first.get("loc", ()) if p != "body"]
        field = ".".join(loc) or None
        message = plain(str(first.get("msg", "invalid request")))
        if first.get("type") == "extra_forbidden":
            message = "unknown field (check the spelling; see /docs)"
        elif first.get("type") == "json_invalid":
            message, field = "the body is not valid JSON", None
        return refusal(422, f"{field}: {message}" if field else message, field)

    @app.exception_handler(CiteloomError)
    def _citeloom(_: Request, error: Exception) -> JSONResponse:
        row = outcome(error)
        field = "project" if isinstance(error, UnknownProject) else None
        response = refusal(row.http_status, str(error), field)
        if row.retry:  # busy or out of time: try again later
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
        return response

    @app.exception_handler(Exception)
    def _internal(_: Request, error: Exception) -> JSONResponse:
        _log.error("internal error: %s: %s", type(error).__name__, error)
        return refusal(500, f"internal error ({type(error).__name__}); see the server's log")


def documented() -> dict[int | str, dict[str, Any]]:
    """The error statuses as every API route documents them in /docs."""
    return {
        code: {
            "model": ErrorResponse,
            "description": status.meaning,
            "content": {"application/json": {"example": status.example()}},
        }
        for code, status in ERROR_STATUSES.items()
    }
