"""The lines of a PDF page as the weight-free layout reads them, and what each looks like.

A ``Line`` is one text line as docling-parse (or OCR) reports it: its box, font, size and
faces. Here are the measures the rules of ``layout_rules`` (which label a line) and
``layout_regions`` (which group labelled lines) both take: a page's body size, font and
leading, whether a line looks like a caption, a formula, code or a page number, and which
lines share its row. Pure Python with no Docling import, so every rule is unit-tested on
hand-built lines.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class Label(StrEnum):
    TITLE = "title"
    SECTION_HEADER = "section_header"
    TEXT = "text"
    LIST_ITEM = "list_item"
    CAPTION = "caption"
    FOOTNOTE = "footnote"
    FORMULA = "formula"
    CODE = "code"
    PAGE_HEADER = "page_header"
    PAGE_FOOTER = "page_footer"
    PICTURE = "picture"


FURNITURE = frozenset({Label.PAGE_HEADER, Label.PAGE_FOOTER})

_BOLD = re.compile(
    r"(bold|black|heavy|semibold|demi|medi|[-,]bd\b|\bbd\b|cmbx|cmb\d|cmssbx|\+b\b|,b\b|-b\b)",
    re.IGNORECASE,
)
_ITALIC = re.compile(r"(italic|oblique|[-,]it\b|\bit\b|cmti\d|cmsl\d|-ital)", re.IGNORECASE)
_CODE_TEXT = re.compile(r"[_{};]|\|\||\w\(|\)\s*[;=]|\s=\s|<>|::|->|\w\s\.\s\w")
_NUMBERING = re.compile(
    r"^(?:(?:chapter|section|part|appendix|anhang)\s+)?"
    r"(?:\d{1,2}(?:\.\d{1,2}){0,4}\.?|[IVXLC]{1,6}\.|[A-H]\.(?:\d{1,2}\.?)*|[A-H]\d?(?=\s))"
    r"\s+(?=\S)",
    re.IGNORECASE,
)
_CAPTION = re.compile(
    r"^(?:(?:fig\.?|figure|table|tab\.|algorithm|listing|scheme|chart|abb\.|abbildung|tabelle)"
    r"\s*[A-Z]?\d+[a-z]?\s*[.:|—–-]?|example\s+\d+-\d+\s)",
    re.IGNORECASE,
)
_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]?\s*\d{1,4}\s*[-–—]?|page\s+\d+(?:\s+(?:of|/)\s+\d+)?|\d+\s*/\s*\d+|[ivxlc]{1,6})$",
    re.IGNORECASE,
)
_MATH = frozenset("=+−×·∑∫∏√≤≥≈≠∞∂∆∇^_{}|<>∈∉⊂⊃∪∩∀∃→←↔⇒⇔±∓⊗⊕〈〉")


@dataclass
class Line:
    """One text line as docling-parse (or OCR) reports it; coordinates from the top-left."""

    text: str
    l: float
    t: float
    r: float
    b: float
    font: str = ""
    from_ocr: bool = False
    vertical: bool = False
    size: float = 0.0  # font size from the characters' em boxes; 0 when unknown (OCR)
    bold: float = 0.0  # share of characters set in a bold face
    italic: float = 0.0  # share of characters set in an italic or oblique face
    mono: bool = False  # set in a monospaced face (code, listings)
    max_gap: float = 0.0  # widest gap between neighbouring characters, in ems
    run_in: bool = False  # starts bold and goes on in another face ("Methods. We ...")
    label: Label = Label.TEXT
    id: int = -1

    @property
    def height(self) -> float:
        return max(self.b - self.t, 0.1)

    @property
    def font_size(self) -> float:
        return self.size or self.height

    @property
    def width(self) -> float:
        return max(self.r - self.l, 0.1)

    @property
    def words(self) -> list[str]:
        return self.text.split()


@dataclass
class Region:
    """Lines grouped into one cluster. Its box is kept as lines are added (``add``): grouping
    asks every open region for it once per line."""

    label: Label
    lines: list[Line]
    level_hint: int = 0
    l: float = field(init=False)
    t: float = field(init=False)
    r: float = field(init=False)
    b: float = field(init=False)

    def __post_init__(self) -> None:
        self.l = min(x.l for x in self.lines)
        self.t = min(x.t for x in self.lines)
        self.r = max(x.r for x in self.lines)
        self.b = max(x.b for x in self.lines)

    def add(self, line: Line) -> None:
        self.lines.append(line)
        self.l, self.t = min(self.l, line.l), min(self.t, line.t)
        self.r, self.b = max(self.r, line.r), max(self.b, line.b)

    @property
    def text(self) -> str:
        return " ".join(x.text for x in self.lines)


@dataclass
class PageStats:
    """Font statistics of one page: what its body text looks like (by characters)."""

    sizes: Counter[float] = field(default_factory=Counter)
    fonts: Counter[str] = field(default_factory=Counter)
    mono_body: bool = False

    def add(self, lines: Iterable[Line]) -> None:
        lines = [x for x in lines if not x.vertical and len(x.text) >= 12]
        prose = [x for x in lines if not x.mono]
        # a page of code listings with some prose: the prose is the body text
        if sum(len(x.text) for x in prose) >= 200:
            lines = prose
        else:
            self.mono_body = bool(lines) and len(prose) < len(lines) / 2
        for line in lines:
            self.sizes[round(line.font_size * 2) / 2] += len(line.text)
            self.fonts[line.font] += len(line.text)

    @property
    def body_size(self) -> float:
        return self.sizes.most_common(1)[0][0] if self.sizes else 10.0

    @property
    def body_font(self) -> str:
        return self.fonts.most_common(1)[0][0] if self.fonts else ""


# ---------------------------------------------------------------------- line features
def is_bold(font: str) -> bool:
    return bool(_BOLD.search(font or ""))


def is_italic(font: str) -> bool:
    return bool(_ITALIC.search(font or ""))


def looks_like_code(text: str) -> bool:
    """Identifiers, operators and statement ends that headings never contain."""
    return bool(_CODE_TEXT.search(text))


def strip_numbering(text: str) -> str:
    return _NUMBERING.sub("", text, count=1).strip()


def section_key(text: str) -> str:
    """``"2. Related Work:"`` -> ``"related work"`` (for the known-section list)."""
    key = strip_numbering(text).rstrip(" .:").casefold()
    return re.sub(r"\s+", " ", key)


def letter_ratio(text: str) -> float:
    chars = [c for c in text if not c.isspace()]
    return sum(c.isalpha() for c in chars) / len(chars) if chars else 0.0


def looks_like_formula(text: str) -> bool:
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return False
    math = sum(c in _MATH or "\u0370" <= c <= "\u03ff" for c in chars)
    if math == 0:
        return False
    words = re.findall(r"[A-Za-z]{3,}", text)
    return (math / len(chars) >= 0.12 and len(words) <= 3) or (
        letter_ratio(text) < 0.35 and len(chars) >= 4
    )


def looks_like_caption(text: str) -> bool:
    return bool(_CAPTION.match(text.strip()))


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


def row_neighbours(line: Line, lines: Sequence[Line], max_gap: float) -> list[Line]:
    """Lines on the same row within ``max_gap`` of ``line`` (run-in heads, table cells);
    vertical text counts (rotated table headers sit on the rows they label)."""
    out = []
    top, bottom = line.t, line.b
    for other in lines:
        # no vertical overlap at all: rejected below anyway (heights are at least 0.1), and
        # most lines of a page are not on the row, so this test comes first
        if other.b <= top or other.t >= bottom or other is line:
            continue
        overlap = min(bottom, other.b) - max(top, other.t)
        if overlap < 0.5 * min(line.height, other.height):
            continue
        gap = max(other.l - line.r, line.l - other.r)
        if gap < max_gap:
            out.append(other)
    return out


def _gap(a: Line, b: Line) -> float:
    return max(b.l - a.r, a.l - b.r)


def in_table_row(line: Line, lines: Sequence[Line], width: float) -> bool:
    """Short cells on the same row: two or more, or one close by. (In a two-column page the
    other column's line is long and beyond the gutter, so it does not count.)"""
    short = [n for n in row_neighbours(line, lines, width) if n.width < 0.25 * width or n.vertical]
    return len(short) >= 2 or any(_gap(line, n) < 0.15 * width for n in short)


def starts_numbered(text: str) -> bool:
    """Opens with a section number: "2.", "II.", "A.1", "Appendix B"."""
    return bool(_NUMBERING.match(text))


@dataclass
class PageContext:
    """What the rules know of the page a line is on: its size, its number, and how its body
    text is set."""

    width: float
    height: float
    page_no: int
    body_size: float
    body_font: str
    mono_body: bool = False
    # the usual gap between a body line and the next (``body_leading``): a manuscript set
    # with double spacing has gaps wider than the 0.9 em that ends a paragraph elsewhere
    leading: float = 0.0


def body_leading(lines: Sequence[Line], body_size: float, least: int = 6) -> float:
    """The page's usual gap between a line of prose in the body size and the next line below
    it in the same column (the lower median; 0 on a page with fewer than ``least`` such pairs).

    Paragraphs end where a gap is wider than usual: in a journal's single-spaced column the
    usual gap is a fraction of an em, in a manuscript set with one-and-a-half or double
    spacing it is more than an em (the preprint of the shared papers' Wellawatte et al.:
    12-13 points at 11-point type), and every line would otherwise be a paragraph of its own.
    """
    body = sorted(
        (x for x in lines if not x.vertical and abs(x.font_size - body_size) <= 0.15 * body_size),
        key=lambda x: x.t,
    )
    gaps = []
    for i, line in enumerate(body):
        for below in body[i + 1 :]:
            gap = below.t - line.b
            if gap > 3 * body_size:
                break
            overlap = min(below.r, line.r) - max(below.l, line.l)
            if below.t > line.t + 0.5 * body_size and overlap > 0.5 * min(below.width, line.width):
                if is_prose(line) and is_prose(below):  # a table's rows are spaced as they fit
                    gaps.append(max(gap, 0.0))
                break
    return statistics.median_low(gaps) if len(gaps) >= least else 0.0


def paragraph_gap(font_size: float, ctx: PageContext) -> float:
    """The widest gap above a line that goes on in the paragraph: 0.9 em, or a quarter more
    than the page's usual gap where that is wider (double spacing)."""
    return max(0.9 * font_size, 1.25 * ctx.leading)


def is_prose(line: Line) -> bool:
    """A line of running text (six words or more, not code): a table's rows and a list's
    short items are spaced as they fit, so only prose tells a page's leading."""
    return len(line.words) >= 6 and not line.mono


def region_width(region: Region) -> float:
    return region.r - region.l
