"""The API's routes, one for every use case of the table that has an HTTP part
(``use_case_table.TABLE``): each parses its body (or query) into the request of its use case,
runs the use case of the warm application under [serve] timeout_s (``runtime.Runtime``) and
answers its response model."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query
from fastapi.responses import Response

from citeloom.entrypoints import use_case_table
from citeloom.entrypoints.http.errors import documented
from citeloom.entrypoints.runtime import Limit, Runtime
from citeloom.entrypoints.time_limit import Deadline
from citeloom.entrypoints.use_case_table import Served
from citeloom.services.usecases.base import NoRequest


def add_routes(app: FastAPI, runtime: Runtime, limit: Limit, guarded: Sequence[Any]) -> None:
    """``guarded``: the token check every route depends on."""
    router = APIRouter(dependencies=list(guarded), responses=documented())
    for row in use_case_table.TABLE:
        if row.http is not None:
            _route(router, runtime, limit, row)
    app.include_router(router)


def _route(router: APIRouter, runtime: Runtime, limit: Limit, row: Served) -> None:
    http, use_case = row.http, row.use_case
    assert http is not None
    what = f"{http.method} {http.path}"
    reply = http.reply or (lambda response: response.dump())

    async def endpoint(request: Any = None) -> Any:
        def work(deadline: Deadline) -> Any:
            return reply(runtime.app.run(use_case, request or NoRequest(), deadline))

        return await runtime.run(what, work, limit)

    # the request model as FastAPI reads it: a POST's JSON body, a GET's query parameters
    parameters = []
    if use_case.request is not NoRequest:
        taken = use_case.request if http.method == "POST" else Annotated[use_case.request, Query()]
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters.append(inspect.Parameter("request", kind, annotation=taken))
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    endpoint.__name__ = use_case.name
    endpoint.__doc__ = http.description
    sent: dict[str, Any] = {"response_model": use_case.response}
    if http.reply is not None:  # not the response model's JSON (a file)
        sent = {"response_model": None, "response_class": Response}
    router.add_api_route(
        http.path,
        endpoint,
        methods=[http.method],
        summary=http.summary,
        response_model_exclude_unset=True,
        responses=http.responses() if http.responses else None,
        **sent,
    )
