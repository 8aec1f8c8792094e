"""The check use case: does each cited paper state what the draft claims, on the cited pages?

A draft cites printed pages (``[@hong1999exact, p. 273]``); each is mapped to the PDF page
that prints it, through the document's page labels. The claim is aligned with every sentence,
and every run of two or three, of the cited pages (a range, ``pp. 274-275``, is stated if any
of its pages states it) and held to its facts by the judging core (``ClaimJudge``, over the
stored page text: never a note). One verdict each:

- ``supported``: a sentence on a cited page states the claim, facts included (its page is
  named);
- ``mismatch``: the sentence that states the claim gives the same quantity another value, or
  negates or reverses it (what differs is named: "draft: 12 sites; p. 273: 8 sites");
- ``unconfirmed``: the page discusses the claim, but citeloom cannot confirm it states it
  (the best-aligned sentence is shown);
- ``other-page``: the claim is stated on another page of the paper (its printed page is said);
- ``no-page``: stated, but the citation names no page (the page to add is said);
- ``no-such-page``: the locator names no page of the paper (its printed range is said);
- ``not-found``: the paper does not discuss the claim; other papers of the project that state
  it are listed;
- ``unknown-key``: the key is not in the references file;
- ``not-ingested``: the key is in the library but no document of it is in the project;
- ``malformed``: the citation cannot be read as written (a bracket left open, a ``\\cite``
  without its key, a page range that runs backwards): what is wrong and the fix are said,
  and no claim is judged.

Which verdicts fail a check (``--fail-on``) is the caller's choice; by default those measured
precise enough to act on (``DEFAULT_FAIL_ON``, docs/adr/0018).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from citeloom.domain.abbreviations import ShortForms, abbreviations
from citeloom.domain.alignment import (
    REFERENCE_KIND,
    Alignment,
    ClaimContent,
    Judgement,
    PageText,
    Span,
)
from citeloom.domain.draft_citations import DraftCitation, find_citations
from citeloom.domain.facts import Difference
from citeloom.domain.models import DocumentSummary
from citeloom.domain.records import Passage, passage_from_payload
from citeloom.domain.reference_lists import in_reference_list, mark_reference_lists
from citeloom.domain.relations import (
    NO_FLAGS,
    CitationNote,
    DocumentFacts,
    RelationGraph,
    WorkFlags,
    citation_notes,
)
from citeloom.domain.text import Folded, fold, normalise_text
from citeloom.domain.verdicts import DEFAULT_FAIL_ON, VERDICTS, Verdict
from citeloom.ports import SearchFilter
from citeloom.services.claim_judge import ClaimJudge
from citeloom.services.evidence import SentenceEvidence, Support
from citeloom.services.query import QueryOptions, QueryService

DOCUMENT_CHUNKS = 5000  # chunks read of one paper when its stored conversion is not here


@dataclass(frozen=True)
class CitationCheck:
    citation: DraftCitation
    verdict: Verdict
    evidence: Support | None = None  # the paper's sentence the verdict rests on, if any
    # not-found: other papers' supporting sentences; unconfirmed: the sentence of another
    # page of the paper that states the claim (a hint: the cited page may say it in other words)
    elsewhere: tuple[Support, ...] = ()
    differences: tuple[Difference, ...] = ()  # mismatch: what the page says otherwise
    printed_range: str | None = None  # no-such-page: the pages the paper is printed on
    # about the cited paper, not the claim: its versions, retraction, errata, conflicts
    flags: WorkFlags = NO_FLAGS
    notes: tuple[CitationNote, ...] = ()
    # unconfirmed: the page's words offering the claim as a possibility ("it is possible that")
    possibility: str = ""

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
        if self.verdict == "unconfirmed":
            where = f"p. {page}" if page else "the paper"
            said = f"{where} discusses this, but citeloom cannot confirm it states it"
            if self.possibility:
                offered = f'"{self.possibility} ..."'
                said = f"{where} offers this as a possibility ({offered}), not as a finding"
            hint = next((s.page_label for s in self.elsewhere if s.page_label), None)
            return f"{said}; p. {hint} states it" if hint else said
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
        if self.verdict == "malformed":
            return self.citation.problem
        return ""


@dataclass
class CheckReport:
    draft: str
    project: str
    checks: list[CitationCheck] = field(default_factory=list)
    fail_on: frozenset[Verdict] = DEFAULT_FAIL_ON

    @property
    def failed(self) -> list[CitationCheck]:
        """The citations whose verdict is one the check fails on."""
        return [c for c in self.checks if c.verdict in self.fail_on]

    @property
    def ok(self) -> bool:
        """Exit 0 only when no citation has a verdict the check fails on."""
        return not self.failed

    @property
    def counts(self) -> dict[str, int]:
        return {v: sum(c.verdict == v for c in self.checks) for v in VERDICTS}


@dataclass
class _Paper:
    """One cited paper's stored text, read once per check."""

    documents: list[DocumentSummary]
    pages: dict[tuple[str, int | None], PageText]  # (doc_id, PDF page) -> its blocks
    passages: dict[tuple[str, int | None], list[Passage]]  # the chunks on each page
    short_forms: ShortForms
    authors: tuple[str, ...]
    years: frozenset[float]
    folded: Folded  # its whole text, folded and padded: where its names are looked up
    topic: frozenset[str]  # the stems on most of its pages


