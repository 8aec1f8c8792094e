"""``citeloom serve``: the query, answer and check use cases over a small local HTTP API.

The routes and the MCP tools at ``/mcp/`` share one warm runtime (``runtime.Runtime``): one
model cache, one index kept open between requests and handed at once to a process that waits
for it (an ingest in a terminal), requests taking turns on it. Each request runs under
[serve] timeout_s (MCP tools under [mcp] timeout_s): on time it answers 503 with Retry-After
and reports nothing half-done; a check lets a process waiting for the index have it between
two citations, so a long check never starves it. Errors are answered as the one table of
``outcomes`` says, the same table MCP and the CLI follow.

Loopback by default; binding any other address needs a bearer token from the environment
(``CITELOOM_SERVE_TOKEN``), which every API route and /mcp/ then require through one check
(``bearer_accepted``). A bad request gets a 4xx JSON error naming the field, in the one
``ErrorResponse`` shape, whatever refused it (a route, FastAPI's body parser, the router, the
body size limit); no response ever carries a traceback. The port is bound before the models
load, so a busy port fails at once.

``/docs`` (Swagger UI) is served from files installed with citeloom, so it works offline and
no page the server sends fetches anything from another machine.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import hmac
import ipaddress
import logging
import os
import platform
import re
import signal
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import get_route_path

from citeloom import __version__, bootstrap
from citeloom.config import Settings
from citeloom.domain.errors import (
    CiteloomError,
    ConfigError,
    UnknownProject,
)
from citeloom.entrypoints import handoff, render, schemas
from citeloom.entrypoints.outcomes import outcome
from citeloom.entrypoints.query_options import query_options
from citeloom.entrypoints.runtime import Limit, Runtime
from citeloom.entrypoints.schemas import (
    AnswerRequest,
    AnswerResponse,
    CheckRequest,
    CheckResponse,
    ErrorResponse,
    HealthResponse,
    ProjectOut,
    ProjectsResponse,
    QueryRequest,
    QueryResponse,
)
from citeloom.entrypoints.time_limit import Deadline
from citeloom.services.inspection import summarise_project

T = TypeVar("T")
TOKEN_ENV = "CITELOOM_SERVE_TOKEN"
# A token is sent in a header: visible ASCII only, which every client sends byte for byte.
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")
# Declares the scheme in the OpenAPI docs; the check itself is bearer_accepted.
_BEARER = HTTPBearer(auto_error=False)  # module level: route signatures are resolved here
# Seconds a client is told to wait after a 503 (the index busy, a request over its time).
RETRY_AFTER_S = 5
# Swagger UI's script, style and icon, served from the swagger-ui-bundle-v2 package
DOCS_ASSETS = "/docs/assets"
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
    404: ErrorStatus(
        "An unknown project (field: project).",
        "citeloom.toml: unknown project 'nope' (configured: example). Add a "
        '[project."nope"] table or pick a configured one.',
        "project",
    ),
    409: ErrorStatus(
        "The project's embedding model is not the one its stored vectors were made with (or "
        "its languages are not those its full-text terms were stemmed for).",
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


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_token(token: str | None) -> str | None:
    """The token, or ``ConfigError`` when HTTP headers cannot carry it alike from every
    client: a non-ASCII character is sent as UTF-8 by some and as Latin-1 by others (or not
    at all), so such a token is refused at start rather than half-working."""
    if token is not None and not _TOKEN_CHARS.fullmatch(token):
        raise ConfigError(
            f"{TOKEN_ENV} holds a character an HTTP header cannot carry reliably (a non-ASCII "
            "letter, a space or a control character). Set a token of ASCII letters, digits "
            f"and punctuation, e.g. export {TOKEN_ENV}=\"$(python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))')\"."
        )
    return token


def serve_token(host: str) -> str | None:
    """The bearer token requests must carry, or ``ConfigError`` when a non-loopback bind
    has none (the API reads the whole library) or it cannot be sent in a header."""
    token = checked_token(os.environ.get(TOKEN_ENV) or None)
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"--host {host} is reachable from other machines: set a bearer token in the "
            f"{TOKEN_ENV} environment variable first (clients send 'Authorization: Bearer "
            "TOKEN'), or bind 127.0.0.1."
        )
    return token


def bearer_accepted(scope: Mapping[str, Any], token: str | None) -> bool:
    """The one check of a request's credentials, for every API route and for /mcp/: no
    token configured lets everything through (a loopback bind); else the request's
    ``Authorization`` header must name the Bearer scheme (in any case: ``bearer`` too) and
    carry the token, compared byte for byte in constant time."""
    if token is None:
        return True
    header = next((v for k, v in scope.get("headers") or () if k.lower() == b"authorization"), b"")
    scheme, _, given = bytes(header).strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), token.encode())


def _unauthorised() -> JSONResponse:
    response = _error(401, f"missing or wrong bearer token (see {TOKEN_ENV})")
    response.headers["WWW-Authenticate"] = "Bearer"
    return response


def bind(host: str, port: int) -> socket.socket:
    """The server's socket, bound now, before the models load: a port in use (or an address
    that is not this machine's) fails at once with one line naming it, a usage error."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise ConfigError(
            f"--host {host}: not an address to listen on ({error.strerror}). Pass an address "
            "of this machine, e.g. 127.0.0.1."
        ) from None
    listener = socket.socket(family, kind, proto)
    try:
        # as uvicorn does: a restarted server need not wait for the old connections to time out
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"{where} is already in use by another process (another citeloom serve?). "
                "Pass another --port, or stop the process listening there."
            ) from None
        raise ConfigError(
            f"cannot listen on {where} ({error.strerror}). Pass another --host or --port."
        ) from None
    return listener


