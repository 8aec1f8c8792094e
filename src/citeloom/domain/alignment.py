"""Which sentence of a paper states a claim, and does it state all of it?

A claim is aligned with every sentence, and every run of two or three consecutive sentences,
of the pages it is compared with (``page_spans``). A span is scored by the claim's content:
the share of its terms the span holds, rarer terms weighing more (a number counts as the
rarest: it is found only where the fact is stated), and the dense similarity of the whole
(``align``). Body text comes first: a caption, a table or a footnote is evidence only when no
body sentence aligns, so a figure caption sharing the claim's words never stands in for the
sentence that states it.

Then ``judge`` holds the best-aligned spans to the claim (``domain.claims``): ``supported``
when one covers the claim's distinctive content (its terms, or a close paraphrase of them),
states its numbers and names and contradicts nothing; ``mismatch`` when the best-aligned one
gives the same quantity another value, or negates or reverses the same predicate;
``unconfirmed`` when the page discusses the claim but states less than it (the best-aligned
span is shown); ``not-found`` when nothing aligns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal

from citeloom.domain.abbreviations import (
    NO_SHORT_FORMS,
    ShortForms,
    abbreviated,
)
from citeloom.domain.abstention import STOPWORDS, stem, text_stems
from citeloom.domain.antonyms import NO_ANTONYMS, Antonyms, opposites
from citeloom.domain.claim_numbers import distinctive, find_number, same_quantity
from citeloom.domain.claims import compare_facts
from citeloom.domain.coverage import Share, share, span_numbers, word_set
from citeloom.domain.facts import FRAMING_WORDS, Difference, Facts
from citeloom.domain.name_swaps import said_otherwise, swapped_names
from citeloom.domain.names import mentioned, names
from citeloom.domain.qualifiers import AS_A_FINDING
from citeloom.domain.quantities import Quantity
from citeloom.domain.sentences import run_on, split_sentences, with_its_end
from citeloom.domain.text import (
    NO_TEXT,
    Folded,
    comparable_words,
    fold_for_match,
)

BODY_KINDS = frozenset({"text", "list_item"})
# a heading names a topic, it states nothing; an entry of the paper's reference list names
# another work (``domain.reference_lists``): neither is what the paper states
REFERENCE_KIND = "reference"
NO_EVIDENCE_KINDS = frozenset({"heading", REFERENCE_KIND})
WIDTHS = (1, 2, 3)
Outcome = Literal["supported", "mismatch", "unconfirmed", "not-found"]


@dataclass(frozen=True)
class PageText:
    """One page's blocks in reading order, each with its kind (``BlockKind`` values)."""

    page: int | None
    blocks: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Span:
    """One sentence, or two or three in a row, on one page."""

    page: int | None
    sentences: tuple[str, ...]  # each exactly as stored
    body: bool  # body text, not a caption, table, footnote or title

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


@lru_cache(maxsize=4096)
def page_spans(page: PageText, widths: tuple[int, ...] = WIDTHS, min_words: int = 3) -> list[Span]:
    """Every sentence of the page and every run of ``widths`` consecutive ones: body sentences
    run on across blocks (a paragraph split at a column break; a sentence cut there is made
    whole, ``run_on``), any other block's only within it."""
    body_blocks: list[str] = []
    others: list[list[str]] = []

    def kept(text: str) -> list[str]:  # the sentences of a few words or more
        return [s.text for s in split_sentences(text) if len(s.text.split()) >= min_words]

    for kind, text in page.blocks:
        if kind in BODY_KINDS:
            body_blocks.append(text)
        elif kind not in NO_EVIDENCE_KINDS and (own := kept(text)):
            others.append(own)
    body = [sentence for text in run_on(body_blocks) for sentence in kept(text)]
    spans: list[Span] = []
    for sentences, is_body in [(body, True), *((o, False) for o in others)]:
        for width in widths:
            for start in range(len(sentences) - width + 1):
                spans.append(Span(page.page, tuple(sentences[start : start + width]), is_body))
    return spans


