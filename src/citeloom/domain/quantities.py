"""Numbers as a page states them: each value with its unit and what it counts.

A sentence's numbers are read as the PDF's text layer has them: digit groups split by commas,
spaces or dots ("67, 562", "67 562", "67.562" in German), decimal commas, units written out or
abbreviated (``units``), spelled numbers ("seven studies", "doubled"), ranges whose unit comes
after their second end ("6.03 to 19.74 g/l"), and powers of ten whose superscript the PDF lost
("10^5" printed "105"). Figure, table, section and reference numbers are left out; a
reference's year is kept apart from every other value (``REFERENCE``). Digit groups are joined
only where the claim's own number asks for it (``written_in_groups``): "100, 200 and 300" is a
list, "67, 562" against a claim of 67,562 is one number. Which of a page's numbers states a
claim's is ``claim_numbers``'s question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from citeloom.domain.text import comparable_text, fold_for_match
from citeloom.domain.units import Unit, read_unit

_SPREAD = re.compile(r"\s?±\s?\d+(?:[.,]\d+)?")


def _unit_after(text: str, pos: int) -> tuple[Unit | None, int]:
    """The unit after a number, or after its spread: "10 395 ± 593 nM" is in nM."""
    unit, end = read_unit(text, pos)
    if unit is None and (spread := _SPREAD.match(text, pos)) is not None:
        unit, _ = read_unit(text, spread.end())
        if unit is not None:
            return unit, pos  # the unit is the spread's too: it is read again there
    return unit, end


# ------------------------------------------------------------------ numbers
_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1e6, "billion": 1e9, "dozen": 12,
    "single": 1, "once": 1, "twice": 2, "thrice": 3,
    "doubled": 2, "doubles": 2, "double": 2, "doubling": 2, "twofold": 2, "threefold": 3,
    "fourfold": 4, "tenfold": 10,
    "tripled": 3, "triples": 3, "triple": 3, "tripling": 3,
    "quadrupled": 4, "quadruple": 4, "halved": 0.5, "half": 0.5, "halves": 0.5,
}  # fmt: skip
_MULTIPLIERS = frozenset(
    """twice thrice doubled doubles double doubling tripled triples triple tripling quadrupled
    quadruple halved halves twofold threefold fourfold tenfold""".split()  # noqa: SIM905
)
_WORD_NUMBER = "|".join(sorted(_SMALL, key=len, reverse=True))
# a number as written: digits with a decimal point or comma; groups are read in _groups
_DIGITS = r"\d+(?:[.,]\d+)*"
# not a number glued to a name: "recall@20", "COVID-19", "IL-6", "PaSa-7B" (a letter, then a
# hyphen: no minus sign)
_NUMBER = re.compile(
    rf"(?<![\w.,/@])(?<![^\W\d_]-)(?P<lead>[~≈<>≤≥±]\s?)?(?P<sign>-)?(?P<num>{_DIGITS}|\.\d+)"
    r"(?:(?P<glued>(?=[A-Za-zμ°π]))|(?![\w]))"
    rf"|(?<![\w-])(?P<word>{_WORD_NUMBER})(?![\w-])",
    re.I,
)
_ONE_OF = re.compile(r"\s+of\b", re.I)
_ONE_OF_TWO = re.compile(r"\b(?:the other|another)\b", re.I)
_HEDGES = re.compile(
    r"\b(?:about|around|approximately|approx\.|roughly|nearly|almost|some|over|under|"
    r"more than|less than|at least|at most|up to|close to|on the order of|circa|ca\.|"
    r"an estimated)\s*$",
    re.I,
)
_FILLER = frozenset(
    """a an the of and or with in on at to for from by as is are was were be been its their this
    that these those than per about each all mean median total approximately respectively
    """.split()  # noqa: SIM905
)
# what is written before a number that is no stated value: a reference, a figure, a page
_POINTER = re.compile(
    r"(?:\b(?:fig(?:ure)?s?|tables?|tab|eqs?|equations?|sections?|sec|chapters?|ch|refs?|"
    r"references?|pp?|pages?|appendix|appendices|suppl(?:ementary)?)\.?\s*(?:\(|\[)?\s*$)"
    r"|(?:\[\s*$)",
    re.I,
)
# an amino-acid residue's position, "Arg 381", "Tyr 369": a place in the protein, not a value
_RESIDUE = re.compile(
    r"\b(?:Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val)"
    r"\s?$"
)


# a thing and its number alone in brackets name it: "the heavy quark (particle 2)"; not a
# measure's value ("(total 120)") nor a place in a sequence, which a claim gives as a value
# ("(Phase 3)", "(release 82)")
_LABEL_OPEN = re.compile(r"\(\s*([A-Za-z]{3,})\s$")
_LABEL_CLOSE = re.compile(r"\s*\)")
_MEASURES = frozenset(
    """total mean median age range ratio rate score max min sum average mode size phase
    phases stage step grade type class version release level day week month year hour
    minute part chapter section table figure page""".split()  # noqa: SIM905
)


# what is written before a reference's year: "(Edgar, 2004", "; Loytynoja & Goldman, 2005",
# "Moretti et al., 2014", "Smith (2004"
REFERENCE = "__reference__"  # the noun of a reference's year
_AUTHOR = r"[A-Z][\w'\u2019-]+(?:\s+(?:&|and)\s+[A-Z][\w'\u2019-]+|\s+et\s+al\.?)?"
_REFERENCE_YEAR = re.compile(
    rf"[(\[;]\s*{_AUTHOR},?\s+$|\bet\s+al\.?,?\s*$|[A-Z][\w'\u2019-]+(?:\s+et\s+al\.?)?\s*\(\s*$"
)


@dataclass(frozen=True)
class Quantity:
    value: float
    text: str  # as written, for the message: "12 sites", "12.88 g/l"
    unit: Unit | None
    noun: str | None  # stem of the word it counts: "sites" -> "site"
    context: frozenset[str]  # stems of the content words around it
    hedged: bool = False  # "about 7": a rounded value is not another one
    spelled: bool = False  # "three", "doubled": often no stated figure ("the two peaks")
    decimals: int = 0  # digits after the decimal point, as written (rounding)
    start: int = 0  # offsets in the comparable text it was read from
    end: int = 0
    spread: bool = False  # "± 593": an uncertainty, never another value of the quantity
    grouped: bool = False  # joined digit groups ("67, 562"): read only against a claim's
    flattened: str | None = None  # 10^5 as a PDF prints it once its superscript is lost

    @property
    def pointer(self) -> bool:
        """A figure, table, section or reference number, not a stated value."""
        return self.noun == "__pointer__"


def _stem(word: str) -> str:
    return word[:5]


def _content(words: list[str]) -> list[str]:
    return [w for w in words if w not in _FILLER and len(w) > 2 and not w.isdigit()]


def _number_value(token: str) -> tuple[float, int] | None:
    """A written number's value and decimals, English style: "1,234.5" -> 1234.5; a comma
    before other than three digits is a decimal comma ("12,88")."""
    token = token.strip()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
        frac = token.partition(".")[2]
        return float(token.replace(",", "")), len(frac)
    if re.fullmatch(r"\d+,\d{1,2}|\d+,\d{4,}", token):  # 12,88 (a decimal comma)
        return float(token.replace(",", ".")), len(token.split(",")[1])
    if re.fullmatch(r"\d*\.\d+|\d+", token):
        return float(token), len(token.split(".")[1]) if "." in token else 0
    return None


def _context(text: str, start: int, end: int) -> frozenset[str]:
    before = re.findall(r"[a-z]+", fold_for_match(text[max(0, start - 50) : start]))
    after = re.findall(r"[a-z]+", fold_for_match(text[end : end + 60]))
    return frozenset(_stem(w) for w in _content(before)[-3:] + _content(after)[:3])


def _noun(text: str, end: int) -> str | None:
    """The stem of the word a number counts: the word right after it (or after "of"): "12
    sites", "6.8 millimetres of sediment". Punctuation between them means none."""
    match = re.match(r"\s(?:(?:of|of the)\s)?(?P<word>[A-Za-z][a-z-]{2,})\b", text[end : end + 40])
    if match is None or match["word"].lower() in _FILLER:
        return None
    return _stem(match["word"].lower().rstrip("s"))


