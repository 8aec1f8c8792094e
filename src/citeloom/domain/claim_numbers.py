"""A claim's numbers held to a page's: which number of the page states each, or gives the
same thing another value.

A claim's number is stated by the page's number with its value in an agreeing unit, read at
the claim's precision (12.9 is 12.88 rounded, 1.3 g/dl is 12.88 g/l, "about 7" is 6.8); it is
contradicted by the page's number for the same thing (the same unit, or the same noun or words
beside it) with another value, or by the same value in another unit (6.8 cm for 6.8 mm).
Reading the numbers is ``quantities``'s work.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from citeloom.domain.quantities import (
    REFERENCE,
    Quantity,
    grouped_numbers,
    quantities,
    written_in_groups,
)
from citeloom.domain.text import comparable_text


def _in_claim_unit(claim: Quantity, page: Quantity) -> float:
    """The page's value in the claim's unit (its numerator's, when only one of the two has a
    denominator: "6.8 mm ... per year" is 6.8 mm)."""
    if claim.unit is None or page.unit is None or claim.unit.numerator != page.unit.numerator:
        return page.value
    if bool(claim.unit.denominator) != bool(page.unit.denominator):
        return page.value * page.unit.head / claim.unit.head
    return page.value * page.unit.factor / claim.unit.factor


def _significant(value: float) -> int:
    """Significant digits of a value as written: 400 -> 1, 404 -> 3, 6.8 -> 2."""
    digits = f"{abs(value):.6f}".rstrip("0").rstrip(".").replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) or 1


def _agrees(claim: Quantity, page: Quantity) -> bool:
    """The page's value is the claim's, in the claim's unit and precision: 12.9 is 12.88
    rounded, 1.3 g/dl is 12.88 g/l, "about 7" is 6.8."""
    value = _in_claim_unit(claim, page)
    if math.isclose(value, claim.value, rel_tol=1e-9, abs_tol=1e-12):
        return True
    if claim.hedged or page.hedged:  # "about 7" for 6.8; not "around 404" for "around 400"
        if _significant(claim.value) >= _significant(value):
            return False  # "over 96" is not "over 95"
        return math.isclose(value, claim.value, rel_tol=0.1)  # "about 10%" is not 14%
    rounded = claim.decimals < page.decimals or value != page.value
    return rounded and math.isclose(round(value, claim.decimals), claim.value, abs_tol=1e-9)


def states(claim: Quantity, page: Quantity) -> bool:
    """The page's number gives the claim's value, in a unit that agrees with the claim's."""
    return _agrees(claim, page) and not units_clash(claim, page) and not _unit_on_one(claim, page)


def distinctive(q: Quantity) -> bool:
    """A value unlikely to be written for anything else: two significant digits or more
    (12.88, 57.5, 19,812), not 1, 3 or 30."""
    return _significant(q.value) >= 2


def _unit_on_one(claim: Quantity, page: Quantity) -> bool:
    """One of the two has a unit and the value is too common to be the same quantity by
    itself: "3" is not "3T", "1 times" is not the "1" of "1000:1"; "12.88" is "12.88 g/l"."""
    return (claim.unit is None) != (page.unit is None) and not distinctive(claim)