# ------------------------------------------------------------------ the claim's content
@dataclass(frozen=True)
class ClaimContent:
    """What a claim states, as alignment and fact checks need it."""

    text: str
    weights: Mapping[str, float]  # its content terms (folded) and how rare each is
    numbers: tuple[Quantity, ...]
    ignore_names: frozenset[str] = frozenset()  # the cited paper's authors
    ignore_numbers: frozenset[float] = frozenset()  # the cited paper's year
    # the cited paper's whole text, folded: a name of the claim it mentions somewhere is a
    # name of its own (the sentence stating the claim may call it "it" or "our method")
    paper: Folded = NO_TEXT
    # the claim's terms the paper uses on most of its pages (its topic: "MDRPM" in a paper on
    # MDRPM): the citation itself supplies them, a page need not repeat them
    context: frozenset[str] = frozenset()

    @property
    def total(self) -> float:
        return sum(self.weights.values()) + self.number_weight * len(self.numbers)

    @cached_property
    def stems(self) -> dict[str, str]:
        return {t: stem(t) for t in self.weights}

    @cached_property
    def held(self) -> dict[tuple[str, ShortForms], int]:
        """The claim's terms each sentence holds (as bits), the positions of the claim's
        numbers it states, and what a set of held terms is worth (``domain.coverage``): a
        sentence sits in up to six runs, each aligned with the claim, so it is read once."""
        return {}

    @cached_property
    def stated(self) -> dict[str, int]:
        return {}

    @cached_property
    def shares(self) -> dict[int, Share]:
        return {}

    @property
    def number_weight(self) -> float:
        return max(self.weights.values(), default=1.0)


def claim_terms(claim: str, ignore_names: Collection[str] = ()) -> list[str]:
    """The claim's content terms: folded words, no stopword, framing word ("as reported"),
    number or author name."""
    skip = {fold_for_match(n) for n in ignore_names}
    out: dict[str, None] = {}
    for word in comparable_words(claim):
        if len(word) < 3 or word.isdigit() or word in STOPWORDS or word in FRAMING_WORDS:
            continue
        if word not in skip:
            out[word] = None
    return list(out)


def claim_content(
    claim: str,
    weights: Mapping[str, float],
    ignore_names: Collection[str] = (),
    ignore_numbers: Collection[float] = (),
    paper: Folded = NO_TEXT,
    topic: frozenset[str] = frozenset(),
) -> ClaimContent:
    """``weights``: how rare each term is in the library (IDF); a term it lacks weighs as the
    rarest. ``topic``: the stems the cited paper uses on most of its pages (``pervasive``);
    the claim's terms among them are its context: they count where a span holds them and are
    not asked for where it does not (unless the claim has no other term)."""
    from citeloom.domain.claims import claim_numbers

    terms = claim_terms(claim, ignore_names)
    context = [t for t in terms if stem(t) in topic]
    if len(context) == len(terms):
        context = []
    top = max(weights.values(), default=1.0) or 1.0
    weighed = {t: weights.get(t, top) or top for t in terms}
    numbers = tuple(claim_numbers(claim, ignore_numbers))
    return ClaimContent(
        claim,
        weighed,
        numbers,
        frozenset(ignore_names),
        frozenset(ignore_numbers),
        paper,
        frozenset(context),
    )


def pervasive(pages: Sequence[PageText], share: float, least: int = 4) -> frozenset[str]:
    """The stems on at least ``share`` of a paper's pages (a paper of ``least`` pages or
    more): its topic, which a page discussing it need not name again."""
    texts = [" ".join(t for _, t in page.blocks) for page in pages]
    if len(texts) < least or share > 1:
        return frozenset()
    counts: dict[str, int] = {}
    for text in texts:
        for s in text_stems(text):
            counts[s] = counts.get(s, 0) + 1
    return frozenset(s for s, n in counts.items() if n >= share * len(texts))


# ------------------------------------------------------------------ alignment
@dataclass(frozen=True)
class Alignment:
    span: Span
    lexical: float  # the weight share of the claim's terms and numbers the span holds
    terms: float  # the weight share of its terms alone
    similarity: float  # cosine of the claim and the span
    score: float
    core: str  # the span's sentence that states the claim best
    core_similarity: float
    uncovered: tuple[str, ...] = ()  # the claim's terms the span lacks, rarest first
    numbers: float = 1.0  # the share of the claim's numbers the span states
    core_score: float = 0.0  # the score of its core sentence alone


def _dense(cosine: float) -> float:
    return min(1.0, max(0.0, (cosine - 0.3) / 0.5))


