"""The answer use case: the library's own sentences that answer a question, verbatim.

Extractive only: the best-supporting sentence of the top passages (QueryService's ranking,
unchanged) and at most two close runners-up, each exactly as stored, with the page it is on,
its section path and chunk, and verified on that page of the stored document text. When the
question's informative words are not covered or the best sentence is weak, there is no
answer: the best passages are listed as leads instead, never a weak sentence dressed as one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citeloom.domain.diversity import diversify
from citeloom.domain.records import Passage
from citeloom.services.evidence import SentenceEvidence, Support
from citeloom.services.query import QueryOptions, QueryService

NO_ANSWER = "No answer found in the library."
MAX_QUOTES = 3


@dataclass
class AnswerReport:
    question: str
    project: str
    citations: list[Support] = field(default_factory=list)
    confidence: float = 0.0
    fallback: bool = True
    leads: list[Passage] = field(default_factory=list)
    note: str | None = None

    @property
    def answer(self) -> str | None:
        return None if self.fallback else " ".join(s.quote for s in self.citations)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question,
            "project": self.project,
            "answer": self.answer,
            "citations": [s.to_json() for s in self.citations],
            "confidence": round(self.confidence, 3),
            "fallback": self.fallback,
        }
        if self.fallback:
            out["leads"] = [p.to_json() for p in self.leads]
        if self.note:
            out["note"] = self.note
        return out


class AnswerService:
    def __init__(
        self,
        query: QueryService,
        evidence: SentenceEvidence,
        *,
        min_confidence: float = 0.5,
        passages: int = 5,
        runner_up_margin: float = 0.05,
    ) -> None:
        self.query = query
        self.evidence = evidence
        self.min_confidence = min_confidence
        self.passages = passages
        self.runner_up_margin = runner_up_margin

    def answer(self, question: str) -> AnswerReport:
        found = self.query.search(question, QueryOptions(top_k=self.passages))
        report = AnswerReport(question, self.query.project, note=found.note)
        report.leads = found.results
        supports = self.evidence.supports(question, found.results)
        if not supports:
            return report
        best = supports[0]
        report.confidence = min(best.score, found.confidence)
        if not found.answerable or best.score < self.min_confidence:
            return report
        close = [s for s in supports if s.score >= best.score - self.runner_up_margin]
        report.citations = diversify(close, lambda s: s.quote, lambda s: s.quote, limit=MAX_QUOTES)
        report.fallback = False
        return report
