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

A package of small parts: ``access`` (who may call), ``limits`` (the body size limit),
``errors`` (every refusal in one shape), ``docs`` (Swagger UI and the OpenAPI document),
``routes`` (the use cases), ``files`` (how ``/file`` sends a stored file: sandboxed, never as
a page of this server) and ``server`` (the socket, the app, uvicorn).
"""

from __future__ import annotations

from citeloom.entrypoints.http.access import (
    TOKEN_ENV,
    bearer_accepted,
    checked_token,
    is_loopback,
    serve_token,
)
from citeloom.entrypoints.http.docs import DOCS_ASSETS
from citeloom.entrypoints.http.errors import ERROR_STATUSES
from citeloom.entrypoints.http.server import bind, create_app, run

__all__ = [
    "DOCS_ASSETS",
    "ERROR_STATUSES",
    "TOKEN_ENV",
    "bearer_accepted",
    "bind",
    "checked_token",
    "create_app",
    "is_loopback",
    "run",
    "serve_token",
]