def align(
    content: ClaimContent,
    spans: Sequence[Span],
    similarity: Callable[[Sequence[str]], float],
    short_forms: ShortForms = NO_SHORT_FORMS,
) -> list[Alignment]:
    """Each span scored against the claim, best first (a shorter span first at a tie): half
    the weight share of the claim's terms and numbers it holds, half its dense similarity
    (``similarity``: the cosine of the claim and the mean vector of some sentences)."""
    if not spans:
        return []
    weights = content.weights
    single: dict[str, tuple[float, float]] = {}
    out = []
    for span in spans:
        # the paper's topic the span does not name is not asked of it
        held = share(content, span, short_forms)
        total = (content.total - held.unasked) or 1.0
        term_total = (sum(weights.values()) - held.unasked) or 1.0
        stated = span_numbers(content, span)
        lexical = (held.weight + content.number_weight * stated) / total
        cosine = similarity(span.sentences)
        score = 0.5 * lexical + 0.5 * _dense(cosine) - 0.01 * (len(span.sentences) - 1)
        if len(span.sentences) == 1:
            single[span.sentences[0]] = (score, cosine)
        out.append(
            Alignment(
                span,
                lexical,
                held.weight / term_total,
                cosine,
                score,
                span.sentences[0],
                cosine,
                held.uncovered,
                stated / len(content.numbers) if content.numbers else 1.0,
                score,
            )
        )
    ranked = []
    for found in out:
        a = found
        if len(a.span.sentences) > 1:
            scored = [
                (single.get(s, (0.0, 0.0)), s) for s in a.span.sentences
            ]  # the best sentence of the run states the claim
            (core_score, core_cos), core = max(scored, key=lambda x: x[0][0])
            a = Alignment(
                a.span, a.lexical, a.terms, a.similarity, a.score, core, core_cos,
                a.uncovered, a.numbers, core_score,
            )  # fmt: skip
        ranked.append(a)
    return sorted(ranked, key=lambda a: (-a.score, len(a.span.sentences), a.span.text))


def run_similarity(
    sentences: Sequence[str],
    cosine: Callable[[str], float],
    pair: Callable[[str, str], float],
) -> float:
    """The cosine of a claim and the mean of some sentences' unit vectors, from each
    sentence's cosine with the claim and each pair's with each other: the mean's length is
    the square root of the sum of the pairs' cosines (a sentence's with itself is 1)."""
    dot = sum(cosine(s) for s in sentences)
    squared = sum(1.0 if a == b else pair(a, b) for a in sentences for b in sentences)
    return dot / (math.sqrt(max(squared, 1e-12)))


# ------------------------------------------------------------------ judgement
@dataclass(frozen=True)
class Thresholds:
    """Chosen by benchmarks/check_claims.py on the tuning halves (docs/adr/0018)."""

    # the weight share of the claim's terms that alone makes a span state it (all numbers,
    # names and negations there too)
    coverage: float = 0.7
    # a close paraphrase: this similarity with at least ``paraphrase_coverage`` of the terms
    # (the third sweep, docs/adr/0025: 0.75 and 0.5 before)
    paraphrase: float = 0.65
    paraphrase_coverage: float = 0.4
    # the share of the terms enough when the span states every number of the claim, one of
    # them distinctive (57.5%, 19,812): a figure with its unit or noun is found only where
    # the fact is stated
    numbers_coverage: float = 0.5
    # the alignment score at which a page discusses the claim (unconfirmed, else not-found)
    discuss: float = 0.45
    # the alignment score at which a contradiction of the best-aligned span is a mismatch
    mismatch: float = 0.55
    # body spans this well aligned keep captions, tables and footnotes out
    body_first: float = 0.45


DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    alignment: Alignment | None = None  # the span the outcome rests on
    facts: Facts = field(default_factory=Facts)

    @property
    def differences(self) -> tuple[Difference, ...]:
        return self.facts.contradictions if self.outcome == "mismatch" else ()

    @property
    def possibility(self) -> str:
        """The page's words offering an unconfirmed claim as a possibility ("it is possible
        that"), or "": the reader learns why the page does not state it."""
        if self.outcome != "unconfirmed":
            return ""
        return next((d.page for d in self.facts.missing if d.draft == AS_A_FINDING), "")


def facts_of(
    content: ClaimContent,
    alignment: Alignment,
    short_forms: ShortForms = NO_SHORT_FORMS,
    antonyms: Antonyms = NO_ANTONYMS,
) -> Facts:
    """The claim's facts held to a span and the sentence of it that states the claim."""
    run, core = alignment.span.sentences, alignment.core  # with its end, if cut off
    core = with_its_end(run, run.index(core)) if core in run else core
    facts = _compare(
        content.text,
        alignment.span.text,
        core,
        content.ignore_names,
        content.ignore_numbers,
        tuple(_known_names(content, alignment.span.text, short_forms)),
    )
    swapped = swapped_names(
        content.text,
        core,
        content.ignore_names,
        short_forms,
        content.paper,
        content.context,
    )
    # another method or dataset in its place, or a word's opposite
    reversed_words = _reversed(content, alignment, antonyms)
    return Facts(facts.contradictions + swapped + reversed_words, facts.missing)


