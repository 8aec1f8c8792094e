"""What of a claim a sentence or a run of sentences holds: its terms, inflected or
abbreviated as the paper writes them, and its numbers.

A page is aligned with every claim citing it, sentence by sentence and in runs of two or
three (``domain.alignment``): a sentence sits in up to six runs, so what it holds of a claim
is read once per claim (``ClaimContent.held`` and ``.stated``) and a run's share is the union
of its sentences'.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from citeloom.domain.abbreviations import NO_SHORT_FORMS, ShortForms
from citeloom.domain.abstention import stem, text_stems
from citeloom.domain.claim_numbers import find_number
from citeloom.domain.text import comparable_words

if TYPE_CHECKING:
    from citeloom.domain.alignment import ClaimContent, Span


@dataclass(frozen=True)
class Share:
    """What a span holds of a claim, read once per set of the claim's terms it holds."""

    weight: float  # the weight of the claim's terms it holds
    unasked: float  # the weight of the topic's terms it does not name: not asked of it
    uncovered: tuple[str, ...]  # the claim's other terms it lacks, rarest first


def _mask(content: ClaimContent, text: str, short_forms: ShortForms) -> int:
    """The claim's terms a text holds, inflected or not ("accretes" ~ "accretion"), or as
    the paper abbreviates them ("Hb" for haemoglobin, "WMD" for weighted mean difference),
    as bits in the claim's order."""
    key = (text, short_forms)
    mask = content.held.get(key)
    if mask is None:
        stems = expanded_stems(text, short_forms)
        mask = sum(1 << n for n, s in enumerate(content.stems.values()) if s in stems)
        content.held[key] = mask
    return mask


def _held_mask(content: ClaimContent, span: Span, short_forms: ShortForms) -> int:
    """The claim's terms some sentence of the span holds, as bits."""
    mask = 0
    for sentence in span.sentences:
        mask |= _mask(content, sentence, short_forms)
    return mask


def share(content: ClaimContent, span: Span, short_forms: ShortForms = NO_SHORT_FORMS) -> Share:
    """The span's ``Share`` of the claim, once per set of terms held: many spans of a page
    hold the same few. Weights are summed in the claim's order, never a set's (whose order,
    and so a sum's last bit, changes with each process's hash seed: a tie of two spans must
    break the same way every run)."""
    mask = _held_mask(content, span, short_forms)
    found = content.shares.get(mask)
    if found is None:
        weights = content.weights
        held = [bool(mask >> n & 1) for n in range(len(weights))]
        pairs = list(zip(weights.items(), held, strict=True))
        found = Share(
            sum(w for (_, w), h in pairs if h),
            sum(w for (t, w), h in pairs if not h and t in content.context),
            tuple(
                sorted(
                    (t for (t, _), h in pairs if not h and t not in content.context),
                    key=lambda t: -weights[t],
                )
            ),
        )
        content.shares[mask] = found
    return found


def span_numbers(content: ClaimContent, span: Span) -> int:
    """How many of the claim's numbers some sentence of the span states."""
    if not content.numbers:
        return 0
    mask = 0
    for sentence in span.sentences:
        if sentence not in content.stated:
            content.stated[sentence] = sum(
                1 << n
                for n, q in enumerate(content.numbers)
                if find_number(q, sentence).stated is not None
            )
        mask |= content.stated[sentence]
    return mask.bit_count()


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
