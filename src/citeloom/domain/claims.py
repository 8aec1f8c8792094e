"""Does a passage state what a claim states? Its numbers, units, negations, directions and names.

Topic similarity cannot tell "12 sites" from "8 sites", or "increased" from "decreased": a
false claim that changes one fact of a true sentence reads as its perfect match. So after a
sentence on the cited page is found that speaks of the same thing, the claim's checkable facts
are compared with that sentence and its neighbours (``differences``):

- numbers, with their units, percentages and ranges ("12 sites", "0-2 ns", "doubled",
  "three orders of magnitude"): each number of the claim must be stated; the same number with
  another unit, or another number where the claim's unit or noun stands, is a difference;
- negation: the claim and the sentence must agree on whether it is negated;
- direction: "increases" against "decreases", "higher" against "lower";
- names: an acronym, a CamelCase or alphanumeric name, or a capitalised word of the claim
  must be in the paper (a method or a dataset it does not use is a difference).

Each difference says what the draft says and what the page says, for the verdict ``mismatch``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from citeloom.domain.names import mentioned, names
from citeloom.domain.text import fold_for_match, normalise_text

DifferenceKind = Literal["number", "unit", "negation", "direction", "term"]

# Words that frame a claim rather than state it: never looked for on the page.
FRAMING_WORDS = frozenset(
    """reported report reports reporting colleagues coworkers co-workers authors author et al
    according claim claims claimed argue argues argued note notes noted observe observes
    observed find finds found show shows showed shown demonstrate demonstrates describe
    describes described state states stated suggest suggests suggested conclude concludes
    concluded study work paper article""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Difference:
    kind: DifferenceKind
    draft: str  # what the claim says: "12 sites"
    page: str  # what the page says: "8 sites"; "" when it says nothing of it

    def describe(self, page_label: str | None) -> str:
        where = f"p. {page_label}" if page_label else "the page"
        said = self.page or "not stated"
        return f"draft: {self.draft}; {where}: {said}"


# ------------------------------------------------------------------ numbers and units
_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1e6, "billion": 1e9, "dozen": 12,
    "single": 1, "once": 1, "twice": 2, "thrice": 3,
    "doubled": 2, "doubles": 2, "double": 2, "doubling": 2,
    "tripled": 3, "triples": 3, "triple": 3, "tripling": 3,
    "quadrupled": 4, "quadruple": 4, "halved": 0.5, "half": 0.5, "halves": 0.5,
}  # fmt: skip
_WORD_NUMBER = "|".join(sorted(_SMALL, key=len, reverse=True))

