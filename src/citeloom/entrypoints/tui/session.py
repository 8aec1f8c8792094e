"""What the TUI asks of the warm runtime: one method per use case, each a call of the services
the CLI and MCP call, run in a worker thread (never on the UI's event loop).

No Textual here: the app's workers call these, and so can a test.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from citeloom.services import requests

if TYPE_CHECKING:
    from citeloom.entrypoints.runtime import Runtime
    from citeloom.services.answer import AnswerReport
    from citeloom.services.browse import PassageContext
    from citeloom.services.inspection import ProjectSummary


@dataclass(frozen=True)
class ChosenFilters:
    """The filters the reader chose in the TUI (those ``citeloom query`` has), as the screen
    toggles them; ``Session.ask`` turns them into the request's ``requests.Filters``."""

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

    def toggled_paper(self, citekey: str) -> ChosenFilters:
        """Only this paper, or all papers again when it is the only one already."""
        return replace(self, citekeys=() if self.citekeys == (citekey,) else (citekey,))

    def toggled_section(self, section: str) -> ChosenFilters:
        return replace(self, section=None if self.section == section else section)


class Session:
    """The TUI's calls into one warm runtime (each under the application's own time limit)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.app = runtime.app

    @property
    def projects(self) -> list[str]:
        return self.app.project_names

    def summary(self, project: str) -> ProjectSummary:
        """What the project holds (MCP list_projects' line of it)."""
        return self.app.summary(project)

    def warm(self, project: str) -> None:
        """Load the project's model and sentence caches now, so the first answer is quick."""
        self.app.warm(project)

    def ask(self, project: str, question: str, filters: ChosenFilters) -> AnswerReport:
        """``citeloom answer`` within ``filters``; its leads are the passages listed."""
        within = requests.Filters(
            citekeys=list(filters.citekeys),
            year_from=filters.year_from,
            year_to=filters.year_to,
            section=filters.section,
        )
        request = requests.build(requests.AnswerRequest, project=project, question=question)
        return self.app.answer(request, within)

    def passage(self, project: str, chunk_id: str, context: int) -> PassageContext:
        """MCP get_passage: the chunk with ``context`` neighbours on each side."""
        request = requests.build(
            requests.PassageRequest, project=project, chunk_id=chunk_id, context=context
        )
        return self.app.passage(request)
