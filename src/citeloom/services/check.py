"""The check use case: does each cited paper state what the draft claims, on the cited pages?

A draft cites printed pages (``[@hong1999exact, p. 273]``); each is mapped to the PDF page
that prints it, through the document's page labels. For every (claim, citekey, pages) the
sentences of the cited pages and of the paper's best passages for the claim (QueryService's
ranking, restricted to the paper) are scored against the claim (``SentenceEvidence``:
verified on their page of the stored text, never a note). The best sentence on a cited page
that speaks of the same thing is then held to the claim's facts (``domain.claims``): its
numbers and units, negation, direction and names. One verdict each:

- ``supported``: a sentence on a cited page states the claim, facts included;
- ``mismatch``: the paper speaks of the same thing with another value, unit, direction or
  name (what differs is named: "draft: 12 sites; p. 273: 8 sites");
- ``other-page``: the support is on another page of the paper (its printed page is said);
- ``no-page``: supported, but the citation names no page (the page to add is said);
- ``no-such-page``: the locator names no page of the paper (its printed range is said);
- ``not-found``: the paper does not state the claim; other papers of the project that do
  are listed;
- ``unknown-key``: the key is not in the references file;
- ``not-ingested``: the key is in the library but no document of it is in the project.

A claim made only of a page's technical terms ("As reported, TIMP kinscal kmat jvec.") is
supported by a page that holds those terms together, as ``query`` ranks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from citeloom.domain.abstention import covered_terms
from citeloom.domain.claims import Difference, contradictions, differences
from citeloom.domain.draft_citations import DraftCitation, find_citations
from citeloom.domain.models import DocumentSummary
from citeloom.domain.records import passage_from_payload
from citeloom.domain.relations import (
    NO_FLAGS,
    CitationNote,
    DocumentFacts,
    RelationGraph,
    WorkFlags,
    citation_notes,
)
from citeloom.ports import SearchFilter
from citeloom.services.evidence import SentenceEvidence, Support
from citeloom.services.query import QueryOptions, QueryService

Verdict = Literal[
    "supported",
    "mismatch",
    "other-page",
    "no-page",
    "no-such-page",
    "not-found",
    "unknown-key",
    "not-ingested",
]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)  # in the order counts are shown
PAGE_CHUNKS = 200  # chunks read from the cited pages of one paper (a page holds a few)


@dataclass(frozen=True)
class CitationCheck:
    citation: DraftCitation
    verdict: Verdict
    evidence: Support | None = None  # the paper's sentence the verdict rests on, if any
    elsewhere: tuple[Support, ...] = ()  # not-found: other papers' supporting sentences
    differences: tuple[Difference, ...] = ()  # mismatch: what the page says otherwise
    printed_range: str | None = None  # no-such-page: the pages the paper is printed on
    # about the cited paper, not the claim: its versions, retraction, errata, conflicts
    flags: WorkFlags = NO_FLAGS
    notes: tuple[CitationNote, ...] = ()

    @property
    def suggested_page(self) -> str | None:
        """The printed page to cite instead (or to add)."""
        if self.verdict in ("other-page", "no-page", "no-such-page") and self.evidence:
            return self.evidence.page_label
        return None

    @property
    def message(self) -> str:
        """What is wrong and what to do, in one line; empty when supported."""
        page = self.evidence.page_label if self.evidence else None
        if self.verdict == "mismatch":
            return "; ".join(d.describe(page) for d in self.differences)
        if self.verdict == "no-such-page":
            printed = f"pp. {self.printed_range}" if self.printed_range else "no numbered pages"
            hint = f"; the claim is on p. {page}" if page else ""
            return f"{self.citation.locator} is not a page of this paper (printed {printed}){hint}"
        if self.verdict in ("other-page", "no-page") and page:
            return f"cite p. {page}"
        if self.verdict == "not-found":
            return "the paper does not state this claim"
        if self.verdict == "unknown-key":
            return "not in the references file: check the key or export the library again"
        if self.verdict == "not-ingested":
            return "in the library, but no document of it is in this project: ingest its PDF"
        return ""


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


class CheckService:
    def __init__(
        self,
        query: QueryService,
        evidence: SentenceEvidence,
        citekeys: Iterable[str],
        *,
        support: float = 0.75,
        terse_coverage: float = 0.8,
        tie_margin: float = 0.05,
        contra_overlap: float = 0.3,
        passages: int = 20,
        elsewhere: int = 3,
    ) -> None:
        self.query = query
        self.evidence = evidence
        self.citekeys = frozenset(citekeys)  # the references file's keys
        self.support = support
        self.terse_coverage = terse_coverage
        self.tie_margin = tie_margin
        self.contra_overlap = contra_overlap
        self.passages = passages
        self.elsewhere = elsewhere
        self._papers: dict[str, list[DocumentSummary]] | None = None
        self._graph: RelationGraph | None = None

    def check(
        self,
        text: str,
        draft: str = "",
        latex: bool | None = None,
        between: Callable[[], None] | None = None,
    ) -> CheckReport:
        """Judge every citation of the draft. ``between`` is called before each citation but
        the first: a long-lived server lets a process waiting for the index have it there,
        and stops the check (by raising) when the request's time is up."""
        report = CheckReport(draft, self.query.project)
        for number, citation in enumerate(find_citations(text, latex)):
            if number and between is not None:
                between()
            report.checks.append(self.judge(citation))
        return report

    def papers(self) -> dict[str, list[DocumentSummary]]:
        """The project's documents of each citekey: papers only, a note is not the paper."""
        if self._papers is None:
            self._papers = {}
            for doc in self.query.index.documents(self.query.collection, self.query.project):
                if doc.citekey and doc.kind == "paper":
                    self._papers.setdefault(doc.citekey, []).append(doc)
        return self._papers

    def graph(self) -> RelationGraph:
        """The library's relations, with what the project's stored PDFs add."""
        if self._graph is None:
            facts = [
                DocumentFacts(d.doc_id, d.path, key, d.arxiv_stamp, d.also_fits)
                for key, docs in self.papers().items()
                for d in docs
            ]
            relations = self.query.relations
            self._graph = relations.with_documents(facts) if relations else RelationGraph()
        return self._graph

    def judge(self, citation: DraftCitation) -> CitationCheck:
        """The verdict on the claim, and what to know about the cited paper beside it."""
        check = self._judge(citation)
        if check.verdict == "unknown-key":
            return check
        documents = self.papers().get(citation.citekey, ())
        stamp = next((d.arxiv_stamp for d in documents if d.arxiv_stamp), None)
        flags = self.graph().flags(citation.citekey, stamp)
        return replace(check, flags=flags, notes=tuple(citation_notes(flags)))

    def _judge(self, citation: DraftCitation) -> CitationCheck:
        if citation.citekey not in self.citekeys:
            return CitationCheck(citation, "unknown-key")
        documents = self.papers().get(citation.citekey)
        if not documents:
            return CitationCheck(citation, "not-ingested")
        claim = citation.sentence
        if not any(ch.isalnum() for ch in claim):  # nothing to judge by
            return CitationCheck(citation, "not-found")
        cited = _cited_pages(citation, documents)
        ranked = self._supports(claim, (citation.citekey,))
        best = ranked[0] if ranked else None
        if citation.pages and not cited:
            printed = "; ".join(filter(None, (d.labels.span() for d in documents if d.labels)))
            strong = best if best is not None and best.score >= self.support else None
            return CitationCheck(citation, "no-such-page", strong, printed_range=printed or None)
        on_page: CitationCheck | None = None
        if cited and (candidates := self._on_cited_pages(claim, cited)):
            page_sentences = self._page_supports(claim, cited)
            on_page = self._facts(citation, candidates, "supported", page_sentences)
            if on_page.verdict == "supported":
                return on_page
        if best is None or best.score < self.support:
            return on_page or self._not_found(citation, best)
        sure = [s for s in ranked if s.score >= self.support]
        elsewhere = self._facts(citation, sure, "other-page" if cited else "no-page", ranked)
        # stated as claimed on another page: cite that one; else what the cited page says
        return elsewhere if elsewhere.verdict != "mismatch" else on_page or elsewhere

    def _on_cited_pages(self, claim: str, cited: dict[str, set[int]]) -> list[Support]:
        """The sentences of the cited pages that speak of the claim, best first: those sure
        enough of it, else the one holding most of the claim's terms when its page holds
        (nearly) all of them: a terse claim made of the page's technical terms."""
        supports = self._page_supports(claim, cited)
        strong = [s for s in supports if s.score >= self.support]
        if strong or not supports:
            return strong
        weights = self.evidence.term_weights(claim)
        total = sum(weights.values())
        if total <= 0:
            return []
        for page_support in _one_per_page(supports):
            page = self.evidence.page_text(page_support)
            share = sum(weights[t] for t in covered_terms(weights, [page])) / total
            if share >= self.terse_coverage:
                return [
                    max(
                        (s for s in supports if s.page == page_support.page),
                        key=lambda s: sum(weights[t] for t in covered_terms(weights, [s.quote])),
                    )
                ]
        return []

    def _page_supports(self, claim: str, cited: dict[str, set[int]]) -> list[Support]:
        """Every sentence of the cited pages, scored against the claim, best first."""
        passages = []
        for doc_id, pages in cited.items():
            for page in sorted(pages):
                filters = SearchFilter(self.query.project, doc_ids=(doc_id,), pages=(page, page))
                chunks = self.query.index.chunks(self.query.collection, filters, PAGE_CHUNKS)
                passages += [passage_from_payload(0, 0.0, i, p) for i, p in chunks.items()]
        return [
            s
            for s in self.evidence.supports(claim, passages, around=1, block_ends=True)
            if s.page in cited.get(s.passage.doc_id, ())
        ]

    def _facts(
        self,
        citation: DraftCitation,
        candidates: Sequence[Support],
        agree: Verdict,
        scanned: Sequence[Support] = (),
    ) -> CitationCheck:
        """``agree`` when the best sentence (with its neighbours) states the claim's facts,
        or a sentence nearly as sure of the claim does, and no sentence of ``scanned`` that
        holds most of the claim's terms says otherwise; else ``mismatch`` naming what
        differs."""
        claim = citation.sentence
        for sentence in scanned:
            if sentence.coverage >= self.contra_overlap:
                paper = self.evidence.document_text(sentence)
                names = sentence.passage.family_names
                against = contradictions(claim, sentence.quote, paper, names)
                if against:
                    return CitationCheck(citation, "mismatch", sentence, differences=tuple(against))
        best = candidates[0]
        close = [s for s in candidates if s.score >= best.score - self.tie_margin]
        first: tuple[Difference, ...] = ()
        for support in close:
            found = differences(
                claim,
                support.quote,
                self.evidence.window(support),
                self.evidence.document_text(support),
                support.passage.family_names,
            )
            if not found:
                return CitationCheck(citation, agree, support)
            first = first or tuple(found)
        return CitationCheck(citation, "mismatch", best, differences=first)

    def _not_found(self, citation: DraftCitation, best: Support | None) -> CitationCheck:
        others = [
            s
            for s in self._supports(citation.sentence, ())
            if s.citekey != citation.citekey and s.score >= self.support
        ]
        return CitationCheck(citation, "not-found", best, tuple(others[: self.elsewhere]))

    def _supports(self, claim: str, citekeys: tuple[str, ...]) -> list[Support]:
        options = QueryOptions(top_k=self.passages, citekeys=citekeys, per_doc=None)
        found = self.query.search(claim, options)
        return self.evidence.supports(claim, found.results, around=1, block_ends=True)


def _cited_pages(
    citation: DraftCitation, documents: Sequence[DocumentSummary]
) -> dict[str, set[int]]:
    """The PDF pages, per document, that print the pages the citation names. A document
    stored before labels existed is read by its PDF pages."""
    cited: dict[str, set[int]] = {}
    for doc in documents:
        for label in citation.pages:
            if doc.labels is not None:
                page = doc.labels.page_of(label)
            else:
                page = (
                    int(label)
                    if label.isdigit() and 1 <= int(label) <= (doc.page_count or 1)
                    else None
                )
            if page is not None:
                cited.setdefault(doc.doc_id, set()).add(page)
    return cited


def _one_per_page(supports: Sequence[Support]) -> list[Support]:
    seen: dict[tuple[str, int | None], Support] = {}
    for s in supports:
        seen.setdefault((s.passage.doc_id, s.page), s)
    return list(seen.values())
