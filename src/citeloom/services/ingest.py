"""The ingest use case: files in, citable chunks in the project's collection, an audit out.

Speaks only to ports. One document failing never stops the batch; an unavailable index or a
model mismatch stops it before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import structlog

from citeloom.domain.errors import CiteloomError, ConfigError, DocumentError
from citeloom.domain.ids import doc_id_from_sha256, sha256_of_file
from citeloom.domain.models import DocumentSummary
from citeloom.domain.records import label_fields
from citeloom.services.pipeline import DocumentPipeline, hint_for, timed

Status = Literal["ingested", "skipped", "failed"]

# INFO: one line per document (path, status, citekey, pages, chunks, seconds per stage), never
# its text; DEBUG: the stages as they start. The audit file has the full record.
log = structlog.get_logger("citeloom.ingest")


@dataclass
class DocumentOutcome:
    path: str
    status: Status
    doc_id: str | None = None
    citekey: str | None = None
    match: str | None = None
    title: str | None = None
    pages: int | None = None
    chunks: int = 0
    error: str | None = None
    metadata_problem: str | None = None
    ocr_pages: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    durations: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "doc_id": self.doc_id,
            "status": self.status,
            "citekey": self.citekey,
            "match": self.match,
            "pages": self.pages,
            "chunks": self.chunks,
            "error": self.error,
        }


@dataclass
class Relabel:
    """A stored document whose citekey changed because the library changed."""

    doc_id: str
    path: str
    old: str | None
    new: str | None
    match: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "match": self.match,
        }


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

    @property
    def totals(self) -> dict[str, int]:
        counts = {"documents": len(self.documents), "ingested": 0, "skipped": 0, "failed": 0}
        for doc in self.documents:
            counts[doc.status] += 1
        counts["chunks"] = sum(d.chunks for d in self.documents if d.status == "ingested")
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "correlation_id": self.correlation_id,
            "project": self.project,
            "collection": self.collection,
            "embed_model": self.embed_model,
            "audit": self.audit_path,
            "documents": [d.to_json() for d in self.documents],
            "relabelled": [r.to_json() for r in self.relabelled],
            "pruned": self.pruned,
            "interrupted": self.interrupted,
            "totals": self.totals,
        }


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


class IngestService(DocumentPipeline):
    def run(
        self,
        paths: Sequence[Path],
        progress: ProgressHook | None = None,
        citekey: str | None = None,
        prune: bool = False,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> IngestReport:
        """Ingest files and folders.

        ``citekey`` names the library entry of a single file; ``prune`` removes stored
        documents whose files are gone from the given folders; ``should_stop`` is asked between
        documents (Ctrl-C): the document in hand is finished, the rest are left for next time.
        """
        report = IngestReport(
            correlation_id=self.audit.correlation_id,
            project=self.project,
            collection=self.collection,
            embed_model=self.embedder.model_id,
            audit_path=self.audit.location,
        )
        files = discover(paths, self.converter.supports)
        if not files:
            raise ConfigError(
                f"{', '.join(str(p) for p in paths)}: no PDF, DOCX, HTML, Markdown or text "
                "files found. Check the path, or put the documents there."
            )
        if citekey is not None:
            self._check_citekey(citekey, files)
        self.audit.record(
            "run_started",
            project=self.project,
            collection=self.collection,
            embed_model=self.embedder.model_id,
            inputs=[str(p) for p in paths],
            files=len(files),
        )
        recorded = 0  # files[:recorded] have their one "document" event in the audit
        try:
            # The write guard runs before any conversion: a mismatch writes nothing at all.
            self.index.ensure_collection(
                self.collection, self.embedder.model_id, self.embedder.dimensions
            )
            stored = {d.doc_id: d for d in self.index.documents(self.collection, self.project)}
            library = self.metadata.fingerprint
            report.relabelled = self._relabel(stored.values(), library)
            if citekey is not None:
                report.relabelled += self._relabel_to(citekey, files[0], stored, library)
            if report.relabelled:
                stored = {d.doc_id: d for d in self.index.documents(self.collection, self.project)}
            for number, path in enumerate(files, start=1):
                if should_stop():
                    report.interrupted = len(files) - recorded
                    self._record_undone(files[recorded:], "interrupted", "left for the next run")
                    recorded = len(files)
                    self.audit.record("run_interrupted", left=report.interrupted)
                    break
                log.debug("document started", path=str(path), number=number, of=len(files))
                outcome = self._ingest_one(path, stored, library, citekey or path.stem)
                _log_outcome(outcome, self.audit.correlation_id)
                report.documents.append(outcome)
                self.audit.record("document", **_audit_fields(outcome))
                recorded = number
                if progress:
                    progress(outcome, number, len(files))
            if prune and not report.interrupted:
                report.pruned = self._prune(paths, files, stored.values())
        except CiteloomError as error:
            self._record_undone(files[recorded:], "aborted", str(error))
            self.audit.record("run_aborted", error=str(error), exit_code=int(error.exit_code))
            raise
        except KeyboardInterrupt:  # a second Ctrl-C: the document in hand is left as it was
            self._record_undone(files[recorded:], "interrupted", "stopped before it was stored")
            self.audit.record("run_interrupted", left=len(files) - recorded)
            raise
        finally:
            self.audit.record("run_finished", totals=report.totals)
            self.audit.close()
        return report

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
        self, paths: Sequence[Path], files: Sequence[Path], stored: Iterable[DocumentSummary]
    ) -> list[str]:
        """Stored documents under the given paths whose files are gone."""
        present = {str(f) for f in files}
        roots = [p.absolute() for p in paths if p.is_dir()]
        gone = []
        for doc in stored:
            path = Path(doc.path)
            inside = any(path.is_relative_to(root) for root in roots) or doc.path in present
            if inside and doc.path not in present and not path.exists():
                self.index.delete_document(self.collection, doc.doc_id)
                self.audit.record("pruned", doc_id=doc.doc_id, path=doc.path)
                gone.append(doc.path)
        return sorted(gone)

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
        self, citekey: str, path: Path, stored: dict[str, DocumentSummary], library: str
    ) -> list[Relabel]:
        """``--citekey`` on a file that is already stored under another label."""
        doc = stored.get(doc_id_from_sha256(_hash(path)))
        if doc is None or doc.citekey == citekey:
            return []
        return self._relabel_one(doc, library, citekey)

    def _relabel_one(self, doc: DocumentSummary, library: str, hint: str) -> list[Relabel]:
        try:
            document = self.converter.convert(Path(doc.path), doc.sha256)
        except DocumentError as error:
            self.audit.record("relabel_skipped", doc_id=doc.doc_id, path=doc.path, error=str(error))
            return []
        match = self.metadata.resolve(document, hint=hint)
        self.index.relabel_document(
            self.collection, doc.doc_id, label_fields(match, document, library)
        )
        if (match.citekey, match.kind) == (doc.citekey, doc.match):
            return []
        relabel = Relabel(doc.doc_id, doc.path, doc.citekey, match.citekey, match.kind)
        self.audit.record("relabelled", **relabel.to_json(), metadata=match.problem)
        return [relabel]

    # ------------------------------------------------------------------ one document
    def _ingest_one(
        self, path: Path, stored: dict[str, DocumentSummary], library: str, hint: str
    ) -> DocumentOutcome:
        outcome = DocumentOutcome(path=str(path), status="failed")
        try:
            with timed(outcome.durations, "hash"):
                sha256 = _hash(path)
            doc_id = doc_id_from_sha256(sha256)
            outcome.doc_id = doc_id
            known = stored.get(doc_id)
            if known is not None and known.complete:
                self._keep(known, path, stored, outcome)
                return outcome
            with timed(outcome.durations, "convert"):
                document = self.converter.convert(path, sha256)
            outcome.pages = document.page_count
            outcome.title = document.title
            outcome.warnings.extend(document.warnings)
            outcome.ocr_pages = list(document.ocr_pages)
            with timed(outcome.durations, "match"):
                match = self.metadata.resolve(document, hint=hint)
            outcome.citekey, outcome.match = match.citekey, match.kind
            outcome.metadata_problem = match.problem
            if match.problem:
                shown = ", ".join(f"{c.citekey} ({c.score:.2f})" for c in match.candidates[:3])
                outcome.warnings.append(
                    f"{match.problem}: best candidates {shown}" if shown else match.problem
                )
            points = self.points(document, match, doc_id, outcome.durations)
            with timed(outcome.durations, "index"):
                self.index.replace_document(self.collection, doc_id, str(path), points)
            outcome.chunks = len(points)
            outcome.status = "ingested"
        except DocumentError as error:
            outcome.error = str(error)
        except CiteloomError:
            raise
        except Exception as error:  # one odd file must not sink the batch
            outcome.error = f"{path}: unexpected {type(error).__name__}: {error}"
        if outcome.status == "failed":
            for older in _other_versions(stored, path, outcome.doc_id):
                outcome.warnings.append(
                    f"an earlier version of this file ({older.doc_id}) stays searchable "
                    "until the new one can be stored"
                )
        return outcome

    def _keep(
        self,
        known: DocumentSummary,
        path: Path,
        stored: dict[str, DocumentSummary],
        outcome: DocumentOutcome,
    ) -> None:
        """The file's content is stored completely already: nothing to convert or embed."""
        outcome.status = "skipped"
        outcome.citekey, outcome.match = known.citekey, known.match
        outcome.pages, outcome.chunks = known.page_count, known.chunks
        if known.path != str(path):
            if Path(known.path).exists():
                outcome.warnings.append(f"same content as {known.path}, which is stored")
            else:  # renamed or moved: recognised by its hash, only the path changes
                self.index.relabel_document(
                    self.collection, known.doc_id, {"source": {"path": str(path)}}
                )
                outcome.warnings.append(f"renamed from {known.path}")
        # an older version of this file left behind by a run that was killed between storing
        # the new version and removing the old one
        for other in _other_versions(stored, path, known.doc_id):
            self.index.delete_document(self.collection, other.doc_id)
            outcome.warnings.append(f"removed a stale copy ({other.doc_id})")


