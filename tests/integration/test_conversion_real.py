"""Real Docling conversion (weight-free layout stage, Tesseract OCR) on the shared papers."""

from __future__ import annotations

import os
import shutil

import pytest

from citeloom.domain.errors import DocumentError
from citeloom.domain.models import BlockKind
from citeloom.domain.text import fold_for_match
from tests.conftest import DOCLING_GT, EXAMPLES, PAPERS

pytestmark = pytest.mark.real

# CI sets CITELOOM_REQUIRE_OCR=1 so that a missing Tesseract fails instead of skipping.
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None and not os.environ.get("CITELOOM_REQUIRE_OCR"),
    reason="needs Tesseract (apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu)",
)


def headings(doc) -> list[str]:
    return [b.text for b in doc.blocks if b.kind is BlockKind.HEADING]


def page_of(doc, needle: str) -> int:
    key = fold_for_match(needle)
    return next(b.page for b in doc.blocks if key in fold_for_match(b.text))


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("grobid_0807.3577.pdf", "Apparent and average accelerations of the Universe"),
        (
            "grobid_MullenJSSv18i03.pdf",
            "TIMP: An R Package for Modeling Multi-way Spectroscopic Measurements",
        ),
        ("paperqa_paper.pdf", "A Perspective on Explanations of Molecular Prediction Models"),
        ("paperqa_pasa.pdf", "PaSa: An LLM Agent for Comprehensive Academic Paper Search"),
        ("grobid_Wang-paperAVE2008.pdf", "Information Synthesis for Answer Validation"),
    ],
)
@pytest.mark.shared
def test_title_comes_from_the_first_page(converted, name, title):
    assert converted(PAPERS / name).title == title


