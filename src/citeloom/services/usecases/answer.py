"""answer: a question answered with the papers' own sentences, each verified on its page, or
"No answer found in the library." with the passages that came closest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from citeloom.services.usecases.base import Request, Response, UseCase
from citeloom.services.usecases.query import EXAMPLE_QUERY, Filters, words
from citeloom.services.usecases.wire import CitationOut, PassageOut

if TYPE_CHECKING:
    from citeloom.services.answer import AnswerReport
    from citeloom.services.deadline import Deadline
    from citeloom.services.usecases.dependencies import Dependencies

QuestionText = Annotated[str, words("question", f'ask in words, e.g. "{EXAMPLE_QUERY}?".')]


class AnswerRequest(Request):
    question: QuestionText = Field(
        description="A question the project's papers may answer, in plain words, e.g. 'how "
        "fast do marshes grow?'"
    )
    within: Filters | None = Field(
        None,
        description="Answer only from the passages these filters let through (those of "
        "POST /query: citekeys, tags, collections, year_from, year_to, section); unset: the "
        "whole project.",
    )
    with_passages: bool = Field(
        False,
        description="Also return the passages the answer was sought in (leads) beside an "
        "answer; without an answer they are returned anyway.",
    )


class AnswerResponse(Response):
    question: str = Field(description="The question as sent.")
    project: str = Field(description="The project searched.")
    answer: str | None = Field(
        description="Sentences of the papers, verbatim; null when there is no answer."
    )
    citations: list[CitationOut] = Field(description="One per sentence of the answer, in order.")
    confidence: float = Field(description="0 to 1: how well the passages cover the question.")
    fallback: bool = Field(description='True: "No answer found in the library." See leads.')
    leads: list[PassageOut] | None = Field(
        None,
        description="The passages the answer was sought in, best first: on fallback the ones "
        "that came closest, to read yourself; beside an answer only when with_passages.",
    )
    reason: str | None = Field(None, description="Why there is no answer (fallback only).")
    absent: list[str] | None = Field(
        None, description="Names in the question that no document of the project mentions."
    )
    note: str | None = Field(None, description="Why passages are missing: nothing ingested.")

    @classmethod
    def from_report(cls, report: AnswerReport, with_passages: bool = False) -> AnswerResponse:
        optional: dict[str, Any] = {}
        if report.fallback or with_passages:
            optional["leads"] = [PassageOut.from_passage(p) for p in report.leads]
        if report.fallback:
            optional["reason"] = report.reason
        if report.absent:
            optional["absent"] = report.absent
        if report.note:
            optional["note"] = report.note
        return cls(
            question=report.question,
            project=report.project,
            answer=report.answer,
            citations=[CitationOut.from_support(s) for s in report.citations],
            confidence=round(report.confidence, 3),
            fallback=report.fallback,
            **optional,
        )


def answer(deps: Dependencies, request: AnswerRequest, deadline: Deadline | None) -> AnswerResponse:
    embedder = deps.embedder(request.project)
    evidence = deps.evidence(request.project)
    within = request.within
    options = within.options(deps.builders.per_doc) if within is not None else None
    with deps.index(deadline, request.project) as index:
        service = deps.builders.answer_service(request.project, index, embedder, evidence)
        report = service.answer(request.question, options)
    return AnswerResponse.from_report(report, request.with_passages)


ANSWER = UseCase("answer", AnswerRequest, AnswerResponse, answer)