def _other_versions(
    stored: dict[str, DocumentSummary], path: Path, doc_id: str | None
) -> list[DocumentSummary]:
    """Stored documents of the same path with other content (an earlier version)."""
    return [d for d in stored.values() if d.path == str(path) and d.doc_id != doc_id]


def _hash(path: Path) -> str:
    try:
        return sha256_of_file(path)
    except FileNotFoundError as error:
        raise DocumentError(
            f"{path}: cannot be read (a broken link, or the file was removed). Restore the file "
            "or remove the link."
        ) from error
    except PermissionError as error:
        raise DocumentError(
            f"{path}: cannot be read (permission denied). Make it readable: chmod u+r '{path}'."
        ) from error
    except OSError as error:
        raise DocumentError(
            f"{path}: cannot be read ({error.strerror}). Check that the file is readable."
        ) from error


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
    log.info(
        f"document {outcome.status}", error=outcome.error, warnings=len(outcome.warnings), **fields
    )


def _audit_fields(outcome: DocumentOutcome) -> dict[str, Any]:
    fields = outcome.to_json()
    fields["warnings"] = outcome.warnings
    fields["durations_s"] = {k: round(v, 4) for k, v in outcome.durations.items()}
    fields["metadata"] = outcome.metadata_problem
    fields["ocr_pages"] = outcome.ocr_pages
    fields["partial"] = any(w.startswith("partial:") for w in outcome.warnings)
    return fields
