"""The draft checker over fakes: one verdict per citation, exit status from the report."""

from __future__ import annotations

import pytest

from citeloom.services.check import CheckService
from citeloom.services.evidence import SentenceEvidence
from citeloom.services.query import QueryService
from citeloom.services.usecases.check import CheckResponse
from tests.fakes import FakeDocumentText, FakeEmbedder, FakeIndex
from tests.unit.test_answer import OTHER, PAGE2, PAGE3, SHA, store


@pytest.fixture
def checker() -> CheckService:
    """ardel2023marsh is printed on pp. 272-275: PDF page 3 is p. 274."""
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    chunks = [(f"{PAGE2}\n{PAGE3}", ("3 Results",), 2, 3)]
    store(index, embedder, SHA, "ardel2023marsh", chunks, page="272-275")
    store(index, embedder, "b" * 64, "lee2019quiet", [(OTHER, ("1 Intro",), 1, 1)])
    texts = FakeDocumentText({SHA: {2: PAGE2, 3: PAGE3}, "b" * 64: {1: OTHER}})
    query = QueryService(project="p", collection="c", embedder=embedder, index=index)
    evidence = SentenceEvidence(collection="c", embedder=embedder, index=index, texts=texts)
    keys = ["ardel2023marsh", "lee2019quiet", "absent2020"]
    return CheckService(query, evidence, keys)


CLAIM = "Restored marshes accreted sediment at 6.8 mm per year after the breach"
QUIET = "Quiet hours reduce interruptions in open-plan offices by a third"


def verdicts(checker: CheckService, draft: str) -> list[tuple[str, str, str | None]]:
    report = checker.check(draft, "draft.md")
    return [(c.citation.citekey, c.verdict, c.suggested_page) for c in report.checks]


def test_each_verdict_reads_and_suggests_printed_pages(checker):
    draft = "\n\n".join(
        [
            f"{CLAIM} [@ardel2023marsh, p. 274].",
            f"{CLAIM} [@ardel2023marsh, p. 273].",
            f"{CLAIM} [@ardel2023marsh].",
            f"{QUIET} [@ardel2023marsh, p. 274].",
            f"{CLAIM} [@nobody2001, p. 3].",
            f"{CLAIM} [@absent2020, p. 1].",
            f"{CLAIM} [@ardel2023marsh, pp. 273-74].",
        ]
    )
    assert verdicts(checker, draft) == [
        ("ardel2023marsh", "supported", None),
        ("ardel2023marsh", "other-page", "274"),
        ("ardel2023marsh", "no-page", "274"),
        ("ardel2023marsh", "not-found", None),
        ("nobody2001", "unknown-key", None),
        ("absent2020", "not-ingested", None),
        ("ardel2023marsh", "supported", None),
    ]


def test_a_pdf_page_number_that_is_no_printed_page_gets_its_own_verdict(checker):
    (only,) = checker.check(f"{CLAIM} [@ardel2023marsh, p. 3].").checks
    assert (only.verdict, only.printed_range, only.suggested_page) == (
        "no-such-page",
        "272-275",
        "274",
    )
    assert "p. 3 is not a page of this paper (printed pp. 272-275)" in only.message


@pytest.mark.parametrize(
    ("claim", "kind", "draft_says", "page_says"),
    [
        ("Restored marshes accreted sediment at 12.5 mm per year after the breach", "number",
         "12.5 mm per year", "6.8 mm per year"),
        ("Restored marshes accreted sediment at 6.8 cm per year after the breach", "unit",
         "6.8 cm per year", "6.8 mm per year"),
        ("Restored marshes did not accrete sediment after the breach", "negation",
         "not accrete sediment after the", "affirms it"),
    ],
)  # fmt: skip
def test_a_claim_that_changes_one_fact_is_a_mismatch_naming_it(
    checker, claim, kind, draft_says, page_says
):
    (only,) = checker.check(f"{claim} [@ardel2023marsh, p. 274].").checks
    assert only.verdict == "mismatch"
    assert (only.differences[0].kind, only.differences[0].draft) == (kind, draft_says)
    assert only.differences[0].page == page_says
    assert only.evidence is not None and only.evidence.quote.startswith("Restored marshes")
    assert only.message.startswith(f"draft: {draft_says}; p. 274:")


