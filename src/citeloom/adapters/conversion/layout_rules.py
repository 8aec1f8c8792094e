"""Weight-free page layout: label the text lines of a PDF page from font, size and position.

Docling's trained layout model needs weights from the Hugging Face hub, which these machines
cannot reach. This module replaces it with explicit rules over the lines docling-parse
extracts (text, bounding box, font name). It is pure Python with no Docling import, so every
rule is unit-tested on hand-built lines; ``heuristic_layout`` adapts it to Docling's layout
plugin interface.

What the rules decide, per line and then per region:
- furniture (running heads, page numbers, margin stamps set vertically) stays out of the text;
- the title is the largest text in the top half of page 1;
- a section header is short, alone on its row in its column, and set apart by weight, size,
  capitals or numbering; captions, formulas and figure labels never are;
- lines group into paragraphs that never cross a column gutter, so Docling's reading order
  reads two-column pages column by column;
- on page 1, the front matter (authors, affiliations) between title and abstract forms
  full-width blocks, so side-by-side author columns do not pull the reading order sideways.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType


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

KNOWN_SECTIONS = frozenset(
    {
        "abstract",
        "introduction",
        "background",
        "related work",
        "related works",
        "prior work",
        "previous work",
        "preliminaries",
        "motivation",
        "overview",
        "method",
        "methods",
        "methodology",
        "materials and methods",
        "methods and materials",
        "experimental",
        "experimental setup",
        "experiments",
        "experimental results",
        "evaluation",
        "results",
        "results and discussion",
        "discussion",
        "analysis",
        "conclusion",
        "conclusions",
        "concluding remarks",
        "summary",
        "future work",
        "limitations",
        "acknowledgment",
        "acknowledgments",
        "acknowledgement",
        "acknowledgements",
        "references",
        "bibliography",
        "literature",
        "literature cited",
        "appendix",
        "appendices",
        "supplementary material",
        "data availability",
        "author contributions",
        "competing interests",
        "conflict of interest",
        "contents",
        "table of contents",
        "keywords",
        "index terms",
        "notation",
        "implementation",
        "case study",
        "zusammenfassung",
        "einleitung",
        "literatur",
        "literaturverzeichnis",
        "danksagung",
    }
)

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
_BULLET = re.compile(r"^(?:[•◦▪‣∙·●○■□➢►–—*]|\(?[a-z0-9ivx]{1,3}\))\s+\S")
_ENUMERATOR = re.compile(r"^\(?[a-z0-9ivx]{1,3}\)\s+\S")
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


# ---------------------------------------------------------------------- classification
@dataclass
class PageContext:
    width: float
    height: float
    page_no: int
    body_size: float
    body_font: str
    mono_body: bool = False
    # the usual gap between a body line and the next (``body_leading``): a manuscript set
    # with double spacing has gaps wider than the 0.9 em that ends a paragraph elsewhere
    leading: float = 0.0


def _furniture(line: Line, lines: Sequence[Line], ctx: PageContext) -> Label | None:
    """Running heads, page numbers, publisher footers and margin stamps."""
    if line.vertical:
        return Label.PAGE_HEADER
    top_band, bottom_band = 0.075 * ctx.height, 0.925 * ctx.height
    if is_page_number(line.text) and (line.t < 0.1 * ctx.height or line.b > 0.9 * ctx.height):
        return Label.PAGE_HEADER if line.t < ctx.height / 2 else Label.PAGE_FOOTER
    if len(line.words) > 15 or looks_like_caption(line.text):
        return None
    # a title may sit high on page 1; a label of two words at the very edge is furniture
    if ctx.page_no == 1 and line.font_size >= 1.3 * ctx.body_size and len(line.words) >= 3:
        return None
    outside = [x for x in lines if top_band < (x.t + x.b) / 2 < bottom_band]
    if line.b <= top_band and not _in_paragraph(line, outside):
        return Label.PAGE_HEADER
    # publisher footers ("978-1-4577-... ©2011 IEEE") sit a little higher, in small type
    low = line.t >= bottom_band or (
        line.t >= 0.905 * ctx.height and line.font_size <= ctx.body_size * 1.05
    )
    if low and not _in_paragraph(line, outside):
        return Label.PAGE_FOOTER
    return None


def _in_paragraph(line: Line, lines: Sequence[Line]) -> bool:
    """Set like body text directly above or below one of ``lines`` (the body, outside the
    margins): the first or last line of a paragraph, not a running head or footer."""
    for other in lines:
        if other is line or other.vertical:
            continue
        gap = max(other.t - line.b, line.t - other.b)
        overlap = min(line.r, other.r) - max(line.l, other.l)
        same_size = abs(other.font_size - line.font_size) < 0.15 * line.font_size
        if -1 < gap < 0.6 * line.font_size and overlap > 0.8 * line.width and same_size:
            return True
    return False


_MASTHEAD = re.compile(
    r"^(the\s+)?(journal|proceedings|transactions|letters|annals|bulletin|review|advances)\b"
    r"|\bjournal of\b|\bvol(ume)?\.?\s*\d|\bissn\b|\bpreprint\b",
    re.IGNORECASE,
)


def _bold(line: Line, ctx: PageContext) -> bool:
    """Set in a bold face that body text does not use."""
    if line.size:
        return line.bold >= 0.75 and not is_bold(ctx.body_font)
    return is_bold(line.font) and line.font != ctx.body_font


def _heading(line: Line, lines: Sequence[Line], ctx: PageContext) -> bool:
    text = line.text.strip()
    words = text.split()
    if not words or len(words) > 14 or len(text) > 120:
        return False
    if not re.search(r"[^\W\d_]{2}", text) or letter_ratio(text) < 0.55:
        return False
    if looks_like_caption(text) or looks_like_formula(text) or _MASTHEAD.search(text):
        return False
    if line.mono or line.max_gap > 1.5:
        return False  # code, or table cells that docling-parse joined into one line
    if line.run_in or text.endswith((",", ";")) or (text.endswith(":") and len(words) > 4):
        return False
    if re.search(r"[a-z]{2}[.:;]\s+\S", text):  # a sentence ends inside: run-in text
        return False
    numbered = bool(_NUMBERING.match(text)) and len(words) > 1
    body = strip_numbering(text) if numbered else text
    if not body or (body[0].islower() and not numbered):
        return False
    if text.endswith(".") and not numbered and len(words) > 4:
        return False
    if any(n.l > line.r for n in row_neighbours(line, lines, max_gap=0.8 * line.font_size)):
        return False  # a run-in head: part of the text it starts
    if in_table_row(line, lines, ctx.width) or _toc_entry(line, lines, ctx.width):
        return False
    bold = _bold(line, ctx)
    big = line.font_size >= 1.12 * ctx.body_size
    small = line.font_size < 0.85 * ctx.body_size
    caps = body.isupper() and sum(c.isalpha() for c in body) >= 4 and len(words) <= 8
    known = section_key(text) in KNOWN_SECTIONS
    if small and not ((bold or caps) and known) and not (caps and numbered):
        return False  # small type is a heading only as small capitals: "II. RELATED WORK"
    if known:
        return True
    if len(words) >= 6 and _starts_paragraph(line, lines):
        return False  # the first line of a paragraph set in bold, like an IEEE abstract
    if line.from_ocr:  # OCR gives no font: only decimal numbering can tell a heading
        return bool(re.match(r"^\d+(\.\d+)*\.?\s+[A-Z]", text)) and len(words) <= 8
    if looks_like_code(text) and not (numbered and (bold or big)):
        return False
    if numbered and (bold or big or caps):
        return True
    if (bold or big) and (caps or body[0].isupper() or body[0].isdigit()):
        return len(words) <= 12
    italic = line.italic >= 0.75 and not is_italic(ctx.body_font)
    if italic and len(words) <= 8 and _title_case(body) and not text.endswith((".", ":", ",")):
        return _space_above(line, lines)
    # numbered heading set in the body font: short, capitalised, no sentence punctuation
    return numbered and len(words) <= 8 and not text.endswith(".") and body[0].isupper()


def _toc_entry(line: Line, lines: Sequence[Line], width: float) -> bool:
    """A table-of-contents line: a page number (or dot leaders) further right on the row."""
    if re.search(r"(\.\s?){4,}\s*\d+$", line.text):
        return True
    return any(
        n.l > line.r and re.fullmatch(r"[.\s]*\d{1,4}", n.text.strip())
        for n in row_neighbours(line, lines, width)
    )


def _space_above(line: Line, lines: Sequence[Line]) -> bool:
    """Not glued to a line directly above it (a heading is set off, a wrapped line is not)."""
    for other in lines:
        gap = line.t - other.b
        overlap = min(line.r, other.r) - max(line.l, other.l)
        if other is not line and -1 < gap < 0.35 * line.font_size and overlap > 0:
            return False
    return True


def _starts_paragraph(line: Line, lines: Sequence[Line]) -> bool:
    """Directly followed by a line in the same face and size, set to the same full measure."""
    for other in lines:
        gap = other.t - line.b
        if (
            other is not line
            and -1 < gap < 0.6 * line.font_size
            and abs(other.l - line.l) < 2 * line.font_size
            and other.width >= 0.95 * line.width
            and other.font == line.font
            and abs(other.font_size - line.font_size) < 0.5
        ):
            return True
    return False


def _title_case(text: str) -> bool:
    """Most longer words capitalised, as in 'Stainless Steel Self-Locking Nut'."""
    words = [w for w in re.findall(r"[^\W\d_][\w'-]*", text) if len(w) > 3]
    return bool(words) and sum(w[0].isupper() for w in words) >= 0.6 * len(words)


def classify_lines(lines: list[Line], ctx: PageContext) -> None:
    """Set ``line.label`` for every line of one page: furniture first, so that margin stamps
    and running heads never count as a heading's neighbours."""
    for line in lines:
        line.label = _furniture(line, lines, ctx) or Label.TEXT
    content = [x for x in lines if x.label not in FURNITURE]
    for line in content:
        text = line.text.strip()
        if looks_like_caption(text):
            line.label = Label.CAPTION
        elif line.mono and not ctx.mono_body:
            line.label = Label.CODE
        elif _heading(line, content, ctx):
            line.label = Label.SECTION_HEADER
        elif _figure_label(line, ctx):
            line.label = Label.PICTURE
        elif looks_like_formula(text):
            line.label = Label.FORMULA
        elif _BULLET.match(text) and not _enumerates_inline(line, content, ctx):
            line.label = Label.LIST_ITEM
    if ctx.page_no == 1:
        _mark_title(lines, ctx)
        _demote_front_matter(lines)