# unit -> (dimension, factor to the dimension's base); the same unit spelt several ways
_UNITS: dict[str, tuple[str, float]] = {
    "ps": ("time", 1e-12), "ns": ("time", 1e-9), "µs": ("time", 1e-6), "us": ("time", 1e-6),
    "ms": ("time", 1e-3), "s": ("time", 1), "sec": ("time", 1), "second": ("time", 1),
    "min": ("time", 60), "minute": ("time", 60), "h": ("time", 3600), "hr": ("time", 3600),
    "hour": ("time", 3600), "day": ("time", 86400), "week": ("time", 604800),
    "month": ("time", 2.6e6), "year": ("time", 3.15e7), "yr": ("time", 3.15e7),
    "y": ("time", 3.15e7),
    "%": ("share", 1), "percent": ("share", 1), "per cent": ("share", 1),
    "percentage point": ("points", 1),
    "bit": ("data", 1), "byte": ("data", 8), "kb": ("data", 8e3), "kbyte": ("data", 8e3),
    "mb": ("data", 8e6), "mbyte": ("data", 8e6), "gb": ("data", 8e9), "gbyte": ("data", 8e9),
    "tb": ("data", 8e12),
    "hz": ("frequency", 1), "khz": ("frequency", 1e3), "mhz": ("frequency", 1e6),
    "ghz": ("frequency", 1e9), "thz": ("frequency", 1e12),
    "nm": ("length", 1e-9), "µm": ("length", 1e-6), "um": ("length", 1e-6),
    "mm": ("length", 1e-3), "cm": ("length", 1e-2), "m": ("length", 1), "km": ("length", 1e3),
    "pc": ("length", 3.086e16), "kpc": ("length", 3.086e19), "mpc": ("length", 3.086e22),
    "gpc": ("length", 3.086e25),
    "mg": ("mass", 1e-3), "g": ("mass", 1), "kg": ("mass", 1e3), "µg": ("mass", 1e-6),
    "ug": ("mass", 1e-6),
    "k": ("temperature", 1), "mk": ("temperature", 1e-3), "µk": ("temperature", 1e-6),
    "°c": ("celsius", 1), "°f": ("fahrenheit", 1),
    "ev": ("energy", 1), "mev": ("energy", 1e6), "kev": ("energy", 1e3), "gev": ("energy", 1e9),
    "tev": ("energy", 1e12), "mev_milli": ("energy", 1e-3), "j": ("energy", 6.24e18),
    "w": ("power", 1), "mw": ("power", 1e-3), "kw": ("power", 1e3),
    "v": ("voltage", 1), "mv": ("voltage", 1e-3), "kv": ("voltage", 1e3),
    "nm_conc": ("concentration", 1e-9), "µm_conc": ("concentration", 1e-6),
    "mm_conc": ("concentration", 1e-3),
    "ml": ("volume", 1e-3), "l": ("volume", 1), "µl": ("volume", 1e-6),
    "m/s": ("speed", 1), "km/h": ("speed", 1 / 3.6), "mph": ("speed", 0.447),
    "km/s": ("speed", 1e3),
    "mm/yr": ("rate", 1e-3), "mm per year": ("rate", 1e-3), "cm/yr": ("rate", 1e-2),
    "orders of magnitude": ("magnitude", 1), "order of magnitude": ("magnitude", 1),
    "fold": ("times", 1), "times": ("times", 1),
    # spelt out
    "picosecond": ("time", 1e-12), "nanosecond": ("time", 1e-9), "microsecond": ("time", 1e-6),
    "millisecond": ("time", 1e-3), "nanometre": ("length", 1e-9), "nanometer": ("length", 1e-9),
    "micrometre": ("length", 1e-6), "micrometer": ("length", 1e-6), "micron": ("length", 1e-6),
    "millimetre": ("length", 1e-3), "millimeter": ("length", 1e-3),
    "centimetre": ("length", 1e-2), "centimeter": ("length", 1e-2), "metre": ("length", 1),
    "meter": ("length", 1), "kilometre": ("length", 1e3), "kilometer": ("length", 1e3),
    "milligram": ("mass", 1e-3), "gram": ("mass", 1), "kilogram": ("mass", 1e3),
    "kelvin": ("temperature", 1), "millikelvin": ("temperature", 1e-3),
    "kilobyte": ("data", 8e3), "megabyte": ("data", 8e6), "gigabyte": ("data", 8e9),
    "hertz": ("frequency", 1), "kilohertz": ("frequency", 1e3), "megahertz": ("frequency", 1e6),
    "gigahertz": ("frequency", 1e9), "volt": ("voltage", 1), "millivolt": ("voltage", 1e-3),
    "watt": ("power", 1), "milliwatt": ("power", 1e-3), "kilowatt": ("power", 1e3),
    "electronvolt": ("energy", 1), "millilitre": ("volume", 1e-3), "litre": ("volume", 1),
    "liter": ("volume", 1), "kiloparsec": ("length", 3.086e19), "megaparsec": ("length", 3.086e22),
}  # fmt: skip
_RATE = re.compile(r"\s*(?:/|per )(?:yr|year|s|h|day)$")
_UNIT_WORDS = sorted(
    (u for u in _UNITS if not u.endswith(("_conc", "_milli"))), key=len, reverse=True
)
_UNIT_PATTERN = "|".join(re.escape(u) for u in _UNIT_WORDS)
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+"
_QUANTITY = re.compile(
    rf"(?<![\w.])(?P<lead>[~≈<>≤≥]\s*)?"
    rf"(?P<first>{_NUMBER}|{_WORD_NUMBER})"
    rf"(?:\s*(?:-|–|—|to|and)\s*(?P<second>{_NUMBER}))?"
    rf"(?:\s*(?P<unit>(?:{_UNIT_PATTERN})s?)(?![a-zµ°]))?"
    rf"(?:\s+(?P<noun>[a-z][a-z-]{{2,}}))?",
    re.I,
)
_HEDGES = re.compile(
    r"\b(?:about|around|approximately|roughly|nearly|almost|some|over|under|more than|"
    r"less than|at least|at most|up to|close to|on the order of|circa|ca\.)\s*$",
    re.I,
)


