"""Numbers as a page states them: each value with its unit and what it counts.

A claim's number is held to the page's number that quantifies the same thing (the same unit,
or the same noun beside it), read as the PDF's text layer has it: digit groups split by
commas, spaces or dots ("67, 562", "67 562", "67.562" in German), decimal commas, units
written out or abbreviated ("g/l", "g L-1", "grams per litre", "mg/dL"), ``%`` and "per
cent", spelled numbers ("seven studies", "doubled"), and powers of ten whose superscript the
PDF lost ("10^5" printed "105"). Digit groups are joined only where the claim's own number
asks for it: "100, 200 and 300" is a list, "67, 562" against a claim of 67,562 is one number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from citeloom.domain.text import comparable_text, fold_for_match

# ------------------------------------------------------------------ units
Dims = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Unit:
    """A unit as a dimension signature and a factor to its base: mg/dL is mass^1 volume^-1
    times 0.01 (g/l). ``head`` is the factor of its numerator alone, to compare "6.8 mm ...
    per year" with "6.8 mm"."""

    text: str  # as written: "g/l", "mg dL-1", "millimetres"
    dims: Dims
    factor: float
    head: float = 1.0

    @property
    def numerator(self) -> Dims:
        return tuple(d for d in self.dims if d[1] > 0)

    @property
    def denominator(self) -> Dims:
        return tuple(d for d in self.dims if d[1] < 0)


_PREFIXES = {
    "p": 1e-12, "n": 1e-9, "μ": 1e-6, "u": 1e-6, "m": 1e-3, "c": 1e-2, "d": 1e-1,
    "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
}  # fmt: skip
# symbols that take a prefix (case matters: nm is length, nM a concentration)
_SYMBOLS: dict[str, tuple[str, float]] = {
    "g": ("mass", 1), "l": ("volume", 1), "L": ("volume", 1), "m": ("length", 1),
    "s": ("time", 1), "mol": ("amount", 1), "M": ("molar", 1), "Hz": ("frequency", 1),
    "eV": ("energy", 1), "J": ("work", 1), "W": ("power", 1), "V": ("voltage", 1),
    "Pa": ("pressure", 1), "B": ("data", 8), "bit": ("data", 1), "K": ("temperature", 1),
    "Gy": ("dose", 1), "Da": ("molecular mass", 1), "N": ("force", 1), "A": ("current", 1),
    "T": ("magnetic field", 1),
}  # fmt: skip
# units taking no prefix
_PLAIN: dict[str, tuple[str, float]] = {
    "%": ("share", 1), "min": ("time", 60), "h": ("time", 3600), "hr": ("time", 3600),
    "hrs": ("time", 3600), "d": ("time", 86400), "wk": ("time", 604800),
    "yr": ("time", 3.15e7), "yrs": ("time", 3.15e7), "°C": ("celsius", 1),
    "°F": ("fahrenheit", 1), "mmHg": ("pressure", 133.3), "ppm": ("share", 1e-4),
    "ppb": ("share", 1e-7), "kcal": ("work", 4184), "cal": ("work", 4.184),
    "IU": ("units", 1), "bp": ("bases", 1), "kb": ("bases", 1e3), "Mb": ("bases", 1e6),
    "kpc": ("length", 3.086e19), "Mpc": ("length", 3.086e22), "pc": ("length", 3.086e16),
    "Gpc": ("length", 3.086e25), "mph": ("speed", 0.447), "x": ("times", 1),
}  # fmt: skip
# words, singular; a prefix word may lead a base word (milli + gram)
_WORD_PREFIXES = {
    "pico": 1e-12, "nano": 1e-9, "micro": 1e-6, "milli": 1e-3, "centi": 1e-2, "deci": 1e-1,
    "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12,
}  # fmt: skip
_WORD_BASES: dict[str, tuple[str, float]] = {
    "gram": ("mass", 1), "gramme": ("mass", 1), "litre": ("volume", 1),
    "liter": ("volume", 1), "metre": ("length", 1), "meter": ("length", 1),
    "second": ("time", 1), "volt": ("voltage", 1), "watt": ("power", 1),
    "hertz": ("frequency", 1), "byte": ("data", 8), "bit": ("data", 1),
    "electronvolt": ("energy", 1), "mole": ("amount", 1), "molar": ("molar", 1),
    "kelvin": ("temperature", 1), "joule": ("work", 1), "pascal": ("pressure", 1),
    "parsec": ("length", 3.086e16),
}  # fmt: skip
_WORDS: dict[str, tuple[str, float]] = {
    "micron": ("length", 1e-6), "minute": ("time", 60), "hour": ("time", 3600),
    "day": ("time", 86400), "week": ("time", 604800), "month": ("time", 2.63e6),
    "year": ("time", 3.15e7), "percentage point": ("points", 1), "fold": ("times", 1),
    "times": ("times", 1), "order of magnitude": ("magnitude", 1),
    "orders of magnitude": ("magnitude", 1), "degree": ("angle", 1),
}  # fmt: skip
_ATOM_WORD = re.compile(
    r"(?P<word>orders? of magnitude|percentage points?|"
    rf"(?:{'|'.join(_WORD_PREFIXES)})?(?:{'|'.join(_WORD_BASES)})s?|"
    rf"(?:{'|'.join(w for w in _WORDS if ' ' not in w)})s?)(?![a-z])",
    re.I,
)
_ATOM_SYMBOL = re.compile(
    rf"(?P<symbol>{'|'.join(re.escape(p) for p in sorted(_PLAIN, key=len, reverse=True))}|"
    rf"(?:[{''.join(_PREFIXES)}])?(?:{'|'.join(sorted(_SYMBOLS, key=len, reverse=True))})|"
    r"[KMGT]?bytes?|[KMGT]?bits?)(?![A-Za-zμ°])"
)
_EXPONENT = re.compile(r"\^?\{?(?P<exp>-?[1-3])\}?(?!\d|\.\d)")


