"""The judging core of ``check``: one claim against some pages of one paper.

It takes the pages' text (``PageText``: blocks with their kinds), not the index: the check
service feeds it the cited pages and the rest of the paper from the stored conversion, and a
benchmark can feed it any text (an abstract) directly. It aligns the claim with every
sentence and run of two or three (``domain.alignment``), embedding sentences once per model
(``SentenceVectors``), and judges the best-aligned spans by the claim's facts.
"""

from __future__ import annotations

import math
import operator
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence

from citeloom.domain.abbreviations import NO_SHORT_FORMS, ShortForms
from citeloom.domain.alignment import (
    DEFAULT_THRESHOLDS,
    Alignment,
    ClaimContent,
    Judgement,
    PageText,
    Span,
    Thresholds,
    align,
    claim_content,
    judge,
    page_spans,
    pervasive,
    run_similarity,
)
from citeloom.domain.antonyms import NO_ANTONYMS, Antonyms
from citeloom.domain.coverage import share, span_numbers
from citeloom.domain.text import NO_TEXT, Folded
from citeloom.ports import Embedder
from citeloom.services.evidence import SentenceVectors


class ClaimJudge:
    """Judges claims against page texts with one embedding model."""

    def __init__(
        self,
        embedder: Embedder,
        weigh: Callable[[str], Mapping[str, float]],
        thresholds: Thresholds = DEFAULT_THRESHOLDS,
        vectors: SentenceVectors | None = None,
        shortlist: int = 40,
        topic_share: float = 0.5,
        antonyms: Antonyms = NO_ANTONYMS,
    ) -> None:
        """``weigh``: how rare each word of a claim is in the library (IDF);
        ``shortlist``: spans of the rest of a paper embedded per claim, those holding most
        of its terms (the cited pages' are all embedded); ``antonyms``: the word pairs read
        as opposites (WordNet's, from the lexicon adapter)."""
        self.embedder = embedder
        self.weigh = weigh
        self.thresholds = thresholds
        self.vectors = vectors if vectors is not None else SentenceVectors()
        self.shortlist = shortlist
        # chosen on the tuning halves (benchmarks/check_claims.py --topic; docs/adr/0018)
        self.topic_share = topic_share
        self.antonyms = antonyms
        self._claims: OrderedDict[str, Sequence[float]] = OrderedDict()
        # alignments of a claim with the same pages, kept: a draft cites a paper many times,
        # and a benchmark judges the same alignments under other thresholds
        self._aligned: OrderedDict[tuple[object, ...], list[Alignment]] = OrderedDict()
        self.keep = 4096

    def content(
        self,
        claim: str,
        ignore_names: Collection[str] = (),
        ignore_numbers: Collection[float] = (),
        paper: Folded = NO_TEXT,
        topic: frozenset[str] = frozenset(),
    ) -> ClaimContent:
        """``paper``: the cited paper's text, folded and padded with spaces (its names);
        ``topic``: the stems on most of its pages (``topic_of``)."""
        return claim_content(claim, self.weigh(claim), ignore_names, ignore_numbers, paper, topic)

    def prime(self, claims: Sequence[str]) -> None:
        """Embed the claims about to be judged in few model runs (a run of many short texts
        costs little more than a run of one: 175 claims one by one took a tenth of a
        draft's check)."""
        new = [c for c in dict.fromkeys(claims) if c not in self._claims]
        if not new:
            return
        for claim, vector in zip(new, self.embedder.embed_queries(new), strict=True):
            self._remember(claim, vector)

    def _remember(self, claim: str, vector: Sequence[float]) -> None:
        self._claims[claim] = vector
        while len(self._claims) > self.keep:
            self._claims.popitem(last=False)

    def topic_of(self, pages: Sequence[PageText]) -> frozenset[str]:
        """The stems a paper uses on ``topic_share`` of its pages or more."""
        return pervasive(pages, self.topic_share)

    def alignments(
        self,
        content: ClaimContent,
        pages: Sequence[PageText],
        short_forms: ShortForms = NO_SHORT_FORMS,
        *,
        shortlist: bool = False,
    ) -> list[Alignment]:
        """The spans of ``pages`` aligned with the claim, best first; with ``shortlist``, only
        the spans holding most of the claim's terms and numbers are embedded."""
        key = (content.text, content.ignore_names, content.context, shortlist, tuple(pages))
        if key in self._aligned:
            self._aligned.move_to_end(key)
            return self._aligned[key]
        found = self._align(content, pages, short_forms, shortlist)
        self._aligned[key] = found
        while len(self._aligned) > self.keep:
            self._aligned.popitem(last=False)
        return found

    def _align(
        self,
        content: ClaimContent,
        pages: Sequence[PageText],
        short_forms: ShortForms,
        shortlist: bool,
    ) -> list[Alignment]:
        spans = [span for page in pages for span in page_spans(page)]
        if shortlist and len(spans) > self.shortlist:
            spans = _shortlist(content, spans, short_forms, self.shortlist)
        if not spans:
            return []
        if content.text not in self._claims:
            self._remember(content.text, self.embedder.embed_query(content.text))
        sentences = list(dict.fromkeys(s for span in spans for s in span.sentences))
        found = self.vectors.vectors(sentences, self.embedder.embed_documents)
        similarity = Similarities(
            self._claims[content.text], dict(zip(sentences, found, strict=True))
        )
        return align(content, spans, similarity, short_forms)

    def judge(
        self,
        content: ClaimContent,
        pages: Sequence[PageText],
        short_forms: ShortForms = NO_SHORT_FORMS,
        *,
        shortlist: bool = False,
    ) -> Judgement:
        found = self.alignments(content, pages, short_forms, shortlist=shortlist)
        return judge(content, found, self.thresholds, short_forms, antonyms=self.antonyms)


