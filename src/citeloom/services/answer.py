"""The answer use case: the library's own sentences that answer a question, verbatim.

Extractive only: the best-supporting sentence of the top passages (QueryService's ranking,
unchanged) and at most two close runners-up, each exactly as stored, with the page it is on,
its section path and chunk, and verified on that page of the stored document text (a note is
never quoted). There is no answer, and the best passages are listed as leads instead, never a
weak sentence dressed as one, when:

- the question names something no document of the project mentions (an acronym, a model or
  dataset name, a capitalised name: "Nothing in this library mentions ImageNet"), in no
  spelling a text layer may give it (``domain.names.mentioned``);
- the question's informative words are not covered, or the best sentence is weak;
- no sentence sure enough of the question carries its focus (``domain.questions``): a number
  for "how many", the asked-for kind for "which X".
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from citeloom.domain.diversity import diversify
from citeloom.domain.names import mentioned, names
from citeloom.domain.questions import missing_focus
from citeloom.domain.records import Passage
from citeloom.domain.text import spellings
from citeloom.ports import SearchFilter
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
    absent: list[str] = field(default_factory=list)  # names no document mentions
    reason: str | None = None  # why there is no answer, when there is none

    @property
    def answer(self) -> str | None:
        return None if self.fallback else " ".join(s.quote for s in self.citations)


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

    def answer(self, question: str, within: QueryOptions | None = None) -> AnswerReport:
        """``within``: answer from the passages these filters let through (papers, tags,
        years, section), as ``query`` would list them; its ``top_k`` and budget are ours."""
        options = replace(within or QueryOptions(), top_k=self.passages, budget=None)
        found = self.query.search(question, options)
        report = AnswerReport(question, self.query.project, note=found.note)
        report.leads = found.results
        if not found.results:
            return report
        authors = {n for p in found.results for n in p.family_names}
        report.absent = self._absent(question, authors, found.results)
        if report.absent:
            report.reason = f"Nothing in this library mentions {_listed(report.absent)}."
            return report
        supports = self.evidence.supports(question, found.results)
        if not supports:
            report.reason = "No sentence of the best passages could be verified on its page."
            return report
        report.confidence = min(supports[0].score, found.confidence)
        if not found.answerable or supports[0].score < self.min_confidence:
            report.reason = "The library's passages do not cover the question well enough."
            return report
        focused = [
            s
            for s in supports
            if s.score >= self.min_confidence
            and not missing_focus(question, self.evidence.window(s))
        ]
        if not focused:
            lacking = missing_focus(question, self.evidence.window(supports[0]))
            report.reason = f"No sentence found that states {_listed(lacking)} the question asks."
            return report
        best = focused[0]
        report.confidence = min(best.score, found.confidence)
        close = [s for s in focused if s.score >= best.score - self.runner_up_margin]
        report.citations = diversify(close, lambda s: s.quote, lambda s: s.quote, limit=MAX_QUOTES)
        report.fallback = False
        return report

    def _absent(self, question: str, authors: set[str], found: list[Passage]) -> list[str]:
        """The question's names (acronyms, model and dataset names, capitalised names) that
        no chunk of the project mentions; the papers' own authors are not asked about."""
        return [name for name in names(question, authors) if not self._mentioned(name, found)]

    def _mentioned(self, name: str, found: list[Passage]) -> bool:
        """Whether some chunk of the project mentions ``name`` (``domain.names.mentioned``).
        The passages found for the question are read first, with the whole rule; then the
        index is asked for each spelling as a phrase, one count per spelling until one is
        there (a capitalised run named word by word is only seen in the passages found: an
        index lowercases, and could not tell "Chicago, Ohio and Illinois" from "semantic"
        near "Google Scholar")."""
        if any(mentioned(p.text, name) for p in found):
            return True
        index, collection = self.query.index, self.query.collection
        return any(
            index.count(collection, SearchFilter(self.query.project, phrases=(" ".join(words),)))
            for words in spellings(name)
        )


def _listed(items: list[str]) -> str:
    """ "A", "A or B", "A, B or C"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"