class _UnauthorisedError(Exception):
    """A request without the right bearer token (answered 401 by its handler)."""


class BodyLimit:
    """Reads a request's whole body before the app does, up to [serve] max_body_bytes: a
    larger one is answered 413 in the ErrorResponse shape and never parsed. Every route is
    behind it, /mcp/ included."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before sending its body: no one to answer
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        first: list[dict[str, Any]] = [{"type": "http.request", "body": b"".join(chunks)}]

        async def replay() -> Any:
            return first.pop() if first else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Any, receive: Any, send: Any) -> None:
        response = _error(
            413,
            f"the request body is larger than [serve] max_body_bytes = {self.max_bytes} bytes; "
            "send less at a time (a draft in parts) or raise the limit",
        )
        await response(scope, receive, send)


def mount_mcp(app: FastAPI, runtime: Runtime, token: str | None) -> None:
    """The MCP tools of ``citeloom mcp`` over streamable HTTP at ``/mcp``: the same server
    (``mcp_server.build_server``), stateless and answering in JSON, behind the same bearer
    token check as the other routes (``bearer_accepted``). Its session manager runs for the
    app's lifetime."""
    from mcp.server.transport_security import TransportSecuritySettings

    from citeloom.entrypoints.mcp_server import build_server
    from citeloom.entrypoints.mcp_tools import ToolRuntime

    server = build_server(ToolRuntime(runtime))
    tools = server.streamable_http_app(
        streamable_http_path="/",
        stateless_http=True,
        json_response=True,
        # off loopback the bearer token guards the tools; on loopback the SDK's own check of
        # Host and Origin headers stops other web pages from reaching them
        transport_security=(
            TransportSecuritySettings(enable_dns_rebinding_protection=False) if token else None
        ),
    )
    manager = server.session_manager

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not bearer_accepted(scope, token):
            await _unauthorised()(scope, receive, send)
            return
        if scope["type"] == "http" and get_route_path(scope) not in ("", "/"):
            where = f"{scope['method']} {scope['path']}"
            await _error(404, f"no route {where}; MCP clients use /mcp/")(scope, receive, send)
            return
        await tools(scope, receive, send)

    app.mount("/mcp", guarded)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: Any) -> AsyncIterator[Any]:
        try:
            async with manager.run(), inner(application) as state:
                yield state
        finally:
            runtime.close()  # the index's shard lock goes with the server

    app.router.lifespan_context = lifespan


