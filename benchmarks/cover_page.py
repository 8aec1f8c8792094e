"""A real PDF behind a generated cover page, made at run time (never stored in the project).

Repositories, preprint series and conference sections bind a sheet of their own before the
paper: its big type is the repository's name, not the paper's title, and the paper's own
first page comes second. Matching must find the title past it. The sheet drawn here is such
a repository cover, with no word of the paper on it.
"""

from __future__ import annotations

import io
from pathlib import Path

COVER_LINES = (
    "This is the author's accepted version of a work deposited in the University",
    "Research Archive. Downloaded from repository.example.edu on 12 March 2021.",
    "Copyright remains with the authors; terms of use apply.",
)


def with_cover(source: Path, target: Path) -> Path:
    """``target``: a cover sheet, then every page of ``source``."""
    import pypdfium2 as pdfium
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    sheet = io.BytesIO()
    page = canvas.Canvas(sheet, pagesize=letter)
    page.setFont("Helvetica-Bold", 22)
    page.drawString(72, 650, "Institutional Repository")
    page.setFont("Helvetica", 12)
    for number, line in enumerate(COVER_LINES):
        page.drawString(72, 600 - 16 * number, line)
    page.showPage()
    page.save()
    merged = pdfium.PdfDocument(sheet.getvalue())
    merged.import_pages(pdfium.PdfDocument(str(source)))
    target.parent.mkdir(parents=True, exist_ok=True)
    merged.save(str(target))
    return target
