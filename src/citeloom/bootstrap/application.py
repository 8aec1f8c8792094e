"""The application over one set of settings: ``SettingsBuilders`` (what the use cases ask
bootstrap to build, ``services.usecases.dependencies.Builders``, each part made by a builder
of ``citeloom.bootstrap``) and ``application``, which builds the process's ``Dependencies``
once and the ``Citeloom`` the CLI, the servers and the TUI run their use cases on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from citeloom import bootstrap as b
from citeloom.bootstrap import validation
from citeloom.config import ProjectConfig, Settings
from citeloom.domain.errors import ConfigError

if TYPE_CHECKING:
    from citeloom.adapters.embedding.loader import LoadedEmbedder
    from citeloom.ports import DocumentText, Embedder, Index, RelationSource
    from citeloom.services.answer import AnswerService
    from citeloom.services.application import Citeloom
    from citeloom.services.browse import BrowseService
    from citeloom.services.check import CheckService
    from citeloom.services.evidence import SentenceVectors, WarmEvidence
    from citeloom.services.ingest import IngestService
    from citeloom.services.notes import NoteBook, NoteService
    from citeloom.services.query import QueryService
    from citeloom.services.reindex import ReindexService, TermsReindex
    from citeloom.services.usecases.dependencies import RunDisplay
    from citeloom.services.validate import ProjectComponents, ValidationCheck
    from citeloom.services.watch import RunOnce, WatchService


class SettingsBuilders:
    """The builders of ``citeloom.bootstrap`` bound to one set of settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def projects(self) -> Mapping[str, ProjectConfig]:
        return self.settings.project

    def project(self, name: str) -> ProjectConfig:
        return self.settings.get_project(name)

    @property
    def raw_dir(self) -> Path:
        return self.settings.paths.raw_dir

    @property
    def index_location(self) -> str:
        return self.settings.qdrant.url or str(self.settings.paths.index_dir)

    @property
    def busy_timeout_s(self) -> float:
        return self.settings.qdrant.busy_timeout_s

    @property
    def per_doc(self) -> int:
        return self.settings.query.per_doc

    def index(
        self, on_wait: Callable[[str], None] | None = None, busy_timeout_s: float | None = None
    ) -> Index:
        return b.index(self.settings, on_wait, busy_timeout_s)

    def embedder(self, project: str, allow_download: bool = False) -> LoadedEmbedder:
        return b.embedder(self.settings, self.project(project), allow_download)

    def document_text(self) -> DocumentText:
        return b.document_text(self.settings)

    def sentence_vectors(self, model_id: str) -> SentenceVectors:
        return b.sentence_vectors(self.settings, model_id)

    def relations(self, project: str) -> RelationSource:
        return b.relations(self.settings, self.project(project))

    def tokenizer_id(self, model_id: str) -> str | None:
        return b.tokenizer_id(self.settings, model_id)

    def model_dimensions(self, project: str) -> int | None:
        return b.model_dimensions(self.settings, self.project(project))

    def audit_run(self, correlation_id: str) -> tuple[str, list[dict[str, Any]]]:
        from citeloom.adapters.jsonl_audit import find_audit, read_audit

        path = find_audit(self.settings.paths.audit_dir, correlation_id)
        return path.stem, read_audit(path)

    def audit_runs(self) -> list[tuple[str, list[dict[str, Any]]]]:
        from citeloom.adapters.jsonl_audit import list_audits, read_audit

        return [(p.stem, read_audit(p)) for p in list_audits(self.settings.paths.audit_dir)]

    def query_service(self, project: str, index: Index, embedder: Embedder) -> QueryService:
        return b.query_service(self.settings, project, index, embedder)

    def answer_service(
        self, project: str, index: Index, embedder: Embedder, evidence: WarmEvidence
    ) -> AnswerService:
        return b.answer_service(self.settings, project, index, embedder, evidence)

    def check_service(
        self, project: str, index: Index, embedder: Embedder, evidence: WarmEvidence
    ) -> CheckService:
        return b.check_service(self.settings, project, index, embedder, evidence)

    def browse_service(self, project: str, index: Index) -> BrowseService:
        return b.browse_service(self.settings, project, index)

    def note_service(self, project: str, index: Index, embedder: Embedder) -> NoteService:
        # the model ``embedder()`` loaded: its tokenizer's files make the chunker
        return b.note_service(self.settings, project, index, cast("LoadedEmbedder", embedder))

    def note_book(self, project: str, index: Index) -> NoteBook:
        return b.note_book(self.settings, project, index)

    def ingest_service(self, project: str, index: Index, jobs: int | None = 1) -> IngestService:
        return b.ingest_service(self.settings, project, index, jobs)

    def reindex_service(
        self, project: str, index: Index, embedding_model: str | None, allow_download: bool
    ) -> ReindexService | TermsReindex:
        return b.reindex_service(self.settings, project, index, embedding_model, allow_download)

    def watch_service(
        self, project: str, paths: Sequence[Path], settle_s: float, run_once: RunOnce
    ) -> WatchService:
        return b.watch_service(self.settings, project, paths, settle_s, run_once)

    def conversion_checks(self) -> list[ValidationCheck]:
        return validation.conversion_checks(self.settings)

    def available_models(self) -> list[str]:
        return b.available_models(self.settings)

    def project_components(self, project: str, allow_download: bool) -> ProjectComponents:
        return validation.project_components(self.settings, project, allow_download)

    def with_zotero(self, project: str, data_dir: Path) -> SettingsBuilders:
        """The project's library read from the Zotero data directory ``data_dir``
        (``ingest --zotero DIR``)."""
        chosen = self.settings.get_project(project)
        changed = chosen.model_copy(update={"zotero": data_dir.expanduser().absolute()})
        projects = {**self.settings.project, project: changed}
        return SettingsBuilders(self.settings.model_copy(update={"project": projects}))

    def with_server(self, url: str) -> SettingsBuilders:
        """The index on the Qdrant server ``url`` (``import --to``)."""
        from pydantic import ValidationError

        from citeloom.config import QdrantConfig

        try:
            qdrant = QdrantConfig.model_validate({**self.settings.qdrant.model_dump(), "url": url})
        except ValidationError as error:
            raise ConfigError(
                f"--to {url!r}: {error.errors()[0]['msg'].removeprefix('Value error, ')}"
            ) from None
        return SettingsBuilders(self.settings.model_copy(update={"qdrant": qdrant}))


def application(
    settings: Settings,
    long_lived: bool = False,
    on_wait: Callable[[str], None] | None = None,
    stopping: Callable[[], bool] = lambda: False,
    display: RunDisplay | None = None,
) -> Citeloom:
    """The use cases over these settings (``services.application``). ``long_lived``: a server
    or the TUI, which keeps the index open and models loaded between calls; else each use case
    opens the index and closes it after (``on_wait``: told while another process holds it).
    ``display``: how the command shows a long run (ingest, watch)."""
    from citeloom.services.application import Citeloom
    from citeloom.services.usecases.dependencies import Dependencies

    deps = Dependencies(
        SettingsBuilders(settings),
        long_lived=long_lived,
        on_wait=on_wait,
        stopping=stopping,
        display=display,
    )
    return Citeloom(deps)
