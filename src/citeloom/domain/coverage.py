"""What of a claim a sentence or a run of sentences holds: its terms, inflected or
abbreviated as the paper writes them, and its numbers.

A page is aligned with every claim citing it, sentence by sentence and in runs of two or
three (``domain.alignment``): a sentence sits in up to six runs, so what it holds of a claim
is read once per claim (``ClaimContent.held`` and ``.stated``) and a run's share is the union
of its sentences'.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from citeloom.domain.abbreviations import NO_SHORT_FORMS, ShortForms
from citeloom.domain.abstention import stem, text_stems
from citeloom.domain.claim_numbers import find_number
from citeloom.domain.text import comparable_words

if TYPE_CHECKING:
    from citeloom.domain.alignment import ClaimContent, Span


def covered(
    content: ClaimContent, text: str, short_forms: ShortForms = NO_SHORT_FORMS
) -> frozenset[str]:
    """The claim's terms a text holds, inflected or not ("accretes" ~ "accretion"), or as
    the paper abbreviates them ("Hb" for haemoglobin, "WMD" for weighted mean difference)."""
    key = (text, short_forms)
    if key not in content.held:
        stems = expanded_stems(text, short_forms)
        content.held[key] = frozenset(t for t, s in content.stems.items() if s in stems)
    return content.held[key]


def span_covered(
    content: ClaimContent, span: Span, short_forms: ShortForms = NO_SHORT_FORMS
) -> frozenset[str]:
    """``covered`` for a span, read sentence by sentence."""
    if len(span.sentences) == 1:
        return covered(content, span.sentences[0], short_forms)
    return frozenset().union(*(covered(content, s, short_forms) for s in span.sentences))


def span_numbers(content: ClaimContent, span: Span) -> int:
    """How many of the claim's numbers some sentence of the span states."""
    if not content.numbers:
        return 0
    for sentence in span.sentences:
        if sentence not in content.stated:
            content.stated[sentence] = frozenset(
                i
                for i, q in enumerate(content.numbers)
                if find_number(q, sentence).stated is not None
            )
    return len(frozenset().union(*(content.stated[s] for s in span.sentences)))


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
