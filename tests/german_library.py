"""A small German and mixed German/English library, for the language tests and
``benchmarks/german_queries.py``.

Ten short papers written for citeloom (``tests/data/german``), on neighbouring subjects (soil,
water, farming, climate) so that their words compete: five rendered to PDF here with reportlab
(a dev dependency, as ``examples/make_examples.py`` renders the example papers), German papers
with an English abstract or with a German and an English one; five kept as Markdown, German
papers, one with an English abstract, and an English paper with a German summary.
The three English example papers join them as neighbours, so that a German query competes
with English passages too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tests" / "data" / "german"
EXAMPLES = ROOT / "examples" / "papers"
EXAMPLE_REFERENCES = ROOT / "references" / "example.json"

PDF_PAPERS = (
    "hennig2019_bodenerosion",
    "weber2021_gruenland",
    "lorenz2018_nitrat",
    "fischer2020_duerre",
    "neumann2022_bluehstreifen",
)
MARKDOWN_PAPERS = (
    "brandt2020_moore",
    "keller2022_stadtbaeume",
    "schulz2019_humus",
    "hoffmann2021_auen",
    "wagner2017_hitze",
)


def build(folder: Path, examples: bool = True) -> Path:
    """Write the library's documents into ``folder`` and its CSL-JSON beside them; returns
    the references file."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in PDF_PAPERS:
        render_pdf(SOURCES / f"{name}.md", folder / f"{name}.pdf")
    for name in MARKDOWN_PAPERS:
        shutil.copyfile(SOURCES / f"{name}.md", folder / f"{name}.md")
    entries = json.loads((SOURCES / "german.csl.json").read_text(encoding="utf-8"))
    if examples:
        for pdf in sorted(EXAMPLES.glob("*.pdf")):
            shutil.copyfile(pdf, folder / pdf.name)
        entries += json.loads(EXAMPLE_REFERENCES.read_text(encoding="utf-8"))
    references = folder.parent / f"{folder.name}.csl.json"
    references.write_text(json.dumps(entries, ensure_ascii=False, indent=2), encoding="utf-8")
    return references


def render_pdf(source: Path, target: Path) -> None:
    """A one-column A5 paper from the Markdown of ``tests/data/german``: the title, the
    author and journal lines, then "## " headings and their paragraphs; page numbers below."""
    from reportlab.lib.enums import TA_CENTER
    from reportlab.lib.pagesizes import A5
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    body = ParagraphStyle("body", fontName="Times-Roman", fontSize=10.5, leading=13.5)
    body.spaceAfter = 6
    title = ParagraphStyle(
        "title", fontName="Helvetica-Bold", fontSize=15, leading=19, alignment=TA_CENTER
    )
    title.spaceAfter = 8
    centred = ParagraphStyle("centred", parent=body, alignment=TA_CENTER, fontSize=10)
    heading = ParagraphStyle("heading", fontName="Helvetica-Bold", fontSize=11.5, leading=15)
    heading.spaceBefore, heading.spaceAfter = 8, 4

    blocks = [b.strip() for b in source.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    story = [Paragraph(blocks[0].removeprefix("# "), title)]
    story += [Paragraph(line, centred) for line in blocks[1:3]]
    for block in blocks[3:]:
        if block.startswith("## "):
            story.append(Paragraph(block.removeprefix("## "), heading))
        else:
            story.append(Paragraph(block, body))

    def number(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawCentredString(A5[0] / 2, 8 * mm, str(doc.page))
        canvas.restoreState()

    document = SimpleDocTemplate(
        str(target),
        invariant=True,  # the same bytes every time: the same document ids, the same results
        pagesize=A5,
        leftMargin=15 * mm,
        rightMargin=15 * mm,
        topMargin=18 * mm,
        bottomMargin=18 * mm,
        title="",
    )
    document.build(story, onFirstPage=number, onLaterPages=number)
