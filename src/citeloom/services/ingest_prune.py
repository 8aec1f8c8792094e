"""``--prune``: stored documents whose files are gone leave the index, and with a Zotero
library, those the library no longer holds. Decided from the index as the run left it, so a
renamed or copied document (which has its new path by now) is never pruned."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from citeloom.ports import AuditLog
from citeloom.services.ingest_state import StoredDocuments


def prune(
    paths: Sequence[Path],
    files: Sequence[Path],
    present_ids: set[str],
    stored: StoredDocuments,
    audit: AuditLog,
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
            doc.match == "zotero" or doc.attachment is not None or path.is_relative_to(library_root)
        )
        kept = doc.path in present or doc.doc_id in present_ids
        if not from_library:
            kept = kept or path.exists()
        if (inside or from_library) and not kept:
            stored.remove(doc)
            audit.record("pruned", doc_id=doc.doc_id, path=doc.path)
            gone.append(doc.path)
    return sorted(gone)