def _atom(text: str, pos: int) -> tuple[str, float, int] | None:
    """One unit at ``pos`` (a symbol with or without a prefix, or a word): its dimension,
    factor and end."""
    for pattern, read in ((_ATOM_WORD, _read_word), (_ATOM_SYMBOL, _read_symbol)):
        match = pattern.match(text, pos)
        if match is not None and (found := read(match[0])) is not None:
            return found[0], found[1], match.end()
    return None


def _read_word(word: str) -> tuple[str, float] | None:
    word = word.lower()
    if word.startswith("order"):
        return _WORDS["order of magnitude"]
    if word.startswith("percentage point"):
        return _WORDS["percentage point"]
    if word in _WORDS:
        return _WORDS[word]
    single = word[:-1] if word.endswith("s") and word[:-1] in _WORDS else word
    if single in _WORDS:
        return _WORDS[single]
    for prefix, factor in [("", 1.0), *_WORD_PREFIXES.items()]:
        if word.startswith(prefix):
            base = word[len(prefix) :]
            base = base[:-1] if base.endswith("s") and base[:-1] in _WORD_BASES else base
            if base in _WORD_BASES:
                dimension, scale = _WORD_BASES[base]
                return dimension, scale * factor
    return None


def _read_symbol(symbol: str) -> tuple[str, float] | None:
    if symbol in _PLAIN:
        return _PLAIN[symbol]
    if symbol.lower().rstrip("s").endswith(("byte", "bit")):
        head = symbol.rstrip("s")
        base, size = ("byte", 8) if head.lower().endswith("byte") else ("bit", 1)
        prefix = head[: -len(base)]
        return "data", size * (_PREFIXES.get(prefix.upper(), 1.0) if prefix else 1.0)
    if symbol in _SYMBOLS:
        return _SYMBOLS[symbol]
    if len(symbol) > 1 and symbol[0] in _PREFIXES and symbol[1:] in _SYMBOLS:
        dimension, scale = _SYMBOLS[symbol[1:]]
        return dimension, scale * _PREFIXES[symbol[0]]
    return None


_PER = re.compile(r"\s?/\s?|\s+per\s+|\s+a\s+(?=(?:day|week|month|year|hour|minute)\b)", re.I)


def read_unit(text: str, pos: int) -> tuple[Unit | None, int]:
    """The unit written at ``pos`` (after a number), and where it ends: atoms joined by "/",
    "per", or a space before an atom with a negative power ("g L-1", "mg kg-1 day-1")."""
    start = pos
    if pos < len(text) and text[pos] == " ":
        pos += 1
    first = _atom(text, pos)
    if first is None:
        return None, start
    dimension, factor, end = first
    power, end = _power(text, end)
    dims = {dimension: power}
    head = factor**power
    total = head
    while True:
        per = _PER.match(text, end)
        spaced = end < len(text) and text[end] == " "
        nxt = _atom(text, per.end()) if per is not None else None
        if nxt is None and spaced:
            nxt = _atom(text, end + 1)
            if nxt is not None and _power(text, nxt[2])[0] >= 0:
                nxt = None  # "g L-1": only a negative power joins a spaced unit
        if nxt is None:
            break
        dimension, factor, end = nxt
        power, end = _power(text, end)
        power = -abs(power)
        dims[dimension] = dims.get(dimension, 0) + power
        total *= factor**power
    kept = tuple(sorted((d, p) for d, p in dims.items() if p))
    if not kept:
        return None, start
    return Unit(text[pos:end], kept, total, head), end


