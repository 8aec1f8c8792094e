"""Values a sentence gives, in order, to the items of a list: "2.17, 2.77, 2.46 and 0.28 µg/ml
for n-hexane, chloroform, aqueous fractions and vincristine, respectively".

Nearness cannot read such a list: the first item stands beside the last value. The list is
read in its order instead, on the page where it says "respectively" and in a claim that
writes its own list the same way ("2.17, 2.77 and 2.46 µg/ml for the n-hexane, chloroform
and aqueous fractions"). A claim that gives one item another item's value ("the chloroform
fraction gave 2.17 µg/ml") has moved the value; one whose words name no item decides
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from citeloom.domain.abstention import STOPWORDS
from citeloom.domain.claim_numbers import states
from citeloom.domain.facts import Difference
from citeloom.domain.quantities import Quantity, quantities
from citeloom.domain.text import comparable_text, fold_for_match

_UNIT = r"\s*(?:[^\w\s]{1,3}|[a-zµμ/%]{1,5})?\s*"  # a unit or sign after a value: "µg/ml", "%"
# what may stand between two values of one list: "2.17, 2.77, 2.46 and 0.28 µg/ml"
LIST_GAP = re.compile(rf"{_UNIT}(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)\s*")
# after the list's last value: its unit, then the word that opens the list of items
_OPENER = re.compile(rf"{_UNIT}(?:for|in|of|from|with)\s+(?:the\s+)?")
_ITEM_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+")
_ITEMS_END = re.compile(r",?\s*respectively|[;:.()]|$")
_WORD = re.compile(r"[^\W\d_]{3,}")


def listed(text: str, a: Quantity, b: Quantity) -> bool:
    """Whether two values stand in one list: nothing but commas, "and" and a unit between
    them and any value between."""
    first, last = (a, b) if a.start < b.start else (b, a)
    between = sorted(
        (q for q in quantities(text) if first.start < q.start < last.start), key=lambda q: q.start
    )
    edges = [first, *between, last]
    return all(
        LIST_GAP.fullmatch(text, left.end, right.start) is not None
        for left, right in pairwise(edges)
    )


def respective(text: str, *, said: bool) -> list[tuple[Quantity, str]]:
    """Each value of a list of two or more with the first word of the item the list after
    it gives it in order ("2.17 ... for n-hexane, chloroform" -> (2.17, "hexane"), (2.77,
    "chloroform")). ``said``: only where the text says "respectively", as a page does; a
    claim's own list need not."""
    text = comparable_text(text)
    if said and "respectively" not in text.lower():
        return []
    values = [q for q in quantities(text) if not (q.spread or q.pointer)]
    out: list[tuple[Quantity, str]] = []
    run: list[Quantity] = []
    for q in [*values, None]:
        if q is not None and run and LIST_GAP.fullmatch(text, run[-1].end, q.start):
            run.append(q)
            continue
        if len(run) >= 2:
            out += _paired(text, run)
        run = [q] if q is not None else []
    return out


def _paired(text: str, run: Sequence[Quantity]) -> list[tuple[Quantity, str]]:
    opener = _OPENER.match(text, run[-1].end)
    if opener is None:
        return []
    end = _ITEMS_END.search(text, opener.end())
    assert end is not None
    items = [i for i in _ITEM_SPLIT.split(text[opener.end() : end.start()]) if i.strip()]
    if len(items) != len(run):
        return []
    heads = [_head(item) for item in items]
    if any(h is None for h in heads) or len(set(heads)) != len(heads):
        return []
    return [(q, h) for q, h in zip(run, heads, strict=True) if h is not None]


def _head(item: str) -> str | None:
    """The first content word of an item ("n-hexane" -> hexane), folded."""
    words = [w for w in _WORD.findall(fold_for_match(item)) if w not in STOPWORDS]
    return words[0] if words else None


def misassigned(claim: str, core: str, numbers: Sequence[Quantity]) -> list[Difference]:
    """The claim's value that the stating sentence's list gives one item, given by the claim
    to another item of that list: "draft: 2.17 μg/ml (chloroform); page: 2.77 μg/ml
    (chloroform)"."""
    page = respective(core, said=True)
    if not page:
        return []
    mine = respective(claim, said=False)
    claim_text = comparable_text(claim)
    heads = {h for _, h in page}
    for q in numbers:
        theirs = next((h for p, h in page if states(q, p)), None)
        if theirs is None:
            continue
        own = next((h for c, h in mine if c.start == q.start), None)
        words = {own} if own is not None else _clause_words(claim_text, q) & heads
        if not words or theirs in words or len(words) > 1:
            continue
        (word,) = words
        other = next(p for p, h in page if h == word)
        if not any(states(c, other) for c in numbers):
            return [Difference("number", f"{q.text} ({word})", f"{other.text} ({word})")]
    return []


def _clause_words(text: str, q: Quantity) -> set[str]:
    """The folded words of the clause before a value, back to a comma or a bracket: what
    the claim gives the value to when it writes no list."""
    start = max(text.rfind(mark, 0, q.start) for mark in ",;:(")
    return set(_WORD.findall(fold_for_match(text[start + 1 : q.start])))
