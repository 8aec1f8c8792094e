"""What a use case is handed: one ``Dependencies`` object, built once per process by
``bootstrap.application``, holding what outlives a call.

- ``builders``: the services and adapters the configured settings name (``Builders``, which
  ``bootstrap`` implements over the settings; the use cases import no adapter and no config).
- the index (``holding``: a one-shot process such as the CLI opens it for each piece of work
  and closes it after; a server or the TUI keeps it open and hands it over) and the models,
  each loaded once (``warm``).
- ``display``: how the command shows a long run (ingest, watch) and asks it to stop.

A server runs a use case in a worker thread under a ``Deadline``; the use case stops before
its next piece of work (the next citation of a check) when the deadline has passed, and
writes nothing after it. A call without a deadline of its own gets ``CALL_S``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from citeloom.services.deadline import Deadline
from citeloom.services.holding import IndexHolding
from citeloom.services.warm import WarmModels

if TYPE_CHECKING:
    from citeloom.ports import DocumentText, Embedder, Index, RelationSource
    from citeloom.services.answer import AnswerService
    from citeloom.services.browse import BrowseService
    from citeloom.services.check import CheckService
    from citeloom.services.evidence import SentenceVectors, WarmEvidence
    from citeloom.services.ingest import DocumentOutcome, IngestService, ProgressHook
    from citeloom.services.notes import NoteBook, NoteService
    from citeloom.services.query import QueryService
    from citeloom.services.reindex import ReindexService, TermsReindex
    from citeloom.services.validate import ProjectComponents, ValidationCheck
    from citeloom.services.watch import RunOnce, WatchEvent, WatchService

# How long a call of a server or the TUI may last when it sets no limit (the TUI: the user can
# ask again at any time), waits for an ingest holding the embedded index included.
CALL_S = 600.0

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


class Builders(Protocol):
    """The settings the use cases read and the services they run, each built over adapters
    they never see. It lives here rather than in ``ports`` because it returns services, which
    ports may not import."""

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

    def sentence_vectors(self, model_id: str) -> SentenceVectors: ...

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
        self, project: str, paths: Sequence[Path], settle_s: float, run_once: RunOnce
    ) -> WatchService:
        """The project's sources followed (``paths``, its references file and Zotero data
        directory), each settled batch of changes handed to ``run_once``."""
        ...

    # ------------------------------------------------------------------ validate
    def conversion_checks(self) -> list[ValidationCheck]: ...

    def available_models(self) -> list[str]: ...

    def project_components(self, project: str, allow_download: bool) -> ProjectComponents: ...

    # ------------------------------------------------------------------ other settings
    def with_zotero(self, project: str, data_dir: Path) -> Builders:
        """The same builders with the project's library read from a Zotero data directory."""
        ...

    def with_server(self, url: str) -> Builders:
        """The same builders with the index on the Qdrant server at ``url``."""
        ...


class RunDisplay(Protocol):
    """How a command shows a long run (ingest, watch) and asks it to stop: a path refused
    before the run, the progress display and signal handling set up once the index is held
    (``running``, whose hook is told of each document), watch's events, and Ctrl-C
    (``should_stop``)."""

    def refused(self, outcome: DocumentOutcome) -> None: ...

    def running(self) -> AbstractContextManager[ProgressHook | None]: ...

    def event(self, event: WatchEvent) -> None: ...

    def should_stop(self) -> bool: ...


class Unattended:
    """A long run nobody watches: nothing shown, never asked to stop."""

    def refused(self, outcome: DocumentOutcome) -> None:
        pass

    def running(self) -> AbstractContextManager[ProgressHook | None]:
        return nullcontext(None)

    def event(self, event: WatchEvent) -> None:
        pass

    def should_stop(self) -> bool:
        return False


class Dependencies:
    def __init__(
        self,
        builders: Builders,
        *,
        long_lived: bool = False,
        on_wait: Callable[[str], None] | None = None,
        stopping: Callable[[], bool] = lambda: False,
        display: RunDisplay | None = None,
    ) -> None:
        """``long_lived``: a server or the TUI, which keeps the index open between calls;
        ``on_wait``: told while another process holds the index (a one-shot process waits
        [qdrant] busy_timeout_s); ``stopping``: whether the server is shutting down;
        ``display``: how a long run is shown (none: ``Unattended``)."""
        self.builders = builders
        self.on_wait = on_wait
        self.display: RunDisplay = display or Unattended()
        self.models = WarmModels(builders.document_text, builders.sentence_vectors)
        self.holding = IndexHolding(self._open, builders.busy_timeout_s, long_lived, stopping)

    def _open(self, busy_timeout_s: float | None) -> Index:
        return self.builders.index(self.on_wait if busy_timeout_s is None else None, busy_timeout_s)

    def close(self) -> None:
        """Release the index (the models go with the process)."""
        self.holding.close()

    @contextmanager
    def index(
        self,
        deadline: Deadline | None,
        project: str | None = None,
        builders: Builders | None = None,
    ) -> Iterator[Index]:
        """The index for one piece of work (a query, one citation of a check), held as this
        process holds it; other ``builders`` (``--zotero``, ``--to``): their own index, opened
        for it. ``project``: the work is that project's, refused (``CollectionOwnerMismatch``)
        before anything is read or written when its collection is another project's: another
        config naming the same index and collection."""
        if builders is not None and builders is not self.builders:
            with builders.index(self.on_wait) as index:
                _owned(index, builders, project)
                yield index
            return
        with self.holding.unit(deadline or Deadline(CALL_S)) as index:
            _owned(index, self.builders, project)
            yield index

    def project(self, name: str) -> ProjectSettings:
        """The configured project, or ``UnknownProject``."""
        return self.builders.project(name)

    def embedder(self, project: str) -> Embedder:
        """The project's model, loaded once on first use and kept for the process's life."""
        model = self.project(project).embedding_model
        return self.models.embedder(model, lambda: self.builders.embedder(project))

    def evidence(self, project: str) -> WarmEvidence:
        """The project's model's sentence vectors and the stored page texts, kept between
        answers and checks."""
        return self.models.evidence(self.project(project).embedding_model)


def _owned(index: Index, builders: Builders, project: str | None) -> None:
    """Refuse ``project`` a collection another project made (``None``: work of no one
    project's, such as the project list)."""
    if project is not None:
        index.check_owner(builders.project(project).collection, project)
