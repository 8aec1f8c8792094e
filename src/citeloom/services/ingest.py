"""The ingest use case: files in, citable chunks in the project's collection, an audit out.

Speaks only to ports. One document failing never stops the batch; an unavailable index or a
model mismatch stops it before anything is written.

``IngestService`` runs the batch and ingests each document; each other concern has its own
module: which files (``ingest_files``), what a library change does to stored documents
(``ingest_relabel``), ``--prune`` (``ingest_prune``), Zotero annotations as notes
(``ingest_annotations``), conversion ahead on a thread (``lookahead``), and what the run
reports and audits (``ingest_report``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from citeloom.domain.errors import CiteloomError, DocumentError, StorageError
from citeloom.domain.ids import doc_id_from_sha256
from citeloom.domain.models import DocumentSummary
from citeloom.domain.records import stored_labels
from citeloom.domain.relations import DocumentFacts
from citeloom.ports import ConversionWorker, RelationSource, ReportsPages
from citeloom.services.ingest_annotations import mirror_annotations
from citeloom.services.ingest_files import check_citekey, discover, refuse_unreadable, run_files
from citeloom.services.ingest_prune import prune as prune_gone
from citeloom.services.ingest_relabel import follow_attachments, relabel, relabel_to
from citeloom.services.ingest_report import (
    DocumentOutcome,
    IngestReport,
    ProgressHook,
    Relabel,
    RunProgress,
    Status,
    WorkProgress,
    audit_fields,
    labels_of,
    log,
    log_outcome,
)
from citeloom.services.ingest_state import RunFiles, StoredDocuments, storage_error
from citeloom.services.lookahead import ConversionAhead
from citeloom.services.pipeline import DocumentPipeline, timed

# what callers import from here: the use case, its report and the steps a door runs first
__all__ = [
    "DocumentOutcome",
    "IngestReport",
    "IngestService",
    "ProgressHook",
    "Relabel",
    "Status",
    "discover",
    "refuse_unreadable",
]


@dataclass(kw_only=True)
class IngestService(DocumentPipeline):
    # Documents converted ahead on a thread while the one in hand is chunked, embedded and
    # written (0: one thread, convert then embed; measured in ADR 0009).
    convert_ahead: int = 1
    # Worker processes that convert ahead instead, one thread of this process each
    # (``ingest --jobs N``, ADR 0024); none: conversion ahead on the thread above.
    workers: Sequence[ConversionWorker] = ()
    # the library's relations, built at each ingest (a broken relations file stops the run
    # before anything is written) and counted in the report
    relations: RelationSource | None = None

    def run(
        self,
        paths: Sequence[Path],
        progress: ProgressHook | None = None,
        citekey: str | None = None,
        prune: bool = False,
        should_stop: Callable[[], bool] = lambda: False,
        from_library: bool = False,
        allow_empty: bool = False,
        refused: Sequence[DocumentOutcome] = (),
    ) -> IngestReport:
        """Ingest files and folders.

        ``citekey`` names the library entry of a single file; ``prune`` removes stored
        documents whose files are gone from the given folders; ``should_stop`` is asked between
        documents (Ctrl-C): the document in hand is finished, the rest are left for next time.
        ``from_library``: also the PDF attachments of the library (``library_files``), and
        its annotations; ``prune`` then also removes documents the library no longer holds.
        ``allow_empty``: no file found is not an error (``watch``: everything was deleted,
        and pruning follows). ``refused``: paths given that were refused before the run
        (``refuse_unreadable``), reported and audited as failed documents of it.
        """
        report = IngestReport(
            correlation_id=self.audit.correlation_id,
            project=self.project,
            collection=self.collection,
            embed_model=self.embedder.model_id,
            audit_path=self.audit.location,
        )
        files_of = self.library_files if from_library else None
        files, report.library_skipped = run_files(
            paths, self.converter.supports, files_of, allow_empty
        )
        if citekey is not None:
            check_citekey(citekey, files, (r.citekey for r in self.metadata.references()))
        if self.relations is not None:
            self.relations.graph()
        self.audit.record(
            "run_started",
            project=self.project,
            collection=self.collection,
            embed_model=self.embedder.model_id,
            inputs=[str(p) for p in paths] + ([str(files_of.root)] if files_of else []),
            files=len(files),
            conversion_workers=len(self.workers),
        )
        # the paths refused before the run are its first documents, each told as it is
        # recorded: every count a progress display shows then agrees from start to end
        total = len(refused) + len(files)
        if isinstance(progress, RunProgress):
            progress.started(total, self.audit.correlation_id)
        for attachment in report.library_skipped:
            self.audit.record("library_skipped", **attachment.to_json())
        for number, outcome in enumerate(refused, start=1):
            log_outcome(outcome, self.audit.correlation_id)
            report.documents.append(outcome)
            self.audit.record("document", **audit_fields(outcome))
            if progress:
                progress(outcome, number, total)
        report.library_problems = self.metadata.problems()
        for problem in report.library_problems:
            self.audit.record(
                "library_problem", kind=problem.kind, detail=problem.detail, fix=problem.fix
            )
        recorded = 0  # files[:recorded] have their one "document" event in the audit
        ahead: ConversionAhead | None = None
        within = progress if isinstance(progress, WorkProgress) else None
        telling = [c for c in (self.converter, *self.workers) if isinstance(c, ReportsPages)]
        for converter in telling:
            converter.report_pages(within.pages if within is not None else None)
        try:
            # The write guard runs before any conversion: a mismatch writes nothing at all.
            self.index.ensure_collection(
                self.collection,
                self.embedder.model_id,
                self.embedder.dimensions,
                self.languages,
                project=self.project,
            )
            stored = StoredDocuments(self.index, self.collection, self.project)
            contents = RunFiles(files)
            library = self.labels_key
            if self.library_files is not None:
                follow_attachments(self, stored, self.library_files)
            # labels rewritten, citekey changed or not: the run reports what is stored now
            stale = any(doc.library != library for doc in stored)
            report.relabelled = relabel(self, stored, library)
            if citekey is not None:
                report.relabelled += relabel_to(self, citekey, files[0], contents, stored, library)
            if stale or report.relabelled:
                stored.reload()
            ahead = self._start_ahead(files, contents, stored)
            for number, path in enumerate(files, start=1):
                if should_stop():
                    if ahead is not None:  # its conversion in hand ends up in the cache
                        ahead.close(wait=True)
                    report.interrupted = len(files) - recorded
                    self._record_undone(files[recorded:], "interrupted", "left for the next run")
                    recorded = len(files)
                    self.audit.record("run_interrupted", left=report.interrupted)
                    break
                log.debug(
                    "document started",
                    extra={"fields": {"path": str(path), "number": number, "of": len(files)}},
                )
                outcome = self._ingest_one(
                    path, contents, stored, library, citekey or path.stem, ahead, within
                )
                if ahead is not None:
                    ahead.passed(path)
                log_outcome(outcome, self.audit.correlation_id)
                report.documents.append(outcome)
                self.audit.record("document", **audit_fields(outcome))
                recorded = number
                if progress:
                    progress(outcome, len(refused) + number, total)
            if files_of is not None and not report.interrupted:
                report.annotations = mirror_annotations(self, files_of, stored)
            if prune and not report.interrupted:
                present = {d.doc_id for d in report.documents if d.doc_id}
                report.pruned = prune_gone(
                    paths, files, present, stored, self.audit, files_of.root if files_of else None
                )
            mirrored = any(report.annotations.values())
            if report.totals["ingested"] or report.pruned or report.relabelled or mirrored:
                self._optimize()
            report.relations = self._relations(stored)
        except CiteloomError as error:
            self._record_undone(files[recorded:], "aborted", str(error))
            self.audit.record("run_aborted", error=str(error), exit_code=int(error.exit_code))
            raise
        except KeyboardInterrupt:  # a second Ctrl-C: the document in hand is left as it was
            self._record_undone(files[recorded:], "interrupted", "stopped before it was stored")
            self.audit.record("run_interrupted", left=len(files) - recorded)
            raise
        except Exception as error:  # a bug: the audit must not call this run finished
            reason = f"internal error ({type(error).__name__}: {error})"
            self._record_undone(files[recorded:], "aborted", reason)
            self.audit.record("run_aborted", error=reason, exit_code=70)
            raise
        finally:
            for converter in telling:
                converter.report_pages(None)
            if ahead is not None:  # an error or a second Ctrl-C: no new conversion starts
                ahead.close()
            for worker in self.workers:  # stopped; one still converting is killed
                worker.close()
            self.audit.record("run_finished", totals=report.totals)
            self.audit.close()
        if isinstance(progress, RunProgress):
            progress.finished(report)
        return report

    def _relations(self, stored: StoredDocuments) -> dict[str, int]:
        """How many relations the library and the stored PDFs hold now (inspect lists them)."""
        if self.relations is None:
            return {}
        stored.reload()
        facts = [
            DocumentFacts(d.doc_id, d.path, d.citekey, d.arxiv_stamp, d.also_fits)
            for d in stored
            if d.citekey and d.kind == "paper"
        ]
        graph = self.relations.with_documents(facts)
        counts = {
            "certain": len(graph.certain),
            "possible": len(graph.possible),
            "preprint_pdfs": sum(
                bool(graph.flags(f.citekey, f.arxiv_stamp).preprint_pdf) for f in facts
            ),
            "problems": len(self.relations.problems()),
        }
        self.audit.record("relations", **counts)
        return counts

    def _start_ahead(
        self, files: Sequence[Path], contents: RunFiles, stored: StoredDocuments
    ) -> ConversionAhead | None:
        """The thread (or a thread per worker process) that converts the run's files ahead,
        or None for one thread."""
        if self.convert_ahead < 1 and not self.workers:
            return None

        def wanted(path: Path) -> str | None:
            # a guess from the index as it is now; the run decides again when it gets there
            sha256 = contents.sha256(path)
            known = stored.get(doc_id_from_sha256(sha256))
            return None if known is not None and known.complete else sha256

        if self.workers:  # the caller converts in a worker too: Docling stays out of here
            helpers = [worker.convert for worker in self.workers]
            return ConversionAhead(files, helpers[0], wanted, len(helpers), helpers)
        return ConversionAhead(files, self.converter.convert, wanted, self.convert_ahead)

    def _optimize(self) -> None:
        """Once per run that wrote, never per document: merging segments and building the
        vector graph of a large collection takes seconds to a minute, and a shard left
        unoptimised is slow to open and to search (ADR 0008)."""
        started = time.perf_counter()
        try:
            self.index.optimize(self.collection)
        except StorageError as error:  # everything is stored; only speed is lost
            log.warning("index not optimised: %s", error)
            self.audit.record("index_not_optimized", error=str(error))
            return
        self.audit.record("index_optimized", seconds=round(time.perf_counter() - started, 3))

    def _record_undone(self, files: Sequence[Path], status: str, reason: str) -> None:
        """Every file of a run gets exactly one "document" event, also when the run stops
        before reaching it: the audit then says what the next run still has to do."""
        for path in files:
            self.audit.record(
                "document", path=str(path), status=status, error=reason, warnings=[], durations_s={}
            )

    def _ingest_one(
        self,
        path: Path,
        contents: RunFiles,
        stored: StoredDocuments,
        library: str,
        hint: str,
        ahead: ConversionAhead | None = None,
        within: WorkProgress | None = None,
    ) -> DocumentOutcome:
        outcome = DocumentOutcome(path=str(path), status="failed")
        try:
            try:
                sha256 = contents.sha256(path)
            finally:
                outcome.durations["hash"] = contents.seconds.get(path, 0.0)
            doc_id = doc_id_from_sha256(sha256)
            outcome.doc_id = doc_id
            known = stored.get(doc_id)
            if known is not None and known.complete:
                self._keep(known, path, contents, stored, outcome)
                return outcome
            if ahead is not None:
                document = ahead.take(path, sha256, outcome.durations)
            else:
                with timed(outcome.durations, "convert"):
                    document = self.converter.convert(path, sha256)
            outcome.pages = document.page_count
            outcome.title = document.title
            outcome.warnings.extend(str(warning) for warning in document.warnings)
            outcome.partial = document.partial
            outcome.ocr_pages = list(document.ocr_pages)
            with timed(outcome.durations, "match"):
                match = self.metadata.resolve(document, hint=hint)
            outcome.citekey, outcome.match = match.citekey, match.kind
            outcome.item = match.item.item_key if match.item else None
            outcome.metadata_problem = match.problem
            if match.problem and match.detail:
                outcome.warnings.append(f"{match.problem}: {match.detail}")
            elif match.problem:
                shown = ", ".join(f"{c.citekey} ({c.score:.2f})" for c in match.candidates[:3])
                outcome.warnings.append(
                    f"{match.problem}: best candidates {shown}" if shown else match.problem
                )
            embedded = partial(within.chunks, path) if within is not None else None
            points = self.points(document, match, doc_id, outcome.durations, embedded=embedded)
            with timed(outcome.durations, "index"):
                # an earlier content of this path that another file still holds moves there
                # first; the index then drops whatever else this path held
                self._rehome_earlier(path, doc_id, contents, stored, outcome, remove=False)
                stored.replace(doc_id, path, points)
            outcome.chunks = len(points)
            labels_of(outcome, stored_labels(points[0].payload["doc"]))
            outcome.status = "ingested"
        except DocumentError as error:
            outcome.error = str(error)
        except CiteloomError:
            raise
        except OSError as error:
            storage = storage_error(error, path)
            if storage is not None:
                raise storage from error
            outcome.error = f"{path}: unexpected {type(error).__name__}: {error}"
        except Exception as error:  # one odd file must not sink the batch
            outcome.error = f"{path}: unexpected {type(error).__name__}: {error}"
        if outcome.status == "failed":
            for older in stored.at(path, besides=outcome.doc_id):
                outcome.warnings.append(
                    f"an earlier version of this file ({older.doc_id}) stays searchable "
                    "until the new one can be stored"
                )
        return outcome

    def _keep(
        self,
        known: DocumentSummary,
        path: Path,
        contents: RunFiles,
        stored: StoredDocuments,
        outcome: DocumentOutcome,
    ) -> None:
        """The file's content is stored completely already: nothing to convert or embed."""
        outcome.status = "skipped"
        outcome.citekey, outcome.match, outcome.item = known.citekey, known.match, known.item
        outcome.pages, outcome.chunks = known.page_count, known.chunks
        labels_of(outcome, known.labels)
        if (followed := stored.followed.get(str(path))) is not None:
            outcome.renamed_from = followed  # Zotero renamed or moved the attachment's file
            outcome.warnings.append(f"renamed from {followed} (the same Zotero attachment)")
        if known.path != str(path):
            if contents.holds(Path(known.path), known.sha256):
                outcome.copy_of = known.path
                outcome.warnings.append(f"same content as {known.path}, which is stored")
            else:  # renamed or moved: recognised by its hash, only the path changes
                stored.move(known, path)
                outcome.renamed_from = known.path
                outcome.warnings.append(f"renamed from {known.path}")
        # what this path held before: an earlier version of the file (a run killed between
        # storing the new version and removing the old one, or an edit that made this file a
        # copy of another), or a content that moved to another file of the run
        self._rehome_earlier(path, known.doc_id, contents, stored, outcome, remove=True)

    def _rehome_earlier(
        self,
        path: Path,
        doc_id: str,
        contents: RunFiles,
        stored: StoredDocuments,
        outcome: DocumentOutcome,
        remove: bool,
    ) -> None:
        """Other documents stored under ``path``: moved to a file of the run that holds their
        content, else removed (``remove``) or left for the index to replace."""
        for other in stored.at(path, besides=doc_id):
            holder = contents.holder(other.sha256, besides=path)
            if holder is not None:
                stored.move(other, holder)
                outcome.kept_as.append(str(holder))
                outcome.warnings.append(f"its earlier content stays stored, as {holder}")
            elif remove:
                stored.remove(other)
                outcome.removed_copies.append(other.doc_id)
                outcome.warnings.append(f"removed a stale copy ({other.doc_id})")