def test_a_note_is_never_evidence_for_a_claim(checker):
    """A note that says what the paper does not (issue 19: the Blackwater estuary) is not
    the paper's words: a claim taken from it is not supported by the paper."""
    index = checker.query.index
    embedder = checker.query.embedder
    note = "Restored marshes of the Blackwater estuary accreted sediment after the breach."
    store(index, embedder, "c" * 64, "ardel2023marsh", [(note, (), 3, 3)], "272-275", "note:cc")
    (only,) = checker.check(f"{note.rstrip('.')} [@ardel2023marsh, p. 274].").checks
    assert only.verdict != "supported"
    assert only.evidence is None or "Blackwater" not in only.evidence.quote


def test_not_found_lists_the_papers_that_do_support_the_claim(checker):
    report = checker.check(f"{QUIET} [@ardel2023marsh, p. 274].")
    (only,) = report.checks
    assert only.verdict == "not-found"
    assert [(s.citekey, s.page, s.quote) for s in only.elsewhere] == [("lee2019quiet", 1, OTHER)]
    assert (
        not report.ok
        and CheckResponse.from_report(report).dump()["citations"][0]["elsewhere"][0]["page"] == 1
    )


def test_a_draft_whose_citations_all_hold_is_ok(checker):
    report = checker.check(f"{CLAIM} [@ardel2023marsh, p. 274]. {QUIET} [@lee2019quiet, p. 1].")
    assert [c.verdict for c in report.checks] == ["supported", "supported"]
    assert report.ok and CheckResponse.from_report(report).dump()["counts"]["supported"] == 2
    evidence = report.checks[0].evidence
    assert (
        evidence is not None
        and evidence.quote.startswith("Restored marshes")
        and evidence.page == 3
    )


def test_between_runs_before_every_citation_but_the_first_and_can_stop_the_check(checker):
    from citeloom.domain.errors import TimeLimitExceeded

    draft = "\n\n".join([f"{CLAIM} [@ardel2023marsh, p. 274]."] * 3)
    calls: list[int] = []
    report = checker.check(draft, "draft.md", between=lambda: calls.append(len(calls)))
    assert calls == [0, 1] and len(report.checks) == 3

    def time_is_up() -> None:
        raise TimeLimitExceeded("time is up")

    with pytest.raises(TimeLimitExceeded):  # no report of the citations judged so far
        checker.check(draft, "draft.md", between=time_is_up)


def test_a_cited_page_that_discusses_the_claim_stays_unconfirmed_naming_the_stating_page():
    """The cited page speaks of the claim in its own words while another page (an abstract)
    states it verbatim: the reader's page is the cited one, so the verdict is unconfirmed,
    with the stating page as a hint rather than other-page."""
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    discussing = "Restored marshes accreted sediment after the breach, faster than before."
    store(index, embedder, SHA, "ardel2023marsh", [(f"{PAGE3}\n{discussing}", ("1",), 2, 3)],
          page="272-275")  # fmt: skip
    texts = FakeDocumentText({SHA: {2: PAGE3, 3: discussing}})
    query = QueryService(project="p", collection="c", embedder=embedder, index=index)
    evidence = SentenceEvidence(collection="c", embedder=embedder, index=index, texts=texts)
    checker = CheckService(query, evidence, ["ardel2023marsh"])
    (check,) = checker.check(f"{CLAIM} [@ardel2023marsh, p. 274].", "draft.md").checks
    assert check.verdict == "unconfirmed"
    assert check.message.endswith("p. 273 states it")


REFERENCE_ENTRY = "Saltmarsh sediment accretion doubled in the Blackwater estuary after the breach."


