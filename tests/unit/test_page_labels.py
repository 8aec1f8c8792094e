"""Printed page labels: which page a citation names, from what a PDF prints (domain rules)."""

import pytest

from citeloom.domain.citation import citation_label
from citeloom.domain.page_labels import (
    PageLabels,
    PageMarks,
    decide_labels,
    from_labels,
    library_range,
    pages_choice,
    split_label,
)
from citeloom.domain.printed_pages import page_tokens


def marks(lines: dict[int, list[str]], pages: int, words: int = 500, **extra) -> PageMarks:
    return PageMarks(
        margin_lines=tuple((page, text) for page, texts in lines.items() for text in texts),
        page_words=extra.pop("page_words", (words,) * pages),
        page_openings=extra.pop("page_openings", ("Some body text.",) * pages),
        **extra,
    )


def test_a_journal_article_is_labelled_with_its_printed_pages_first_page_implied():
    # Postgrad Med J style: the first page prints only the journal's range in its footer
    lines = {1: ["Postgrad Med J 2010;86:272-278. doi:10.1136/pgmj.2009.089987"]}
    lines |= {p: [str(271 + p), "Postgrad Med J 2010;86:272-278"] for p in range(2, 8)}
    labels = decide_labels(7, marks(lines, 7), None)
    assert labels.source == "printed"
    assert labels.labels() == [str(n) for n in range(272, 279)]
    assert labels.span() == "272-278"
    assert labels.page_of("273") == 2 and labels.page_of("300") is None


def test_numbers_of_figure_axes_and_years_at_the_edges_are_outvoted():
    lines = {p: [f"{p} Running head of the paper"] for p in range(1, 11)}
    lines[4] += ["0", "50", "100", "150"]  # a plot's axis at the bottom edge
    lines[7] += ["Proceedings of the Workshop 2010"]
    labels = decide_labels(10, marks(lines, 10), "1-10")
    assert labels.source == "printed" and labels.labels() == [str(p) for p in range(1, 11)]
    assert labels.disagree is None  # the library's range agrees


def test_the_librarys_range_wins_over_other_printed_numbers_and_both_are_named():
    """Issue 28: the library said pp. 205-218, the PDF (another printing) printed 1-14, and
    the printed numbers won silently."""
    lines = {p: [f"To appear in OSDI 2006 {p}"] for p in range(1, 15)}
    labels = decide_labels(14, marks(lines, 14), "205-218")
    assert labels.source == "library" and labels.span() == "205-218"
    assert labels.disagree is not None and not labels.disagree.chosen
    assert (labels.disagree.library, labels.disagree.printed) == ("205-218", "1-14")
    assert "the library says pp. 205-218, the PDF prints pp. 1-14: cited as pp. 205-218" in str(
        labels.disagree
    )
    assert "citeloom-pages: printed" in str(labels.disagree)  # how to choose the other
    chosen = decide_labels(14, marks(lines, 14), "205-218", choice="printed")
    assert (chosen.source, chosen.span()) == ("printed", "1-14")
    assert chosen.disagree is not None and chosen.disagree.chosen
    # a range that does not fit the pages cannot label them: the printed numbers, said so
    longer = decide_labels(14, marks(lines, 14), "205-230")
    assert (longer.source, longer.span()) == ("printed", "1-14")
    assert longer.disagree is not None and "does not fit" in str(longer.disagree)


def test_an_entrys_choice_is_a_line_in_its_extra_field():
    assert pages_choice("Citation Key: x\nciteloom-pages: printed\n") == "printed"
    assert pages_choice("CITELOOM PAGES: Library") == "library"
    assert pages_choice("pages printed") is None and pages_choice(None) is None


def test_a_two_up_scan_gets_both_printed_pages_on_each_pdf_page():
    lines = {2: ["2"]} | {p: [str(2 * p - 3), str(2 * p - 2)] for p in range(3, 9)}
    labels = decide_labels(8, marks(lines, 8), None)
    assert labels.labels() == ["1", "2", "3-4", "5-6", "7-8", "9-10", "11-12", "13-14"]
    assert labels.page_of("8") == 5 and labels.page_of("7") == 5
    assert citation_label("k", labels.label(5), labels.label(5)) == "[@k, p. 7-8]"


