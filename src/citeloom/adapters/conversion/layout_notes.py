"""What the layout stage learns about a document that Docling's output cannot carry.

Kept apart from the layout stage so that reading the notes imports no Docling module: the
rules path imports Docling only inside ``slim_import.without_torch``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class LayoutNotes:
    """What the layout stage learned about a document that a DoclingDocument cannot carry:
    which pages it OCR'd, and the title (Docling's postprocessor turns title clusters into
    section headers, and page assembly would drop them otherwise)."""

    ocr_pages: set[int] = field(default_factory=set)
    title: str | None = None
    warnings: list[str] = field(default_factory=list)


# Keyed by Docling's document hash; the converter pops its document's notes after conversion.
_NOTES: dict[str, LayoutNotes] = {}
_NOTES_LOCK = threading.Lock()


def notes_of(document_hash: str) -> LayoutNotes:
    with _NOTES_LOCK:
        return _NOTES.setdefault(document_hash, LayoutNotes())


def pop_notes(document_hash: str) -> LayoutNotes:
    with _NOTES_LOCK:
        return _NOTES.pop(document_hash, LayoutNotes())
