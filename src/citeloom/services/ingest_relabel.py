"""A library change reaches the stored documents: those labelled from another version of the
library get their labels again from the cached conversion (a payload update, no
re-embedding), ``--citekey`` relabels a file stored under another entry, and a Zotero
attachment whose file Zotero renamed or moved follows it to its new path."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from citeloom.domain.errors import DocumentError
from citeloom.domain.ids import doc_id_from_sha256
from citeloom.domain.models import DocumentSummary
from citeloom.domain.records import label_fields
from citeloom.ports import LibraryFiles
from citeloom.services.ingest_report import Relabel
from citeloom.services.ingest_state import RunFiles, StoredDocuments, storage_error
from citeloom.services.pipeline import DocumentPipeline, hint_for


def relabel(
    pipeline: DocumentPipeline, stored: Iterable[DocumentSummary], library: str
) -> list[Relabel]:
    """Documents labelled from another version of the library (``library``: the labels key
    now) get their labels again, from the cached conversion: a payload update, no
    re-embedding."""
    keys = {r.citekey for r in pipeline.metadata.references()}
    changed: list[Relabel] = []
    for doc in stored:
        if doc.library != library:
            changed.extend(_relabel_one(pipeline, doc, library, hint_for(doc, keys)))
    return changed


def relabel_to(
    pipeline: DocumentPipeline,
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
    return _relabel_one(pipeline, doc, library, citekey)


def _relabel_one(
    pipeline: DocumentPipeline, doc: DocumentSummary, library: str, hint: str
) -> list[Relabel]:
    audit = pipeline.audit
    try:
        document, match, note = pipeline.stored_document(doc, hint)
    except DocumentError as error:
        audit.record("relabel_skipped", doc_id=doc.doc_id, path=doc.path, error=str(error))
        return []
    except OSError as error:
        storage = storage_error(error, Path(doc.path))
        if storage is None:
            raise
        raise storage from error
    pipeline.index.relabel_document(
        pipeline.collection, doc.doc_id, label_fields(match, document, library, note)
    )
    if (match.citekey, match.kind) == (doc.citekey, doc.match):
        return []
    changed = Relabel(doc.doc_id, doc.path, doc.citekey, match.citekey, match.kind)
    audit.record("relabelled", **asdict(changed), metadata=match.problem)
    return [changed]


def follow_attachments(
    pipeline: DocumentPipeline, stored: StoredDocuments, library: LibraryFiles
) -> None:
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
        pipeline.audit.record(
            "attachment_moved",
            doc_id=doc.doc_id,
            attachment=doc.attachment,
            path=new,
            renamed_from=doc.path,
        )