def _enumerates_inline(line: Line, lines: Sequence[Line], ctx: PageContext) -> bool:
    """A line that starts "2) ..." or "(b) ..." inside a sentence: the line above it, flush
    with it at the paragraph's leading, ends mid-sentence ("... 1) as a 'computational
    microscope' to" | "2) as a 'resource of inspiration' ..."). A list starts after a colon or
    a full stop, goes on after an item, or hangs its items; a symbol bullet is always a list
    item."""
    if not _ENUMERATOR.match(line.text.strip()):
        return False
    reach = _paragraph_gap(line.font_size, ctx)
    above = [
        x
        for x in lines
        if x is not line
        and -1 < line.t - x.b < reach
        and min(x.r, line.r) - max(x.l, line.l) > 0.5 * min(x.width, line.width)
    ]
    if not above:
        return False
    last = max(above, key=lambda x: x.b)
    ended = last.text.rstrip().endswith((".", ":", ";", "!", "?"))
    item = _BULLET.match(last.text.strip())  # the item above: a list going on
    return not (ended or item) and abs(last.l - line.l) < 2 and len(last.words) >= 6


def _starts_body(line: Line) -> bool:
    if line.label is Label.SECTION_HEADER and section_key(line.text) in KNOWN_SECTIONS:
        return True
    return bool(re.match(r"^\s*(abstract|summary|keywords|index terms)\b", line.text, re.I))