@dataclass(frozen=True)
class Quantity:
    value: float
    text: str  # as written, for the message: "12 sites"
    unit: str | None  # a known unit, canonical ("ns", "%"); None when there is none
    noun: str | None  # the word after the number ("sites"), to pair "12 sites" with "8 sites"
    hedged: bool  # "about 7": a rounded value is not a different one
    spelled: bool = False  # "three", "doubled": often not a stated figure ("the two peaks")
    after: frozenset[str] = frozenset()  # content words just after it: "quantum", "wells"
    # a power of ten as a PDF prints it once its superscript is lost: 10^5 -> "105"
    flattened: str | None = None

    @property
    def dimension(self) -> tuple[str, float] | None:
        return _UNITS.get(self.unit) if self.unit else None


def _value(token: str) -> float | None:
    word = token.lower()
    if word in _SMALL:
        return float(_SMALL[word])
    try:
        return float(word.replace(",", ""))
    except ValueError:
        return None


def _canonical_unit(unit: str | None) -> str | None:
    if not unit:
        return None
    text = (
        unit.lower().rstrip("s")
        if unit.lower() not in ("s", "ms", "ns", "ps", "µs", "us")
        else unit.lower()
    )
    text = {"sec": "s", "second": "s", "hr": "h", "hour": "h", "minute": "min", "yr": "year",
            "y": "year", "percent": "%", "per cent": "%", "mbyte": "mb", "kbyte": "kb",
            "gbyte": "gb", "time": "times", "point": "points", "percentage point": "points",
            "order of magnitude": "orders of magnitude",
            "orders of magnitude": "orders of magnitude"}.get(text, text)  # fmt: skip
    if unit.lower().startswith("order"):
        return "orders of magnitude"
    return text if text in _UNITS else unit.lower()


_POWER = re.compile(
    r"(?:(?P<mantissa>\d+(?:\.\d+)?)\s*[×x*]\s*)?10\s*\^\s*\{?\s*(?P<exponent>-?\s*\d+)\s*\}?"
)


def _powers(text: str) -> tuple[str, list[Quantity]]:
    """Powers of ten written with a caret (``10^-27``, ``11.44 × 10^9``), as quantities,
    and the text with each blanked out for the other numbers to be read."""
    found = []
    for match in _POWER.finditer(text):
        exponent = int(match["exponent"].replace(" ", ""))
        mantissa = float(match["mantissa"]) if match["mantissa"] else 1.0
        flat = f"10{exponent}"
        if match["mantissa"]:
            flat = f"{match['mantissa']}×{flat}"
        found.append(
            Quantity(mantissa * 10.0**exponent, match[0], None, None, False, flattened=flat)
        )
    return _POWER.sub(lambda m: " " * len(m[0]), text), found