class Similarities:
    """The cosine of a claim and the mean vector of a run of sentences, from each sentence's
    cosine with the claim and with its neighbours (``run_similarity``): a run of three costs
    three dot products more than its sentences, not a new mean vector (a page has about a
    hundred runs, each compared with every claim citing it)."""

    def __init__(self, claim: Sequence[float], vectors: Mapping[str, Sequence[float]]) -> None:
        self.claim = claim
        self.claim_norm = math.sqrt(_dot(claim, claim)) or 1.0
        self.vectors = vectors
        self._with_claim: dict[str, float] = {}
        self._pairs: dict[tuple[str, str], float] = {}
        self._norms: dict[str, float] = {}

    def __call__(self, sentences: Sequence[str]) -> float:
        return run_similarity(sentences, self.cosine, self.pair)

    def cosine(self, sentence: str) -> float:
        """The cosine of the claim and one sentence."""
        if sentence not in self._with_claim:
            vector = self.vectors[sentence]
            dot = _dot(self.claim, vector)
            self._with_claim[sentence] = dot / (self.claim_norm * self._norm(sentence))
        return self._with_claim[sentence]

    def pair(self, a: str, b: str) -> float:
        """The cosine of two sentences."""
        key = (a, b) if a <= b else (b, a)
        if key not in self._pairs:
            dot = _dot(self.vectors[a], self.vectors[b])
            self._pairs[key] = dot / (self._norm(a) * self._norm(b))
        return self._pairs[key]

    def _norm(self, sentence: str) -> float:
        if sentence not in self._norms:
            vector = self.vectors[sentence]
            self._norms[sentence] = math.sqrt(_dot(vector, vector)) or 1.0
        return self._norms[sentence]


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(map(operator.mul, a, b))


def _shortlist(
    content: ClaimContent,
    spans: Sequence[Span],
    short_forms: ShortForms,
    keep: int,
) -> list[Span]:
    """The ``keep`` spans holding the largest share of the claim's terms and numbers, body
    spans and single sentences first at a tie."""
    total = content.total or 1.0

    def held(span: Span) -> float:
        weight = share(content, span, short_forms).weight
        stated = span_numbers(content, span)
        return (weight + content.number_weight * stated) / total

    scored = sorted(spans, key=lambda s: (-held(s), not s.body, len(s.sentences)))
    return scored[:keep]
