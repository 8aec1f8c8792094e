"""What the layout stage learns about a document that Docling's output cannot carry.

Kept apart from the layout stage so that reading the notes imports no Docling module: the
rules path imports Docling only inside ``slim_import.without_torch``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citeloom.domain.models import ConversionWarning


@dataclass
class LayoutNotes:
    """What the layout stage learned about one document that a DoclingDocument cannot carry:
    which pages it OCR'd, the title (Docling's postprocessor turns title clusters into
    section headers, and page assembly would drop them otherwise), and pages it could not
    read. One per conversion, made before Docling runs and travelling with the document it
    converts, so two conversions at once never see each other's notes."""

    ocr_pages: set[int] = field(default_factory=set)
    title: str | None = None
    warnings: list[ConversionWarning] = field(default_factory=list)


@dataclass(frozen=True)
class DoclingRun:
    """One finished Docling conversion: Docling's ``ConversionResult`` and the layout
    stage's notes (empty when Docling's own layout model read the document)."""

    result: Any
    notes: LayoutNotes = field(default_factory=LayoutNotes)
