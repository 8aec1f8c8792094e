"""What the application object (``services.application``) asks of the wiring: the settings it
reads and the services it runs, each built over adapters it never sees.

``bootstrap.Wiring`` implements this over the configured settings, as cosmicpython's bootstrap
hands its handlers their dependencies: the use cases import no adapter and no config (the
import-linter contracts hold), and mypy checks the wiring. It lives here rather than in
``ports`` because it returns services, which ports may not import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from citeloom.ports import DocumentText, Embedder, Index, RelationSource
    from citeloom.services.answer import AnswerService
    from citeloom.services.browse import BrowseService
    from citeloom.services.check import CheckService
    from citeloom.services.evidence import WarmEvidence
    from citeloom.services.ingest import IngestService, ProgressHook
    from citeloom.services.notes import NoteBook, NoteService
    from citeloom.services.query import QueryService
    from citeloom.services.reindex import ReindexService, TermsReindex
    from citeloom.services.validate import Check, ProjectComponents
    from citeloom.services.watch import WatchService

Events = list[dict[str, Any]]


class ProjectSettings(Protocol):
    """What the use cases read of one configured project."""

    @property
    def collection(self) -> str: ...

    @property
    def embedding_model(self) -> str: ...

    @property
    def zotero(self) -> Path | None: ...

    @property
    def prune(self) -> bool: ...

    @property
    def languages(self) -> Sequence[str]: ...


class Wiring(Protocol):
    @property
    def projects(self) -> Mapping[str, ProjectSettings]:
        """Every configured project, by id."""
        ...

    def project(self, name: str) -> ProjectSettings:
        """The configured project, or ``UnknownProject`` naming those there are."""
        ...

    @property
    def raw_dir(self) -> Path:
        """Where ingest and watch read when given no path ([paths] raw_dir)."""
        ...

    @property
    def index_location(self) -> str:
        """The index as a person finds it: the server's URL or the embedded index's folder."""
        ...

    @property
    def busy_timeout_s(self) -> float:
        """How long to wait for another process holding the embedded index."""
        ...

    @property
    def per_doc(self) -> int:
        """Passages from one document at most when a query sets none ([query] per_doc)."""
        ...

    # ------------------------------------------------------------------ adapters
    def index(
        self, on_wait: Callable[[str], None] | None = None, busy_timeout_s: float | None = None
    ) -> Index:
        """The configured index; ``busy_timeout_s`` set: one call of a long-lived process,
        which lets a process already waiting go first."""
        ...

    def embedder(self, project: str, allow_download: bool = False) -> Embedder: ...

    def document_text(self) -> DocumentText: ...

    def relations(self, project: str) -> RelationSource: ...

    def tokenizer_id(self, model_id: str) -> str | None: ...

    def model_dimensions(self, project: str) -> int | None: ...

    def audit_run(self, correlation_id: str) -> tuple[str, Events]:
        """One run's id and events, found by a unique prefix of its id."""
        ...

    def audit_runs(self) -> list[tuple[str, Events]]:
        """Every run's id and events, oldest first."""
        ...

    # ------------------------------------------------------------------ services
    def query_service(self, project: str, index: Index, embedder: Embedder) -> QueryService: ...

    def answer_service(
        self, project: str, index: Index, embedder: Embedder, evidence: WarmEvidence
    ) -> AnswerService: ...

    def check_service(
        self, project: str, index: Index, embedder: Embedder, evidence: WarmEvidence
    ) -> CheckService: ...

    def browse_service(self, project: str, index: Index) -> BrowseService: ...

    def note_service(self, project: str, index: Index, embedder: Embedder) -> NoteService: ...

    def note_book(self, project: str, index: Index) -> NoteBook: ...

    def ingest_service(self, project: str, index: Index, jobs: int | None = 1) -> IngestService:
        """``jobs``: documents converted at once in worker processes (1: on a thread of this
        process, no worker; None: as this machine's cores and memory suit)."""
        ...

    def reindex_service(
        self, project: str, index: Index, embedding_model: str | None, allow_download: bool
    ) -> ReindexService | TermsReindex: ...

    def watch_service(
        self,
        project: str,
        paths: Sequence[Path],
        prune: bool,
        on_wait: Callable[[str], None] | None,
        settle_s: float,
        progress: ProgressHook | None = None,
        jobs: int | None = 1,
    ) -> WatchService: ...

    # ------------------------------------------------------------------ validate
    def conversion_checks(self) -> list[Check]: ...

    def available_models(self) -> list[str]: ...

    def project_components(self, project: str, allow_download: bool) -> ProjectComponents: ...

    # ------------------------------------------------------------------ other settings
    def with_zotero(self, project: str, data_dir: Path) -> Wiring:
        """The same wiring with the project's library read from a Zotero data directory."""
        ...

    def with_server(self, url: str) -> Wiring:
        """The same wiring with the index on the Qdrant server at ``url``."""
        ...