def _demote_front_matter(lines: list[Line]) -> None:
    """Author names and affiliations between title and abstract are set big or bold too; they
    are front matter, not section headers."""
    title = [x for x in lines if x.label is Label.TITLE]
    if not title:
        return
    top = max(x.b for x in title)
    starts = [x.t for x in lines if x.t > top and _starts_body(x)]
    bottom = min(starts) if starts else top
    for line in lines:
        if line.label is Label.SECTION_HEADER and top < line.t < bottom:
            line.label = Label.TEXT


def _figure_label(line: Line, ctx: PageContext) -> bool:
    """Axis ticks and legends inside figures: small, short, mostly not words."""
    text = line.text.strip()
    small = line.font_size <= 0.82 * ctx.body_size
    return small and (len(text.split()) <= 3 or letter_ratio(text) < 0.5) and len(text) < 40


def _mark_title(lines: list[Line], ctx: PageContext) -> None:
    """The title: the run of consecutive lines in the largest font on the top half of page 1,
    leaving out journal mastheads and short display text in teaser figures."""
    candidates = sorted(
        (
            x
            for x in lines
            if x.label not in FURNITURE
            and x.t < 0.55 * ctx.height
            and x.font_size >= 1.2 * ctx.body_size
            and re.search(r"[^\W\d_]{3}", x.text)
            and letter_ratio(x.text) >= 0.6
            and section_key(x.text) not in KNOWN_SECTIONS
            and not looks_like_caption(x.text)
            and not _MASTHEAD.search(x.text)
        ),
        key=lambda x: (x.t, x.l),
    )
    runs: list[list[Line]] = []
    for x in candidates:
        run = runs[-1] if runs else None
        if (
            run
            and abs(x.font_size - run[-1].font_size) <= 0.6
            and x.t - max(y.b for y in run) <= 2.0 * x.font_size
        ):
            run.append(x)
        else:
            runs.append([x])
    runs = [run for run in runs if sum(len(x.words) for x in run) <= 30]
    runs = [run for run in runs if not re.search(r"\[\d", " ".join(x.text for x in run))]
    pool = [run for run in runs if sum(len(x.words) for x in run) >= 3] or runs
    if not pool:
        return
    best = max(pool, key=lambda run: (round(run[0].font_size, 1), -run[0].t))
    for x in best:
        x.label = Label.TITLE