@pytest.mark.shared
def test_numbered_sections_with_levels_and_no_running_heads(converted):
    doc = converted(PAPERS / "grobid_MullenJSSv18i03.pdf")
    heads = headings(doc)
    for expected in [
        "1. Introduction",
        "2. The implementation of TIMP",
        "2.2. Model specification",
        "8. Conclusions",
    ]:
        assert expected in heads
    levels = {b.text: b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert levels["2.2. Model specification"] > levels["2. The implementation of TIMP"]
    assert not any("Journal of Statistical Software" in h for h in heads[1:])


@pytest.mark.shared
def test_physical_pages_and_ligatures(converted):
    doc = converted(PAPERS / "grobid_0807.3577.pdf")
    assert doc.page_count == 15
    assert page_of(doc, "If the averaging procedure is applied to the Einstein equations") == 4
    text = " ".join(b.text for b in doc.blocks)
    assert "ﬁ" not in text and "ﬀ" not in text
    assert "JCAP10(2008)003" not in text  # the vertical margin stamp is furniture


def test_two_column_paper_reads_column_by_column(converted):
    doc = converted(EXAMPLES / "lindqvist2021_quiet_hours.pdf")
    body = " ".join(b.text for b in doc.blocks if b.kind is BlockKind.TEXT)
    first = body.index("Research work alternates between solitary concentration")
    continues = body.index("measurements in research settings are few")
    other_column = body.index("predictable, which is why we chose them")
    assert first < continues < other_column


def test_bookmarked_example_gives_nested_levels(converted):
    doc = converted(EXAMPLES / "ardel2023_restored_marshes.pdf")
    levels = {b.text: b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert levels["3.1 Accretion rates"] > levels["3 Results"]
    assert page_of(doc, "accreted a mean of 6.8 millimetres") == 2
    assert not any("Ardel et al." in b.text for b in doc.blocks)  # running head
    assert not any(b.text.strip() == "2" for b in doc.blocks)  # page number


def same_style_headings(path, headings: list[tuple[str, int]], bookmarks: bool) -> None:
    """A one-page PDF whose headings all share one font and size: only the PDF's outline (or
    the headings' own numbering) can tell their levels."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setFont("Helvetica-Bold", 18)
    pdf.drawString(72, 770, "Sediment Cores from Tidal Creeks")
    y = 720
    body = "Cores were taken every spring and autumn and cut in two centimetre slices. " * 2
    for number, (title, level) in enumerate(headings):
        pdf.setFont("Helvetica-Bold", 12)
        pdf.drawString(72, y, title)
        if bookmarks:
            pdf.bookmarkPage(f"h{number}", fit="XYZ", top=y + 14)
            pdf.addOutlineEntry(title, f"h{number}", level=level)
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, y - 18, body[:95])
        pdf.drawString(72, y - 31, body[95:])
        y -= 80
    if bookmarks:
        pdf.showOutline()
    pdf.save()


def test_heading_levels_come_from_the_pdf_outline(converter, tmp_path):
    outline = [("Methods", 0), ("Sampling design", 1), ("Laboratory work", 1), ("Results", 0)]
    same_style_headings(tmp_path / "outline.pdf", outline, bookmarks=True)
    doc = converter.convert(tmp_path / "outline.pdf", "0" * 64)
    levels = {b.text: b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert levels["Sampling design"] == levels["Laboratory work"] > levels["Methods"]
    assert levels["Results"] == levels["Methods"]


def test_without_an_outline_appendix_numbering_gives_the_levels(converter, tmp_path):
    numbered = [("A Field protocol", 0), ("A.1 Coring", 1), ("A.2 Slicing", 1), ("B Data", 0)]
    same_style_headings(tmp_path / "numbered.pdf", numbered, bookmarks=False)
    doc = converter.convert(tmp_path / "numbered.pdf", "0" * 64)
    levels = {b.text: b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert levels["A.1 Coring"] == levels["A.2 Slicing"] > levels["A Field protocol"]
    assert levels["B Data"] == levels["A Field protocol"]


@needs_tesseract
@pytest.mark.shared
def test_image_only_page_is_ocrd(converted):
    doc = converted(PAPERS / "grobid_two_pages.pdf")
    assert doc.ocr_pages == (1,)
    page1 = " ".join(b.text for b in doc.blocks if b.page == 1)
    assert "Barcelona" in page1


@needs_tesseract
@pytest.mark.shared
def test_docling_ocr_sample_becomes_text(converted):
    doc = converted(DOCLING_GT / "ocr_test.pdf")
    assert doc.ocr_pages == (1,)
    assert "Docling" in " ".join(b.text for b in doc.blocks)


@pytest.mark.shared
def test_bad_files_fail_with_the_fix(converter, tmp_path):
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(DocumentError, match="empty"):
        converter.convert(empty, "0" * 64)
    fake = tmp_path / "fake.pdf"
    fake.write_text("<html>not a pdf</html>")
    with pytest.raises(DocumentError, match="not a PDF"):
        converter.convert(fake, "0" * 64)
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes((PAPERS / "grobid_submission_363.pdf").read_bytes()[:2000])
    with pytest.raises(DocumentError, match="damaged"):
        converter.convert(truncated, "0" * 64)


@pytest.mark.shared
def test_conversion_is_deterministic(converter):
    # Docling batches pages by thread timing; nothing we output may depend on it.
    path = PAPERS / "grobid_Wang-paperAVE2008.pdf"
    first = converter.convert(path, "0" * 64)
    assert all(converter.convert(path, "0" * 64).blocks == first.blocks for _ in range(2))


@pytest.mark.shared
def test_levels_from_font_size_when_there_is_no_numbering(converted):
    doc = converted(PAPERS / "paperqa_paper.pdf")
    levels = {b.text: b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert levels["Attribution methods"] > levels["Theory"]
    assert levels["Discussion"] == levels["Theory"]


@pytest.mark.shared
def test_a_paragraph_set_with_double_spacing_is_one_block(converted):
    # the preprint sets its text with 12-13 points between 11-point lines: read at a
    # journal's leading, each line was a paragraph, and a sentence over two lines was cut
    # in two for check, answer and the chunker alike
    doc = converted(PAPERS / "paperqa_paper.pdf")
    block = next(b for b in doc.blocks if "MMACE method was modified" in b.text)
    assert block.page == 20
    assert "The MMACE method was modified" in block.text
    assert "counterfactuals of the jasmone molecule would be false" in block.text
    assert block.text.rstrip().endswith("'herbal' scents.")
    # a paragraph that starts with an indent is still a block of its own
    after = next(b for b in doc.blocks if "The molecule 2,4-decadienal" in b.text)
    assert after.text.startswith("The molecule 2,4-decadienal")


@pytest.mark.shared
def test_a_paragraph_cut_by_a_page_break_is_filed_under_each_page(converted):
    # Docling merges it into one element; its second half is printed on the next page
    doc = converted(PAPERS / "paperqa_paper.pdf")
    assert page_of(doc, "For the 'pineapple' scent, the following natural language") == 21
    assert page_of(doc, "The molecule 2,4-decadienal, which is known to have") == 20
    # a paragraph a figure page interrupted goes on two pages later
    assert page_of(doc, "There are some exceptions though, like tert-amyl acetate") == 20


@pytest.mark.shared
def test_side_by_side_authors_do_not_pull_reading_order_into_a_column(converted):
    doc = converted(PAPERS / "grobid_test_Grobid_2_05982691.pdf")
    texts = [b.text for b in doc.blocks if b.page == 1]
    authors = next(i for i, t in enumerate(texts) if "Usama Ahmed" in t)
    abstract = next(i for i, t in enumerate(texts) if t.startswith("Abstract"))
    body = next(i for i, t in enumerate(texts) if "Wireless sensor networks offer unique" in t)
    assert authors < abstract < body
    assert "Faisal Bashir Hussain" in texts[authors]  # the second author's column, same block


@pytest.mark.shared
def test_publisher_footer_stays_out_of_the_text_but_its_doi_is_kept(converted):
    doc = converted(PAPERS / "grobid_test_Grobid_1_05452615.pdf")
    assert not any("DOI 10.1109" in b.text for b in doc.blocks)
    assert "10.1109/DSDE.2010.49" in doc.margin_text


@pytest.mark.shared
def test_a_papers_sections_nest_and_table_heads_are_not_sections(converted):
    doc = converted(PAPERS / "paperqa_pasa.pdf")
    levels = {b.text: b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert levels["3.1 AutoScholarQuery"] > levels["3 Datasets"]
    assert (
        levels["A.1 Imitation learning data generation"]
        > levels["A Implementation Details of the Crawler"]
    )
    assert "Method" not in levels  # a table's column head, three times
    assert page_of(doc, "AutoScholarQuery") <= 3