def units_clash(claim: Quantity, page: Quantity) -> bool:
    """Both carry a unit and they name different things or amounts: 6.8 cm is not 6.8 mm;
    "6.8 mm ... per year" is not against "6.8 mm"."""
    if claim.unit is None or page.unit is None:
        return False
    if claim.unit.numerator != page.unit.numerator:
        return True
    both = claim.unit.denominator and page.unit.denominator
    if both and claim.unit.denominator != page.unit.denominator:
        return True
    return not _agrees(claim, page)


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Two numbers about the same thing: units of one kind, or the same noun beside them, or
    (neither with a unit) the same words around them."""
    if (a.noun == REFERENCE) != (b.noun == REFERENCE):
        return False  # "two methods" is not "(Edgar, 2004)"
    if a.unit is not None and b.unit is not None:
        return a.unit.numerator == b.unit.numerator
    if a.unit is not None or b.unit is not None:
        return False
    if a.noun is not None and b.noun is not None and a.noun[:4] == b.noun[:4]:
        return True  # "three fungal species" and "3 fungi": one noun, two forms
    return len(a.context & b.context) >= 2


@dataclass(frozen=True)
class NumberFinding:
    """How the page stands to one number of the claim."""

    claim: Quantity
    stated: Quantity | None = None  # the page's number with the claim's value
    rival: Quantity | None = None  # the page's number for the same thing, another value
    unit_clash: Quantity | None = None  # the same value in another unit


@lru_cache(maxsize=262144)
def find_number(claim: Quantity, page_text: str) -> NumberFinding:
    """The page's number that states the claim's, else its number for the same thing with
    another value (or the same value in another unit), else nothing."""
    text = comparable_text(page_text)
    numbers = quantities(text)
    agreeing = [
        q
        for q in numbers
        if _agrees(claim, q) and not units_clash(claim, q) and not _unit_on_one(claim, q)
    ]
    if agreeing:
        return _stated_or_rival(claim, agreeing, numbers)
    if claim.flattened and claim.flattened.replace("×", "") in re.sub(r"[\s×]", "", text):
        return NumberFinding(claim, stated=claim)  # 10^5 printed as "105"
    for q in written_in_groups(claim, text):
        if not units_clash(claim, q):
            return NumberFinding(claim, stated=q)
    same_value = [
        q for q in numbers if math.isclose(q.value, claim.value) and units_clash(claim, q)
    ]
    rivals = [q for q in numbers if same_quantity(claim, q) and not (q.flattened or q.spread)]
    if abs(claim.value) >= 1000 and not claim.decimals:  # its rival may be grouped too
        grouped = [q for q in grouped_numbers(text) if same_quantity(claim, q)]
        rivals = grouped or rivals
    best = max(rivals, key=lambda q: (len(claim.context & q.context), -q.start), default=None)
    if same_value and (best is None or best.unit is None or claim.unit != best.unit):
        return NumberFinding(claim, unit_clash=same_value[0])  # 6.8 cm for 6.8 mm
    if best is not None:  # "×30" for "×3", rather than the "30 ml" beside it
        return NumberFinding(claim, rival=best)
    return NumberFinding(claim)


def _stated_or_rival(
    claim: Quantity, agreeing: list[Quantity], numbers: list[Quantity]
) -> NumberFinding:
    """The page's number with the claim's value that is about the same thing. A small
    number the page gives only about something else, while it gives another value for the
    claim's thing, is that thing's other value: "the Dirac equation for particle 2" against
    "the Dirac equation for particle 1 ... the heavy quark, particle 2"."""
    same = [q for q in agreeing if same_quantity(claim, q)]
    if same or distinctive(claim):
        return NumberFinding(claim, stated=(same or agreeing)[0])
    shared = max(len(claim.context & q.context) for q in agreeing)
    # clearly about the claim's thing: two more of its words around it than around the value
    # ("100, 200 and 300 patients": each is as much about the patients as the others)
    others = [
        q
        for q in numbers
        if same_quantity(claim, q)
        and not _agrees(claim, q)
        and not (q.flattened or q.spread)
        and len(claim.context & q.context) >= shared + 2
    ]
    if others:
        return NumberFinding(claim, rival=max(others, key=lambda q: len(claim.context & q.context)))
    return NumberFinding(claim, stated=agreeing[0])


def find_numbers(claims: tuple[Quantity, ...], page_text: str) -> list[NumberFinding]:
    """``find_number`` for each of a claim's numbers, one to one: the two 4s of "4 × 4" are
    not both stated by the one 4 of "4 × 1"."""
    used: set[int] = set()
    out = []
    for claim in claims:
        found = find_number(claim, page_text)
        if found.stated is not None and found.stated is not claim and found.stated.start in used:
            found = _another(claim, page_text, used)
        if found.stated is not None and found.stated is not claim:
            used.add(found.stated.start)
        out.append(found)
    return out


def _another(claim: Quantity, page_text: str, used: set[int]) -> NumberFinding:
    """The page's number stating the claim's that no other number of the claim took, else
    one of the same quantity with another value."""
    numbers = [q for q in quantities(page_text) if q.start not in used]
    for q in numbers:
        if _agrees(claim, q) and not units_clash(claim, q) and not _unit_on_one(claim, q):
            return NumberFinding(claim, stated=q)
    rivals = [
        q
        for q in numbers
        if same_quantity(claim, q) and not (q.flattened or q.spread) and not _agrees(claim, q)
    ]
    if rivals:
        return NumberFinding(claim, rival=max(rivals, key=lambda q: len(claim.context & q.context)))
    return NumberFinding(claim)