def _shown(text: str, start: int, end: int, unit: Unit | None) -> str:
    """The number as a message shows it: with its unit ("12.88 g/l"), else with the word or
    two it counts ("12 sites")."""
    if unit is not None:
        return text[start:end].strip()
    words: list[str] = []
    for word in re.findall(r"[A-Za-z][\w-]*|\S", text[end : end + 60]):
        if not word[0].isalpha() or word.lower() in _FILLER or len(words) == 2:
            break
        words.append(word)
    return " ".join([text[start:end].strip(), *words])


_POWER = re.compile(
    r"(?:(?P<mantissa>\d+(?:\.\d+)?)\s*×\s*)?10\s*\^\s*\{?\s*(?P<exponent>-?\s*\d+)\s*\}?"
    # 1e-5, 6.02e23; not "2e76", an en dash a text layer wrote as "e"
    r"|(?<![\w.])(?P<e_mantissa>\d+(?:\.\d+)?(?=[eE][-+])|\d\.\d+)[eE](?P<e_exponent>[-+]?\d+)\b"
)


def quantities(text: str) -> list[Quantity]:
    """The numbers a sentence states, each with its unit or noun; a range ("0-2 ns", "between
    6.03 and 19.74 g/l") gives both ends, the unit of its end applying to both. Figure,
    table, section and reference numbers are left out."""
    return list(_quantities(text))


