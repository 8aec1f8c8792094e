"""The application over the fakes: ``FakeBuilders`` builds every service of
``services.usecases.dependencies.Builders`` on the fakes of ``tests/fakes.py`` (one in-memory
index for the whole process, 'PDFs' that are text files), so that ``Citeloom`` and each door
can be driven without Docling, a model or Qdrant. ``fake_application`` builds it as
``bootstrap.application`` builds the real one."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import ConvertedDocument, Reference
from citeloom.ports import Index
from citeloom.services.answer import AnswerService
from citeloom.services.application import Citeloom
from citeloom.services.browse import BrowseService
from citeloom.services.check import CheckService
from citeloom.services.evidence import SentenceEvidence, SentenceVectors, WarmEvidence
from citeloom.services.ingest import IngestService
from citeloom.services.notes import NoteBook, NoteService
from citeloom.services.query import QueryService
from citeloom.services.reindex import ReindexService, TermsReindex
from citeloom.services.usecases.dependencies import Dependencies, RunDisplay
from citeloom.services.validate import ProjectComponents, ValidationCheck
from citeloom.services.watch import RunOnce, WatchService, WatchSources
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeDocumentText,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    FakeRelations,
    MemoryAudit,
)

MODEL = "fake/bow-64"


@dataclass
class FakeProject:
    collection: str
    embedding_model: str = MODEL
    zotero: Path | None = None
    prune: bool = False
    languages: Sequence[str] = DEFAULT_LANGUAGES


class TextKeeper(FakeConverter):
    """The fake converter, keeping each document's page texts as the conversion cache would
    (what answers and checks verify their quotes against)."""

    def __init__(self, texts: FakeDocumentText) -> None:
        self.texts = texts

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        document = super().convert(path, sha256)
        pages: dict[int | None, list[str]] = {}
        for block in document.blocks:
            pages.setdefault(block.page, []).append(block.text)
        self.texts.documents[sha256] = {page: "\n".join(t) for page, t in pages.items()}
        return document


class OneBatch:
    """A watcher that reports the first (empty) batch and then one of ``changed``."""

    def __init__(self, changed: set[Path] | None = None) -> None:
        self.changed = changed or set()

    def changes(
        self,
        roots: Sequence[Path],
        accept: Callable[[Path], bool],
        should_stop: Callable[[], bool],
    ) -> Iterator[set[Path]]:
        yield set()
        if self.changed and not should_stop():
            yield {p for p in self.changed if accept(p)}


@dataclass
class FakeBuilders:
    """``Builders`` over the fakes: the projects given (each on its own collection), one
    library of ``refs`` for all of them, every service on one ``FakeIndex``."""

    raw_dir: Path
    refs: Sequence[Reference] = ()
    projects: Mapping[str, FakeProject] = field(default_factory=dict)
    shared: FakeIndex = field(default_factory=FakeIndex)
    model: FakeEmbedder = field(default_factory=lambda: FakeEmbedder(MODEL, dimensions=64))
    texts: FakeDocumentText = field(default_factory=FakeDocumentText)
    audits: list[MemoryAudit] = field(default_factory=list)
    watcher: OneBatch = field(default_factory=OneBatch)
    index_location: str = "memory"
    busy_timeout_s: float = 1.0
    per_doc: int = 3

    def project(self, name: str) -> FakeProject:
        from citeloom.domain.errors import UnknownProject

        if name not in self.projects:
            known = tuple(sorted(self.projects))
            raise UnknownProject(f"unknown project '{name}'", name, known)
        return self.projects[name]

    # ------------------------------------------------------------------ adapters
    def index(
        self, on_wait: Callable[[str], None] | None = None, busy_timeout_s: float | None = None
    ) -> Index:
        return self.shared

    def embedder(self, project: str, allow_download: bool = False) -> FakeEmbedder:
        return self.model

    def document_text(self) -> FakeDocumentText:
        return self.texts

    def sentence_vectors(self, model_id: str) -> SentenceVectors:
        return SentenceVectors()  # kept in memory: a test writes nothing to disk

    def relations(self, project: str) -> FakeRelations:
        return FakeRelations()

    def tokenizer_id(self, model_id: str) -> str | None:
        return self.model.tokenizer_id

    def model_dimensions(self, project: str) -> int | None:
        return self.model.dimensions

    def audit_run(self, correlation_id: str) -> tuple[str, list[dict[str, Any]]]:
        return correlation_id, next(a.events for a in self.audits)

    def audit_runs(self) -> list[tuple[str, list[dict[str, Any]]]]:
        return [(a.correlation_id, a.events) for a in self.audits]

    def _audit(self) -> MemoryAudit:
        self.audits.append(MemoryAudit())
        return self.audits[-1]

    # ------------------------------------------------------------------ services
    def query_service(self, project: str, index: Index, embedder: Any) -> QueryService:
        collection = self.project(project).collection
        return QueryService(project=project, collection=collection, embedder=embedder, index=index)

    def _evidence(self, project: str, index: Index, embedder: Any, warm: WarmEvidence) -> Any:
        collection = self.project(project).collection
        return SentenceEvidence(
            collection=collection, embedder=embedder, index=index, texts=warm.texts
        )

    def answer_service(
        self, project: str, index: Index, embedder: Any, evidence: WarmEvidence
    ) -> AnswerService:
        query = self.query_service(project, index, embedder)
        return AnswerService(query, self._evidence(project, index, embedder, evidence))

    def check_service(
        self, project: str, index: Index, embedder: Any, evidence: WarmEvidence
    ) -> CheckService:
        query = self.query_service(project, index, embedder)
        keys = [r.citekey for r in self.refs]
        return CheckService(query, self._evidence(project, index, embedder, evidence), keys)

    def browse_service(self, project: str, index: Index) -> BrowseService:
        collection = self.project(project).collection
        return BrowseService(project=project, collection=collection, index=index)

    def _pipeline(self, project: str, index: Index) -> dict[str, Any]:
        return {
            "project": project,
            "collection": self.project(project).collection,
            "converter": TextKeeper(self.texts),
            "chunker": FakeChunker(),
            "metadata": FakeMetadata(self.refs),
            "embedder": self.model,
            "index": index,
            "audit": self._audit(),
        }

    def note_service(self, project: str, index: Index, embedder: Any) -> NoteService:
        return NoteService(**self._pipeline(project, index))

    def note_book(self, project: str, index: Index) -> NoteBook:
        return NoteBook(project, self.project(project).collection, index, self._audit())

    def ingest_service(self, project: str, index: Index, jobs: int | None = 1) -> IngestService:
        return IngestService(**self._pipeline(project, index), convert_ahead=0)

    def reindex_service(
        self, project: str, index: Index, embedding_model: str | None, allow_download: bool
    ) -> ReindexService | TermsReindex:
        if embedding_model is not None:
            return ReindexService(**self._pipeline(project, index))
        collection = self.project(project).collection
        return TermsReindex(
            project=project,
            collection=collection,
            index=index,
            chunker=FakeChunker(),
            audit=self._audit(),
        )

    def watch_service(
        self, project: str, paths: Sequence[Path], settle_s: float, run_once: RunOnce
    ) -> WatchService:
        sources = WatchSources(folders=[p.absolute() for p in paths])
        return WatchService(project, sources, run_once, self.watcher, FakeConverter().supports)

    # ------------------------------------------------------------------ validate
    def conversion_checks(self) -> list[ValidationCheck]:
        return [ValidationCheck("layout", True, "fake conversion")]

    def available_models(self) -> list[str]:
        return [MODEL]

    def project_components(self, project: str, allow_download: bool) -> ProjectComponents:
        chosen = self.project(project)
        return ProjectComponents(
            collection=chosen.collection,
            embed_model=chosen.embedding_model,
            max_tokens=self.model.max_tokens - 2,  # [CLS] and [SEP] within the window
            metadata=lambda: FakeMetadata(self.refs),
            embedder=lambda: self.model,
            chunker=lambda embedder: FakeChunker(),
            index=lambda: self.shared,
            languages=tuple(chosen.languages),
        )

    # ------------------------------------------------------------------ other settings
    def with_zotero(self, project: str, data_dir: Path) -> FakeBuilders:
        return self

    def with_server(self, url: str) -> FakeBuilders:
        return self


def fake_application(
    builders: FakeBuilders, long_lived: bool = False, display: RunDisplay | None = None
) -> Citeloom:
    """``Citeloom`` over the fakes, as ``bootstrap.application`` builds it over settings."""
    return Citeloom(Dependencies(builders, long_lived=long_lived, display=display))
