"""The ingest use case: files in, citable chunks in the project's collection, an audit out.

Speaks only to ports. One document failing never stops the batch; an unavailable index or a
model mismatch stops it before anything is written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from citeloom.domain.citekeys import LibraryProblem
from citeloom.domain.errors import (
    STORAGE_ERRNOS,
    CiteloomError,
    ConfigError,
    DocumentError,
    StorageError,
)
from citeloom.domain.ids import doc_id_from_sha256
from citeloom.domain.library_files import LibraryAttachment
from citeloom.domain.models import DocumentSummary
from citeloom.domain.notes import ANNOTATION, NOTE_FIELD
from citeloom.domain.page_labels import PageLabels
from citeloom.domain.records import label_fields, stored_labels
from citeloom.domain.relations import DocumentFacts
from citeloom.ports import LibraryFiles, RelationSource, SearchFilter
from citeloom.services.ingest_state import RunFiles, StoredDocuments, not_a_document
from citeloom.services.lookahead import ConversionAhead
from citeloom.services.pipeline import DocumentPipeline, hint_for, timed

Status = Literal["ingested", "skipped", "failed"]

# INFO: one line per document (path, status, citekey, pages, chunks, seconds per stage), never
# its text; DEBUG: the stages as they start. The audit file has the full record.
log = logging.getLogger("citeloom.ingest")


@dataclass
class DocumentOutcome:
    path: str
    status: Status
    doc_id: str | None = None
    citekey: str | None = None
    match: str | None = None
    # the Zotero entry of an attachment: what it is cited by when it has no usable citekey
    item: str | None = None
    title: str | None = None
    pages: int | None = None
    # the rule that gave the printed page labels, and the printed range: "printed", "272-278"
    page_labels: str | None = None
    printed_pages: str | None = None
    # the library's range and the PDF's numbers, when they disagree and the entry did not
    # choose between them: both, and which one the labels follow
    pages_disagree: str | None = None
    chunks: int = 0
    error: str | None = None
    metadata_problem: str | None = None
    ocr_pages: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    partial: bool = False  # part of the document was not converted (a ConversionWarning says)
    durations: dict[str, float] = field(default_factory=dict)
    # what the run changed in the index besides this document, shown on its line
    renamed_from: str | None = None  # the stored path this content had before
    copy_of: str | None = None  # another file with the same content, which is the one stored
    removed_copies: list[str] = field(default_factory=list)  # stale copies removed (doc ids)
    kept_as: list[str] = field(default_factory=list)  # files that now hold its old content


@dataclass
class Relabel:
    """A stored document whose citekey changed because the library changed."""

    doc_id: str
    path: str
    old: str | None
    new: str | None
    match: str | None


@dataclass
class IngestReport:
    correlation_id: str
    project: str
    collection: str
    embed_model: str
    audit_path: str
    documents: list[DocumentOutcome] = field(default_factory=list)
    relabelled: list[Relabel] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    interrupted: int = 0  # documents left undone after Ctrl-C
    # relations between library entries after the run: certain, possible, problems
    relations: dict[str, int] = field(default_factory=dict)
    # the library's attachments that were not ingested, each with the reason
    library_skipped: list[LibraryAttachment] = field(default_factory=list)
    # the library's PDF annotations mirrored as notes: how many were stored, and removed
    annotations: dict[str, int] = field(default_factory=dict)
    # what is wrong with the library's citation keys (shared keys, keyless entries): warned
    # of at every run until the library is fixed
    library_problems: list[LibraryProblem] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        counts = {"documents": len(self.documents), "ingested": 0, "skipped": 0, "failed": 0}
        for doc in self.documents:
            counts[doc.status] += 1
        counts["chunks"] = sum(d.chunks for d in self.documents if d.status == "ingested")
        return counts


ProgressHook = Callable[[DocumentOutcome, int, int], None]


def discover(paths: Sequence[Path], supports: Callable[[Path], bool]) -> list[Path]:
    """Files named directly, plus supported files found recursively in folders, sorted and
    without duplicates. A path that does not exist is a usage error, not a failed document."""
    found: dict[Path, None] = {}
    for given in paths:
        # stored absolute, so that renames, changes and --prune are recognised whatever the
        # folder citeloom is run from (symlinks are kept: the path is the one the user sees)
        path = given.absolute()
        if not path.exists():
            raise ConfigError(f"{given}: no such file or folder. Check the path you passed.")
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                # a dangling link is reported as unreadable rather than silently skipped
                entry = child.is_file() or (child.is_symlink() and not child.exists())
                if entry and not child.name.startswith(".") and supports(child):
                    found[child] = None
        else:
            found[path] = None
    return list(found)


def refuse_unreadable(paths: Sequence[Path]) -> tuple[list[Path], list[DocumentOutcome]]:
    """The paths given that can be ingested, and a failed outcome for each that is a pipe, a
    device or a socket (``not_a_document``). Meant to run before the index is opened, so that
    such a path never holds it; the others of the batch still go in."""
    kept: list[Path] = []
    refused: list[DocumentOutcome] = []
    for given in paths:
        reason = not_a_document(given)
        if reason is None:
            kept.append(given)
        else:
            path = str(given.absolute())
            refused.append(DocumentOutcome(path=path, status="failed", error=f"{path}: {reason}"))
    return kept, refused


@dataclass(kw_only=True)
class IngestService(DocumentPipeline):
    # Documents converted ahead on a thread while the one in hand is chunked, embedded and
    # written (0: one thread, convert then embed; measured in ADR 0009).
    convert_ahead: int = 1
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
        files = discover(paths, self.converter.supports)
        files_of = self.library_files if from_library else None
        if files_of is not None:
            attached = files_of.attachments()
            report.library_skipped = [a for a in attached if a.skipped is not None]
            known = set(files)
            files += [p for a in attached if a.skipped is None and (p := Path(a.path)) not in known]
            if not files and not allow_empty:
                raise ConfigError(
                    f"{files_of.root}: the Zotero library holds no PDF attachment citeloom can "
                    "read. Add PDFs to its items in Zotero, or let Zotero download them."
                )
        if not files and not allow_empty:
            raise ConfigError(
                f"{', '.join(str(p) for p in paths)}: no PDF, DOCX, HTML, Markdown or text "
                "files found. Check the path, or put the documents there."
            )
        if citekey is not None:
            self._check_citekey(citekey, files)
        if self.relations is not None:
            self.relations.graph()
        self.audit.record(
            "run_started",
            project=self.project,
            collection=self.collection,
            embed_model=self.embedder.model_id,
            inputs=[str(p) for p in paths] + ([str(files_of.root)] if files_of else []),
            files=len(files),
        )
        for attachment in report.library_skipped:
            self.audit.record("library_skipped", **attachment.to_json())
        for outcome in refused:
            report.documents.append(outcome)
            self.audit.record("document", **_audit_fields(outcome))
        report.library_problems = self.metadata.problems()
        for problem in report.library_problems:
            self.audit.record(
                "library_problem", kind=problem.kind, detail=problem.detail, fix=problem.fix
            )
        recorded = 0  # files[:recorded] have their one "document" event in the audit
        ahead: ConversionAhead | None = None
        try:
            # The write guard runs before any conversion: a mismatch writes nothing at all.
            self.index.ensure_collection(
                self.collection, self.embedder.model_id, self.embedder.dimensions, self.languages
            )
            stored = StoredDocuments(self.index, self.collection, self.project)
            contents = RunFiles(files)
            library = self.labels_key
            if self.library_files is not None:
                self._follow_attachments(stored, self.library_files)
            # labels rewritten, citekey changed or not: the run reports what is stored now
            stale = any(doc.library != library for doc in stored)
            report.relabelled = self._relabel(stored, library)
            if citekey is not None:
                report.relabelled += self._relabel_to(citekey, files[0], contents, stored, library)
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
                    path, contents, stored, library, citekey or path.stem, ahead
                )
                if ahead is not None:
                    ahead.passed(path)
                _log_outcome(outcome, self.audit.correlation_id)
                report.documents.append(outcome)
                self.audit.record("document", **_audit_fields(outcome))
                recorded = number
                if progress:
                    progress(outcome, number, len(files))
            if files_of is not None and not report.interrupted:
                report.annotations = self._mirror_annotations(files_of, stored)
            if prune and not report.interrupted:
                present = {d.doc_id for d in report.documents if d.doc_id}
                report.pruned = self._prune(
                    paths, files, present, stored, files_of.root if files_of else None
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
            if ahead is not None:  # an error or a second Ctrl-C: no new conversion starts
                ahead.close()
            self.audit.record("run_finished", totals=report.totals)
            self.audit.close()
        return report

    def _follow_attachments(self, stored: StoredDocuments, library: LibraryFiles) -> None:
        """Stored documents whose Zotero attachment's file was renamed or moved (Zotero 7
        renames them by itself) move to its new path before anything is matched again: an
        attachment is known by its library and key, so it stays matched to its item, and the
        run finds it stored under its new name (nothing converted, embedded or pruned)."""
        where = {a.identity: a.path for a in library.attachments() if a.skipped is None}
        for doc in stored:
            new = where.get(doc.attachment or "")
            if new is None or new == doc.path or stored.at(Path(new)):
                continue  # not an attachment, not moved, or its new path holds a document
            stored.move(doc, Path(new))
            stored.followed[new] = doc.path
            self.audit.record(
                "attachment_moved",
                doc_id=doc.doc_id,
                attachment=doc.attachment,
                path=new,
                renamed_from=doc.path,
            )

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
        """The thread that converts the run's files ahead, or None for one thread."""
        if self.convert_ahead < 1:
            return None

        def wanted(path: Path) -> str | None:
            # a guess from the index as it is now; the run decides again when it gets there
            sha256 = contents.sha256(path)
            known = stored.get(doc_id_from_sha256(sha256))
            return None if known is not None and known.complete else sha256

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

    def _check_citekey(self, citekey: str, files: Sequence[Path]) -> None:
        if len(files) != 1:
            raise ConfigError(
                f"--citekey names the entry of one file, but {len(files)} files were given. "
                "Pass a single file, or name files after their citekeys."
            )
        if citekey not in {r.citekey for r in self.metadata.references()}:
            raise ConfigError(
                f"--citekey {citekey}: no entry with this citekey in the project's references. "
                "Check the spelling or export the library again."
            )

    def _prune(
        self,
        paths: Sequence[Path],
        files: Sequence[Path],
        present_ids: set[str],
        stored: StoredDocuments,
        library_root: Path | None = None,
    ) -> list[str]:
        """Stored documents under the given paths whose files are gone, read from the index
        as the run left it: a renamed or copied document has its new path by now, and a
        content some file of the run still holds is never pruned. With ``library_root``,
        also the documents the library held and no longer does (an attachment removed in
        Zotero leaves its file behind until the trash is emptied)."""
        stored.reload()
        present = {str(f) for f in files}
        roots = [p.absolute() for p in paths if p.is_dir()]
        gone = []
        for doc in stored:
            if doc.kind == "note":
                continue  # notes have no file; annotations follow the library on their own
            path = Path(doc.path)
            inside = any(path.is_relative_to(root) for root in roots) or doc.path in present
            from_library = library_root is not None and (
                doc.match == "zotero"
                or doc.attachment is not None
                or path.is_relative_to(library_root)
            )
            kept = doc.path in present or doc.doc_id in present_ids
            if not from_library:
                kept = kept or path.exists()
            if (inside or from_library) and not kept:
                stored.remove(doc)
                self.audit.record("pruned", doc_id=doc.doc_id, path=doc.path)
                gone.append(doc.path)
        return sorted(gone)

    # ------------------------------------------------------------------ annotations
    def _mirror_annotations(self, library: LibraryFiles, stored: StoredDocuments) -> dict[str, int]:
        """The library's PDF annotations as notes of kind "annotation": new ones stored,
        those gone from the library (deleted, or edited into new ones) removed. Other notes
        are never touched."""
        wanted = {note.doc_id: note for note in library.annotations()}
        stored.reload()
        notes = [d.doc_id for d in stored if d.kind == "note"]
        held: set[str] = set()
        if notes:
            firsts = self.index.chunks(
                self.collection,
                SearchFilter(self.project, doc_ids=tuple(notes), chunk_range=(0, 0)),
                limit=len(notes),
            )
            held = {
                p["doc_id"]
                for p in firsts.values()
                if (p.get(NOTE_FIELD) or {}).get("kind") == ANNOTATION
            }
        references = {r.citekey: r for r in self.metadata.references()}
        added = 0
        for doc_id, note in wanted.items():
            if doc_id in held:
                continue
            match = note.match(references)
            document = note.document(match.reference.title if match.reference else None)
            points = self.points(document, match, doc_id, {}, note=note)
            self.index.replace_document(self.collection, doc_id, document.source_path, points)
            self.audit.record("annotation_stored", doc_id=doc_id, citekey=note.citekey)
            added += 1
        removed = 0
        for doc_id in sorted(held - set(wanted)):
            self.index.delete_document(self.collection, doc_id)
            self.audit.record("annotation_removed", doc_id=doc_id)
            removed += 1
        return {"stored": added, "removed": removed, "total": len(wanted)}

    # ------------------------------------------------------------------ library changes
    def _relabel(self, stored: Iterable[DocumentSummary], library: str) -> list[Relabel]:
        """Documents labelled from another version of the library get their labels again,
        from the cached conversion: a payload update, no re-embedding."""
        keys = {r.citekey for r in self.metadata.references()}
        changed: list[Relabel] = []
        for doc in stored:
            if doc.library != library:
                changed.extend(self._relabel_one(doc, library, hint_for(doc, keys)))
        return changed

    def _relabel_to(
        self,
        citekey: str,
        path: Path,
        contents: RunFiles,
        stored: StoredDocuments,
        library: str,
    ) -> list[Relabel]:
        """``--citekey`` on a file that is already stored under another label."""
        doc = stored.get(doc_id_from_sha256(contents.sha256(path)))
        if doc is None or doc.citekey == citekey:
            return []
        return self._relabel_one(doc, library, citekey)

    def _relabel_one(self, doc: DocumentSummary, library: str, hint: str) -> list[Relabel]:
        try:
            document, match, note = self.stored_document(doc, hint)
        except DocumentError as error:
            self.audit.record("relabel_skipped", doc_id=doc.doc_id, path=doc.path, error=str(error))
            return []
        except OSError as error:
            storage = _storage_error(error, Path(doc.path))
            if storage is None:
                raise
            raise storage from error
        self.index.relabel_document(
            self.collection, doc.doc_id, label_fields(match, document, library, note)
        )
        if (match.citekey, match.kind) == (doc.citekey, doc.match):
            return []
        relabel = Relabel(doc.doc_id, doc.path, doc.citekey, match.citekey, match.kind)
        self.audit.record("relabelled", **asdict(relabel), metadata=match.problem)
        return [relabel]

    # ------------------------------------------------------------------ one document
    def _ingest_one(
        self,
        path: Path,
        contents: RunFiles,
        stored: StoredDocuments,
        library: str,
        hint: str,
        ahead: ConversionAhead | None = None,
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
            points = self.points(document, match, doc_id, outcome.durations)
            with timed(outcome.durations, "index"):
                # an earlier content of this path that another file still holds moves there
                # first; the index then drops whatever else this path held
                self._rehome_earlier(path, doc_id, contents, stored, outcome, remove=False)
                stored.replace(doc_id, path, points)
            outcome.chunks = len(points)
            _labels_of(outcome, stored_labels(points[0].payload["doc"]))
            outcome.status = "ingested"
        except DocumentError as error:
            outcome.error = str(error)
        except CiteloomError:
            raise
        except OSError as error:
            storage = _storage_error(error, path)
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
        _labels_of(outcome, known.labels)
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


def _labels_of(outcome: DocumentOutcome, labels: PageLabels | None) -> None:
    if labels is not None:
        outcome.page_labels, outcome.printed_pages = labels.source, labels.span()
        if labels.disagree is not None and not labels.disagree.chosen:
            outcome.pages_disagree = str(labels.disagree)
            outcome.warnings.append(f"pages: {labels.disagree}")


def _storage_error(error: OSError, path: Path) -> StorageError | None:
    """A full or failing disk under the cache, the index or a temporary folder: every later
    document would fail the same way, so the run stops before ``path`` is stored."""
    if error.errno not in STORAGE_ERRNOS:
        return None
    where = error.filename or "a disk citeloom writes to"
    return StorageError(
        f"{where}: {error.strerror} (while storing {path}). The disk is full or failing: free "
        "some space or check the disk, then run the same command again. Nothing of this "
        "document was stored; the index is as it was before it."
    )


def _log_outcome(outcome: DocumentOutcome, correlation_id: str) -> None:
    fields = {
        "path": outcome.path,
        "citekey": outcome.citekey,
        "match": outcome.match,
        "pages": outcome.pages,
        "chunks": outcome.chunks,
        "seconds": {k: round(v, 2) for k, v in outcome.durations.items()},
        "correlation_id": correlation_id,
    }
    # INFO, also for a failure: the CLI prints failures anyway; -v adds the stage timings
    fields = {"error": outcome.error, "warnings": len(outcome.warnings), **fields}
    log.info(f"document {outcome.status}", extra={"fields": fields})


def _audit_fields(outcome: DocumentOutcome) -> dict[str, Any]:
    """What the audit records of one document (the --json report's fields, and more)."""
    fields: dict[str, Any] = {
        "path": outcome.path,
        "doc_id": outcome.doc_id,
        "status": outcome.status,
        "citekey": outcome.citekey,
        "match": outcome.match,
        "item": outcome.item,
        "pages": outcome.pages,
        "page_labels": outcome.page_labels,
        "printed_pages": outcome.printed_pages,
        "pages_disagree": outcome.pages_disagree,
        "chunks": outcome.chunks,
        "error": outcome.error,
        "renamed_from": outcome.renamed_from,
        "copy_of": outcome.copy_of,
        "removed_copies": outcome.removed_copies,
        "kept_as": outcome.kept_as,
    }
    fields["warnings"] = outcome.warnings
    fields["durations_s"] = {k: round(v, 4) for k, v in outcome.durations.items()}
    fields["metadata"] = outcome.metadata_problem
    fields["ocr_pages"] = outcome.ocr_pages
    fields["partial"] = outcome.partial
    return fields