def _shown(text: str, match: re.Match[str]) -> str:
    """The number as the message shows it: with its unit ("6.8 mm per year"), else with the
    words it counts ("twelve quantum wells")."""
    if match["unit"]:
        return text[match.start() : match.end("unit")].strip()
    end = match.end("second") if match["second"] else match.end("first")
    words: list[str] = []
    for word in re.findall(r"[A-Za-z][\w-]*|\S", text[end : end + 60]):
        if not word[0].isalpha() or word.lower() in _FILLER or len(words) == 2:
            break
        words.append(word)
    return " ".join([text[match.start() : end].strip(), *words])


def quantities(text: str) -> list[Quantity]:
    """The numbers a sentence states, each with its unit or noun: ranges give both ends."""
    text = normalise_text(text).replace("−", "-")
    text, found = _powers(text)
    for match in _QUANTITY.finditer(text):
        first = _value(match["first"])
        if first is None:
            continue
        if match["first"].lower() in ("one", "single", "once", "half") and not (
            match["unit"] or match["noun"]
        ):
            continue  # "one of the", "half": a word, not a stated figure
        unit = _canonical_unit(match["unit"])
        noun = (match["noun"] or "").lower().rstrip("s") or None
        hedged = bool(match["lead"] and match["lead"].strip() in "~≈") or bool(
            _HEDGES.search(text[: match.start()])
        )
        shown = _shown(text, match)
        spelled = not match["first"][0].isdigit() and match["first"][0] != "."
        if spelled and match["first"].lower() in _MULTIPLIERS:
            unit = unit or "times"  # doubled, tripled, twice: a factor
        after = _words_after(text, match.end("first"))
        found.append(Quantity(first, shown, unit, noun, hedged, spelled, after=after))
        if match["second"] is not None and (second := _value(match["second"])) is not None:
            found.append(Quantity(second, shown, unit, noun, hedged, after=after))
    return found


_MULTIPLIERS = frozenset(
    """twice thrice doubled doubles double doubling tripled triples triple tripling quadrupled
    quadruple halved halves
    """.split()  # noqa: SIM905
)
_FILLER = frozenset(
    """a an the of and or with in on at to for from by as is are was were be its their this that
    these those than per about
    """.split()  # noqa: SIM905
)


def _words_after(text: str, end: int, count: int = 3) -> frozenset[str]:
    """Up to ``count`` content words after a number (stems): what it counts."""
    words = re.findall(r"[a-z]+", fold_for_match(text[end : end + 60]))
    kept = [w for w in words if w not in _FILLER and len(w) > 2][:count]
    return frozenset(w[:5] for w in kept)


def _same_value(a: Quantity, b: Quantity) -> bool:
    if math.isclose(a.value, b.value, rel_tol=1e-9, abs_tol=1e-12):
        return True
    tolerance = 0.1 if (a.hedged or b.hedged) else 0.0
    return tolerance > 0 and math.isclose(a.value, b.value, rel_tol=tolerance)


def _in_base(q: Quantity) -> tuple[str, float] | None:
    dimension = q.dimension
    return (dimension[0], q.value * dimension[1]) if dimension else None


def _same_amount(a: Quantity, b: Quantity) -> bool:
    """The same amount in units of one dimension: 0.5 s and 500 ms."""
    base_a, base_b = _in_base(a), _in_base(b)
    if not (base_a and base_b and base_a[0] == base_b[0]):
        return False
    tolerance = 0.1 if (a.hedged or b.hedged) else 1e-6
    return math.isclose(base_a[1], base_b[1], rel_tol=tolerance)


def _units_clash(a: Quantity, b: Quantity) -> bool:
    """Both carry a known unit and they name different amounts (0.5 s is 500 ms; "7 mm ...
    a year" is not against "6.8 mm per year")."""
    if a.unit is None or b.unit is None or a.unit == b.unit:
        return False
    if _RATE.sub("", a.unit) == _RATE.sub("", b.unit):
        return False
    base_a, base_b = _in_base(a), _in_base(b)
    if base_a and base_b and base_a[0] == base_b[0]:
        return not math.isclose(base_a[1], base_b[1], rel_tol=1e-6)
    return True


