"""The draft checker over fakes: one verdict per citation, exit status from the report."""

from __future__ import annotations

import pytest

from citeloom.services.check import CheckService
from citeloom.services.evidence import SentenceEvidence
from citeloom.services.query import QueryService
from tests.fakes import FakeDocumentText, FakeEmbedder, FakeIndex
from tests.unit.test_answer import OTHER, PAGE2, PAGE3, SHA, store


@pytest.fixture
def checker() -> CheckService:
    index, embedder = FakeIndex(), FakeEmbedder(dimensions=64)
    store(index, embedder, SHA, "ardel2023marsh", [(f"{PAGE2}\n{PAGE3}", ("3 Results",), 2, 3)])
    store(index, embedder, "b" * 64, "lee2019quiet", [(OTHER, ("1 Intro",), 1, 1)])
    texts = FakeDocumentText({SHA: {2: PAGE2, 3: PAGE3}, "b" * 64: {1: OTHER}})
    query = QueryService(project="p", collection="c", embedder=embedder, index=index)
    evidence = SentenceEvidence(collection="c", embedder=embedder, index=index, texts=texts)
    keys = ["ardel2023marsh", "lee2019quiet", "absent2020"]
    return CheckService(query, evidence, keys)


CLAIM = "Restored marshes accreted sediment at 6.8 mm per year after the breach"
QUIET = "Quiet hours reduce interruptions in open-plan offices by a third"


def verdicts(checker: CheckService, draft: str) -> list[tuple[str, str, int | None]]:
    report = checker.check(draft, "draft.md")
    return [(c.citation.citekey, c.verdict, c.suggested_page) for c in report.checks]


def test_each_verdict(checker):
    draft = "\n\n".join(
        [
            f"{CLAIM} [@ardel2023marsh, p. 3].",
            f"{CLAIM} [@ardel2023marsh, p. 2].",
            f"{CLAIM} [@ardel2023marsh].",
            f"{QUIET} [@ardel2023marsh, p. 3].",
            f"{CLAIM} [@nobody2001, p. 3].",
            f"{CLAIM} [@absent2020, p. 1].",
        ]
    )
    assert verdicts(checker, draft) == [
        ("ardel2023marsh", "supported", None),
        ("ardel2023marsh", "other-page", 3),
        ("ardel2023marsh", "no-page", 3),
        ("ardel2023marsh", "not-found", None),
        ("nobody2001", "unknown-key", None),
        ("absent2020", "not-ingested", None),
    ]


def test_not_found_lists_the_papers_that_do_support_the_claim(checker):
    report = checker.check(f"{QUIET} [@ardel2023marsh, p. 3].")
    (only,) = report.checks
    assert only.verdict == "not-found"
    assert [(s.citekey, s.page, s.quote) for s in only.elsewhere] == [("lee2019quiet", 1, OTHER)]
    assert not report.ok and report.to_json()["citations"][0]["elsewhere"][0]["page"] == 1


def test_a_draft_whose_citations_all_hold_is_ok(checker):
    report = checker.check(f"{CLAIM} [@ardel2023marsh, p. 3]. {QUIET} [@lee2019quiet, p. 1].")
    assert [c.verdict for c in report.checks] == ["supported", "supported"]
    assert report.ok and report.to_json()["counts"]["supported"] == 2
    evidence = report.checks[0].evidence
    assert (
        evidence is not None
        and evidence.quote.startswith("Restored marshes")
        and evidence.page == 3
    )