@lru_cache(maxsize=65536)
def _compare(
    claim: str,
    passage: str,
    core: str,
    ignore_names: frozenset[str],
    ignore_numbers: frozenset[float],
    known: tuple[str, ...],
) -> Facts:
    """``compare_facts``, once per claim and span: a sweep of thresholds judges them again."""
    return compare_facts(
        claim,
        passage,
        core,
        ignore_names=ignore_names,
        ignore_numbers=ignore_numbers,
        known_names=known,
    )


def _known_names(content: ClaimContent, text: str, short_forms: ShortForms) -> list[str]:
    """The claim's names a span writes out in full, or abbreviates, as the paper defines them,
    or says in another form (``name_swaps.said_otherwise``); the paper's topic ("PaSa" in the
    PaSa paper, which a sentence calls "our agent") and the names it mentions elsewhere,
    except numbered ones: a claim naming His331 where the sentence says His 388 is not stated
    by it, though the paper names His331 on another line."""
    out = []
    for name in names(content.text):
        parts = comparable_words(name)
        topic = bool(parts) and all(w in content.context for w in parts)
        # a system or a cohort the paper names elsewhere ("DFKI", "Betula") is the writer's
        # context; a numbered residue or model ("His331") is a fact of its own sentence
        elsewhere = bool(content.paper) and not _numbered(name) and mentioned(content.paper, name)
        if topic or elsewhere or said_otherwise(name, text, short_forms):
            out.append(name)
    return out


def content_ok(
    content: ClaimContent, a: Alignment, t: Thresholds, short_forms: ShortForms = NO_SHORT_FORMS
) -> bool:
    """The span holds the claim's distinctive content: enough of its terms (the rare ones
    weighing more), or a close paraphrase of them."""
    if sum(content.weights.values()) <= 0:
        return a.similarity >= t.paraphrase
    if a.terms >= t.coverage:
        return True
    if a.numbers == 1.0 and any(distinctive(q) for q in content.numbers):
        return a.terms >= t.numbers_coverage
    return (
        a.terms >= t.paraphrase_coverage
        and a.similarity >= t.paraphrase
        and names_held(content, a.span.text, short_forms)
    )


def names_held(content: ClaimContent, text: str, short_forms: ShortForms = NO_SHORT_FORMS) -> bool:
    """Every name the claim gives is in the span: written, in the plural, or as the long or
    short form the paper defines. A paraphrase rewords what a paper says; it does not rename
    a method ("SHAP and LIME" is no paraphrase of "gradCAM and integrated gradients", however
    close the two sentences are in meaning). Names the cited paper uses on most of its pages
    (its topic) and its authors' are not asked for."""
    words = word_set(text)
    for name in names(content.text, content.ignore_names):
        if mentioned(text, name) or mentioned(text, f"{name}s"):  # GNN on a page of GNNs
            continue
        parts = comparable_words(name)
        if parts and all(w in content.context for w in parts):
            continue
        if not abbreviated(name, words, short_forms):
            return False
    return True


def judge(
    content: ClaimContent,
    alignments: Sequence[Alignment],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    short_forms: ShortForms = NO_SHORT_FORMS,
    candidates: int = 12,
    antonyms: Antonyms = NO_ANTONYMS,
) -> Judgement:
    """The outcome for one claim over the aligned spans of some pages (best first);
    ``antonyms``: the word pairs read as opposites (``domain.antonyms``)."""
    if not alignments:
        return Judgement("not-found")
    body = [a for a in alignments if a.span.body]
    pool = body if body and body[0].score >= thresholds.body_first else list(alignments)
    best = pool[0]
    # a word's opposite in a span stating the claim outweighs a span that covers only some
    # of its terms: "slightly higher than the previously published rates" follows the
    # sentence giving the figures, which alone would pass. Where the best span holds every
    # term, it states the claim itself; a neighbour's opposite is about something else.
    for a in pool[:candidates] if best.uncovered else ():
        reversed_words = _reversed(content, a, antonyms)
        if reversed_words and _says_otherwise(a, best, thresholds):
            return Judgement("mismatch", a, Facts(reversed_words))
    stated = _numbers_stated(content, pool)
    for a in pool[:candidates]:
        facts = facts_of(content, a, short_forms, antonyms)
        against = [
            d
            for d in facts.contradictions
            if not (d.kind in ("number", "unit") and d.draft in stated)
        ]
        if against and _only_names(against) and _named_nearby(against, a, pool):
            against = []  # the claim's name is in a span aligned as well: another list item
        if against and _says_otherwise(a, best, thresholds):
            # the span that states the claim best says otherwise: a run of sentences
            # aligned less well does not outvote it, and a span aligned far worse than the
            # best is about something else (a question says nothing otherwise:
            # "... are models with average acceleration also able to fit supernova data?")
            return Judgement("mismatch", a, Facts(tuple(against), facts.missing))
        if facts.agree and content_ok(content, a, thresholds, short_forms):
            return Judgement("supported", a, facts)
    facts = facts_of(content, best, short_forms, antonyms)
    if best.score >= thresholds.discuss:
        return Judgement("unconfirmed", best, facts)
    return Judgement("not-found", best, facts)


