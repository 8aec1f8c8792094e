"""Two names each given the other's partner: "SPPC on the English data and StanfordNER on the
German data" where the page uses "StanfordNER for English and SPPC for German".

Both names are on the page and in the claim, so neither is missing and no other name stands
in a slot of its own: only the pairs differ. A pair is read where the page writes it plainly,
a name, a preposition, and the name it is for ("SPPC (Neumann and Piskorski, 2002) for
German", the citation in brackets set aside); a claim that pairs a name with another partner
the page gives that name's rival is a swap. Pairs said any other way ("A and B were used for
English and German respectively") decide nothing.
"""

from __future__ import annotations

import re

from citeloom.domain.facts import Difference
from citeloom.domain.names import names
from citeloom.domain.text import comparable_text, fold_for_match

_BRACKETS = re.compile(r"\([^()]*\)")
_FOR = frozenset({"for", "on", "in", "with", "to", "at"})
_WORD = re.compile(r"[^\W_]+")


def _pairs(text: str) -> tuple[dict[str, set[str]], dict[str, str]]:
    """name -> the names a preposition right after it pairs it with ("StanfordNER for
    English": stanfordner -> {english}), folded, by their last and first words; and each
    folded word as the text writes it."""
    plain = re.sub(r"\s+", " ", _BRACKETS.sub(" ", comparable_text(text)))
    parts = [fold_for_match(n).split() for n in names(plain)]
    heads = {p[-1] for p in parts if p}
    tails = {p[0] for p in parts if p}
    written = [m[0] for m in _WORD.finditer(plain)]
    words = [fold_for_match(w) for w in written]
    out: dict[str, set[str]] = {}
    for i, word in enumerate(words[:-2]):
        if word not in heads:
            continue
        # "SPPC for German", "SMES produces for English": a verb may stand between
        at = i + 1
        if words[at] not in _FOR and at + 1 < len(words) and words[at + 1] in _FOR:
            at += 1
        if words[at] not in _FOR or at + 1 >= len(words):
            continue
        at += 2 if words[at + 1] == "the" and at + 2 < len(words) else 1
        if words[at] in tails and words[at] != word:
            out.setdefault(word, set()).add(words[at])
    return out, dict(zip(words, written, strict=True))


def crossed_pairs(claim: str, core: str) -> list[Difference]:
    """The claim's name paired with a partner the stating sentence ``core`` gives another of
    the claim's names, while it pairs this one elsewhere: "draft: SPPC on English; page:
    StanfordNER for English"."""
    if "respectively" in claim.lower():
        return []
    (mine, my_words), (theirs, their_words) = _pairs(claim), _pairs(core)
    for name, partners in mine.items():
        page_partners = theirs.get(name, set())
        for partner in partners:
            if partner in page_partners:
                continue
            # a name the page writes but pairs with nothing, given a partner the page gives a
            # name the claim never writes ("SMES on German" where the page has "SPPC for
            # German" and SMES for question analysis)
            rivals = [
                other
                for other, said in theirs.items()
                if partner in said
                and (
                    other in mine
                    if page_partners
                    else other not in my_words and name in their_words
                )
            ]
            if rivals:
                said = f"{my_words[name]} for {my_words[partner]}"
                page = f"{their_words[rivals[0]]} for {their_words[partner]}"
                return [Difference("term", said, page)]
    return []
