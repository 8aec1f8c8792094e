"""A Zotero library's PDF annotations, mirrored as notes of kind "annotation": each one is a
small document of its own, cited by its item and page. New ones are stored, those gone from
the library (deleted, or edited into new ones) removed; other notes are never touched."""

from __future__ import annotations

from citeloom.domain.notes import ANNOTATION, NOTE_FIELD
from citeloom.ports import LibraryFiles, SearchFilter
from citeloom.services.ingest_state import StoredDocuments
from citeloom.services.pipeline import DocumentPipeline


def mirror_annotations(
    pipeline: DocumentPipeline, library: LibraryFiles, stored: StoredDocuments
) -> dict[str, int]:
    """The library's annotations stored as notes, the stale ones removed: how many were
    stored and removed, and how many the library holds."""
    index, collection, audit = pipeline.index, pipeline.collection, pipeline.audit
    wanted = {note.doc_id: note for note in library.annotations()}
    stored.reload()
    notes = [d.doc_id for d in stored if d.kind == "note"]
    held: set[str] = set()
    if notes:
        firsts = index.chunks(
            collection,
            SearchFilter(pipeline.project, doc_ids=tuple(notes), chunk_range=(0, 0)),
            limit=len(notes),
        )
        held = {
            p["doc_id"]
            for p in firsts.values()
            if (p.get(NOTE_FIELD) or {}).get("kind") == ANNOTATION
        }
    references = {r.citekey: r for r in pipeline.metadata.references()}
    added = 0
    for doc_id, note in wanted.items():
        if doc_id in held:
            continue
        match = note.match(references)
        document = note.document(match.reference.title if match.reference else None)
        points = pipeline.points(document, match, doc_id, {}, note=note)
        index.replace_document(collection, doc_id, document.source_path, points)
        audit.record("annotation_stored", doc_id=doc_id, citekey=note.citekey)
        added += 1
    removed = 0
    for doc_id in sorted(held - set(wanted)):
        index.delete_document(collection, doc_id)
        audit.record("annotation_removed", doc_id=doc_id)
        removed += 1
    return {"stored": added, "removed": removed, "total": len(wanted)}
