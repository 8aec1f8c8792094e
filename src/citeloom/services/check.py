"""The check use case: does each cited paper say what the draft claims, on the cited pages?

For every (citing sentence, citekey, pages) of a draft, the cited paper's passages are
searched for the claim (QueryService's ranking, restricted to that paper) and their whole
sentences scored against it (``SentenceEvidence``: verified on their page of the stored
text). One verdict each:

- ``supported``: a supporting sentence is on a cited page;
- ``other-page``: the support is on another page of the paper (which one is said);
- ``no-page``: supported, but the citation names no page (the page to add is said);
- ``not-found``: no sentence of the paper supports the claim; sentences of other papers of
  the project that do are listed;
- ``unknown-key``: the key is not in the references file;
- ``not-ingested``: the key is in the library but no document of it is in the project.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from citeloom.domain.draft_citations import DraftCitation, find_citations
from citeloom.services.evidence import SentenceEvidence, Support
from citeloom.services.query import QueryOptions, QueryService

Verdict = Literal["supported", "other-page", "no-page", "not-found", "unknown-key", "not-ingested"]
VERDICTS: tuple[Verdict, ...] = (
    "supported",
    "other-page",
    "no-page",
    "not-found",
    "unknown-key",
    "not-ingested",
)


@dataclass(frozen=True)
class CitationCheck:
    citation: DraftCitation
    verdict: Verdict
    evidence: Support | None = None  # the paper's best sentence for the claim, if any
    elsewhere: tuple[Support, ...] = ()  # not-found: other papers' supporting sentences

    @property
    def suggested_page(self) -> int | None:
        if self.verdict in ("other-page", "no-page") and self.evidence is not None:
            return self.evidence.page
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.citation.to_json(),
            "verdict": self.verdict,
            "suggested_page": self.suggested_page,
            "evidence": _support_json(self.evidence) if self.evidence else None,
            "elsewhere": [_support_json(s) for s in self.elsewhere],
        }


def _support_json(support: Support) -> dict[str, Any]:
    return {**support.to_json(), "score": round(support.score, 3)}


@dataclass
class CheckReport:
    draft: str
    project: str
    checks: list[CitationCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Exit 0 only when every citation is supported on its cited pages."""
        return all(c.verdict == "supported" for c in self.checks)

    @property
    def counts(self) -> dict[str, int]:
        return {v: sum(c.verdict == v for c in self.checks) for v in VERDICTS}

    def to_json(self) -> dict[str, Any]:
        return {
            "draft": self.draft,
            "project": self.project,
            "ok": self.ok,
            "counts": self.counts,
            "citations": [c.to_json() for c in self.checks],
        }


class CheckService:
    def __init__(
        self,
        query: QueryService,
        evidence: SentenceEvidence,
        citekeys: Iterable[str],
        *,
        support: float = 0.75,
        page_margin: float = 0.02,
        passages: int = 20,
        elsewhere: int = 3,
    ) -> None:
        self.query = query
        self.evidence = evidence
        self.citekeys = frozenset(citekeys)  # the references file's keys
        self.support = support
        self.page_margin = page_margin
        self.passages = passages
        self.elsewhere = elsewhere

    def check(self, text: str, draft: str = "", latex: bool | None = None) -> CheckReport:
        report = CheckReport(draft, self.query.project)
        citations = find_citations(text, latex)
        stored = {
            d.citekey for d in self.query.index.documents(self.query.collection, self.query.project)
        }
        for citation in citations:
            if citation.citekey not in self.citekeys:
                report.checks.append(CitationCheck(citation, "unknown-key"))
            elif citation.citekey not in stored:
                report.checks.append(CitationCheck(citation, "not-ingested"))
            else:
                report.checks.append(self.judge(citation))
        return report

    def judge(self, citation: DraftCitation) -> CitationCheck:
        claim = citation.sentence
        supports = self._supports(claim, (citation.citekey,)) if claim else []
        best = supports[0] if supports else None
        if best is None or best.score < self.support:
            others = [s for s in self._supports(claim, ()) if s.citekey != citation.citekey]
            strong = [s for s in others if s.score >= self.support][: self.elsewhere]
            return CitationCheck(citation, "not-found", best, tuple(strong))
        if not citation.pages:
            return CitationCheck(citation, "no-page", best)
        on_pages = [s for s in supports if s.page in citation.pages]
        if on_pages and on_pages[0].score >= max(self.support, best.score - self.page_margin):
            return CitationCheck(citation, "supported", on_pages[0])
        return CitationCheck(citation, "other-page", best)

    def _supports(self, claim: str, citekeys: tuple[str, ...]) -> list[Support]:
        if not any(ch.isalnum() for ch in claim):  # nothing to search by
            return []
        options = QueryOptions(top_k=self.passages, citekeys=citekeys, per_doc=None)
        found = self.query.search(claim, options)
        return self.evidence.supports(claim, found.results)
