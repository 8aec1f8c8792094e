"""Units as a paper writes them after a number: each read to a dimension and a factor.

"g/l", "g L-1", "grams per litre", "mg/dL", "%" and "per cent" are all read to what they
measure (mass per volume, a share) and how much of its base unit they are, so that 1.3 g/dl
and 12.88 g/l compare as the same concentration and 6.8 cm never passes for 6.8 mm.
Symbols take SI prefixes (case matters: nm is a length, nM a concentration); words may lead
with a prefix word (milli + gram); atoms join by "/", "per", or a space before an atom with a
negative power ("mg kg-1 day-1").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    "Å": ("length", 1e-10), "π": ("angle", 180.0),
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
    "angstrom": ("length", 1e-10),
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


def _power(text: str, pos: int) -> tuple[int, int]:
    match = _EXPONENT.match(text, pos)
    if match is None:
        return 1, pos
    return int(match["exp"]), match.end()