def test_roman_front_matter_then_arabic_pages():
    lines = {p: [["i", "ii", "iii", "iv"][p - 1]] for p in range(1, 5)}
    lines |= {p: [str(p - 4)] for p in range(5, 12)}
    labels = decide_labels(11, marks(lines, 11), None)
    assert labels.labels()[:6] == ["i", "ii", "iii", "iv", "1", "2"]
    assert labels.page_of("iii") == 3 and labels.page_of("3") == 7


def test_an_excerpt_keeps_its_own_counters_and_starts_at_page_one():
    # pages 1, 9, 10, 11 of an 11-page article; its first page prints no counter
    lines = {p: [f"Page {n} of 11", "Journal 2010, 4:1"] for p, n in ((2, 9), (3, 10), (4, 11))}
    labels = decide_labels(4, marks(lines, 4), None)
    assert labels.labels() == ["1", "9", "10", "11"]


def test_an_unnumbered_supplement_after_the_article_is_numbered_s1_s2():
    lines = {p: [str(304 + p)] for p in range(1, 10)}
    openings = ["Body."] * 9 + ["SUPPLEMENTARY ONLINE DATA Fragment-based design"] + ["More."] * 3
    labels = decide_labels(13, marks(lines, 13, page_openings=tuple(openings)), "305-313")
    assert labels.labels()[8:] == ["313", "S1", "S2", "S3", "S4"]


def test_a_sampled_document_keeps_each_pages_own_number():
    heads = {2: "iii", 4: "xi", 5: "1", 6: "2 Row and Column Access", 7: "4 Row and Column"}
    heads |= {8: "Chapter 2. Roles 11", 9: "Chapter 3. Access 19", 10: "124 Row and Column"}
    lines = {p: [text] for p, text in heads.items()}
    words = (40, *(400,) * 9)  # page 1: a cover of few words before full pages
    labels = decide_labels(10, marks(lines, 10, page_words=words), None)
    assert labels.labels() == [None, "iii", None, "xi", "1", "2", "4", "11", "19", "124"]


def test_the_library_range_numbers_pages_when_the_pdf_prints_none():
    labels = decide_labels(2, marks({}, 2), "272-273")
    assert (labels.source, labels.labels()) == ("library", ["272", "273"])
    # a download-stamp cover before the article is left unnumbered
    stamped = ("This content downloaded from 10.0.0.1 on Mon; all use subject to JSTOR", "Body")
    stamp = marks({}, 3, page_openings=(*stamped, "Body"), page_words=(90, 800, 800))
    labels = decide_labels(3, stamp, "272-273")
    assert labels.labels() == [None, "272", "273"]
    # a range that does not fit the page count is not guessed at: PDF pages
    labels = decide_labels(5, marks({}, 5), "272-273")
    assert (labels.source, labels.labels()) == ("pdf-page", ["1", "2", "3", "4", "5"])


def test_a_scanned_cover_sheet_before_a_born_digital_page_is_unnumbered():
    labels = decide_labels(2, marks({}, 2, page_words=(52, 205)), None, ocr_pages=(1,))
    assert (labels.source, labels.labels()) == ("pdf-page", [None, "2"])


@pytest.mark.parametrize(
    ("pdf_labels", "expected_source"),
    [
        (("147", "148", "149"), "pdf-labels"),  # informative: the journal's pages
        (("1", "2", "3"), "pdf-page"),  # just the page index: not evidence
        (("0", "1", "2"), "pdf-page"),  # a 0-based page index some producers write
    ],
)
def test_pdf_page_labels_count_only_when_they_say_more_than_the_page_index(
    pdf_labels, expected_source
):
    labels = decide_labels(3, marks({}, 3, pdf_labels=pdf_labels), None)
    assert labels.source == expected_source
    if expected_source == "pdf-labels":
        assert labels.labels() == list(pdf_labels)


