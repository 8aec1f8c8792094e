"""The server itself: the socket bound before the models load (a busy port fails at once),
the app with its parts (token check, body limit, errors, docs, routes, the MCP tools at /mcp/,
the CLI hand-off's proof) and uvicorn running it until interrupted."""

from __future__ import annotations

import contextlib
import errno
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.routing import get_route_path

from citeloom import __version__
from citeloom.config import Settings
from citeloom.domain.errors import ConfigError
from citeloom.entrypoints import handoff
from citeloom.entrypoints.http.access import bearer_accepted, checked_token
from citeloom.entrypoints.http.docs import keep_example_nulls, mount_docs
from citeloom.entrypoints.http.errors import (
    UnauthorisedError,
    answer_errors,
    refusal,
    unauthorised,
)
from citeloom.entrypoints.http.files import SealedFiles
from citeloom.entrypoints.http.limits import BodyLimit, LoopbackHost
from citeloom.entrypoints.http.page import mount_page
from citeloom.entrypoints.http.routes import add_routes
from citeloom.entrypoints.runtime import Limit, Runtime

if TYPE_CHECKING:
    from citeloom.services.application import Citeloom

# Declares the scheme in the OpenAPI docs; the check itself is bearer_accepted.
_BEARER = HTTPBearer(auto_error=False)  # module level: route signatures are resolved here
_log = logging.getLogger(__name__)


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
            await unauthorised()(scope, receive, send)
            return
        if scope["type"] == "http" and get_route_path(scope) not in ("", "/"):
            where = f"{scope['method']} {scope['path']}"
            await refusal(404, f"no route {where}; MCP clients use /mcp/")(scope, receive, send)
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


def mount_handoff(app: FastAPI, secret: bytes | None) -> None:
    """``GET /handoff``: the server proves it holds its announcement's secret, before a CLI
    sends it anything (``handoff``). Unguarded by the token, which the CLI sends only after."""

    @app.get(handoff.PROOF_ROUTE, include_in_schema=False)
    def proof(request: Request) -> JSONResponse:
        nonce = request.headers.get(handoff.NONCE_HEADER, "")
        answer = handoff.prove(secret, nonce) if secret is not None else None
        if answer is None:
            return refusal(404, "this server is not announced for a CLI hand-off")
        return JSONResponse(answer)


def create_app(
    settings: Settings,
    token: str | None = None,
    preload: bool = True,
    stopping: Callable[[], bool] = lambda: False,
    handoff_secret: bytes | None = None,
    served: Citeloom | None = None,
) -> FastAPI:
    """``stopping``: whether the server is shutting down (a running check then stops at its
    next citation and answers 503, so that the server need not wait for all of it).
    ``handoff_secret``: what the server proves it holds to a CLI handing it a request.
    ``served``: the application to serve (default: ``bootstrap``'s over ``settings``)."""
    token = checked_token(token)
    runtime = Runtime(settings, stopping, served)
    limit = Limit(settings.serve.timeout_s, "[serve] timeout_s")
    if preload:
        for problem in runtime.app.preload():  # reported by /health and that project's calls
            _log.warning("%s", problem)
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
    if token is None:  # added after the body limit, so it runs first: a rebound name is
        app.add_middleware(LoopbackHost)  # refused unread
    app.add_middleware(SealedFiles)  # outermost: every answer of /file, refusals too
    mount_docs(app)
    mount_page(app)
    mount_handoff(app, handoff_secret)
    keep_example_nulls(app)

    def authorised(
        request: Request,
        _: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)],
    ) -> None:
        if not bearer_accepted(request.scope, token):
            raise UnauthorisedError

    answer_errors(app)
    add_routes(app, runtime, limit, [Depends(authorised)])
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
