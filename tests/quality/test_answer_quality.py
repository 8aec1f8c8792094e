"""answer: the fallback ("not found") per half and kind of
benchmarks/data/answer_questions.json, and the answered questions whose best quote is on an
expected page of the expected paper, on the quality project. Outcome per question: the
fallback's reason, or the citation and the start of the quote. Benchmark:
benchmarks/answer_abstention.py."""

from __future__ import annotations

from typing import Any

import pytest
from benchmarks import answer_abstention

from citeloom.services.usecases.answer import ANSWER, AnswerRequest, AnswerResponse
from tests.conftest import CORPUS
from tests.quality.conftest import PROJECT
from tests.quality.floors import Figure, hold, share

pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]


class Asked:
    """What ``answer_abstention.measure`` asks, answered through the application: each
    question a request of the answer use case, as every door sends it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def answer(self, question: str) -> AnswerResponse:
        return self.app.run(ANSWER, AnswerRequest(project=PROJECT, question=question))


def test_answer_falls_back_only_where_no_paper_answers(quality_project):
    asked = Asked(quality_project(CORPUS).app())
    answered = {a.question["id"]: a for a in answer_abstention.measure(
        asked, answer_abstention.questions()
    )}  # fmt: skip
    figures: list[Figure] = []
    for half in ("tune", "test"):
        mine = {i: a for i, a in answered.items() if a.question["half"] == half}
        for kind in answer_abstention.KINDS:
            fell_back = {i: a.fallback for i, a in mine.items() if a.question["kind"] == kind}
            # an answerable question sent away is a user sent away for nothing: held low
            lower = kind != "unanswerable"
            figures.append(share(f"{half} {kind}: fallback", fell_back, lower=lower))
        on_page = {i: a.on_page for i, a in mine.items() if a.on_page is not None}
        figures.append(share(f"{half} answered on the expected page", on_page))
    outcomes = {i: ("fallback: " if a.fallback else "") + a.said for i, a in answered.items()}
    hold("answer", __doc__, figures, outcomes, __file__)
