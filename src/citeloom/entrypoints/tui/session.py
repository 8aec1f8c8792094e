"""What the TUI asks of the warm runtime: one method per use case it shows, each a request of
the use case the CLI and MCP run too, run in a worker thread (never on the UI's event loop).

No Textual here: the app's workers call these, and so can a test.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from citeloom.services.usecases.answer import ANSWER, AnswerRequest
from citeloom.services.usecases.base import Request, build
from citeloom.services.usecases.passage import PASSAGE, PassageRequest
from citeloom.services.usecases.projects import PROJECT
from citeloom.services.usecases.query import Filters

if TYPE_CHECKING:
    from citeloom.entrypoints.runtime import Runtime
    from citeloom.services.usecases.answer import AnswerResponse
    from citeloom.services.usecases.passage import PassageContextResponse
    from citeloom.services.usecases.projects import ProjectOut


@dataclass(frozen=True)
class ToggledFilters:
    """The filters ``citeloom query`` has, as the TUI toggles them (each key press makes a new
    set); ``within`` is the request's ``Filters`` of them."""

    citekeys: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    section: str | None = None

    def __bool__(self) -> bool:
        return bool(
            self.citekeys or self.year_from is not None or self.year_to is not None or self.section
        )

    def describe(self) -> str:
        """ "@ardel2023marsh · 2015–2020 · § methods", or "none"."""
        parts = [" ".join(f"@{key}" for key in self.citekeys)] if self.citekeys else []
        if self.year_from is not None or self.year_to is not None:
            parts.append(f"{self.year_from or ''}–{self.year_to or ''}")
        if self.section:
            parts.append(f"§ {self.section}")
        return " · ".join(parts) or "none"

    def toggled_paper(self, citekey: str) -> ToggledFilters:
        """Only this paper, or all papers again when it is the only one already."""
        return replace(self, citekeys=() if self.citekeys == (citekey,) else (citekey,))

    def toggled_section(self, section: str) -> ToggledFilters:
        return replace(self, section=None if self.section == section else section)

    def within(self) -> Filters:
        return Filters(
            citekeys=list(self.citekeys),
            year_from=self.year_from,
            year_to=self.year_to,
            section=self.section,
        )


class Session:
    """The TUI's calls into one warm runtime (each under the application's own time limit)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.app = runtime.app

    @property
    def projects(self) -> list[str]:
        return self.app.project_names

    def summary(self, project: str) -> ProjectOut:
        """What the project holds (MCP list_projects' line of it)."""
        return self.app.run(PROJECT, build(Request, project=project))

    def warm(self, project: str) -> None:
        """Load the project's model and sentence caches now, so the first answer is quick."""
        self.app.warm(project)

    def ask(self, project: str, question: str, filters: ToggledFilters) -> AnswerResponse:
        """``citeloom answer`` within ``filters``, with the passages it was sought in (the
        results listed below the answer)."""
        request = build(
            AnswerRequest,
            project=project,
            question=question,
            within=filters.within(),
            with_passages=True,
        )
        return self.app.run(ANSWER, request)

    def passage(self, project: str, chunk_id: str, context: int) -> PassageContextResponse:
        """MCP get_passage: the chunk with ``context`` neighbours on each side."""
        request = build(PassageRequest, project=project, chunk_id=chunk_id, context=context)
        return self.app.run(PASSAGE, request)