# ---------------------------------------------------------------------- grouping
_JOINABLE: Mapping[Label, frozenset[Label]] = MappingProxyType(
    {
        Label.TEXT: frozenset({Label.TEXT}),
        Label.LIST_ITEM: frozenset({Label.TEXT}),
        Label.CAPTION: frozenset({Label.TEXT}),
        Label.SECTION_HEADER: frozenset({Label.SECTION_HEADER, Label.TEXT}),
        Label.TITLE: frozenset({Label.TITLE}),
        Label.FORMULA: frozenset({Label.FORMULA}),
        Label.CODE: frozenset({Label.CODE}),
        Label.PICTURE: frozenset({Label.PICTURE}),
        Label.FOOTNOTE: frozenset({Label.FOOTNOTE, Label.TEXT}),
    }
)


def _continues(region: Region, line: Line, ctx: PageContext) -> bool:
    last = region.lines[-1]
    if line.label not in _JOINABLE.get(region.label, frozenset()):
        return False
    if region.label is Label.PICTURE:
        near = line.t - region.b < 3 * ctx.body_size and (
            min(line.r, region.r) - max(line.l, region.l) > -3 * ctx.body_size
        )
        return near
    gap = line.t - last.b
    size = max(line.height, last.height)
    font_size = max(line.font_size, last.font_size)
    if region.label is Label.TEXT and line.label is Label.TEXT and _prose(last):
        widest = _paragraph_gap(font_size, ctx)  # a line of prose goes on at the page's leading
    else:
        widest = (2.0 if region.label is Label.TITLE else 0.9) * font_size  # titles: wide leading
    if gap < -0.5 * size or gap > widest:
        return False
    overlap = min(line.r, last.r) - max(line.l, last.l)
    if overlap < 0.5 * min(line.width, last.width):
        return False
    if (
        abs(line.font_size - last.font_size) > 0.2 * last.font_size
        and region.label is not Label.TEXT
    ):
        return False
    if region.label is Label.SECTION_HEADER:
        # a wrapped heading goes on in the same face and size; a numbered line starts anew
        same_face = line.font == last.font and abs(line.font_size - last.font_size) < 0.12 * size
        if same_face and line.label is Label.TEXT and len(line.words) <= 8:
            line.label = Label.SECTION_HEADER  # "... IBM DB2" / "data": the heading's last line
        return same_face and line.label is Label.SECTION_HEADER and not _NUMBERING.match(line.text)
    if region.label is Label.TITLE:
        return line.font == last.font or abs(line.font_size - last.font_size) < 0.5
    # a new paragraph: first-line indent under a flush-left block
    indent = line.l - region.l
    if region.label is Label.TEXT and ctx.body_size * 0.8 < indent < ctx.body_size * 4:
        return False
    # the previous line ended a paragraph well before the right margin
    ended = last.text.rstrip().endswith((".", "!", "?", ":"))
    if ended and last.r < region.r - 3 * ctx.body_size and len(region.lines) > 1:
        return False
    # a line much narrower and shifted away is a new column, not a wrapped line
    return not (line.width < 0.6 * region_width(region) and abs(line.l - region.l) > 2 * size)


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
                if _prose(line) and _prose(below):  # a table's rows are spaced as they fit
                    gaps.append(max(gap, 0.0))
                break
    return statistics.median_low(gaps) if len(gaps) >= least else 0.0


