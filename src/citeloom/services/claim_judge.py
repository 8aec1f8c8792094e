"""The judging core of ``check``: one claim against some pages of one paper.

It takes the pages' text (``PageText``: blocks with their kinds), not the index: the check
service feeds it the cited pages and the rest of the paper from the stored conversion, and a
benchmark can feed it any text (an abstract) directly. It aligns the claim with every
sentence and run of two or three (``domain.alignment``), embedding sentences once per model
(``SentenceVectors``), and judges the best-aligned spans by the claim's facts.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence

from citeloom.domain.alignment import (
    DEFAULT_THRESHOLDS,
    NO_SHORT_FORMS,
    Alignment,
    ClaimContent,
    Judgement,
    PageText,
    ShortForms,
    Span,
    Thresholds,
    align,
    claim_content,
    covered,
    judge,
    page_spans,
    pervasive,
)
from citeloom.domain.quantities import find_number
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
    ) -> None:
        """``weigh``: how rare each word of a claim is in the library (IDF);
        ``shortlist``: spans of the rest of a paper embedded per claim, those holding most
        of its terms (the cited pages' are all embedded)."""
        self.embedder = embedder
        self.weigh = weigh
        self.thresholds = thresholds
        self.vectors = vectors if vectors is not None else SentenceVectors()
        self.shortlist = shortlist
        # chosen on the tuning halves (benchmarks/check_claims.py --topic; docs/adr/0018)
        self.topic_share = topic_share
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
            self._claims[content.text] = self.embedder.embed_query(content.text)
            while len(self._claims) > self.keep:
                self._claims.popitem(last=False)
        return align(
            content,
            spans,
            lambda texts: self.vectors.vectors(texts, self.embedder.embed_documents),
            self._claims[content.text],
            short_forms,
        )

    def judge(
        self,
        content: ClaimContent,
        pages: Sequence[PageText],
        short_forms: ShortForms = NO_SHORT_FORMS,
        *,
        shortlist: bool = False,
    ) -> Judgement:
        found = self.alignments(content, pages, short_forms, shortlist=shortlist)
        return judge(content, found, self.thresholds, short_forms)


def _shortlist(
    content: ClaimContent,
    spans: Sequence[Span],
    short_forms: ShortForms,
    keep: int,
) -> list[Span]:
    """The ``keep`` spans holding the largest share of the claim's terms and numbers, body
    spans and single sentences first at a tie."""
    total = content.total or 1.0

    def share(span: Span) -> float:
        held = sum(content.weights[t] for t in covered(content, span.text, short_forms))
        stated = sum(1 for q in content.numbers if find_number(q, span.text).stated)
        return (held + content.number_weight * stated) / total

    scored = sorted(spans, key=lambda s: (-share(s), not s.body, len(s.sentences)))
    return scored[:keep]
