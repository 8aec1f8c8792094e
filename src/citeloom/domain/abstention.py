"""How sure a query's answer is: IDF-weighted coverage of its content words, and the dense
similarity of the best passage.

A query whose rare words appear nowhere in the returned passages ("the effect of lunar tides
on quantum dots" against a library of marsh papers) is not answerable from this library, even
though the nearest passages are still returned, and marked as such.

What these two signals cannot do is tell a paraphrase (a passage described in other words)
from a question about a neighbouring topic that the library does not answer: both share few
words with the passages and sit at middling cosine similarity (docs/adr/0004). The rule is
therefore tuned so that paraphrases are rarely flagged, at the price of letting some
unanswerable questions through: a hidden right answer hurts a researcher more than a weak
one shown as weak.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import pairwise

from citeloom.domain.text import comparable_words, fold_for_match

STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does doing for from had has have
    how i if in into is it its me my no not of on or our so some such than that the their them
    then there these they this those to was we were what when where which who whom why will
    with would you your about above after again against all am any because before below
    between both during each few further here just more most nor once only other out over own
    same should too under until up very via vs paper papers study studies show shows shown
    using used use describe described find found give given tell much many""".split()  # noqa: SIM905
)


def content_terms(query: str) -> list[str]:
    words = comparable_words(query)
    seen: dict[str, None] = {}
    for word in words:
        if len(word) >= 3 and word not in STOPWORDS and not word.isdigit():
            seen[word] = None
    return list(seen)


def idf(total: int, frequency: int) -> float:
    """BM25's inverse document frequency (always positive)."""
    return math.log((total - frequency + 0.5) / (frequency + 0.5) + 1.0)


@lru_cache(maxsize=262144)  # a library's words recur on every page: each is stemmed once
def _stem(word: str) -> str:
    for suffix in (
        "ations",
        "ation",
        "ions",
        "ion",
        "ings",
        "ing",
        "ies",
        "es",
        "ed",
        "ly",
        "s",
        "e",
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            # "emitting" ~ "emit", "planned" ~ "plan": a doubled final consonant is one
            if len(word) >= 5 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            return word
    return word


def singular(word: str) -> str:
    """A folded word without a plural "s": "beds" -> "bed", "networks" -> "network"."""
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def stem(word: str) -> str:
    """A folded word without its inflection: 'accretes' ~ 'accretion' ~ 'accreted'."""
    return _stem(word)


@lru_cache(maxsize=65536)
def text_stems(text: str) -> frozenset[str]:
    """The stems of a text's words as a reader sees them (``comparable_text``: footnote
    markers dropped, signs unified), of its hyphenated compounds glued as a line break
    leaves them ("field-correlation" also as "fieldcorrelation"), and of two words in a row
    glued as a writer may close an open compound ("short list" also as "shortlist", "data
    set" as "dataset")."""
    words = comparable_words(text)
    stems = {_stem(w) for w in words}
    for compound in re.findall(r"[^\W_]+(?:-[^\W_]+)+", text.lower()):
        stems.add(_stem(fold_for_match(compound).replace(" ", "")))
    for first, second in pairwise(words):
        if first.isalpha() and second.isalpha() and min(len(first), len(second)) >= 3:
            stems.add(_stem(first + second))
    return frozenset(stems)


def covered_terms(terms: Iterable[str], passages: Iterable[str]) -> set[str]:
    """Terms that occur in any passage, allowing inflection ('accretes' ~ 'accretion'): the
    one coverage query confidence, answer and check count."""
    stems: set[str] = set()
    for passage in passages:
        stems |= text_stems(passage)
    return {t for t in terms if _stem(t) in stems}


# Where the evidence score splits answerable from unanswerable queries on the tuning half of
# the paper queries, when no kind of answerable query (paraphrases included) may be flagged
# more than 1 time in 10 (docs/adr/0004). ``confidence`` maps this point to 0.5, so that the
# default ``[query] min_confidence = 0.5`` is the tuned rule.
TUNED_SPLIT = 0.25


def evidence(
    weights: Mapping[str, float], covered: set[str], top_similarity: float | None
) -> float:
    """In [0, 1]: half lexical coverage (IDF-weighted), half dense similarity (cosine 0.2 -> 0,
    0.6 -> 1). With no content words, the dense part alone decides."""
    dense = 0.0 if top_similarity is None else min(1.0, max(0.0, (top_similarity - 0.2) / 0.4))
    total = sum(weights.values())
    if total <= 0:
        return dense
    lexical = sum(w for t, w in weights.items() if t in covered) / total
    return 0.5 * lexical + 0.5 * dense


def confidence(
    weights: Mapping[str, float], covered: set[str], top_similarity: float | None
) -> float:
    """The evidence score rescaled (piecewise linear, monotone) so that 0.5 is the tuned
    split: below it, the library does not seem to answer the query."""
    raw = evidence(weights, covered, top_similarity)
    if raw <= TUNED_SPLIT:
        return 0.5 * raw / TUNED_SPLIT
    return 0.5 + 0.5 * (raw - TUNED_SPLIT) / (1.0 - TUNED_SPLIT)
