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

from citeloom.domain.abstention import STOPWORDS, stem, text_stems
from citeloom.domain.claims import FRAMING_WORDS, Difference, Facts, compare_facts
from citeloom.domain.names import mentioned, names
from citeloom.domain.quantities import Quantity, distinctive, find_number, same_quantity
from citeloom.domain.sentences import run_on, split_sentences
from citeloom.domain.text import (
    NO_TEXT,
    Folded,
    comparable_words,
    fold_for_match,
    name_parts,
    normalise_text,
    spellings,
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


# ------------------------------------------------------------------ abbreviations
class ShortForms(dict[str, frozenset[str]]):
    """A paper's abbreviations: folded short form -> folded words of its long form. One
    paper's is read once and compared by identity, so what it adds to a span's words is
    computed once per span (``expanded_stems``)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


NO_SHORT_FORMS = ShortForms()
_SHORT = re.compile(r"\((?P<short>[A-Za-z][A-Za-z0-9\-]{0,9})\)")


def abbreviations(text: str) -> ShortForms:
    """The abbreviations a paper defines ("weighted mean difference (WMD)", "haemoglobin
    (Hb)"): folded short form -> folded words of its long form. The long form is found as
    Schwartz and Hearst do: the short form's characters, last to first, in the words before
    the parenthesis, its first character starting a word."""
    out = ShortForms()
    for match in _SHORT.finditer(text):
        short = match["short"]
        if not any(c.isupper() for c in short) or len(short) < 2:
            continue
        words = re.findall(
            r"[^\W_]+(?:-[^\W_]+)*", text[max(0, match.start() - 120) : match.start()]
        )
        words = words[-min(len(short) + 5, 2 * len(short)) :]
        long = _long_form(short, words)
        if long:
            out.setdefault(fold_for_match(short), frozenset(comparable_words(" ".join(long))))
    return out


def _long_form(short: str, words: list[str]) -> list[str] | None:
    letters = [c.lower() for c in short if c.isalnum()]
    phrase = " ".join(words).lower()
    s, p = len(letters) - 1, len(phrase) - 1
    while s >= 0:
        while p >= 0 and (
            phrase[p] != letters[s] or (s == 0 and p > 0 and phrase[p - 1].isalnum())
        ):
            p -= 1
        if p < 0:
            return None
        s, p = s - 1, p - 1
    long = phrase[phrase.rfind(" ", 0, p + 2) + 1 :].split()
    if not long or len(long) > len(letters) + 3:
        return None
    return long


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


def covered(content: ClaimContent, text: str, short_forms: ShortForms = NO_SHORT_FORMS) -> set[str]:
    """The claim's terms a text holds, inflected or not ("accretes" ~ "accretion"), or as
    the paper abbreviates them ("Hb" for haemoglobin, "WMD" for weighted mean difference)."""
    stems = expanded_stems(text, short_forms)
    return {t for t, s in content.stems.items() if s in stems}


@lru_cache(maxsize=131072)
def word_set(text: str) -> frozenset[str]:
    return frozenset(comparable_words(text))


@lru_cache(maxsize=131072)
def expanded_stems(text: str, short_forms: ShortForms) -> frozenset[str]:
    """The stems of a text's words, with the long forms of the abbreviations it uses and the
    abbreviations of the long forms it spells out."""
    stems = set(text_stems(text))
    if short_forms:
        words = word_set(text)
        for short, long in short_forms.items():
            if short in words:
                stems |= {stem(w) for w in long}
            elif long and long <= words:
                stems.add(stem(short))
    return frozenset(stems)


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
    vectors: Callable[[Sequence[str]], Sequence[Sequence[float]]],
    claim_vector: Sequence[float],
    short_forms: ShortForms = NO_SHORT_FORMS,
) -> list[Alignment]:
    """Each span scored against the claim, best first (a shorter span first at a tie): half
    the weight share of the claim's terms and numbers it holds, half its dense similarity."""
    sentences = list(dict.fromkeys(s for span in spans for s in span.sentences))
    if not sentences:
        return []
    by_sentence = dict(zip(sentences, vectors(sentences), strict=True))
    weights = content.weights
    single: dict[str, tuple[float, float]] = {}
    out = []
    for span in spans:
        held = covered(content, span.text, short_forms)
        # the paper's topic the span does not name is not asked of it
        unasked = sum(weights[t] for t in content.context if t not in held)
        total = (content.total - unasked) or 1.0
        term_total = (sum(weights.values()) - unasked) or 1.0
        stated = sum(1 for q in content.numbers if find_number(q, span.text).stated is not None)
        lexical = (sum(weights[t] for t in held) + content.number_weight * stated) / total
        vector = _mean([by_sentence[s] for s in span.sentences])
        cosine = _cosine(claim_vector, vector)
        score = 0.5 * lexical + 0.5 * _dense(cosine) - 0.01 * (len(span.sentences) - 1)
        if len(span.sentences) == 1:
            single[span.sentences[0]] = (score, cosine)
        uncovered = sorted(
            (t for t in weights if t not in held and t not in content.context),
            key=lambda t: -weights[t],
        )
        out.append(
            Alignment(
                span,
                lexical,
                sum(weights[t] for t in held) / term_total,
                cosine,
                score,
                span.sentences[0],
                cosine,
                tuple(uncovered),
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


def _mean(vectors: Sequence[Sequence[float]]) -> list[float]:
    if len(vectors) == 1:
        return list(vectors[0])
    summed = [sum(column) for column in zip(*vectors, strict=True)]
    norm = math.sqrt(sum(v * v for v in summed)) or 1.0
    return [v / norm for v in summed]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a)) or 1.0
    nb = math.sqrt(sum(y * y for y in b)) or 1.0
    return dot / (na * nb)


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


def facts_of(
    content: ClaimContent, alignment: Alignment, short_forms: ShortForms = NO_SHORT_FORMS
) -> Facts:
    """The claim's facts held to a span and the sentence of it that states the claim."""
    facts = _compare(
        content.text,
        alignment.span.text,
        alignment.core,
        content.ignore_names,
        content.ignore_numbers,
        tuple(_known_names(content, alignment.span.text, short_forms)),
    )
    swapped = _swapped_names(content, alignment, short_forms)
    if swapped:  # another method or dataset in its place: the sentence says otherwise
        facts = Facts(facts.contradictions + swapped, facts.missing)
    return facts


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
    and those the paper mentions anywhere."""
    words = word_set(text)
    out = []
    for name in names(content.text):
        if content.paper and mentioned(content.paper, name):
            out.append(name)
            continue
        if _abbreviated(name, words, short_forms):
            out.append(name)
    return out


def _abbreviated(name: str, words: frozenset[str], short_forms: ShortForms) -> bool:
    """The span says ``name`` in the other form the paper defines for it: its long form for an
    abbreviation, or the abbreviation of the words it spells out."""
    long = short_forms.get(fold_for_match(name))
    if long and long <= words:
        return True
    spelled = set(comparable_words(name))
    return any(short in words and spelled <= long for short, long in short_forms.items())


def _swapped_names(
    content: ClaimContent, alignment: Alignment, short_forms: ShortForms = NO_SHORT_FORMS
) -> tuple[Difference, ...]:
    """A name of the claim that the sentence stating it lacks, while that sentence names
    something the claim does not: another method in its place. A name the claim says in
    words ("QA" for its "question answering", "CR" for its "consistency ratio") or one with
    a word glued on ("Google", "Googlebased") is no other thing."""
    mine = names(content.text, content.ignore_names)
    theirs = names(alignment.core, content.ignore_names)
    core, claim = alignment.core, content.text
    # counted: "95% SD ... 95% CI" against "95% CI ... 95% CI" swaps one of two
    counts = {n: (_count(n, claim), _count(n, core)) for n in dict.fromkeys([*mine, *theirs])}
    absent = [n for n in mine if counts[n][0] > counts[n][1]]
    other = [n for n in theirs if counts[n][1] > counts[n][0]]
    words = comparable_words(claim)
    for name in absent:
        rival = next(
            (
                n
                for n in other
                if _shape(n) == _shape(name)
                and not _plural_of(n, name)
                and not _one_within_other(n, name)
                and not (counts[n][0] == 0 and _said_in_words(n, name, words, short_forms))
            ),
            None,
        )
        if rival is not None:
            return (Difference("term", name, rival),)
    return ()


def _one_within_other(one: str, other: str) -> bool:
    """One name is the other with a word glued on, as a text layer writes "Google-based"
    ("Googlebased"); "GaAs" is not within "AlGaAs"."""
    short, long = sorted((one, other), key=len)
    rest = long[len(short) :].lstrip("-")
    return long.startswith(short) and rest.isalpha() and rest.islower()


def _said_in_words(short: str, name: str, words: list[str], short_forms: ShortForms) -> bool:
    """The claim writes out what ``short`` abbreviates: every word of the long form the paper
    defines, or consecutive content words with its letters as initials; and not as the
    definition of its own ``name`` beside them ("Cosmic Microwave Background (IAC)", "HS,
    urea breath test" name another thing)."""
    at: tuple[int, int] | None = None
    long = short_forms.get(fold_for_match(short))
    if long and long <= set(words):
        where = [i for i, w in enumerate(words) if w in long]
        at = (where[0], where[-1])
    letters = fold_for_match(short).replace(" ", "")
    if at is None and short.isupper() and 2 <= len(letters) <= 6 and letters.isalpha():
        size = len(letters)
        at = next(
            (
                (i, i + size - 1)
                for i in range(len(words) - size + 1)
                if "".join(w[0] for w in words[i : i + size]) == letters
                and all(len(w) > 2 and w not in STOPWORDS for w in words[i : i + size])
            ),
            None,
        )
    if at is None:
        return False
    parts = name_parts(name)
    named = [i for i in range(len(words)) if words[i : i + len(parts)] == parts]
    return not any(at[0] - len(parts) - 2 <= i <= at[1] + 2 for i in named)


def _plural_of(one: str, other: str) -> bool:
    """One name in the singular and the plural ("Bigtable", "Bigtables"): the same name."""
    a, b = fold_for_match(one), fold_for_match(other)
    return a != b and (a == f"{b}s" or b == f"{a}s")


def _count(name: str, text: str) -> int:
    """How often a text writes a name, in any of its spellings ("C29", "C-29", ``domain.text
    .spellings``); an acronym only where it is not a plain word: the acronym "AND" is not
    the word "and"."""
    if name.isalpha() and name.isupper():
        pattern = re.compile(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", re.I)
        return sum(1 for m in pattern.finditer(normalise_text(text)) if not m[0].islower())
    # the text cut into parts as names are: "PaSa7b" and "PaSa-7b" hold "PaSa" once
    folded = f" {' '.join(name_parts(text))} "
    return sum(folded.count(f" {' '.join(words)} ") for words in spellings(name))


def _shape(name: str) -> str:
    """What kind of name it is written as: an acronym (BLEU), one with digits (ResNet-50),
    CamelCase (PaSa) or capitalised words (Expert Choice); a method is replaced by one of
    its kind, a paraphrase spells it out ("partitioned variable projection")."""
    if any(c.isdigit() for c in name):
        return "digits"
    if name.rstrip("s").isupper():
        return "acronym"
    if " " not in name and any(c.isupper() for c in name[1:]):
        return "camel"
    return "words"


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
        if not _abbreviated(name, words, short_forms):
            return False
    return True


def judge(
    content: ClaimContent,
    alignments: Sequence[Alignment],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    short_forms: ShortForms = NO_SHORT_FORMS,
    candidates: int = 12,
) -> Judgement:
    """The outcome for one claim over the aligned spans of some pages (best first)."""
    if not alignments:
        return Judgement("not-found")
    body = [a for a in alignments if a.span.body]
    pool = body if body and body[0].score >= thresholds.body_first else list(alignments)
    best = pool[0]
    stated = _numbers_stated(content, pool)
    for a in pool[:candidates]:
        facts = facts_of(content, a, short_forms)
        against = [
            d
            for d in facts.contradictions
            if not (d.kind in ("number", "unit") and d.draft in stated)
        ]
        if against and a.score >= thresholds.mismatch and not a.core.rstrip().endswith("?"):
            # the span that states the claim best says otherwise: a run of sentences
            # aligned less well does not outvote it (a question says nothing otherwise:
            # "... are models with average acceleration also able to fit supernova data?")
            return Judgement("mismatch", a, Facts(tuple(against), facts.missing))
        if facts.agree and content_ok(content, a, thresholds, short_forms):
            return Judgement("supported", a, facts)
    facts = facts_of(content, best, short_forms)
    if best.score >= thresholds.discuss:
        return Judgement("unconfirmed", best, facts)
    return Judgement("not-found", best, facts)


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