def _with_a_reference_list(section: tuple[str, ...], heading: bool):
    """ardel2023marsh with a reference list on PDF page 4 (p. 275), whose entry's title reads
    like a claim; the list's heading as a conversion gives it, or lost."""
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    page4 = ("References\n" if heading else "") + REFERENCE_ENTRY
    chunks = [(f"{PAGE2}\n{PAGE3}", ("3 Results",), 2, 3), (page4, section, 4, 4)]
    store(index, embedder, SHA, "ardel2023marsh", chunks, page="272-275")
    kinds = {SHA: {"References": "heading"}}
    texts = FakeDocumentText({SHA: {2: PAGE2, 3: PAGE3, 4: page4}}, kinds)
    query = QueryService(project="p", collection="c", embedder=embedder, index=index)
    evidence = SentenceEvidence(collection="c", embedder=embedder, index=index, texts=texts)
    return CheckService(query, evidence, ["ardel2023marsh"]), texts


@pytest.mark.parametrize(
    ("section", "heading"), [(("References",), True), (("4 Discussion",), True)]
)
def test_a_reference_list_entry_is_never_evidence_for_a_claim(section, heading):
    """An entry of the paper's bibliography names another work: the paper does not state it
    (issue 27: "In online proceedings of CLEF 2007" supported a claim about CLEF 2008)."""
    checker, _ = _with_a_reference_list(section, heading)
    (only,) = checker.check(f"{REFERENCE_ENTRY.rstrip('.')} [@ardel2023marsh, p. 275].").checks
    assert only.verdict != "supported"
    assert only.evidence is None or only.evidence.quote != REFERENCE_ENTRY
    # the same sentence in the body of the page is the paper's own words
    body, _ = _with_a_reference_list(("4 Discussion",), heading=False)
    (stated,) = body.check(f"{REFERENCE_ENTRY.rstrip('.')} [@ardel2023marsh, p. 275].").checks
    assert stated.verdict == "supported"


def test_a_citation_that_cannot_be_read_is_malformed_at_its_line_and_fails_the_check(checker):
    """Issue 42: ``[@key, p. 45`` and ``\\cite[p.~45]{key`` without their closing bracket were
    dropped (the run said "1 citation" and passed), and ``pp. 275-273`` was judged on p. 275
    alone. Each is now ``malformed`` at its line with the fix, counted, and fails the check
    by default, at every door that shows the report."""
    from citeloom.entrypoints.render import check_text

    draft = "\n".join(
        [
            f"{CLAIM} [@ardel2023marsh, p. 274.",
            f"{CLAIM} \\cite[p.~274]{{ardel2023marsh.",
            f"{CLAIM} [@ardel2023marsh, pp. 275-273].",
            f"{QUIET} [@lee2019quiet, p. 1].",
        ]
    )
    report = checker.check(draft, "draft.md")
    assert [(c.citation.line, c.verdict) for c in report.checks] == [
        (1, "malformed"),
        (2, "malformed"),
        (3, "malformed"),
        (4, "supported"),
    ]
    assert [c.message for c in report.checks[:3]] == [
        "[@ardel2023marsh, p. 274 has no closing ']': write [@ardel2023marsh, p. 274]",
        "\\cite[p.~274]{ardel2023marsh has no closing '}': write \\cite[p.~274]{ardel2023marsh}",
        "the page range 275-273 runs backwards: write 273-275, or the pages meant",
    ]
    assert report.counts["malformed"] == 3 and not report.ok
    assert [c.citation.sentence for c in report.checks[:2]] == [f"{CLAIM}."] * 2
    data = CheckResponse.from_report(report).dump()
    assert data["counts"]["malformed"] == 3 and "malformed" in data["fail_on"]
    assert data["citations"][0]["verdict"] == "malformed" and not data["ok"]
    shown = check_text(CheckResponse.from_report(report))
    assert "draft.md:1:72  malformed    @ardel2023marsh (p. 274)" in shown
    assert "write [@ardel2023marsh, p. 274]" in shown
    assert shown.endswith("4 citations: 1 supported, 3 malformed; 3 failing")
