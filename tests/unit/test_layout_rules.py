"""Layout rules on hand-built lines (no Docling): what becomes a heading, title, furniture."""

from citeloom.adapters.conversion.layout_lines import (
    Label,
    Line,
    PageContext,
    body_leading,
    looks_like_formula,
    section_key,
)
from citeloom.adapters.conversion.layout_regions import group_lines
from citeloom.adapters.conversion.layout_rules import classify_lines

W, H = 612.0, 792.0


def ctx(page: int = 2) -> PageContext:
    return PageContext(width=W, height=H, page_no=page, body_size=10.0, body_font="Times-Roman")


def line(text, l, t, size=10.0, font="Times-Roman", bold=0.0, width=None, **kw) -> Line:
    r = l + (width if width is not None else 5.0 * len(text))
    return Line(text, l, t, min(r, W - 50), t + size * 1.1, font=font, size=size, bold=bold, **kw)


def labels(lines):
    return {x.text: x.label for x in lines}


def test_bold_numbered_heading_and_body_text():
    lines = [
        line("2 Related Work", 72, 100, font="Times-Bold", bold=1.0),
        line("Earlier studies measured interruptions in offices and found that", 72, 115),
        line("developers rarely work long without being interrupted by someone.", 72, 127),
    ]
    classify_lines(lines, ctx())
    assert labels(lines)["2 Related Work"] is Label.SECTION_HEADER
    assert lines[1].label is Label.TEXT


def test_run_in_head_is_text():
    lines = [line("Methods. We sampled twelve cores", 72, 100, bold=0.3, run_in=True)]
    classify_lines(lines, ctx())
    assert lines[0].label is Label.TEXT


def test_running_heads_and_page_numbers_are_furniture():
    lines = [
        line("Ardel et al. Carbon burial", 72, 20, size=8),
        line("12", 300, 760, size=8),
        line("Body text of the page that goes on for a while and a while.", 72, 300),
    ]
    classify_lines(lines, ctx())
    assert lines[0].label is Label.PAGE_HEADER
    assert lines[1].label is Label.PAGE_FOOTER
    assert lines[2].label is Label.TEXT


def test_vertical_margin_stamp_is_furniture():
    stamp = Line("arXiv:2501.10120v1 [cs.IR] 17 Jan 2025", 19, 272, 36, 610, vertical=True)
    classify_lines([stamp], ctx(1))
    assert stamp.label is Label.PAGE_HEADER


def test_title_is_the_largest_text_on_page_one_not_the_masthead():
    lines = [
        line("Journal of Statistical Software", 200, 90, size=28),
        line("TIMP: An R Package for Modeling Spectroscopic Data", 110, 220, size=15, bold=1.0),
        line("Katharine M. Mullen", 130, 280, size=10.5, bold=1.0),
        line("Abstract", 280, 340, size=9, bold=1.0),
        line("TIMP is an R package for modeling multiway spectroscopic measurements.", 100, 360),
    ]
    classify_lines(lines, ctx(1))
    got = labels(lines)
    assert got["TIMP: An R Package for Modeling Spectroscopic Data"] is Label.TITLE
    assert got["Journal of Statistical Software"] is not Label.TITLE
    assert got["Katharine M. Mullen"] is Label.TEXT  # front matter, not a section
    assert got["Abstract"] is Label.SECTION_HEADER


def test_captions_formulas_and_table_rows_are_not_headings():
    lines = [
        line("Figure 3: Accretion by site", 72, 100, font="Times-Bold", bold=1.0),
        line("x = ∑ αᵢ βᵢ + γ", 200, 150, size=12),
        line("Total", 72, 200, font="Times-Bold", bold=1.0, width=30),
        line("0.42", 120, 200, width=20),
        line("0.57", 160, 200, width=20),
    ]
    classify_lines(lines, ctx())
    got = labels(lines)
    assert got["Figure 3: Accretion by site"] is Label.CAPTION
    assert got["x = ∑ αᵢ βᵢ + γ"] is Label.FORMULA
    assert got["Total"] is not Label.SECTION_HEADER


