"""The API's routes: each parses its body into the request of its use case, runs the use case
of the warm application under [serve] timeout_s (``runtime.Runtime``) and answers its wire
model, with the CLI's text when the request asked for ``render``."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query
from fastapi.responses import Response

from citeloom import __version__
from citeloom.entrypoints import render
from citeloom.entrypoints.bodies import AnswerRequest, CheckRequest, PassageRequest, QueryRequest
from citeloom.entrypoints.http.errors import documented
from citeloom.entrypoints.http.files import DOWNLOAD, FILE_ROUTE, PDF, TEXT, file_response
from citeloom.entrypoints.runtime import Limit, Runtime
from citeloom.entrypoints.time_limit import Deadline
from citeloom.services.requests import Request
from citeloom.services.responses import (
    AnswerResponse,
    CheckResponse,
    HealthResponse,
    PassageContextResponse,
    ProjectsResponse,
    QueryResponse,
)
from citeloom.services.stored_file import StoredFile

_PROJECT = Request.model_fields["project"].description


def _versions() -> dict[str, str]:
    out = {"citeloom": __version__, "python": platform.python_version()}
    for package in ("fastapi", "uvicorn", "pydantic", "qdrant-edge-py", "onnxruntime"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            continue
    return out


def add_routes(app: FastAPI, runtime: Runtime, limit: Limit, guarded: Sequence[Any]) -> None:
    """``guarded``: the token check every route depends on."""
    router = APIRouter(dependencies=list(guarded), responses=documented())
    uses = runtime.app

    @router.post(
        "/query",
        summary="The best passages, with citation labels (citeloom query --json)",
        response_model=QueryResponse,
        response_model_exclude_unset=True,
    )
    async def query(request: QueryRequest) -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            report = uses.query(request, deadline)
            out = QueryResponse.from_report(report).dump()
            if request.render:
                out["rendered"] = render.QUERY_FORMATS[request.render](report)
            return out

        return await runtime.run("POST /query", work, limit)

    @router.post(
        "/answer",
        summary="An answer of verified quotes, or leads (citeloom answer --json)",
        response_model=AnswerResponse,
        response_model_exclude_unset=True,
    )
    async def answer(request: AnswerRequest) -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            report = uses.answer(request, request.within, deadline)
            out = AnswerResponse.from_report(report).dump()
            if request.render:
                out["rendered"] = render.ANSWER_FORMATS[request.render](report)
            return out

        return await runtime.run("POST /answer", work, limit)

    @router.post(
        "/check",
        summary="Each citation of a draft checked against its page (citeloom check --json)",
        response_model=CheckResponse,
        response_model_exclude_unset=True,
    )
    async def check(request: CheckRequest) -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            report = uses.check(request, deadline)
            out = CheckResponse.from_report(report).dump()
            if request.render:
                out["rendered"] = render.check_text(report)
            return out

        return await runtime.run("POST /check", work, limit)

    @router.post(
        "/passage",
        summary="A passage between its neighbours in its paper (MCP get_passage)",
        response_model=PassageContextResponse,
        response_model_exclude_unset=True,
    )
    async def passage(request: PassageRequest) -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            return PassageContextResponse.of(uses.passage(request, deadline)).dump()

        return await runtime.run("POST /passage", work, limit)

    @router.get(
        FILE_ROUTE,
        summary="The stored file of the paper a passage is in, as it was ingested; add "
        "#page=N to open a PDF at page_start",
        response_class=Response,
        responses={
            200: {
                "content": {PDF: {}, TEXT: {}, DOWNLOAD: {}},
                "description": "The file: a PDF as itself, HTML, Markdown and text as plain "
                "text, anything else as a download; always sandboxed by its "
                "Content-Security-Policy.",
            },
        },
    )
    async def stored_file(
        project: Annotated[str, Query(min_length=1, description=_PROJECT)],
        chunk_id: Annotated[str, Query(description="A chunk_id of a passage of that paper.")],
    ) -> Response:
        """Only the file a stored document of the project was ingested from (its path comes
        from the index, never from the request), still as it was ingested, under the same
        token as every route."""

        def work(deadline: Deadline) -> StoredFile:
            request = PassageRequest(project=project, chunk_id=chunk_id)
            return uses.document_file(request, deadline)

        return file_response(await runtime.run("GET /file", work, limit))

    @router.get(
        "/projects",
        summary="The configured projects and what each holds (MCP list_projects)",
        response_model=ProjectsResponse,
        response_model_exclude_unset=True,
    )
    async def projects() -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            return ProjectsResponse.of(uses.summaries(deadline)).dump()

        return await runtime.run("GET /projects", work, limit)

    @router.get(
        "/health",
        summary="Whether the index answers and the models are loaded",
        response_model=HealthResponse,
        response_model_exclude_unset=True,
    )
    async def health() -> dict[str, Any]:
        def work(deadline: Deadline) -> dict[str, Any]:
            return HealthResponse.of(uses.health(deadline), _versions()).dump()

        return await runtime.run("GET /health", work, limit)

    app.include_router(router)