class CheckService:
    def __init__(
        self,
        query: QueryService,
        evidence: SentenceEvidence,
        citekeys: Iterable[str],
        judge: ClaimJudge | None = None,
        *,
        fail_on: frozenset[Verdict] = DEFAULT_FAIL_ON,
        elsewhere: int = 3,
        passages: int = 5,
    ) -> None:
        """``judge``: the judging core (by default over ``evidence``'s embedder and the
        library's term weights); ``elsewhere``: other papers' sentences listed for a
        not-found claim, from the ``passages`` best passages of the project."""
        self.query = query
        self.evidence = evidence
        self.citekeys = frozenset(citekeys)  # the references file's keys
        self.judge_core = judge or ClaimJudge(evidence.embedder, evidence.term_weights)
        self.fail_on = fail_on
        self.elsewhere = elsewhere
        self.passages = passages
        self._papers: dict[str, list[DocumentSummary]] | None = None
        self._graph: RelationGraph | None = None
        self._texts: dict[str, _Paper] = {}

    def check(
        self,
        text: str,
        draft: str = "",
        latex: bool | None = None,
        between: Callable[[], None] | None = None,
        fail_on: frozenset[Verdict] | None = None,
    ) -> CheckReport:
        """Judge every citation of the draft. ``between`` is called before each citation but
        the first: a long-lived server lets a process waiting for the index have it there,
        and stops the check (by raising) when the request's time is up. ``fail_on``: the
        verdicts that fail this check (the service's own by default)."""
        report = CheckReport(draft, self.query.project, fail_on=fail_on or self.fail_on)
        citations = find_citations(text, latex)
        if citations:
            papers = self.papers()
            self.judge_core.prime(
                [c.sentence for c in citations if not c.problem and papers.get(c.citekey)]
            )
        try:
            for number, citation in enumerate(citations):
                if number and between is not None:
                    between()
                report.checks.append(self.judge(citation))
        finally:
            # the cited pages' sentence vectors, for the next run (a hook's fresh process)
            self.judge_core.vectors.save()
        return report

    def forget_papers(self) -> None:
        """Read the cited papers' text again at the next check (a benchmark changing how a
        paper's topic is read)."""
        self._texts.clear()

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
        if check.verdict in ("unknown-key", "malformed"):
            return check
        documents = self.papers().get(citation.citekey, ())
        stamp = next((d.arxiv_stamp for d in documents if d.arxiv_stamp), None)
        flags = self.graph().flags(citation.citekey, stamp)
        return replace(check, flags=flags, notes=tuple(citation_notes(flags)))

    def _judge(self, citation: DraftCitation) -> CitationCheck:
        if citation.problem:  # the draft is to be fixed first: nothing to judge as written
            return CitationCheck(citation, "malformed")
        if citation.citekey not in self.citekeys:
            return CitationCheck(citation, "unknown-key")
        documents = self.papers().get(citation.citekey)
        if not documents:
            return CitationCheck(citation, "not-ingested")
        claim = citation.sentence
        if not any(ch.isalnum() for ch in claim):  # nothing to judge by
            return CitationCheck(citation, "not-found")
        paper = self._paper(citation.citekey, documents)
        content = self.judge_core.content(
            claim, paper.authors, paper.years, paper.folded, paper.topic
        )
        cited = _cited_pages(citation, documents)
        cited_keys = {(doc, page) for doc, pages in cited.items() for page in pages}
        on_cited = [paper.pages[k] for k in sorted(cited_keys, key=_order) if k in paper.pages]
        rest = [
            p
            for k, p in sorted(paper.pages.items(), key=lambda i: _order(i[0]))
            if k not in cited_keys
        ]
        if citation.pages and not cited:
            whole = self._verdict(content, list(paper.pages.values()), paper, shortlist=True)
            printed = "; ".join(filter(None, (d.labels.span() for d in documents if d.labels)))
            strong = whole[1] if whole[0].outcome == "supported" else None
            return CitationCheck(citation, "no-such-page", strong, printed_range=printed or None)
        if not cited:
            judged, support = self._verdict(content, [*on_cited, *rest], paper, shortlist=True)
            verdict = {"supported": "no-page"}.get(judged.outcome, judged.outcome)
            return self._outcome(citation, verdict, judged, support)  # type: ignore[arg-type]
        judged, support = self._verdict(content, on_cited, paper)
        if judged.outcome == "supported":
            return self._outcome(citation, "supported", judged, support)
        elsewhere, other = self._verdict(content, rest, paper, shortlist=True)
        stated = elsewhere.outcome == "supported" and not _outvoted(elsewhere, judged)
        if stated and judged.outcome == "unconfirmed" and other is not None:
            # the cited page discusses the claim in its own words (a results page beside an
            # abstract that states it verbatim): the reader's page, which citeloom cannot
            # confirm; the page stating it is named as a hint
            check = self._outcome(citation, "unconfirmed", judged, support)
            return replace(check, elsewhere=(other,))
        if stated:
            return self._outcome(citation, "other-page", elsewhere, other)
        if judged.outcome in ("mismatch", "unconfirmed"):
            return self._outcome(citation, judged.outcome, judged, support)
        if elsewhere.outcome in ("mismatch", "unconfirmed"):
            return self._outcome(citation, elsewhere.outcome, elsewhere, other)
        return self._outcome(citation, "not-found", judged, support)

    def _outcome(
        self,
        citation: DraftCitation,
        verdict: Verdict,
        judged: Judgement,
        support: Support | None,
    ) -> CitationCheck:
        if verdict == "not-found":
            return CitationCheck(citation, "not-found", support, self._others(citation))
        return CitationCheck(
            citation,
            verdict,
            support,
            differences=judged.differences,
            possibility=judged.possibility,
        )

    def _verdict(
        self,
        content: ClaimContent,
        pages: Sequence[PageText],
        paper: _Paper,
        *,
        shortlist: bool = False,
    ) -> tuple[Judgement, Support | None]:
        judged = self.judge_core.judge(content, pages, paper.short_forms, shortlist=shortlist)
        if judged.alignment is None:
            return judged, None
        return judged, self._support(judged.alignment, paper)

    def _support(self, alignment: Alignment, paper: _Paper) -> Support | None:
        """The aligned span as evidence: quoted as stored, with the chunk that holds it."""
        span = alignment.span
        page = span.page
        doc = next(
            (d for (d, p), text in paper.pages.items() if p == page and span_in(span, text)), None
        )
        candidates = paper.passages.get((doc, page), []) if doc else []
        if not candidates:
            return None
        first = normalise_text(span.sentences[0])
        passage = next((p for p in candidates if first in normalise_text(p.text)), candidates[0])
        return Support(
            passage,
            span.text,
            page,
            alignment.score,
            alignment.similarity,
            True,
            alignment.terms,
        )

    def _paper(self, citekey: str, documents: Sequence[DocumentSummary]) -> _Paper:
        """The cited paper's pages (blocks with kinds) and chunks, read once."""
        if citekey in self._texts:
            return self._texts[citekey]
        pages: dict[tuple[str, int | None], PageText] = {}
        passages: dict[tuple[str, int | None], list[Passage]] = {}
        years: set[float] = set()
        authors: set[str] = set()
        for doc in documents:
            filters = SearchFilter(self.query.project, doc_ids=(doc.doc_id,))
            chunks = self.query.index.chunks(self.query.collection, filters, DOCUMENT_CHUNKS)
            found = sorted(
                (passage_from_payload(0, 0.0, i, p) for i, p in chunks.items()),
                key=lambda p: (p.page_start or 0, p.chunk_id),
            )
            found = [p for p in found if p.kind == "paper"]
            for passage in found:
                first = passage.page_start
                last = passage.page_end or first
                for page in [None] if first is None else range(first, (last or first) + 1):
                    passages.setdefault((doc.doc_id, page), []).append(passage)
                authors |= set(passage.family_names)
                if passage.year:
                    years.add(float(passage.year))
            blocks = self.evidence.texts.page_blocks(doc.sha256)
            if blocks is None:  # no stored conversion here: one-page chunks are their page
                blocks = {}
                for passage in found:
                    if passage.page_start == passage.page_end:
                        kind = REFERENCE_KIND if in_reference_list(passage.section_path) else "text"
                        blocks.setdefault(passage.page_start, []).append((kind, passage.text))
            for number, items in mark_reference_lists(blocks, REFERENCE_KIND).items():
                pages[doc.doc_id, number] = PageText(number, tuple(items))
        text = "\n".join(t for page in pages.values() for _, t in page.blocks)
        paper = _Paper(
            list(documents),
            pages,
            passages,
            abbreviations(text),
            tuple(authors),
            frozenset(years),
            fold(text),
            self.judge_core.topic_of(list(pages.values())),
        )
        self._texts[citekey] = paper
        return paper

    def _others(self, citation: DraftCitation) -> tuple[Support, ...]:
        """Sentences of other papers of the project that state the claim."""
        if self.elsewhere <= 0:
            return ()
        options = QueryOptions(top_k=self.passages, per_doc=1)
        found = self.query.search(citation.sentence, options)
        out: list[Support] = []
        for passage in found.results:
            if passage.citekey in (None, citation.citekey) or passage.kind != "paper":
                continue
            documents = self.papers().get(passage.citekey, [])
            if not documents:
                continue
            paper = self._paper(passage.citekey, documents)
            pages = [
                text
                for (doc, page), text in paper.pages.items()
                if doc == passage.doc_id
                and passage.page_start is not None
                and (passage.page_start <= (page or 0) <= (passage.page_end or passage.page_start))
            ]
            content = self.judge_core.content(
                citation.sentence, paper.authors, paper.years, paper.folded, paper.topic
            )
            judged, support = self._verdict(content, pages, paper)
            new = support is not None and all(s.quote != support.quote for s in out)
            if judged.outcome == "supported" and support is not None and new:
                out.append(support)
            if len(out) >= self.elsewhere:
                break
        return tuple(out)


def _outvoted(elsewhere: Judgement, cited: Judgement) -> bool:
    """A support on another page is outvoted by a contradiction on the cited page that
    states the claim better: the sentence aligned best with the claim decides, not a run of
    sentences that gathers the claim's words from several ("significant heterogeneity in
    RCTs" on the cited page against a claim of "heterogeneity in OR" is a mismatch, though
    three sentences of another page hold "heterogeneity", "significant" and "OR")."""
    if cited.outcome != "mismatch" or cited.alignment is None or elsewhere.alignment is None:
        return False
    mine, theirs = cited.alignment, elsewhere.alignment
    return mine.score > theirs.score or mine.core_score > theirs.core_score


def span_in(span: Span, page: PageText) -> bool:
    """Whether the span was cut from this page's text."""
    return any(span.sentences[0] in text for _, text in page.blocks)


def _order(key: tuple[str, int | None]) -> tuple[str, int]:
    return key[0], key[1] or 0


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