def test_two_columns_group_into_separate_regions():
    left = [
        line(f"left column line {i} with some words in it", 60, 100 + 12 * i, width=230)
        for i in range(5)
    ]
    right = [
        line(f"right column line {i} with other words", 320, 100 + 12 * i, width=230)
        for i in range(5)
    ]
    lines = left + right
    classify_lines(lines, ctx())
    regions = group_lines(lines, ctx())
    texts = [r.text for r in regions if r.label is Label.TEXT]
    assert len(texts) == 2
    assert all(("left" in t) != ("right" in t) for t in texts)


def double_spaced(first_top: float, count: int, indent_at: int | None = None) -> list[Line]:
    """Lines of 10-point prose 23 points apart (a gap of 12 points: double spacing)."""
    return [
        line(
            f"manuscript line {i} goes on with several more words here",
            90 if i == indent_at else 72,
            first_top + 23 * i,
            width=440 if i != indent_at else 422,
        )
        for i in range(count)
    ]


def test_a_double_spaced_paragraph_is_one_region_and_an_indent_starts_the_next():
    lines = double_spaced(100, 10, indent_at=6)
    page = PageContext(W, H, 2, 10.0, "Times-Roman", leading=body_leading(lines, 10.0))
    classify_lines(lines, page)
    regions = [r for r in group_lines(lines, page) if r.label is Label.TEXT]
    assert [len(r.lines) for r in regions] == [6, 4]
    # read at a journal's leading, the same lines are ten paragraphs
    assert len(group_lines(lines, ctx())) == 10


def test_leading_is_read_from_prose_not_from_a_tables_rows():
    single = [
        line(f"prose line {i} of a paper set in one column", 72, 100 + 12 * i) for i in range(8)
    ]
    assert 0.5 < body_leading(single, 10.0) < 1.5  # 12-point pitch, 11-point lines
    rows = [line(f"cell {i}", 72, 300 + 30 * i, width=40) for i in range(8)]
    assert body_leading(rows, 10.0) == 0.0  # short rows: no prose to read a leading from
    assert body_leading(double_spaced(100, 3), 10.0) == 0.0  # too few lines to tell


def test_an_enumeration_inside_a_sentence_is_not_a_list():
    lines = [
        line("models can contribute in three dimensions - 1) as a microscope to", 72, 100),
        line("gain insight not attainable through experiments 2) as a resource of", 72, 112),
        line("3) as an agent of understanding to uncover new observations.", 72, 124),
        line("The steps of the protocol are the following ones:", 72, 150),
        line("1) label every page of the notebook", 72, 162),
        line("2) photograph every spread", 72, 174),
        line("• a symbol bullet after a line that goes on without a stop", 72, 186),
    ]
    classify_lines(lines, ctx())
    assert [x.label for x in lines] == [
        *(Label.TEXT,) * 4,
        Label.LIST_ITEM,  # after a colon
        Label.LIST_ITEM,  # after a short item
        Label.LIST_ITEM,
    ]


def test_wrapped_heading_joins_but_next_numbered_heading_does_not():
    lines = [
        line("3 Results", 72, 100, size=12.5, font="Helvetica-Bold", bold=1.0),
        line("3.1 Accretion rates", 72, 114, size=10.5, font="Helvetica-Bold", bold=1.0),
        line("Restored sites accreted a mean of 6.8 millimetres per year.", 72, 128),
    ]
    classify_lines(lines, ctx())
    regions = group_lines(lines, ctx())
    heads = [r.text for r in regions if r.label is Label.SECTION_HEADER]
    assert heads == ["3 Results", "3.1 Accretion rates"]


def test_helpers():
    assert section_key("2. Related Work:") == "related work"
    assert looks_like_formula("E = mc² + ∫ f(x) dx")
    assert not looks_like_formula("doi:10.1088/1475-7516/2008/10/003")
