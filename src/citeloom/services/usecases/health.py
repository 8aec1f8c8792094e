"""health: whether the index answers and every project's model is loaded (GET /health), with
the versions of citeloom and its engines."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from citeloom import __version__
from citeloom.domain.errors import CiteloomError
from citeloom.services.usecases.base import NoRequest, Response, UseCase

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies

ENGINES = ("fastapi", "uvicorn", "pydantic", "qdrant-edge-py", "onnxruntime")


class HealthResponse(Response):
    status: Literal["ok", "degraded"] = Field(
        description="ok: the index answers and every project's model is loaded."
    )
    models_loaded: list[str] = Field(description="Embedding models loaded in this server.")
    index_reachable: bool = Field(description="Whether the index could be opened just now.")
    index_detail: str = Field(description="What opening the index said (the error if not).")
    versions: dict[str, str] = Field(description="Versions of citeloom, Python and its engines.")


def versions() -> dict[str, str]:
    out = {"citeloom": __version__, "python": platform.python_version()}
    for package in ENGINES:
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            continue
    return out


def health(deps: Dependencies, request: NoRequest, deadline: Deadline | None) -> HealthResponse:
    projects = deps.builders.projects.values()
    try:
        with deps.index(deadline) as index:
            for project in projects:
                index.collection_info(project.collection)
        reachable, detail = True, "index reachable"
    except CiteloomError as error:
        reachable, detail = False, str(error)
    loaded = deps.models.loaded
    wanted = {p.embedding_model for p in projects}
    return HealthResponse(
        status="ok" if reachable and wanted <= set(loaded) else "degraded",
        models_loaded=loaded,
        index_reachable=reachable,
        index_detail=detail,
        versions=versions(),
    )


HEALTH = UseCase("health", NoRequest, HealthResponse, health)
