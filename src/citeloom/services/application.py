"""citeloom's application object, behind every entry point: the CLI, ``serve``'s HTTP API, ``mcp``
and the TUI build a request, ``run`` its use case (``services/usecases/``) and print the
response it returns.

``Citeloom`` holds the process's ``Dependencies`` (built once by ``bootstrap.application``):
the index kept for the process's kind (``holding``), each model loaded once (``warm``) and the
builders of the services over the configured adapters. Besides running use cases, it answers
what an entry point asks of the process itself: the projects configured, models loaded ahead
of time, where the index is, and closing it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from citeloom.domain.errors import CiteloomError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.base import UseCase
    from citeloom.services.usecases.dependencies import Dependencies, ProjectSettings

    R = TypeVar("R", bound=BaseModel)
S = TypeVar("S")


class Citeloom:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    def run(self, use_case: UseCase[R, S], request: R, deadline: Deadline | None = None) -> S:
        """``use_case`` answering ``request``; ``deadline``: a server's time limit
        (None: ``dependencies.CALL_S`` where the use case needs one)."""
        return use_case.handle(self.deps, request, deadline)

    def close(self) -> None:
        """Release the index (the models go with the process)."""
        self.deps.close()

    @property
    def project_names(self) -> list[str]:
        return sorted(self.deps.builders.projects)

    def project(self, name: str) -> ProjectSettings:
        """The configured project, or ``UnknownProject``."""
        return self.deps.project(name)

    def index_location(self, to: str | None = None) -> str:
        """Where the index is (``to``: the server an import goes to instead)."""
        builders = self.deps.builders
        return (builders.with_server(to) if to else builders).index_location

    def load_model(self, project: str) -> float:
        """Load the project's model now (once per process); the seconds it took."""
        self.deps.embedder(project)
        model = self.project(project).embedding_model
        return self.deps.models.load_s[model]

    def warm(self, project: str) -> None:
        """Load the project's model and its sentence caches now: the first answer is quick."""
        self.deps.embedder(project)
        self.deps.evidence(project)

    def preload(self) -> list[str]:
        """Load every configured project's model now; the problems, by project (reported by
        ``health`` and by that project's calls too)."""
        problems = []
        for name in self.project_names:
            try:
                self.deps.embedder(name)
            except CiteloomError as error:
                problems.append(f"project {name}: {error}")
        return problems
