"""What the TUI asks of the warm runtime: one method per use case, each a call of the services
the CLI and MCP call, run in a worker thread (never on the UI's event loop).

No Textual here: the app's workers call these, and so can a test.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from citeloom import bootstrap
from citeloom.entrypoints.query_options import query_options
from citeloom.entrypoints.time_limit import Deadline

if TYPE_CHECKING:
    from citeloom.entrypoints.runtime import Runtime
    from citeloom.services.answer import AnswerReport
    from citeloom.services.browse import PassageContext
    from citeloom.services.inspection import ProjectSummary

# How long one call may last, waits for an ingest holding the embedded index included: the
# user can ask again at any time, and the runtime waits no longer than [qdrant] busy_timeout_s.
CALL_S = 600.0


@dataclass(frozen=True)
class Filters:
    """The filters ``citeloom query`` has, as the TUI toggles them."""

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

    def toggled_paper(self, citekey: str) -> Filters:
        """Only this paper, or all papers again when it is the only one already."""
        return replace(self, citekeys=() if self.citekeys == (citekey,) else (citekey,))

    def toggled_section(self, section: str) -> Filters:
        return replace(self, section=None if self.section == section else section)


class Session:
    """The TUI's calls into one warm runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.settings = runtime.settings

    @property
    def projects(self) -> list[str]:
        return sorted(self.settings.project)

    def summary(self, project: str) -> ProjectSummary:
        """What the project holds (MCP list_projects' line of it)."""
        from citeloom.services.inspection import summarise_project

        config = self.runtime.project(project)
        with self.runtime.index(Deadline(CALL_S)) as index:
            return summarise_project(index, project, config.collection, config.embedding_model)

    def warm(self, project: str) -> None:
        """Load the project's model and sentence caches now, so the first answer is quick."""
        self.runtime.embedder(project)
        self.runtime.evidence(project)

    def ask(self, project: str, question: str, filters: Filters) -> AnswerReport:
        """``citeloom answer`` within ``filters``; its leads are the passages listed."""
        options = query_options(
            self.settings,
            citekeys=filters.citekeys,
            year_from=filters.year_from,
            year_to=filters.year_to,
            section=filters.section,
        )
        self.runtime.embedder(project)  # loaded before the index is taken
        with self.runtime.index(Deadline(CALL_S)) as index:
            return self.runtime.answer_service(project, index).answer(question, options)

    def passage(self, project: str, chunk_id: str, context: int) -> PassageContext:
        """MCP get_passage: the chunk with ``context`` neighbours on each side."""
        self.runtime.project(project)
        with self.runtime.index(Deadline(CALL_S)) as index:
            service = bootstrap.browse_service(self.settings, project, index)
            return service.get_passage(chunk_id, context)