def _comparable(a: Quantity, b: Quantity) -> bool:
    """Two numbers about the same thing: the same unit or dimension, or what follows them
    ("twelve random-width quantum wells", "ten quantum wells")."""
    if a.unit and b.unit:
        da, db = a.dimension, b.dimension
        return a.unit == b.unit or bool(da and db and da[0] == db[0])
    if a.noun is not None and a.noun == b.noun:
        return True
    return not (a.unit or b.unit) and bool(a.after & b.after)


def number_differences(claim: str, evidence: str) -> list[Difference]:
    """Each number of the claim must be stated by the evidence, in a compatible unit. A
    number written out ("two", "doubled") only differs from a rival the evidence states
    for the same thing: "the first two peaks" is not a figure the page must repeat."""
    said = quantities(evidence)
    flat_evidence = re.sub(r"\s+", "", normalise_text(evidence).replace("−", "-"))
    out: list[Difference] = []
    for q in quantities(claim):
        if q.flattened and q.flattened.replace("×", "") in flat_evidence.replace("×", ""):
            continue  # 10^5 printed as "105": the superscript was lost, not the number
        if any(_same_amount(q, e) for e in said):
            continue
        same = [e for e in said if _same_value(q, e)]
        if same and any(not _units_clash(q, e) for e in same):
            continue
        if same:
            out.append(Difference("unit", q.text, same[0].text))
            continue
        rival = next((e for e in said if _comparable(q, e)), None)
        if rival is None and q.spelled and q.unit is None:  # "the two peaks": no figure
            continue
        out.append(Difference("number", q.text, rival.text if rival else ""))
    return out


# ------------------------------------------------------------------ negation and direction
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|without|cannot|lacks?|lacking|absent|unable|"
    r"fails?|failed|nothing|nobody|nowhere)\b|n't\b",
    re.I,
)


def negations(text: str) -> int:
    return len(_NEGATION.findall(normalise_text(text)))


def negated_words(text: str, span: int = 2) -> set[str]:
    """Stems of the content words a negation governs: "not actionable nor sparse" ->
    {actio, spars}."""
    folded = fold_for_match(text)
    out: set[str] = set()
    for match in _NEGATION.finditer(folded):
        words = re.findall(r"[a-z]+", folded[match.end() : match.end() + 80])
        kept = [w for w in words if w not in _FILLER and len(w) > 2][:span]
        out |= {w[:5] for w in kept}
    return out


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", fold_for_match(text)) if len(w) > 2}


def negation_differs(claim: str, sentence: str) -> bool:
    """One of the two is negated and the other is not, about the same thing: what the
    negation governs is said in the other ("is not a single event" against "is one event";
    "not integrable" says nothing against a claim about solutions)."""
    if (negations(claim) > 0) == (negations(sentence) > 0):
        return False
    if negations(claim):
        negated, other = negated_words(claim), sentence
    else:
        negated, other = negated_words(sentence), claim
    return bool(negated & _stems(other))


# each pair: word starts (or phrases) of one direction, and of the other
_DIRECTIONS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("increas", "rais", "rise", "rising", "rose", "grow", "grew", "gain", "boost", "enhanc",
      "amplif", "elevat", "higher", "larger", "greater", "bigger", "exceed", "longer"),
     ("decreas", "reduc", "lower", "fall", "fell", "drop", "declin", "diminish", "shrink",
      "suppress", "loss", "lose", "lost", "smaller", "fewer", "shorter")),
    (("more",), ("less",)),
    (("above",), ("below",)),
    (("faster", "quicker", "accelerat"), ("slower", "decelerat")),
    (("improv", "better", "outperform"), ("worse", "worsen", "degrad", "underperform")),
    (("positive",), ("negative",)),
    (("strong",), ("weak",)),
    (("maximum", "maximi", "maximal"), ("minimum", "minimi", "minimal")),
    (("surviv", "persist", "retain", "preserv"), ("vanish", "disappear", "destroy", "collaps")),
    (("satisf", "attainable", "achievable", "within reach", "feasib"),
     ("out of reach", "unattainable", "unachievable", "infeasib", "impossib")),
)  # fmt: skip
_SIDES = [
    tuple(re.compile(r"\b(?:" + "|".join(re.escape(w) for w in side) + r")") for side in pair)
    for pair in _DIRECTIONS
]