@lru_cache(maxsize=65536)
def _quantities(text: str) -> tuple[Quantity, ...]:
    """``quantities``, read once per text: a page's sentences are read for every claim."""
    text = comparable_text(text)
    found: list[Quantity] = []
    for match in _POWER.finditer(text):
        written = match["mantissa"] or match["e_mantissa"]
        exponent = int((match["exponent"] or match["e_exponent"]).replace(" ", ""))
        if abs(exponent) > 300:  # no measured value: an identifier, a garbled line
            continue
        mantissa = float(written) if written else 1.0
        if mantissa == 1.0:
            written = None  # 1e-5 is 10^-5
        flat = f"{written}×10{exponent}" if written else f"10{exponent}"
        value = mantissa * 10.0**exponent
        found.append(
            Quantity(
                value,
                match[0],
                None,
                None,
                frozenset(),
                start=match.start(),
                end=match.end(),
                flattened=flat,
            )
        )
    text = _POWER.sub(lambda m: " " * len(m[0]), text)
    pending: list[Quantity] = []  # the first end of a range, waiting for its unit
    last_end = 0
    for match in _NUMBER.finditer(text):
        if match.start() < last_end:  # inside the unit just read: "g L-1"
            continue
        after_number = bool(pending) and text[pending[-1].end : match.start()] == ""
        quantity = _read(text, match, range_end=after_number)
        if quantity is None:
            found += pending
            pending = []
            continue
        last_end = quantity.end
        between = text[pending[-1].end : quantity.start] if pending else ""
        if pending and re.fullmatch(r"\s*(?:-|to|and)\s*", between) and quantity.unit:
            found += [_with_unit(q, quantity) for q in pending]
        else:
            found += pending
        pending = [quantity] if quantity.unit is None else []
        if quantity.unit is not None:
            found.append(quantity)
    found += pending
    return tuple(sorted(found, key=lambda q: q.start))


def _with_unit(q: Quantity, end: Quantity) -> Quantity:
    """The first end of a range, with the unit written after the second: "6.03 to 19.74 g/l"."""
    assert end.unit is not None
    return Quantity(
        q.value,
        f"{q.text} {end.unit.text}",
        end.unit,
        end.noun,
        q.context | end.context,
        q.hedged,
        q.spelled,
        q.decimals,
        q.start,
        q.end,
    )


_TIMES_BEFORE = re.compile(r"[A-Za-zμ)]\s?×\s?$")


def _glued_unit(text: str, match: re.Match[str], unit: Unit | None, end: int) -> bool:
    """A unit written on to its number ("3T", "12mK", "75.0m s-1") reads as one only when
    the letters after the number are all of it, and not a decade ("1990s")."""
    if unit is None or (end < len(text) and (text[end].isalnum() or text[end] == "_")):
        return False
    return not (unit.text == "s" and re.fullmatch(r"1[89]\d0|20\d0", match["num"]))


