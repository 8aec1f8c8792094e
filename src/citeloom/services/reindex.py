"""The reindex use case: rebuild a project's collection with another embedding model (or new
chunking settings) from cached conversions, and switch to it only when it is complete.

``TermsReindex`` rebuilds only the BM25 vectors, for the project's ``languages``: every stored
chunk is copied with its dense vector as it is, and its terms are encoded anew from its text
(with the heading context the chunker gave it). Nothing is converted, cut or embedded.

Until the switch, queries and ingests keep using the old collection; if anything fails, the
new collection is dropped and the old one stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

from citeloom.domain.errors import ConfigError, DocumentError
from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import CollectionInfo, DocumentSummary
from citeloom.ports import AuditLog, Chunker, Index
from citeloom.services.pipeline import DocumentPipeline, hint_for
from citeloom.services.staging import build_and_switch, staging_name

PAGE = 256


@dataclass
class ReindexReport:
    correlation_id: str
    project: str
    collection: str
    old_model: str
    new_model: str
    built: str  # the collection that was built
    switched: bool = False
    documents: int = 0
    chunks: int = 0
    failures: list[str] = field(default_factory=list)
    old_languages: tuple[str, ...] = DEFAULT_LANGUAGES  # BM25's, before and after
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    embedded: bool = True  # False: only the BM25 vectors were rebuilt


def _begin(
    index: Index,
    audit: AuditLog,
    project: str,
    collection: str,
    new_model: str | None,
    languages: tuple[str, ...],
    documents: int | None = None,
) -> tuple[CollectionInfo, ReindexReport]:
    """The collection to rebuild and the report of its rebuild into a staging collection
    (``new_model`` None: the vectors are kept, only the BM25 terms are rebuilt); the start is
    in the audit. A project with nothing stored has nothing to rebuild, and another
    project's collection is refused before anything is built."""
    index.check_owner(collection, project)
    info = index.collection_info(collection)
    if info is None:
        raise ConfigError(
            f"project '{project}' has no collection yet; there is nothing to reindex. "
            f"Run: citeloom ingest --project {project}"
        )
    current, target = index.physical(collection), staging_name(index, collection)
    report = ReindexReport(
        audit.correlation_id,
        project,
        collection,
        info.embed_model,
        new_model or info.embed_model,
        target,
        old_languages=info.languages,
        languages=languages,
        embedded=new_model is not None,
    )
    audit.record(
        "reindex_started",
        project=project,
        collection=collection,
        source=current,
        target=target,
        old_model=report.old_model,
        new_model=report.new_model,
        old_languages=list(info.languages),
        languages=list(languages),
        embedded=report.embedded,
        **({} if documents is None else {"documents": documents}),
    )
    return info, report


def _switched(audit: AuditLog, report: ReindexReport, build: Callable[[], bool]) -> ReindexReport:
    """Run the build-and-switch; the run's audit ends with its totals whatever happens."""
    try:
        report.switched = build()
    finally:
        audit.record("run_finished", totals=asdict(report))  # the --json report's fields
        audit.close()
    return report


class ReindexService(DocumentPipeline):
    def run(self) -> ReindexReport:
        # every stored document, also one a killed ingest left incomplete: it is rebuilt from
        # its cached conversion, not from its chunks
        documents = self.index.documents(self.collection, self.project)
        _, report = _begin(
            self.index,
            self.audit,
            self.project,
            self.collection,
            self.embedder.model_id,
            self.languages,
            len(documents),
        )
        target = report.built
        return _switched(
            self.audit,
            report,
            lambda: build_and_switch(
                self.index,
                self.collection,
                target,
                self.embedder.model_id,
                self.embedder.dimensions,
                lambda: self._rebuild_all(documents, target, report),
                self.languages,
                project=self.project,
            ),
        )

    def _rebuild_all(
        self, documents: list[DocumentSummary], target: str, report: ReindexReport
    ) -> bool:
        """Every document into ``target``; whether all of them are in it completely."""
        citekeys = {r.citekey for r in self.metadata.references()}
        for doc in documents:
            try:
                report.chunks += self._rebuild(doc, target, hint_for(doc, citekeys))
                report.documents += 1
            except DocumentError as error:
                report.failures.append(str(error))
                self.audit.record("document", path=doc.path, status="failed", error=str(error))
        rebuilt = {d.doc_id: d for d in self.index.documents(target, self.project)}
        return not report.failures and all(
            d.doc_id in rebuilt and rebuilt[d.doc_id].complete for d in documents
        )

    def _rebuild(self, doc: DocumentSummary, target: str, hint: str) -> int:
        document, match, note = self.stored_document(doc, hint)
        points = self.points(document, match, doc.doc_id, {}, note=note)
        self.index.replace_document(target, doc.doc_id, doc.path, points)
        self.audit.record(
            "document", path=doc.path, doc_id=doc.doc_id, status="ingested", chunks=len(points)
        )
        return len(points)


@dataclass(kw_only=True)
class TermsReindex:
    """Rebuild a collection's BM25 vectors for ``languages``, keeping every chunk and vector.

    ``chunker``: the project's, for the heading context each chunk's terms were encoded with
    (a stored chunk keeps only its own text)."""

    project: str
    collection: str
    index: Index
    chunker: Chunker
    audit: AuditLog
    languages: tuple[str, ...] = DEFAULT_LANGUAGES

    def run(self) -> ReindexReport:
        info, report = _begin(
            self.index, self.audit, self.project, self.collection, None, self.languages
        )
        target = report.built
        return _switched(
            self.audit,
            report,
            lambda: build_and_switch(
                self.index,
                self.collection,
                target,
                info.embed_model,
                info.dimensions,
                lambda: self._copy(info, target, report),
                self.languages,
                project=self.project,
            ),
        )

    def _copy(self, info: CollectionInfo, target: str, report: ReindexReport) -> bool:
        """Every point of the collection into ``target``, its BM25 vector left to be encoded
        there (the target's languages); whether all of them arrived."""
        documents: set[str] = set()
        offset: str | None = None
        while True:
            page, offset = self.index.scroll_points(self.collection, offset, PAGE)
            points = [
                replace(
                    p,
                    text=self.chunker.embed_text(
                        p.text, p.payload.get("doc", {}).get("section_path") or ()
                    ),
                    sparse=None,
                )
                for p in page
            ]
            self.index.upsert_points(target, points)
            report.chunks += len(points)
            documents.update(str(p.payload.get("doc_id")) for p in points)
            if offset is None:
                break
        report.documents = len(documents)
        copied = self.index.collection_info(target)
        held = copied.points if copied is not None else 0
        if held != info.points:  # a write another process made meanwhile (a server's)
            report.failures.append(
                f"{target} holds {held} chunks after the copy, '{self.collection}' "
                f"{info.points}; run the reindex again"
            )
        return not report.failures