def mount_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` from the files of the swagger-ui-bundle-v2 package rather than
    FastAPI's default CDN: offline (citeloom's promise) a CDN page stays blank, and online it
    would tell a third party who reads the docs. Swagger UI 5 is needed to render OpenAPI 3.1,
    which FastAPI writes. Its online validator badge is off: it would send the schema out."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.staticfiles import StaticFiles
    from swagger_ui_bundle import swagger_ui_path

    app.mount(DOCS_ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
            swagger_ui_parameters={"validatorUrl": None},
        )


def keep_example_nulls(app: FastAPI) -> None:
    """FastAPI writes its OpenAPI document without any null, the examples' nulls too, so an
    example would lack keys the response always has (``"suggested_page": null``); the
    examples are put back as written: the models' and those of ``ERROR_STATUSES``."""
    generate = app.openapi
    models = {
        model.__name__: model
        for model in vars(schemas).values()
        if isinstance(model, type) and issubclass(model, BaseModel)
    }

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            for name, component in document.get("components", {}).get("schemas", {}).items():
                model = models.get(name)
                extra = model.model_config.get("json_schema_extra") if model else None
                if isinstance(extra, dict) and "examples" in extra:
                    component["examples"] = copy.deepcopy(extra["examples"])
            for operation in (op for item in document["paths"].values() for op in item.values()):
                for code, response in operation.get("responses", {}).items():
                    if code.isdigit() and int(code) in ERROR_STATUSES:
                        example = ERROR_STATUSES[int(code)].example()
                        response["content"]["application/json"]["example"] = example
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def _versions() -> dict[str, str]:
    out = {"citeloom": __version__, "python": platform.python_version()}
    for package in ("fastapi", "uvicorn", "pydantic", "qdrant-edge-py", "onnxruntime"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            continue
    return out


def _error(status: int, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse(ErrorResponse(error=message, field=field).dump(), status_code=status)


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


def mount_handoff(app: FastAPI, secret: bytes | None) -> None:
    """``GET /handoff``: the server proves it holds its announcement's secret, before a CLI
    sends it anything (``handoff``). Unguarded by the token, which the CLI sends only after."""

    @app.get(handoff.PROOF_ROUTE, include_in_schema=False)
    def proof(request: Request) -> JSONResponse:
        nonce = request.headers.get(handoff.NONCE_HEADER, "")
        answer = handoff.prove(secret, nonce) if secret is not None else None
        if answer is None:
            return _error(404, "this server is not announced for a CLI hand-off")
        return JSONResponse(answer)


def create_app(
    settings: Settings,
    token: str | None = None,
    preload: bool = True,
    stopping: Callable[[], bool] = lambda: False,
    handoff_secret: bytes | None = None,
) -> FastAPI:
    """``stopping``: whether the server is shutting down (a running check then stops at its
    next citation and answers 503, so that the server need not wait for all of it).
    ``handoff_secret``: what the server proves it holds to a CLI handing it a request."""
    token = checked_token(token)
    runtime = Runtime(settings, stopping)
    limit = Limit(settings.serve.timeout_s, "[serve] timeout_s")
    if preload:
        runtime.preload()
    app = FastAPI(
        title="citeloom",
        version=__version__,
        description="Passages, verified answers and draft checks from your library, offline.",
        # /docs is served by mount_docs from local files; ReDoc would load from a CDN
        docs_url=None,
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
    )
    app.add_middleware(BodyLimit, max_bytes=settings.serve.max_body_bytes)
    mount_docs(app)
    mount_handoff(app, handoff_secret)
    keep_example_nulls(app)

    def authorised(
        request: Request,
        _: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)],
    ) -> None:
        if not bearer_accepted(request.scope, token):
            raise _UnauthorisedError

    guarded = [Depends(authorised)]
    errors: dict[int | str, dict[str, Any]] = {
        code: {
            "model": ErrorResponse,
            "description": status.meaning,
            "content": {"application/json": {"example": status.example()}},
        }
        for code, status in ERROR_STATUSES.items()
    }

    @app.exception_handler(_UnauthorisedError)
    def _unauthorised_request(_: Request, __: Exception) -> JSONResponse:
        return _unauthorised()

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
        response = _error(status, message)
        response.headers.update(headers)
        return response

    @app.exception_handler(RequestValidationError)
    def _invalid(_: Request, error: Exception) -> JSONResponse:
        problems = error.errors() if isinstance(error, RequestValidationError) else []
        first = problems[0] if problems else {}
        loc = [str(p) for p in first.get("loc", ()) if p != "body"]
        field = ".".join(loc) or None
        message = str(first.get("msg", "invalid request"))
        if first.get("type") == "extra_forbidden":
            message = "unknown field (check the spelling; see /docs)"
        elif first.get("type") == "json_invalid":
            message, field = "the body is not valid JSON", None
        return _error(422, f"{field}: {message}" if field else message, field)

    @app.exception_handler(CiteloomError)
    def _citeloom(_: Request, error: Exception) -> JSONResponse:
        row = outcome(error)
        field = "project" if isinstance(error, UnknownProject) else None
        response = _error(row.http_status, str(error), field)
        if row.retry:  # busy or out of time: try again later
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
        return response

    @app.exception_handler(Exception)
    def _internal(_: Request, error: Exception) -> JSONResponse:
        _log.error("internal error: %s: %s", type(error).__name__, error)
        return _error(500, f"internal error ({type(error).__name__}); see the server's log")

    @app.post(
        "/query",
        summary="The best passages, with citation labels (citeloom query --json)",
        response_model=QueryResponse,
        dependencies=guarded,
        response_model_exclude_unset=True,
        responses=errors,
    )
    async def query(request: QueryRequest) -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            settings.get_project(request.project)
            options = query_options(
                settings,
                top_k=request.top_k,
                per_doc=request.per_doc,
                citekeys=request.citekeys,
                tags=request.tags,
                collections=request.collections,
                year_from=request.year_from,
                year_to=request.year_to,
                section=request.section,
                budget=request.budget,
            )
            embedder = runtime.embedder(request.project)
            with runtime.index(deadline) as index:  # one unit of work
                service = bootstrap.query_service(settings, request.project, index, embedder)
                report = service.search(request.query, options)
            out = QueryResponse.from_report(report).dump()
            if request.render:
                out["rendered"] = render.QUERY_FORMATS[request.render](report)
            return out

        return await runtime.run("POST /query", work, limit)

    @app.post(
        "/answer",
        summary="An answer of verified quotes, or leads (citeloom answer --json)",
        response_model=AnswerResponse,
        dependencies=guarded,
        response_model_exclude_unset=True,
        responses=errors,
    )
    async def answer(request: AnswerRequest) -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            runtime.embedder(request.project)  # loaded before the index is taken
            with runtime.index(deadline) as index:  # one unit of work
                report = runtime.answer_service(request.project, index).answer(request.question)
            out = AnswerResponse.from_report(report).dump()
            if request.render:
                out["rendered"] = render.ANSWER_FORMATS[request.render](report)
            return out

        return await runtime.run("POST /answer", work, limit)

    @app.post(
        "/check",
        summary="Each citation of a draft checked against its page (citeloom check --json)",
        response_model=CheckResponse,
        dependencies=guarded,
        response_model_exclude_unset=True,
        responses=errors,
    )
    async def check(request: CheckRequest) -> dict[str, Any]:
        latex = None if request.format == "auto" else request.format == "latex"

        def work(deadline: Deadline) -> dict[str, Any]:
            runtime.embedder(request.project)  # loaded before the index is taken
            with runtime.index(deadline) as index:  # a unit of work per citation
                service = runtime.check_service(request.project, index)
                between = runtime.between(index, deadline)
                fail_on = frozenset(request.fail_on) if request.fail_on is not None else None
                report = service.check(
                    request.draft, request.name, latex, between=between, fail_on=fail_on
                )
            out = CheckResponse.from_report(report).dump()
            if request.render:
                out["rendered"] = render.check_text(report)
            return out

        return await runtime.run("POST /check", work, limit)

    @app.get(
        "/projects",
        summary="The configured projects and what each holds (MCP list_projects)",
        response_model=ProjectsResponse,
        dependencies=guarded,
        response_model_exclude_unset=True,
        responses=errors,
    )
    async def projects() -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            out = []
            with runtime.index(deadline) as index:
                for name, project in sorted(settings.project.items()):
                    summary = summarise_project(
                        index, name, project.collection, project.embedding_model
                    )
                    out.append(ProjectOut.model_validate(summary, from_attributes=True))
            return ProjectsResponse(projects=out).dump()

        return await runtime.run("GET /projects", work, limit)

    @app.get(
        "/health",
        summary="Whether the index answers and the models are loaded",
        response_model=HealthResponse,
        dependencies=guarded,
        response_model_exclude_unset=True,
        responses=errors,
    )
    async def health() -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            try:
                with runtime.index(deadline) as index:
                    for project in settings.project.values():
                        index.collection_info(project.collection)
                reachable, detail = True, "index reachable"
            except CiteloomError as error:
                reachable, detail = False, str(error)
            models = runtime.models_loaded
            wanted = {p.embedding_model for p in settings.project.values()}
            return HealthResponse(
                status="ok" if reachable and wanted <= set(models) else "degraded",
                models_loaded=models,
                index_reachable=reachable,
                index_detail=detail,
                versions=_versions(),
            ).dump()

        return await runtime.run("GET /health", work, limit)

    mount_mcp(app, runtime, token)
    return app


def run(
    settings: Settings, listener: socket.socket, token: str | None, config: Path | None = None
) -> None:
    """Load the models, then serve on the bound ``listener`` until interrupted (uvicorn
    handles Ctrl-C and SIGTERM, and waits for the requests under way: a check among them
    stops at its next citation). Once warm, the server is announced for ``config``, so that
    ``citeloom query``, ``answer`` and ``check`` hand their requests to it (``handoff``)."""
    import uvicorn

    server: uvicorn.Server | None = None
    secret = handoff.new_secret()
    app = create_app(
        settings,
        token,
        stopping=lambda: server is not None and server.should_exit,
        handoff_secret=secret if config is not None else None,
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    host, port = listener.getsockname()[:2]
    announce = (
        handoff.announced(config, host, port, settings.serve.timeout_s, secret)
        if config is not None
        else contextlib.nullcontext()
    )
    # uvicorn raises SIGTERM again once it has shut down; by default that ends the process
    # before the announcement is taken back, so here it unwinds instead
    previous = signal.signal(signal.SIGTERM, _unwind)
    try:
        with announce:
            server.run(sockets=[listener])
    finally:
        signal.signal(signal.SIGTERM, previous)


def _unwind(signum: int, _: object) -> None:
    raise SystemExit(128 + signum)
