"""Weight-free page layout: label the text lines of a PDF page from font, size and position.

Docling's trained layout model needs weights from the Hugging Face hub, which these machines
cannot reach. These rules replace it over the lines docling-parse extracts (text, bounding
box, font name; ``layout_lines``). They are pure Python with no Docling import, so every rule
is unit-tested on hand-built lines; ``heuristic_layout`` adapts them to Docling's layout
plugin interface, and ``layout_regions`` groups the labelled lines into Docling's clusters.

What the rules decide, per line:
- furniture (running heads, page numbers, margin stamps set vertically) stays out of the text;
- the title is the largest text in the top half of page 1;
- a section header is short, alone on its row in its column, and set apart by weight, size,
  capitals or numbering; captions, formulas and figure labels never are;
- on page 1, author names and affiliations between title and abstract are front matter,
  however big or bold they are set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citeloom.adapters.conversion.layout_lines import (
    FURNITURE,
    Label,
    Line,
    PageContext,
    in_table_row,
    is_bold,
    is_italic,
    is_page_number,
    letter_ratio,
    looks_like_caption,
    looks_like_code,
    looks_like_formula,
    paragraph_gap,
    row_neighbours,
    section_key,
    starts_numbered,
    strip_numbering,
)

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

_BULLET = re.compile(r"^(?:[•◦▪‣∙·●○■□➢►–—*]|\(?[a-z0-9ivx]{1,3}\))\s+\S")
_ENUMERATOR = re.compile(r"^\(?[a-z0-9ivx]{1,3}\)\s+\S")


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
    numbered = starts_numbered(text) and len(words) > 1
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
    reach = paragraph_gap(line.font_size, ctx)
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
