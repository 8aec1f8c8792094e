"""Render the bundled example papers to PDF and write their CSL-JSON library.

The three papers are short texts written for citeloom's demo and tests: a title block, authors,
an abstract, numbered sections over several pages, running heads and page numbers (which must
stay out of the chunks), PDF bookmarks in one paper, a DOI printed on page 1 of another and a
two-column layout in the third. Run from the repository root:

    .venv/bin/python examples/make_examples.py

It rewrites ``examples/papers/*.pdf`` and ``references/example.json``; both are committed, so
nobody needs reportlab just to run the demo.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4, A5
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    NextPageTemplate,
    PageTemplate,
    Paragraph,
    Spacer,
)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "examples" / "papers"

BODY = ParagraphStyle("body", fontName="Times-Roman", fontSize=10.5, leading=13.5, spaceAfter=6)
BODY_2COL = ParagraphStyle("body2", parent=BODY, fontSize=12, leading=15)
TITLE = ParagraphStyle(
    "title", fontName="Helvetica-Bold", fontSize=17, leading=21, alignment=TA_CENTER, spaceAfter=8
)
AUTHORS = ParagraphStyle("authors", parent=BODY, alignment=TA_CENTER, fontSize=11, spaceAfter=2)
META = ParagraphStyle("meta", parent=BODY, alignment=TA_CENTER, fontSize=9, spaceAfter=10)
H1 = ParagraphStyle(
    "h1", fontName="Helvetica-Bold", fontSize=12.5, leading=16, spaceBefore=8, spaceAfter=4
)
H2 = ParagraphStyle(
    "h2", fontName="Helvetica-Bold", fontSize=10.5, leading=14, spaceBefore=6, spaceAfter=3
)
ABSTRACT = ParagraphStyle(
    "abstract", parent=BODY, fontSize=9.5, leading=12, leftIndent=18, rightIndent=18
)


@dataclass
class Paper:
    citekey: str
    file: str
    title: str
    authors: list[tuple[str, str]]  # (family, given)
    year: int
    journal: str
    running_head: str
    abstract: str
    sections: list[tuple[int, str, list[str]]]  # (level, heading, paragraphs)
    doi: str | None = None
    doi_printed: bool = False
    two_columns: bool = False
    bookmarks: bool = False
    keywords: list[str] = field(default_factory=list)
    # the journal page of its first page: a reader cites p. 118 of pp. 117-119, not the PDF's
    # page 2. Journals print no number on an article's first page; 1 prints 1, 2, 3 on all.
    first_page: int = 1
    pages: int = 0  # how many pages it renders to (known after the first rendering)

    @property
    def printed_range(self) -> str:
        return f"{self.first_page}-{self.first_page + self.pages - 1}"


class Heading(Paragraph):
    """A heading that registers a PDF bookmark at its level when drawn."""

    def __init__(self, text: str, style: ParagraphStyle, level: int, bookmarks: bool) -> None:
        super().__init__(text, style)
        self.level, self.bookmarks, self.plain = level, bookmarks, text

    def draw(self) -> None:
        super().draw()
        if self.bookmarks:
            key = f"h{id(self)}"
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(self.plain, key, level=self.level - 1, closed=False)


def _decorate(paper: Paper):
    def on_page(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        width, height = canvas._pagesize
        if doc.page > 1:
            canvas.drawString(15 * mm, height - 10 * mm, paper.running_head)
            canvas.drawRightString(width - 15 * mm, height - 10 * mm, paper.journal)
        if doc.page > 1 or paper.first_page == 1:
            canvas.drawCentredString(width / 2, 8 * mm, str(paper.first_page + doc.page - 1))
        canvas.restoreState()

    return on_page


def render(paper: Paper) -> Path:
    path = OUT / paper.file
    # one-column papers on A5 (several pages from a short text), two-column ones on A4
    pagesize = A4 if paper.two_columns else A5
    width, height = pagesize
    margin = 20 * mm if paper.two_columns else 15 * mm
    doc = BaseDocTemplate(
        str(path),
        pagesize=pagesize,
        title="Microsoft Word - draft_final_v3.docx",  # junk metadata, as real PDFs have
        author="",
        leftMargin=margin,
        rightMargin=margin,
        topMargin=22 * mm,
        bottomMargin=20 * mm,
    )
    full = Frame(margin, 15 * mm, width - 2 * margin, height - 32 * mm, id="full")
    gutter = 7 * mm
    col = (width - 2 * margin - gutter) / 2
    left = Frame(margin, 20 * mm, col, height - 42 * mm, id="left")
    right = Frame(margin + col + gutter, 20 * mm, col, height - 42 * mm, id="right")
    on_page = _decorate(paper)
    if paper.two_columns:
        # page 1: a full-width title block above two columns
        top = Frame(margin, height - 95 * mm, width - 2 * margin, 73 * mm, id="top")
        left1 = Frame(margin, 20 * mm, col, height - 117 * mm, id="left1")
        right1 = Frame(margin + col + gutter, 20 * mm, col, height - 117 * mm, id="right1")
        doc.addPageTemplates(
            [
                PageTemplate("first", [top, left1, right1], onPage=on_page),
                PageTemplate("rest", [left, right], onPage=on_page),
            ]
        )
    else:
        doc.addPageTemplates([PageTemplate("rest", [full], onPage=on_page)])

    story: list[Flowable] = []
    if paper.two_columns:
        story.append(NextPageTemplate("rest"))
    story.append(Paragraph(paper.title, TITLE))
    story.append(Paragraph(", ".join(f"{g} {f}" for f, g in paper.authors), AUTHORS))
    meta = f"{paper.journal}, {paper.year}"
    if paper.first_page != 1 and paper.pages:
        meta += f", {paper.printed_range.replace('-', '–')}"
    if paper.doi and paper.doi_printed:
        meta += f" &nbsp;·&nbsp; doi:{paper.doi}"
    story.append(Paragraph(meta, META))
    story.append(Heading("Abstract", H2, 1, paper.bookmarks))
    story.append(Paragraph(paper.abstract, ABSTRACT))
    if paper.keywords:
        story.append(Paragraph("<i>Keywords:</i> " + ", ".join(paper.keywords), ABSTRACT))
    if paper.two_columns:
        from reportlab.platypus import FrameBreak

        story.append(FrameBreak())
    story.append(Spacer(1, 4))
    for level, heading, paragraphs in paper.sections:
        story.append(Heading(heading, H1 if level == 1 else H2, level, paper.bookmarks))
        story.extend(Paragraph(p, BODY_2COL if paper.two_columns else BODY) for p in paragraphs)
    doc.build(story)
    if paper.pages != doc.page:  # the first rendering learns the page count the range needs
        paper.pages = doc.page
        return render(paper)
    return path


def csl_entry(paper: Paper) -> dict:
    entry = {
        "id": paper.citekey,
        "citation-key": paper.citekey,
        "type": "article-journal",
        "title": paper.title,
        "container-title": paper.journal,
        "author": [{"family": f, "given": g} for f, g in paper.authors],
        "issued": {"date-parts": [[paper.year]]},
    }
    if paper.doi:
        entry["DOI"] = paper.doi.upper()  # Better BibTeX keeps the case the source had
    if paper.first_page != 1:
        entry["page"] = paper.printed_range
    if paper.keywords:
        entry["keyword"] = ", ".join(paper.keywords)
    return entry


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from examples.papers_text import PAPERS

    OUT.mkdir(parents=True, exist_ok=True)
    for paper in PAPERS:
        print(render(paper).relative_to(ROOT))
    refs = ROOT / "references" / "example.json"
    refs.parent.mkdir(exist_ok=True)
    refs.write_text(json.dumps([csl_entry(p) for p in PAPERS], indent=2) + "\n", encoding="utf-8")
    print(refs.relative_to(ROOT))


if __name__ == "__main__":
    main()