_SPREAD = re.compile(r"\s?±\s?\d+(?:[.,]\d+)?")


def _unit_after(text: str, pos: int) -> tuple[Unit | None, int]:
    """The unit after a number, or after its spread: "10 395 ± 593 nM" is in nM."""
    unit, end = read_unit(text, pos)
    if unit is None and (spread := _SPREAD.match(text, pos)) is not None:
        unit, _ = read_unit(text, spread.end())
        if unit is not None:
            return unit, pos  # the unit is the spread's too: it is read again there
    return unit, end


def _power(text: str, pos: int) -> tuple[int, int]:
    match = _EXPONENT.match(text, pos)
    if match is None:
        return 1, pos
    return int(match["exp"]), match.end()


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
    r"(?:(?P<glued>(?=[A-Za-zμ°]))|(?![\w]))"
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
    if _POINTER.search(before):
        return None
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


# ------------------------------------------------------------------ a claim's number on a page
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


def _in_claim_unit(claim: Quantity, page: Quantity) -> float:
    """The page's value in the claim's unit (its numerator's, when only one of the two has a
    denominator: "6.8 mm ... per year" is 6.8 mm)."""
    if claim.unit is None or page.unit is None or claim.unit.numerator != page.unit.numerator:
        return page.value
    if bool(claim.unit.denominator) != bool(page.unit.denominator):
        return page.value * page.unit.head / claim.unit.head
    return page.value * page.unit.factor / claim.unit.factor


_GROUPS = re.compile(r"(?<![\d.,])\d{1,3}(?:(?:,\s?|\s|\.)\d{3})+(?![\d]|[.,]\d)")


def _grouped(text: str) -> list[Quantity]:
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
    if a.noun is not None and a.noun == b.noun:
        return True
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
    said = quantities(text)
    agreeing = [
        q
        for q in said
        if _agrees(claim, q) and not units_clash(claim, q) and not _unit_on_one(claim, q)
    ]
    if agreeing:
        return _stated_or_rival(claim, agreeing, said)
    if claim.flattened and claim.flattened.replace("×", "") in re.sub(r"[\s×]", "", text):
        return NumberFinding(claim, stated=claim)  # 10^5 printed as "105"
    pattern = _group_pattern(claim)
    if pattern is not None and (claim.decimals or abs(claim.value) >= 1000):
        for match in pattern.finditer(text):
            if _LIST_BEFORE.search(text, 0, match.start()) or _LIST_AFTER.match(text, match.end()):
                continue  # "100, 200 and 300": a list, not one number
            unit, end = _unit_after(text, match.end())
            q = Quantity(
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
            if not units_clash(claim, q):
                return NumberFinding(claim, stated=q)
    same_value = [q for q in said if math.isclose(q.value, claim.value) and units_clash(claim, q)]
    rivals = [q for q in said if same_quantity(claim, q) and not (q.flattened or q.spread)]
    if abs(claim.value) >= 1000 and not claim.decimals:  # its rival may be grouped too
        grouped = [q for q in _grouped(text) if same_quantity(claim, q)]
        rivals = grouped or rivals
    best = max(rivals, key=lambda q: (len(claim.context & q.context), -q.start), default=None)
    if same_value and (best is None or best.unit is None or claim.unit != best.unit):
        return NumberFinding(claim, unit_clash=same_value[0])  # 6.8 cm for 6.8 mm
    if best is not None:  # "×30" for "×3", rather than the "30 ml" beside it
        return NumberFinding(claim, rival=best)
    return NumberFinding(claim)


def _stated_or_rival(
    claim: Quantity, agreeing: list[Quantity], said: list[Quantity]
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
        for q in said
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
    said = [q for q in quantities(page_text) if q.start not in used]
    for q in said:
        if _agrees(claim, q) and not units_clash(claim, q) and not _unit_on_one(claim, q):
            return NumberFinding(claim, stated=q)
    rivals = [
        q
        for q in said
        if same_quantity(claim, q) and not (q.flattened or q.spread) and not _agrees(claim, q)
    ]
    if rivals:
        return NumberFinding(claim, rival=max(rivals, key=lambda q: len(claim.context & q.context)))
    return NumberFinding(claim)
