"""Finding citations in drafts: every form the issue lists, with line, column and claim."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloom.domain.draft_citations import find_citations, parse_pages

MARKDOWN = """# Results

Restored marshes accreted 6.8 mm of sediment per year [@ardel2023marsh, p. 2].
Quiet hours cut interruptions by a third [see @lindqvist2021quiet, pp. 3-4].
Both effects were seen [@ardel2023marsh; @lindqvist2021quiet, p. 5] in field notes.
@tanabe2022notes [p. 5] describe notebooks kept in the field.
As @tanabe2022notes argue, paper lasts. Write to me at someone@example.org.
Citations after the stop still count. [@ardel2023marsh, 7]
"""

LATEX = r"""\section{Results}
Restored marshes accreted quickly \cite[p.~12]{ardel2023marsh}.
% a comment \cite{hidden2020}
Quiet hours helped \parencite[12]{lindqvist2021quiet}, as \textcite{tanabe2022notes} noted.
Several at once \cite{a2020,b2021} and \cite[see][pp.~3--4]{c2019}. \nocite{d2018}
"""


def test_pandoc_citations_with_keys_pages_positions_and_claims():
    found = find_citations(MARKDOWN)
    got = [(c.citekey, c.pages, c.line, c.column) for c in found]
    assert got == [
        ("ardel2023marsh", ("2",), 3, 55),
        ("lindqvist2021quiet", ("3", "4"), 4, 42),
        ("ardel2023marsh", (), 5, 24),
        ("lindqvist2021quiet", ("5",), 5, 24),
        ("tanabe2022notes", ("5",), 6, 1),
        ("tanabe2022notes", (), 7, 4),
        ("ardel2023marsh", ("7",), 8, 39),
    ]
    assert found[0].sentence == "Restored marshes accreted 6.8 mm of sediment per year."
    assert found[0].raw == "[@ardel2023marsh, p. 2]"
    assert found[2].sentence == "Both effects were seen in field notes."
    assert found[4].sentence == "describe notebooks kept in the field."
    assert found[6].sentence.startswith("Citations after the stop still count.")
    assert all("someone" not in c.citekey and c.citekey != "example" for c in found)


def test_latex_citations_skip_comments_and_nocite():
    found = find_citations(LATEX, latex=True)
    got = [(c.citekey, c.pages, c.line) for c in found]
    assert got == [
        ("ardel2023marsh", ("12",), 2),
        ("lindqvist2021quiet", ("12",), 4),
        ("tanabe2022notes", (), 4),
        ("a2020", (), 5),
        ("b2021", (), 5),
        ("c2019", ("3", "4"), 5),
    ]
    assert found[0].sentence == "Restored marshes accreted quickly."
    assert found[0].column == 35


def test_a_latex_draft_is_recognised_without_being_told():
    assert [c.citekey for c in find_citations(r"Text \cite{x2020}.")] == ["x2020"]


def test_braced_keys_are_read():
    found = find_citations("Marshes bury carbon [@{ardel2023marsh}, p. 2]. And @{odd:key/1} too.")
    assert [(c.citekey, c.pages) for c in found] == [("ardel2023marsh", ("2",)), ("odd:key/1", ())]


def test_page_locators():
    assert parse_pages("p. 12") == ("12",)
    assert parse_pages("pp. 3--4, 7") == ("3", "4", "7")
    assert parse_pages("S. 5") == ("5",)
    assert parse_pages("12") == ("12",)
    assert parse_pages("chap. 2") == ()
    assert parse_pages("pp. 3-400") == ("3",)
    # printed pages as a reader writes them: abbreviated ranges, roman numerals, supplements
    assert parse_pages("pp. 272-73") == ("272", "273")
    assert parse_pages("p. 1081-6") == tuple(str(n) for n in range(1081, 1087))
    assert parse_pages("p. xii") == ("xii",)
    assert parse_pages("pp. xii-xiv") == ("xii", "xiii", "xiv")
    assert parse_pages("p. S3") == ("S3",)
    assert parse_pages("273") == ("273",)
    assert parse_pages("sec. 4") == ()


HOSTILE = {
    "an unclosed [@ and a long line": lambda n: "[@" + "a" * n,
    "words after an unclosed [@": lambda n: "[@" + "word " * (n // 5),
    "citations back to back": lambda n: "Marshes bury carbon [@k, p. 1]. " * (n // 32),
    "@key [ unclosed, repeated": lambda n: "@k [" * (n // 4),
    "unclosed \\cite[, repeated": lambda n: "\\cite[" * (n // 6),
    "one \\cite{ with a huge key list": lambda n: "\\cite{" + "a," * (n // 2),
    "brackets only": lambda n: "[" * n,
    "at signs only": lambda n: "@" * n,
}


@pytest.mark.parametrize("make", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_megabyte_draft_reads_whole_and_finds_what_it_holds(make):
    """A megabyte of hostile text is read through: each of 31,250 citations back to back is
    found, and an unclosed bracket swallows nothing. How the time grows with the length (a
    quadratic parser froze the server for 50 s on one /check) is measured by
    benchmarks/draft_parsing.py, not here."""
    text = make(1_000_000)
    found = find_citations(text)
    if text.startswith("Marshes"):
        assert len(found) == 1_000_000 // 32
        assert {(c.citekey, c.pages) for c in found} == {("k", ("1",))}
    else:
        assert len(found) <= 1
    lines = text.split("\n")
    for citation in found:
        assert lines[citation.line - 1][citation.column - 1 :].startswith(citation.raw)


def test_an_unclosed_cite_ends_at_its_line_and_swallows_nothing():
    text = "Marshes \\cite{ardel2023marsh\nbury carbon [@lee2019quiet, p. 2]. And \\cite{b2021}."
    assert [(c.citekey, c.pages) for c in find_citations(text)] == [
        ("lee2019quiet", ("2",)),
        ("b2021", ()),
    ]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[]{}@;,.-~%\\ \nabcpS12x", max_size=400))
def test_any_text_reads_without_error_and_every_citation_points_into_it(text):
    lines = text.split("\n")
    for citation in find_citations(text):
        assert citation.citekey
        line = lines[citation.line - 1]
        assert line[citation.column - 1 :].startswith(citation.raw.split("\n")[0])
