"""Text normalisation shared by indexing, matching and phrase checks.

Scholarly PDFs carry ligatures (ﬁ, ﬀ), compatibility characters and line-end hyphens; two
strings that a reader sees as equal must compare equal here.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
# a word hyphenated at a line end, German ones included ("Bö-\nden", "ver-\nändert"): joined
_LOWER = "a-z\u00df-\u00f6\u00f8-\u00ff"
_LINE_END_HYPHEN = re.compile(f"(?<=[{_LOWER}])-\\s*\\n\\s*(?=[{_LOWER}])")
# a compound hyphenated at a line end ("CO2-\nEmissionen", "Nord-\nSüd"): kept whole
_LINE_END_COMPOUND = re.compile(r"(?<=\w)-[^\S\n]*\n\s*(?=\w)")
_SOFT_HYPHEN = "\u00ad"
# "=" drawn with a glyph the text layer maps to "¼" (BMJ's typesetting: "p¼0.51", "lines¼95%
# CI", "(Q¼23.8)"), which NFKC would make "1⁄4": read as "=" where it stands between a word,
# a space or a closing bracket and a number (signed, or a decimal point first). A quarter
# follows a digit ("1¼") or stands before a word ("¼ of them"), and stays.
_EQUALS_AS_QUARTER = re.compile(r"(?<=[^\W\d_\s]|[\s)\]])¼(?=\s?[-+\u2212<>]?\s?\.?\d)")
_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")


# an accent TeX set as a glyph of its own before its letter: the text layer writes "R¨as¨anen",
# which NFKC turns into a space and a combining mark ("R \u0308as \u0308anen"); put back on
# its letter it reads "Räsänen", as the page shows and a reader types it
# (NFKC keeps the modifier letters "Lemaˆıtre" is written with, the dotless i TeX puts under
# an accent included)
_MODIFIERS = {"ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c", "˘": "\u0306", "˙": "\u0307"}
_ACCENTS = re.compile("[\u0300-\u036fˆ˜ˇ˘˙]")  # a quick look first: most text has none
_LOOSE_ACCENT = re.compile(r"(?<=[^\W\d_])(?: ?([\u0300-\u036f])|([ˆ˜ˇ˘˙])) ?([^\W\d_])")


def _accented(match: re.Match[str]) -> str:
    letter = "i" if match[3] == "ı" else match[3]
    return letter + (match[1] or _MODIFIERS[match[2]])


@lru_cache(maxsize=65536)
def normalise_text(text: str) -> str:
    """NFKC, soft hyphens and line-end hyphens removed (a compound's kept, its parts joined),
    whitespace collapsed; a "¼" that stands for "=" read as one; a loose accent put back on
    its letter."""
    if "¼" in text:
        text = _EQUALS_AS_QUARTER.sub("=", text)
    text = unicodedata.normalize("NFKC", text).replace(_SOFT_HYPHEN, "")
    if _ACCENTS.search(text) and _LOOSE_ACCENT.search(text):
        text = unicodedata.normalize("NFC", _LOOSE_ACCENT.sub(_accented, text))
    text = _LINE_END_COMPOUND.sub("-", _LINE_END_HYPHEN.sub("", text))
    return _WS.sub(" ", text).strip()


def join_lines(first: str, second: str) -> str:
    """Two pieces of one sentence that a line or block boundary cut apart, joined as
    ``normalise_text`` reads them across the boundary: a hyphenated word made whole
    ("deca-" "dienal"), a compound's hyphen kept ("CO2-" "Emissionen"), else one space."""
    joined = f"{first.rstrip()}\n{second.lstrip()}"
    return _LINE_END_COMPOUND.sub("-", _LINE_END_HYPHEN.sub("", joined)).replace("\n", " ")


_PUNCTUATION = re.compile(r"[^\w\s]")


@lru_cache(maxsize=131072)
def fold_for_match(text: str) -> str:
    """A loose key for comparing titles and phrases: case, accents, dashes and punctuation go.
    Kept for the texts read again and again (a page's sentences, for every claim citing it)."""
    text = normalise_text(text)
    if not text.isascii():  # most text has no accent or dash to fold: skip the letter loop
        text = unicodedata.normalize("NFKD", text).translate(_DASHES)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _PUNCTUATION.sub(" ", text.casefold())
    return _WS.sub(" ", text).strip()


# ------------------------------------------------------------------ names as a PDF spells them
# A reader sees one name in "Threading Building Blocks", "Threading-BuildingBlocks" and
# "ThreadingBuildingBlocks"; a text layer holds whichever the typesetter chose. A name's parts
# are its words, split further at hyphens and other punctuation and at a capital inside a word
# ("BuildingBlocks": "Building" "Blocks", when both sides have three letters or more, so that
# "PaSa" or "McDonald" stay whole), before an acronym glued on ("PaSaGPT": "PaSa" "GPT", as
# "PaSa-GPT" writes it) and where letters meet digits ("C29", "C-29" and "C 29" are one
# position); a spelling glues some neighbouring parts and keeps the rest apart.
_HUMP = re.compile(
    r"(?<=[a-z]{3})(?=[A-Z][a-z]{2})|(?<=[a-z])(?=[A-Z]{2,}(?![a-z]))|(?<=[^\W\d_])(?=\d)"
)
MAX_SPELLINGS = 16  # 2 ** 4: every spelling of a name of up to five parts


def name_parts(name: str) -> list[str]:
    """The folded parts of a name: "Threading-BuildingBlocks" -> threading building blocks."""
    return fold_for_match(_HUMP.sub(" ", normalise_text(name))).split()


def spellings(name: str) -> list[tuple[str, ...]]:
    """The ways a text layer may write a name, each as the folded words it is made of: every
    gluing of neighbouring parts, the parts apart first. A name of more than five parts gets
    three: all apart, glued within each of its words, all glued."""
    parts = name_parts(name)
    if not parts:
        return []
    gaps = len(parts) - 1
    if 2**gaps > MAX_SPELLINGS:
        glued = ("".join(name_parts(w)) for w in normalise_text(name).split())
        chosen = [tuple(parts), tuple(w for w in glued if w), ("".join(parts),)]
        return list(dict.fromkeys(chosen))
    out = []
    for glue in range(2**gaps):  # bit i set: part i is glued to part i + 1
        words = [parts[0]]
        for i, part in enumerate(parts[1:]):
            if glue >> i & 1:
                words[-1] += part
            else:
                words.append(part)
        out.append(tuple(words))
    return out


class Folded(str):
    """A text folded for matching and padded with spaces (``fold``): a whole paper, folded
    once, in which many names are looked up."""


def fold(text: str) -> Folded:
    return Folded(f" {fold_for_match(text)} ")


NO_TEXT = Folded("")


def holds_spelling(text: str, name: str) -> bool:
    """Whether ``text`` holds one spelling of ``name``, its words side by side: "Threading
    Building Blocks" is in a page reading "Threading-BuildingBlocks", and a name broken across
    lines is read whole (``normalise_text``)."""
    folded = text if isinstance(text, Folded) else fold(text)
    return any(f" {' '.join(words)} " in folded for words in spellings(name))


def trim(text: str, limit: int) -> str:
    """Shorten for display at a word boundary."""
    text = _WS.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + " …"


# ------------------------------------------------------------------ text as the PDF has it
# What a claim and a page are compared in: the page as its PDF text layer has it, the claim as
# a writer types it. Storage keeps ``normalise_text``; these rules only ever compare.
_MINUS = re.compile(r"[\u2212\u2012\u2013\u2014](?=\s?\d)")  # −0.5, –3: a minus before a digit
# an ångström a text layer wrote as a ring and a letter: "2.2 ˚A", NFKC's " \u030aA"
_RING_A = re.compile(r"\s?\u030a\s?A\b")
_TIMES = re.compile(r"(?<=\d)\s?[x*·⋅]\s?(?=\d)")  # 3 x 10, 2·10: a multiplication
_UNIT_DOT = re.compile(r"(?<=[A-Za-zμ])\s?[·⋅]\s?(?=[A-Za-zμ])")  # g·L-1: a product of units
_PLUS_MINUS = re.compile(r"\+\s*[-\u2212]\s*(?=\d)")  # "+ −" as a text layer spells ±
# an en dash some text layers write as "e" (a font's glyph for it: "from 2e76 years", "pp.
# 123e130"): a range when the right end is the larger whole number; a power of ten is written
# with a sign or a decimal mantissa (1e-5, 6.02e23) and is read as one (``domain.quantities``)
_DASH_AS_E = re.compile(r"(?<![\w.,])(\d+)e(\d+)(?![\w.,]\d|[\w])")
_PER_CENT = re.compile(r"(?<=\d)\s*(?:per\s?cent|percent|pct)\b", re.I)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'})
# a superscript footnote marker that lost its raise: "dementia12 ", "events.12,13 The"
_GLUED_MARKER = re.compile(r"\b([a-z]{4,})\d{1,3}(?:[,\u2013-]\d{1,3})*(?=[\s.,;:)]|$)")
_MARKER_AFTER_STOP = re.compile(r"(?<=[a-z][.,;:])\d{1,3}(?:[,\u2013-]\d{1,3})*(?=\s+[A-Z(]|\s*$)")


@lru_cache(maxsize=65536)
def comparable_text(text: str) -> str:
    """Text as a reader sees it, for comparing a claim with a page: the storage normalisation
    (NFKC: ligatures, thin spaces, superscript digits; soft hyphens and words broken at line
    ends joined), then the signs a text layer spells its own way (minus and en dash before a
    digit, an en dash written "e" in a range ("2e76"), ``×`` written x or ·, ``±`` as "+ −",
    typographic quotes, Å written as a ring and an A), "per cent" as ``%``, and superscript
    footnote markers that lost their raise ("dementia12", "events.12") dropped.
    Digit groups and decimal commas are not rewritten here: "100, 200 and 300" is a list, so a
    number is read against the claim's own (``domain.quantities``)."""
    text = normalise_text(text).translate(_QUOTES)
    text = _PLUS_MINUS.sub("±", text)
    text = _MINUS.sub("-", text)
    text = _DASH_AS_E.sub(_dash_range, text)
    text = _TIMES.sub("×", text)
    text = _RING_A.sub(" Å", text)
    text = _UNIT_DOT.sub(" ", text)
    text = _PER_CENT.sub("%", text)
    text = _MARKER_AFTER_STOP.sub("", text)
    return _GLUED_MARKER.sub(r"\1", text)


def _dash_range(match: re.Match[str]) -> str:
    low, high = match[1], match[2]
    return f"{low}-{high}" if int(low) < int(high) else match[0]


def comparable_words(text: str) -> list[str]:
    """The words of ``comparable_text``, folded (case, accents, punctuation): what coverage
    of a claim's terms is counted in."""
    return re.findall(r"[^\W_]+", fold_for_match(comparable_text(text)))