def _says_otherwise(a: Alignment, best: Alignment, thresholds: Thresholds) -> bool:
    """A contradiction in span ``a`` is the page saying otherwise: ``a`` states the claim
    (aligned within ``STATING`` of the best, or sharing its core sentence), it is about the
    claim's thing (a number the claim changed is not held by the span, which lowers its
    score: its terms and meaning decide), and it asks no question."""
    stating = a.score >= best.score - STATING or a.core == best.core
    topic = max(a.score, 0.5 * a.terms + 0.5 * _dense(a.similarity))
    return stating and topic >= thresholds.mismatch and not _asks(a.core)


def _reversed(content: ClaimContent, a: Alignment, antonyms: Antonyms) -> tuple[Difference, ...]:
    """The claim's words whose opposite a sentence of the span has in the same slot
    (``domain.antonyms``): any sentence of it, the slot keeping it to what that sentence
    says of the claim's words; but not a sentence beside a core that says the claim's word
    itself ("the lowest value" against a core's "a lower value ... more of a candidate" and
    its next sentence's "On the contrary, a higher value ...")."""
    return _opposed_in(content.text, a.span.sentences, a.core, antonyms)


@lru_cache(maxsize=65536)
def _opposed_in(
    claim: str, sentences: tuple[str, ...], core: str, antonyms: Antonyms
) -> tuple[Difference, ...]:
    """``_reversed``, once per claim and span: the judge reads a stating span's opposites
    before it reads all its facts."""
    out = []
    for sentence in sentences:
        for d in opposites(claim, sentence, antonyms):
            if sentence == core or not _says_too(core, d.draft):
                out.append(d)
    return tuple(out)


def _says_too(core: str, word: str) -> bool:
    """Whether the core says the claim's word in some degree: "lower" for "lowest"."""
    base = re.sub(r"(?:est|er|ly)$", "", fold_for_match(word))
    return len(base) >= 3 and re.search(rf"\b{re.escape(base)}", fold_for_match(core)) is not None


def _asks(sentence: str) -> bool:
    return sentence.rstrip().endswith("?")


# a span aligned this much worse than the best is not the one stating the claim: what it says
# otherwise is about something else ("the worst-affected cluster" against "the most affected")
STATING = 0.1


def _numbers_stated(content: ClaimContent, spans: Sequence[Alignment]) -> set[str]:
    """The claim's numbers (as written) that some span of these pages states: another value
    of a like quantity elsewhere ("11.77 g/l for children" beside "12.88 g/l") is then no
    contradiction of the claim's own."""
    out = set()
    singles = [a.span.text for a in spans if len(a.span.sentences) == 1]
    for q in content.numbers:
        for text in singles:
            found = find_number(q, text).stated
            # "2" is stated somewhere on any page: only the same quantity counts then
            if found is not None and (distinctive(q) or same_quantity(q, found)):
                out.add(q.text)
                break
    return out


def _numbered(name: str) -> bool:
    return any(c.isdigit() for c in name)


def _only_names(differences: Sequence[Difference]) -> bool:
    return all(d.kind == "term" for d in differences)


def _named_nearby(
    differences: Sequence[Difference], at: Alignment, pool: Sequence[Alignment]
) -> bool:
    """A span aligned about as well as ``at`` names the claim's name that ``at`` lacks: the
    page states the claim of one item of a list and ``at`` is its neighbour ("Q9" for the
    claim's "Q1"), not a swap."""
    close = [a for a in pool if at.core not in a.span.sentences and a.score >= at.score - NEARBY]
    return any(mentioned(a.span.text, d.draft) for d in differences for a in close)


NEARBY = 0.08  # alignment scores this close are no evidence of one span over the other
