"""citeloom's use cases, one method each, behind every door: the CLI, ``serve``'s HTTP API,
``mcp`` and the TUI parse a request, call one of these and render what it returns.

``Citeloom`` owns what outlives one call: the project lookup, the index (opened per unit of work
by a one-shot process, kept open and handed over by a long-lived one: ``holding``) and the
models (each loaded once per process: ``warm``). It builds every service through the wiring it
is given (``wiring.Wiring``, implemented by ``bootstrap``), so it imports no adapter.

A long-lived door runs a method in a worker thread under a ``Deadline``; the method stops at
its next unit of work when the deadline has passed and writes nothing after it. A call without
a deadline of its own gets ``CALL_S``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from citeloom.domain.errors import CiteloomError, ConfigError
from citeloom.ports import Embedder, Index
from citeloom.services.answer import AnswerReport
from citeloom.services.audit_report import RunSummary, summarise_run
from citeloom.services.browse import ChunkPage, PassageContext
from citeloom.services.check import CheckReport
from citeloom.services.deadline import Deadline
from citeloom.services.drop import DropReport, drop_plan, drop_project
from citeloom.services.export_file import check_source
from citeloom.services.holding import IndexHolding
from citeloom.services.ingest import DocumentOutcome, IngestReport, ProgressHook, refuse_unreadable
from citeloom.services.inspection import (
    InspectReport,
    ProjectSummary,
    RelationsReport,
    inspect_project,
    inspect_relations,
    summarise_project,
)
from citeloom.services.notes import NoteSummary, StoreReport
from citeloom.services.query import QueryReport
from citeloom.services.reindex import ReindexReport
from citeloom.services.rename import RenameReport, rename_project
from citeloom.services.requests import (
    AnswerRequest,
    CheckRequest,
    DeleteNotesRequest,
    Filters,
    FindChunksRequest,
    PassageRequest,
    QueryRequest,
    StoreNotesRequest,
)
from citeloom.services.stored_file import StoredFile
from citeloom.services.transfer import TransferReport, export_project, import_project
from citeloom.services.validate import Check, ValidationReport, models_check, validate_project
from citeloom.services.warm import WarmModels
from citeloom.services.watch import WatchEvent
from citeloom.services.wiring import ProjectSettings, Wiring

# How long a long-lived call may last when its door sets no limit (the TUI: the user can ask
# again at any time), waits for an ingest holding the embedded index included.
CALL_S = 600.0


@dataclass
class Sources:
    """What an ingest or a watch reads: the paths given that can be read, those refused at
    once (a named pipe or a device would hold the index for ever), and whether the project's
    Zotero library lists its own files."""

    given: list[Path]
    refused: list[DocumentOutcome] = field(default_factory=list)
    from_library: bool = False
    default: list[Path] = field(default_factory=list)  # read when nothing is given

    @property
    def paths(self) -> list[Path]:
        return self.given or self.default

    @property
    def nothing_left(self) -> bool:
        """Every path given was refused, and no library lists files: nothing to run."""
        return bool(self.refused) and not self.given and not self.from_library


@dataclass(frozen=True)
class Health:
    ok: bool  # the index answers and every project's model is loaded
    models_loaded: list[str]
    index_reachable: bool
    index_detail: str


class Citeloom:
    def __init__(
        self,
        wiring: Wiring,
        *,
        long_lived: bool = False,
        on_wait: Callable[[str], None] | None = None,
        stopping: Callable[[], bool] = lambda: False,
    ) -> None:
        """``long_lived``: a server or the TUI, which keeps the index open between calls;
        ``on_wait``: told while another process holds the index (a one-shot process waits
        [qdrant] busy_timeout_s); ``stopping``: whether the server is shutting down."""
        self.wiring = wiring
        self.on_wait = on_wait
        self.models = WarmModels(wiring.document_text)
        self.holding = IndexHolding(self._open, wiring.busy_timeout_s, long_lived, stopping)

    def _open(self, busy_timeout_s: float | None) -> Index:
        return self.wiring.index(self.on_wait if busy_timeout_s is None else None, busy_timeout_s)

    def close(self) -> None:
        """Release the index (the models go with the process)."""
        self.holding.close()

    @contextmanager
    def _unit(
        self, deadline: Deadline | None, wiring: Wiring | None = None, project: str | None = None
    ) -> Iterator[Index]:
        """The index for one unit of work; another ``wiring`` (``--zotero``, ``--to``): its
        own index, opened for the unit. ``project``: the unit is that project's, refused
        (``CollectionOwnerMismatch``) before anything is read or written when its collection
        is another project's: another config naming the same index and collection."""
        if wiring is not None and wiring is not self.wiring:
            with wiring.index(self.on_wait) as index:
                _owned(index, wiring, project)
                yield index
            return
        with self.holding.unit(deadline or Deadline(CALL_S)) as index:
            _owned(index, self.wiring, project)
            yield index

    # ------------------------------------------------------------------ projects and models
    @property
    def project_names(self) -> list[str]:
        return sorted(self.wiring.projects)

    def project(self, name: str) -> ProjectSettings:
        """The configured project, or ``UnknownProject``."""
        return self.wiring.project(name)

    def index_location(self, to: str | None = None) -> str:
        """Where the index is (``to``: the server an import goes to instead)."""
        return (self.wiring.with_server(to) if to else self.wiring).index_location

    def embedder(self, project: str) -> Embedder:
        """The project's model, loaded once on first use and kept for the process's life."""
        model = self.project(project).embedding_model
        return self.models.embedder(model, lambda: self.wiring.embedder(project))

    def warm(self, project: str) -> None:
        """Load the project's model and its sentence caches now: the first answer is quick."""
        self.embedder(project)
        self.models.evidence(self.project(project).embedding_model)

    def preload(self) -> list[str]:
        """Load every configured project's model now; the problems, by project (reported by
        ``health`` and by that project's calls too)."""
        problems = []
        for name in self.project_names:
            try:
                self.embedder(name)
            except CiteloomError as error:
                problems.append(f"project {name}: {error}")
        return problems

    # ------------------------------------------------------------------ search
    def query(self, request: QueryRequest, deadline: Deadline | None = None) -> QueryReport:
        self.project(request.project)
        options = request.options(self.wiring.per_doc)
        embedder = self.embedder(request.project)  # loaded before the index is taken
        with self._unit(deadline, project=request.project) as index:
            service = self.wiring.query_service(request.project, index, embedder)
            return service.search(request.query, options)

    def answer(
        self,
        request: AnswerRequest,
        within: Filters | None = None,
        deadline: Deadline | None = None,
    ) -> AnswerReport:
        """``within``: answer from the passages these filters let through."""
        embedder = self.embedder(request.project)
        evidence = self.models.evidence(self.project(request.project).embedding_model)
        options = within.options(self.wiring.per_doc) if within is not None else None
        with self._unit(deadline, project=request.project) as index:
            service = self.wiring.answer_service(request.project, index, embedder, evidence)
            return service.answer(request.question, options)

    def check(self, request: CheckRequest, deadline: Deadline | None = None) -> CheckReport:
        """Each citation is a unit of work: between two, a long-lived process lets one that
        waits for the index have it, and stops when time is up."""
        embedder = self.embedder(request.project)
        evidence = self.models.evidence(self.project(request.project).embedding_model)
        deadline = deadline or Deadline(CALL_S)
        with self._unit(deadline, project=request.project) as index:
            service = self.wiring.check_service(request.project, index, embedder, evidence)
            between = self.holding.between(index, deadline)
            return service.check(
                request.draft, request.name, request.latex, between, fail_on=request.failing
            )

    # ------------------------------------------------------------------ what is stored
    def summaries(self, deadline: Deadline | None = None) -> list[ProjectSummary]:
        """Every configured project and what its collection holds."""
        with self._unit(deadline) as index:
            return [
                summarise_project(index, name, p.collection, p.embedding_model)
                for name, p in sorted(self.wiring.projects.items())
            ]

    def summary(self, project: str, deadline: Deadline | None = None) -> ProjectSummary:
        chosen = self.project(project)
        with self._unit(deadline, project=project) as index:
            return summarise_project(index, project, chosen.collection, chosen.embedding_model)

    def health(self, deadline: Deadline | None = None) -> Health:
        projects = self.wiring.projects.values()
        try:
            with self._unit(deadline) as index:
                for project in projects:
                    index.collection_info(project.collection)
            reachable, detail = True, "index reachable"
        except CiteloomError as error:
            reachable, detail = False, str(error)
        loaded = self.models.loaded
        wanted = {p.embedding_model for p in projects}
        return Health(reachable and wanted <= set(loaded), loaded, reachable, detail)

    def inspect(self, project: str, deadline: Deadline | None = None) -> InspectReport:
        chosen = self.project(project)
        with self._unit(deadline, project=project) as index:
            return inspect_project(index, project, chosen.collection)

    def relations(self, project: str, deadline: Deadline | None = None) -> RelationsReport:
        """The library's relations, with those its stored PDFs add."""
        source = self.wiring.relations(project)
        with self._unit(deadline, project=project) as index:
            return inspect_relations(index, project, self.project(project).collection, source)

    def find_chunks(
        self, request: FindChunksRequest, deadline: Deadline | None = None
    ) -> ChunkPage:
        """A paper's chunks in reading order, a page of them at a time."""
        self.project(request.project)
        with self._unit(deadline, project=request.project) as index:
            return self.wiring.browse_service(request.project, index).find_chunks(
                request.citekey, request.section, request.page, request.cursor, request.limit
            )

    def passage(self, request: PassageRequest, deadline: Deadline | None = None) -> PassageContext:
        """A chunk with its neighbours on each side."""
        self.project(request.project)
        with self._unit(deadline, project=request.project) as index:
            service = self.wiring.browse_service(request.project, index)
            return service.get_passage(request.chunk_id, request.context)

    def document_file(
        self, request: PassageRequest, deadline: Deadline | None = None
    ) -> StoredFile:
        """The stored file of the paper ``request.chunk_id`` is in, as it was ingested (the
        page's "Open file")."""
        self.project(request.project)
        with self._unit(deadline, project=request.project) as index:
            service = self.wiring.browse_service(request.project, index)
            return service.document_file(request.chunk_id)

    # ------------------------------------------------------------------ notes
    def store_notes(
        self, request: StoreNotesRequest, deadline: Deadline | None = None
    ) -> StoreReport:
        """Nothing is written once the deadline has passed; once writing, all of it is."""
        self.project(request.project)
        items = [item.item() for item in request.items]
        embedder = self.embedder(request.project)
        deadline = deadline or Deadline(CALL_S)
        with self._unit(deadline, project=request.project) as index:
            service = self.wiring.note_service(request.project, index, embedder)
            return service.store(items, should_stop=deadline.expired, may_write=deadline.may_write)

    def notes(self, project: str, deadline: Deadline | None = None) -> list[NoteSummary]:
        self.project(project)
        with self._unit(deadline, project=project) as index:
            return self.wiring.note_book(project, index).stored()

    def delete_notes(
        self, request: DeleteNotesRequest, deadline: Deadline | None = None
    ) -> list[str]:
        self.project(request.project)
        with self._unit(deadline, project=request.project) as index:
            return self.wiring.note_book(request.project, index).delete(request.doc_ids)

    # ------------------------------------------------------------------ ingest and watch
    def _with_zotero(self, project: str, zotero: Path | None) -> Wiring:
        return self.wiring.with_zotero(project, zotero) if zotero is not None else self.wiring

    def ingest_sources(
        self, project: str, paths: Sequence[Path], zotero: Path | None = None
    ) -> Sources:
        """What ``ingest`` reads: the paths given, else the project's Zotero library when it
        has one (``zotero``: this data directory), else [paths] raw_dir."""
        wiring = self._with_zotero(project, zotero)
        from_library = wiring.project(project).zotero is not None and (
            not paths or zotero is not None
        )
        raw_dir = wiring.raw_dir
        if not paths and not from_library and not raw_dir.exists():
            raise ConfigError(
                f"no path given, and the default folder [paths] raw_dir ({raw_dir}) does not "
                f"exist. Pass the folder of your papers (citeloom ingest ~/papers -p {project}), "
                "or put them in raw_dir."
            )
        given, refused = refuse_unreadable(paths)
        return Sources(given, refused, from_library, [] if from_library else [raw_dir])

    def ingest(
        self,
        project: str,
        sources: Sources,
        running: AbstractContextManager[ProgressHook | None],
        *,
        zotero: Path | None = None,
        citekey: str | None = None,
        prune: bool = False,
        should_stop: Callable[[], bool] = lambda: False,
        jobs: int | None = 1,
    ) -> IngestReport:
        """Convert, chunk, embed and store ``sources``. ``running`` is entered around the run
        itself, once the index is held: the door's progress display (its hook) and its Ctrl-C
        handling (``should_stop``). ``jobs``: documents converted at once, in worker
        processes (1: none; None: as the machine suits)."""
        wiring = self._with_zotero(project, zotero)
        with self._unit(None, wiring, project) as index:
            service = wiring.ingest_service(project, index, jobs)
            with running as progress:
                return service.run(
                    sources.paths,
                    progress=progress,
                    citekey=citekey,
                    prune=prune,
                    should_stop=should_stop,
                    from_library=sources.from_library,
                    refused=sources.refused,
                )

    def watch_sources(self, project: str, paths: Sequence[Path]) -> Sources:
        """What ``watch`` follows: the paths given, else the project's Zotero directory when
        it has one, else [paths] raw_dir."""
        raw_dir = self.wiring.raw_dir
        if not paths and self.project(project).zotero is None:
            if not raw_dir.exists():
                raise ConfigError(
                    f"no path given, and the default folder [paths] raw_dir ({raw_dir}) does "
                    f"not exist. Pass the folder of your papers (citeloom watch ~/papers -p "
                    f"{project}), or give the project a zotero directory."
                )
            paths = [raw_dir]
        given, refused = refuse_unreadable(paths)
        return Sources(given, refused)

    def watch(
        self,
        project: str,
        sources: Sources,
        running: AbstractContextManager[object],
        on_event: Callable[[WatchEvent], None],
        *,
        prune: bool = False,
        settle_s: float = 1.0,
        should_stop: Callable[[], bool] = lambda: False,
        progress: ProgressHook | None = None,
        jobs: int | None = 1,
    ) -> int:
        """Keep the collection in step with ``sources`` until ``should_stop``; ``running`` is
        entered once watching is set up (the door's signal handling); ``progress`` is told of
        each run's documents. Returns the runs made."""
        prune = prune or self.project(project).prune
        with self._unit(None, project=project):
            pass  # another project's collection: refused before watching begins, not per run
        service = self.wiring.watch_service(
            project, sources.given, prune, self.on_wait, settle_s, progress, jobs
        )
        with running:
            return service.run(on_event, should_stop=should_stop)

    # ------------------------------------------------------------------ collections
    def reindex(
        self, project: str, embedding_model: str | None, allow_download: bool = False
    ) -> ReindexReport:
        self.project(project)
        with self._unit(None, project=project) as index:
            service = self.wiring.reindex_service(project, index, embedding_model, allow_download)
            return service.run()

    def export(self, project: str, file: Path) -> TransferReport:
        chosen = self.project(project)
        with self._unit(None, project=project) as index:
            info = index.collection_info(chosen.collection)
            tokenizer = self.wiring.tokenizer_id(info.embed_model) if info else None
            return export_project(index, project, chosen.collection, tokenizer, file)

    def import_(self, project: str, file: Path, to: str | None = None) -> TransferReport:
        """Load an export into the project's collection (``to``: on this Qdrant server)."""
        check_source(file)
        wiring = self.wiring.with_server(to) if to is not None else self.wiring
        chosen = wiring.project(project)
        tokenizer = wiring.tokenizer_id(chosen.embedding_model)
        with self._unit(None, wiring, project) as index:
            return import_project(
                index,
                project,
                chosen.collection,
                chosen.embedding_model,
                tokenizer,
                file,
                lambda: wiring.model_dimensions(project),
                tuple(chosen.languages),
            )

    def _others(self, project: str) -> dict[str, str]:
        """Every other project's collection: a drop never takes one of them."""
        return {name: p.collection for name, p in self.wiring.projects.items() if name != project}

    def drop_plan(self, project: str) -> DropReport:
        """What ``drop`` removes, without removing it (for the question asked first)."""
        collection = self.project(project).collection
        with self._unit(None, project=project) as index:
            return drop_plan(index, project, collection, self._others(project))

    def drop(self, project: str) -> DropReport:
        collection = self.project(project).collection
        with self._unit(None, project=project) as index:
            return drop_project(index, project, collection, self._others(project))

    def rename_project(self, old: str, new: str) -> RenameReport:
        """The configured project ``new`` takes over its collection from ``old``, the name it
        was made under (renamed on purpose in the config)."""
        collection = self.project(new).collection
        with self._unit(None) as index:
            return rename_project(index, old, new, collection)

    # ------------------------------------------------------------------ checks and audits
    def validate(
        self, project: str | None, config: str, allow_download: bool = False
    ) -> ValidationReport:
        """Every check a run of ``project`` (None: of every project) depends on."""
        report = ValidationReport(project=project)
        names = [project] if project else self.project_names
        report.checks.append(
            Check("config", True, f"{config} parses; projects: {', '.join(names) or 'none'}")
        )
        report.checks.extend(self.wiring.conversion_checks())
        report.checks.append(models_check(self.wiring.available_models()))
        for name in names:
            try:
                parts = self.wiring.project_components(name, allow_download)
            except CiteloomError as error:
                report.checks.append(Check(f"project {name}", False, str(error)))
                continue
            for check in validate_project(name, parts):
                report.checks.append(
                    check if len(names) == 1 else replace(check, name=f"{name}: {check.name}")
                )
        return report

    def audit_run(self, correlation_id: str) -> RunSummary:
        """One ingest run, found by a unique prefix of its correlation id."""
        return summarise_run(*self.wiring.audit_run(correlation_id))

    def audit_runs(self) -> list[RunSummary]:
        return [summarise_run(name, events) for name, events in self.wiring.audit_runs()]


def _owned(index: Index, wiring: Wiring, project: str | None) -> None:
    """Refuse ``project`` a collection another project made (``None``: a unit of no one
    project's, such as the project list)."""
    if project is not None:
        index.check_owner(wiring.project(project).collection, project)
