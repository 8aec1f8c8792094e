"""Conversion: citeloom's Docling conversion against Docling's own ground truth (docling-gt/):
section headers matched on their page, and body text found and on its page (in characters);
the titles of papers/ against their library entries; and the replacement characters (U+FFFD)
beside a letter where poppler's pdftotext reads the letters, in every PDF of docling-gt/,
papers/ and paginated/. Outcome per document: its header counts and body text figures, per
paper the title found, per PDF its replacement characters. Benchmark:
benchmarks/conversion_quality.py --papers --replacements."""

from __future__ import annotations

import pytest
from benchmarks import conversion_quality

from tests.conftest import CORPUS
from tests.quality.floors import Figure, hold, share

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]


def test_conversion_finds_doclings_headers_on_their_pages_and_the_papers_titles(
    quality_project,
):
    converter = quality_project(CORPUS).converter
    scores = conversion_quality.docling_gt(converter, corpus=CORPUS)
    total = conversion_quality.micro_average(scores)
    titles = [t for t in conversion_quality.paper_titles(converter, CORPUS) if t.expected]
    outcomes = {
        f"docling-gt/{s.name}": f"headers {s.tp} right, {s.fp} extra, {s.fn} missed; body text "
        f"{s.found_chars}/{s.total_chars} characters found, {s.same_page_chars} on their page"
        for s in scores
    }
    outcomes |= {f"titles/{t.pdf.name}": repr(t.document.title) for t in titles}
    replaced = conversion_quality.replacement_characters(converter, CORPUS)
    outcomes |= {f"replacements/{r.pdf}": r.outcome() for r in replaced}
    documents = tuple(f"docling-gt/{s.name}" for s in scores)
    # counts of headers and characters, not of items: every document stands against them
    figures = [
        Figure("section headers precision", total.tp, total.tp + total.fp, against=documents),
        Figure("section headers recall", total.tp, total.tp + total.fn, against=documents),
        # a margin of one character would be nothing: half a point of the characters
        Figure(
            "body text on its page",
            total.same_page_chars,
            total.found_chars,
            margin=0.005,
            against=documents,
        ),
        Figure(
            "body text found",
            total.found_chars,
            total.total_chars,
            margin=0.005,
            against=documents,
        ),
        share("titles found", {f"titles/{t.pdf.name}": t.found for t in titles}),
        # none may lose a letter pdftotext reads: no margin
        share(
            "PDFs with no letter lost to a replacement character",
            {f"replacements/{r.pdf}": not r.letters_lost for r in replaced},
            margin=0.0,
        ),
    ]
    hold("conversion", __doc__, figures, outcomes, __file__)
