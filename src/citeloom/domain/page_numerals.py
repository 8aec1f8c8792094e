"""Page numbers as printed: arabic, roman (``xii``) or with a prefix (``S3``, ``013001-3``),
split and rendered the way PDF page labels are (a prefix, a numbering style, a number)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Style = Literal["D", "r", "R", ""]  # arabic, lower roman, upper roman, prefix only

_ROMAN_VALUES = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip
_ROMAN = re.compile(r"^(?=[mdclxvi])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$")


def to_roman(number: int) -> str:
    out = []
    for value, numeral in _ROMAN_VALUES:
        count, number = divmod(number, value)
        out.append(numeral * count)
    return "".join(out)


def from_roman(text: str) -> int | None:
    """``xii`` -> 12; None for anything that is not a well-formed numeral."""
    lower = text.lower()
    if not lower or not _ROMAN.match(lower):
        return None
    total, rest = 0, lower
    for value, numeral in _ROMAN_VALUES:
        while rest.startswith(numeral):
            total += value
            rest = rest[len(numeral) :]
    return total


@dataclass(frozen=True)
class LabelParts:
    """A label split as PDF page labels are: ``S3`` is prefix S, arabic 3."""

    prefix: str
    style: Style
    number: int  # 0 for a prefix-only label

    def render(self) -> str:
        return render_label(self.prefix, self.style, self.number)


def render_label(prefix: str, style: Style, number: int) -> str:
    if style == "D":
        return f"{prefix}{number}"
    if style in ("r", "R"):
        numeral = to_roman(number)
        return f"{prefix}{numeral.upper() if style == 'R' else numeral}"
    return prefix


def split_label(label: str) -> LabelParts:
    """``273`` -> arabic 273; ``xii`` -> roman 12; ``S3``, ``013001-3`` -> a prefix and an
    arabic number; anything else is a prefix-only label (it numbers one page)."""
    label = label.strip()
    roman = from_roman(label)
    if roman is not None and (label.islower() or label.isupper()):
        return LabelParts("", "r" if label.islower() else "R", roman)
    if match := re.fullmatch(r"(.*?)(\d+)", label):
        return LabelParts(match[1], "D", int(match[2]))
    return LabelParts(label, "", 0)