def _read(text: str, match: re.Match[str], range_end: bool = False) -> Quantity | None:
    before = text[: match.start()]
    if _POINTER.search(before) or _RESIDUE.search(text, max(0, match.start() - 5), match.start()):
        return None  # (a residue's code is read just before the number, not over the text)
    label = _LABEL_OPEN.search(before)
    if label and label[1].lower() not in _MEASURES and _LABEL_CLOSE.match(text, match.end()):
        return None  # "(particle 2)": which particle, not how many
    if _INDEX.search(before) and text.startswith(")", match.end()):
        return None  # "n(0)", "g(1)": an argument or an index, not a stated value
    if match["word"]:
        word = match["word"].lower()
        value: float = float(_SMALL[word])
        decimals = 0
        spelled = True
    else:
        read = _number_value(match["num"])
        if read is None:
            return None
        value, decimals = read
        if match["sign"] and not range_end:  # "0-2 ns": a range, not -2
            value = -value
        spelled = False
        # a year is a value like any other ("in 2006"), but a reference's ("(Edgar, 2004)",
        # "Moretti et al., 2014") is only ever the same quantity as another reference's year
        reference = (
            1900 <= value <= 2099
            and decimals == 0
            and "," not in match["num"]
            and bool(_REFERENCE_YEAR.search(before))
            and _unit_after(text, match.end())[0] is None
        )
        if reference:
            return Quantity(
                value, match["num"], None, REFERENCE, frozenset(), start=match.start(),
                end=match.end(),
            )  # fmt: skip
    unit, end = _unit_after(text, match.end())
    times = unit is None and bool(_TIMES_BEFORE.search(before))
    if times:  # "30 ml×3": three times
        unit = Unit("×", (("times", 1),), 1.0)
    if match["glued"] is not None and not _glued_unit(text, match, unit, end):
        return None  # "2nd", "5b", "1990s": not a number with a unit written on
    if spelled and word in _MULTIPLIERS:
        unit = unit or Unit(word, (("times", 1),), 1.0)
    if spelled and word in ("one", "single", "once", "half") and unit is None:
        noun = _noun(text, end)
        if noun is None:
            return None  # "one of the", "half": a word, not a stated figure
        if word == "one" and (_ONE_OF.match(text, end) or _ONE_OF_TWO.search(text, end, end + 80)):
            # "one of two programmes", "one run for English and the other for German": which,
            # not how many
            return None
    fraction = None if spelled or decimals else _FRACTION.match(text, end)
    if fraction is not None and unit is None:  # "w = 1/3": one value, not 1 and 3
        value /= float(fraction[1]) or 1.0
        end = fraction.end()
        decimals = 3
    lead = (match["lead"] or "").strip()
    hedged = lead in ("~", "≈") or bool(_HEDGES.search(before))
    spread = lead == "±" or before.rstrip().endswith("±")
    return Quantity(
        value=value,
        text=("×" if times else "") + _shown(text, match.start(), end, unit),
        unit=unit,
        noun=_noun(text, end),
        context=_context(text, match.start(), end),
        hedged=hedged,
        spelled=spelled,
        decimals=decimals,
        start=match.start(),
        end=end,
        spread=spread,
    )


_INDEX = re.compile(r"[A-Za-zα-ωΑ-Ω]\($")
_FRACTION = re.compile(r"/(\d{1,3})(?![\d/\w]|[.,]\d)")


# ------------------------------------------------------------------ numbers in digit groups
def _group_pattern(q: Quantity) -> re.Pattern[str] | None:
    """How a page may write the claim's number: digit groups split by a comma, a space, a
    thin space or a dot, and a decimal point or comma ("67,562" -> 67, 562 | 67 562 |
    67.562; "12.88" -> 12,88)."""
    if q.spelled or q.flattened:
        return None
    whole = f"{abs(q.value):.{q.decimals}f}"
    integer, _, fraction = whole.partition(".")
    groups: list[str] = []
    while len(integer) > 3:
        groups.insert(0, integer[-3:])
        integer = integer[:-3]
    groups.insert(0, integer)
    body = r"(?:,\s?|\s|\.)?".join(groups)
    if fraction:
        body += rf"[.,]{fraction}"
    sign = "-" if q.value < 0 else ""
    return re.compile(rf"(?<![\d.,]){sign}{body}(?![\d]|[.,]\d)")


_GROUPS = re.compile(r"(?<![\d.,])\d{1,3}(?:(?:,\s?|\s|\.)\d{3})+(?![\d]|[.,]\d)")


def grouped_numbers(text: str) -> list[Quantity]:
    """Numbers written in digit groups, however split ("67, 562"), lists left out."""
    out = []
    for match in _GROUPS.finditer(text):
        if _LIST_BEFORE.search(text, 0, match.start()) or _LIST_AFTER.match(text, match.end()):
            continue
        unit, end = _unit_after(text, match.end())
        value = float(re.sub(r"\D", "", match[0]))
        out.append(
            Quantity(
                value,
                _shown(text, match.start(), end, unit),
                unit,
                _noun(text, end),
                _context(text, match.start(), end),
                start=match.start(),
                end=end,
                grouped=True,
            )
        )
    return out


_LIST_BEFORE = re.compile(r"\d\s?,\s?$")
_LIST_AFTER = re.compile(r"\s?(?:,|and\b|or\b)\s?\d")


def written_in_groups(claim: Quantity, text: str) -> Iterator[Quantity]:
    """The claim's own number wherever ``text`` (comparable text) writes it in digit groups or
    with a decimal comma, lists left out; only for a number with decimals or of 1,000 and
    more, which a page may split that way."""
    pattern = _group_pattern(claim)
    if pattern is None or not (claim.decimals or abs(claim.value) >= 1000):
        return
    for match in pattern.finditer(text):
        if _LIST_BEFORE.search(text, 0, match.start()) or _LIST_AFTER.match(text, match.end()):
            continue  # "100, 200 and 300": a list, not one number
        unit, end = _unit_after(text, match.end())
        yield Quantity(
            claim.value,
            text[match.start() : end],
            unit,
            _noun(text, end),
            _context(text, match.start(), end),
            decimals=claim.decimals,
            start=match.start(),
            end=end,
            grouped=True,
        )