def _paragraph_gap(font_size: float, ctx: PageContext) -> float:
    """The widest gap above a line that goes on in the paragraph: 0.9 em, or a quarter more
    than the page's usual gap where that is wider (double spacing)."""
    return max(0.9 * font_size, 1.25 * ctx.leading)


def _prose(line: Line) -> bool:
    return len(line.words) >= 6 and not line.mono


def region_width(region: Region) -> float:
    return region.r - region.l


def group_lines(lines: list[Line], ctx: PageContext) -> list[Region]:
    """Group labelled lines into regions; each region becomes one Docling cluster."""
    regions: list[Region] = []
    open_regions: list[Region] = []
    for line in sorted(lines, key=lambda x: (round(x.t, 1), x.l)):
        if line.label in FURNITURE:
            regions.append(Region(line.label, [line]))
            continue
        target = None
        for region in reversed(open_regions):
            if _continues(region, line, ctx):
                target = region
                break
        if target is None:
            target = Region(line.label, [line])
            regions.append(target)
            open_regions.append(target)
        else:
            target.add(line)
        # regions whose bottom is far above the current line can no longer grow
        open_regions = [r for r in open_regions if line.t - r.b < 4 * ctx.body_size]
    if ctx.page_no == 1:
        regions = _merge_front_matter(regions, ctx)
    return regions


def _merge_front_matter(regions: list[Region], ctx: PageContext) -> list[Region]:
    """Between the title and the abstract (or first heading) of page 1, side-by-side author
    and affiliation blocks become full-width rows, read top to bottom."""
    title = [r for r in regions if r.label is Label.TITLE]
    if not title:
        return regions
    top = max(r.b for r in title)
    starts = [
        r.t
        for r in regions
        if r.t > top
        and (
            r.label is Label.SECTION_HEADER
            or (r.label is Label.TEXT and re.match(r"^\s*abstract\b", r.text, re.IGNORECASE))
        )
    ]
    if not starts:
        return regions
    bottom = min(starts)
    front = [r for r in regions if r.label is Label.TEXT and r.t >= top - 1 and r.b <= bottom + 1]
    if len(front) < 2:
        return regions
    rows: list[list[Region]] = []
    for region in sorted(front, key=lambda r: r.t):
        if rows and region.t <= max(r.b for r in rows[-1]) + 0.5 * ctx.body_size:
            rows[-1].append(region)
        else:
            rows.append([region])
    merged = [
        Region(Label.TEXT, sorted((x for r in row for x in r.lines), key=lambda x: (x.t, x.l)))
        for row in rows
    ]
    keep = [r for r in regions if not any(r is f for f in front)]
    return keep + merged