def test_pdf_page_labels_the_printed_numbers_contradict_are_not_used():
    lines = {p: [f"Page {p} of 3"] for p in (1, 2, 3)}
    labels = decide_labels(3, marks(lines, 3, pdf_labels=("5", "6", "7")), None)
    assert (labels.source, labels.labels()) == ("printed", ["1", "2", "3"])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("273", [(None, "D", 273)]),
        ("- 4 -", [(None, "D", 4)]),
        ("xii", [(None, "r", 12)]),
        ("S3", [("S", "D", 3)]),
        ("7-45", [("7-", "D", 45)]),
        ("013001-3", [("013001-", "D", 3)]),
        ("Page 9 of 11", [(None, "D", 9)]),  # not the 11: that is the page count
        ("2/16", [(None, "D", 2)]),
        ("148 A. Author et al.", [(None, "D", 148)]),
        ("Row and Column Access Control Support in IBM DB2 for i", []),
        ("Received 12/2009", []),
    ],
)
def test_margin_lines_are_read_as_page_numbers(line, expected):
    got = [(t.prefix or None, t.style, t.number) for t in page_tokens(line)]
    assert got == expected


@pytest.mark.parametrize(
    ("page", "first", "last"),
    [("272-273", "272", "273"), ("1081-6", "1081", "1086"), ("305–13", "305", "313"),
     ("pp. 12--19", "12", "19"), ("S1-10", "S1", "S10"), ("xii-xx", "xii", "xx")],
)  # fmt: skip
def test_library_page_ranges_are_read_as_zotero_holds_them(page, first, last):
    bounds = library_range(page)
    assert bounds is not None
    assert (bounds[0].render(), bounds[1].render()) == (first, last)


@pytest.mark.parametrize("page", ["e0197919", "003", "", None, "12-3a"])
def test_one_page_or_an_article_number_is_no_range(page):
    assert library_range(page) is None


def test_labels_survive_the_payload_and_malformed_ones_are_refused():
    labels = from_labels([None, "iii", "1", "2", "S1", "3-4"], "printed")
    again = PageLabels.from_json(labels.to_json(), 6, "printed")
    assert again is not None and again.labels() == labels.labels()
    assert PageLabels.from_json([[1, "Q", "", 1]], 6, "printed") is None
    assert PageLabels.from_json(labels.to_json(), 6, "made-up") is None
    assert PageLabels.from_json("nonsense", 6, "printed") is None


def test_a_book_numbered_straight_through_is_stored_as_a_range_a_numbering():
    # every chunk of a document carries its labels: one range a page made each chunk of a
    # 1,064-page book carry 21 kB of them, and Qdrant Edge 1 GB for the book (issue 31)
    printed = [None, "i", "ii", "iii", *(str(n) for n in range(1, 998)), "S1", "S2"]
    printed += [f"{n}-{n + 1}" for n in range(1, 120, 2)]
    labels = from_labels(printed, "printed")
    assert len(labels.to_json()) == 5  # cover, roman, arabic, S-prefixed, two-up
    assert labels.labels() == printed
    again = PageLabels.from_json(labels.to_json(), len(printed), "printed")
    assert again is not None and again.labels() == printed


def test_a_citation_names_printed_pages_and_spans():
    assert citation_label("hong1999exact", "272", "273") == "[@hong1999exact, pp. 272-273]"
    assert citation_label("hong1999exact", "273", "273") == "[@hong1999exact, p. 273]"
    assert citation_label("k", None, None) == "[@k]"
    assert citation_label("k", "2", "2", note=True) == "[note on @k, p. 2]"
    # an entry without a usable citekey is cited by its Zotero item, never by a key
    assert (
        citation_label(None, "3", "3", item="TWIN0001")
        == "[no citekey: Zotero item TWIN0001, p. 3]"
    )
    assert citation_label(None, "3", "3") == "[no reference match, p. 3]"
    assert split_label("xii").number == 12 and split_label("XII").style == "R"