def _directions(text: str) -> set[tuple[int, int]]:
    folded = fold_for_match(text)
    return {
        (number, side)
        for number, sides in enumerate(_SIDES)
        for side, pattern in enumerate(sides)
        if pattern.search(folded)
    }


def direction_differences(claim: str, evidence: str) -> list[Difference]:
    """A claim that goes one way where the evidence goes the other, and not also that way."""
    mine, theirs = _directions(claim), _directions(evidence)
    out = []
    for number, side in sorted(mine):
        other = 1 - side
        if (number, other) in theirs and (number, side) not in theirs:
            out.append(
                Difference(
                    "direction",
                    _word_of(claim, _SIDES[number][side]),
                    _word_of(evidence, _SIDES[number][other]),
                )
            )
    return out


def _word_of(text: str, pattern: re.Pattern[str]) -> str:
    match = pattern.search(fold_for_match(text))
    if match is None:
        return ""
    rest = fold_for_match(text)[match.start() :].split()
    return " ".join(rest[:3])


# ------------------------------------------------------------------ names
def _contains(text: str, term: str) -> bool:
    return mentioned(text, term)


def term_differences(claim: str, paper_text: str, ignore: Collection[str] = ()) -> list[Difference]:
    """Names of the claim (acronyms, CamelCase, capitalised words) the cited paper never
    mentions: a method or a dataset it does not use."""
    return [
        Difference("term", name, "")
        for name in names(claim, ignore)
        if not _contains(paper_text, name)
    ]


def contradictions(
    claim: str, sentence: str, paper_text: str, ignore: Collection[str] = ()
) -> list[Difference]:
    """What a sentence says against the claim, explicitly: the opposite negation or direction,
    or another value or unit where the claim states one and the paper nowhere states the
    claim's own ("0.2 times" and "4000 times" beside "200 times" contradict nothing). A
    sentence that merely leaves a fact unstated contradicts nothing."""
    unstated = {d.draft for d in number_differences(claim, paper_text)}
    return [
        d
        for d in differences(claim, sentence, sentence, sentence, ignore)
        if d.kind in ("negation", "direction")
        or (d.kind in ("number", "unit") and d.page and d.draft in unstated)
    ]


def differences(
    claim: str,
    sentence: str,
    window: str,
    paper_text: str,
    ignore: Collection[str] = (),
) -> list[Difference]:
    """What the evidence contradicts or leaves unstated of the claim.

    ``sentence`` is the evidence sentence, ``window`` it with its neighbours (numbers may be
    stated in the next sentence), ``paper_text`` the whole cited paper (where its names must
    appear); ``ignore``: names that are not content (the paper's authors)."""
    out = number_differences(claim, window)
    if negation_differs(claim, sentence):
        out.append(
            Difference(
                "negation",
                _negation_phrase(claim) or "affirms it",
                _negation_phrase(sentence) or "affirms it",
            )
        )
    out += direction_differences(claim, window)
    out += term_differences(claim, paper_text, ignore)
    return out


def _negation_phrase(text: str) -> str:
    """A few words around the first negation, for the message."""
    match = _NEGATION.search(text)
    if match is None:
        return ""
    words = text[match.start() :].split()
    return " ".join(words[:5])
