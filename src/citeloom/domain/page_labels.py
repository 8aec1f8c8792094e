"""Printed page labels: for each PDF page, the page a reader finds in the journal.

A citation names the page printed on the paper (p. 273 of an article on pp. 272-273), never
the PDF's page index; the PDF page is kept beside it for opening the file. Labels are decided
per document from the best evidence there is, in this order (``decide_labels``):

1. the PDF's own page labels (``/PageLabels``), when they say more than 1..n;
2. page numbers printed in the running heads and footers, when one offset fits most pages
   (``printed_pages``);
3. the library entry's ``page`` range, when its length fits the page count (a cover or a
   download-stamp page is detected and left unnumbered);
4. otherwise the PDF page itself.

When the library's range and the numbers the PDF gives (rules 1-2) disagree (the entry says
pp. 205-218, the PDF in hand, another printing, prints 1-14), the library's range wins when
its length fits: it names the version the user cites. The entry may choose otherwise with a
``citeloom-pages: printed`` line in its Zotero Extra field (a CSL-JSON ``note``), and the
disagreement is recorded, naming both (``PagesDisagree``).

Labels are held as ranges, the way PDF page labels are (first page, numbering style, prefix,
start number): "i-x, then 1-300" is two ranges, not 310 strings, so every chunk of a book can
carry its document's labels, and a library change relabels without re-embedding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from citeloom.domain.page_numerals import LabelParts, Style, render_label, split_label
from citeloom.domain.printed_pages import printed_labels

LabelSource = Literal["pdf-labels", "printed", "library", "pdf-page", "none"]
# Bump when the rules below change what a document is labelled: stored documents labelled by
# older rules (or before labels existed) are labelled again by the next ingest, from their
# cached conversion, without re-embedding.
LABEL_RULES = "2"  # 2: the library's range wins over other printed numbers when it fits


# ------------------------------------------------------------------ the labels of a document
@dataclass(frozen=True)
class LabelRange:
    """Pages from ``first_page`` (a PDF page) on, until the next range, numbered
    ``prefix`` + ``start``, ``start`` + 1, ... in ``style``. A range with no style and no
    prefix leaves its pages unnumbered (a cover, a download stamp). A scan printed two-up
    holds two printed pages per PDF page (``per_page`` 2): its labels read ``7-8``."""

    first_page: int
    style: Style
    prefix: str = ""
    start: int = 1
    per_page: int = 1

    def printed(self, page: int) -> list[str]:
        """The printed labels PDF page ``page`` of this range holds (none, one or two)."""
        if self.style == "":
            return [self.prefix] if self.prefix else []
        first = self.start + (page - self.first_page) * self.per_page
        return [
            render_label(self.prefix, self.style, n) for n in range(first, first + self.per_page)
        ]


@dataclass(frozen=True)
class PagesDisagree:
    """The library's page range and the numbers the PDF gives, when they disagree: both, the
    one the labels follow, and why."""

    library: str  # "205-218"
    printed: str  # "1-14"
    used: LabelSource  # "library", or the PDF's own: "printed", "pdf-labels"
    chosen: bool  # the entry chose (citeloom-pages), rather than the rule

    def __str__(self) -> str:
        if self.used == "library":
            why = (
                "as the entry chooses (citeloom-pages: library)"
                if self.chosen
                else "the library's range, which names the version you cite; to cite the "
                "printed pages instead, add the line 'citeloom-pages: printed' to the "
                "entry's Extra field in Zotero (note in CSL-JSON)"
            )
            cited = self.library
        else:
            why = (
                "as the entry chooses (citeloom-pages: printed)"
                if self.chosen
                else "the printed pages: the library's range does not fit the PDF's pages"
            )
            cited = self.printed
        return (
            f"the library says pp. {self.library}, the PDF prints pp. {self.printed}: cited as "
            f"pp. {cited}, {why}"
        )

    def to_json(self) -> dict[str, str | bool]:
        return {
            "library": self.library,
            "printed": self.printed,
            "used": self.used,
            "chosen": self.chosen,
        }

    @classmethod
    def from_json(cls, data: object) -> PagesDisagree | None:
        if not isinstance(data, dict) or data.get("used") not in _SOURCES_SET:
            return None
        library, printed = data.get("library"), data.get("printed")
        if not (isinstance(library, str) and isinstance(printed, str)):
            return None
        return cls(library, printed, data["used"], bool(data.get("chosen")))


@dataclass(frozen=True)
class PageLabels:
    """A document's printed page labels and the rule that gave them."""

    ranges: tuple[LabelRange, ...]
    page_count: int
    source: LabelSource
    # the library's range and the PDF's own numbers, when they disagree (not stored in the
    # labels' JSON: the payload keeps it beside them)
    disagree: PagesDisagree | None = None

    def printed(self, page: int | None) -> list[str]:
        """The printed labels on a PDF page: [] for an unnumbered page, two for a two-up."""
        if page is None or not 1 <= page <= self.page_count:
            return []
        current = None
        for candidate in self.ranges:
            if candidate.first_page > page:
                break
            current = candidate
        return current.printed(page) if current is not None else []

    def label(self, page: int | None) -> str | None:
        """The printed label of a PDF page (``273``, ``xii``, ``7-8``); None if unnumbered."""
        return _shown(self.printed(page))

    def labels(self) -> list[str | None]:
        return [self.label(page) for page in range(1, self.page_count + 1)]

    def page_of(self, label: str) -> int | None:
        """The PDF page that prints ``label`` (``273``, ``xii``, ``S3``), if any."""
        wanted = split_label(label)
        for page in range(1, self.page_count + 1):
            if any(split_label(p) == wanted for p in self.printed(page)):
                return page
        return None

    def span(self) -> str | None:
        """The printed range, as a reader would write it: ``272-273``."""
        printed = [p for page in range(1, self.page_count + 1) for p in self.printed(page)]
        if not printed:
            return None
        return printed[0] if len(printed) == 1 else f"{printed[0]}-{printed[-1]}"

    def to_json(self) -> list[list[int | str]]:
        out: list[list[int | str]] = []
        for r in self.ranges:
            row: list[int | str] = [r.first_page, r.style, r.prefix, r.start]
            out.append([*row, r.per_page] if r.per_page != 1 else row)
        return out

    @classmethod
    def from_json(cls, data: object, page_count: int | None, source: object) -> PageLabels | None:
        """Labels as a payload stores them; None when there are none (a document stored
        before labels existed, or a format without pages) or they are malformed."""
        if not isinstance(data, list) or not page_count or source not in _SOURCES:
            return None
        ranges = []
        for item in data:
            if not (isinstance(item, list) and len(item) in (4, 5)):
                return None
            first, style, prefix, start, *rest = item
            per_page = rest[0] if rest else 1
            if not (isinstance(first, int) and style in ("D", "r", "R", "")):
                return None
            if not (isinstance(prefix, str) and isinstance(start, int)):
                return None
            if not (isinstance(per_page, int) and per_page in (1, 2)):
                return None
            ranges.append(LabelRange(first, style, prefix, start, per_page))
        return cls(tuple(ranges), page_count, source)  # type: ignore[arg-type]


_SOURCES = ("pdf-labels", "printed", "library", "pdf-page", "none")
_SOURCES_SET = frozenset(_SOURCES)
_TWO_UP = re.compile(r"(\d+)-(\d+)")


def from_labels(labels: Sequence[str | None], source: LabelSource) -> PageLabels:
    """Ranges from one label per PDF page (None: unnumbered; ``7-8``: two-up)."""
    ranges: list[LabelRange] = []
    for page, label in enumerate(labels, start=1):
        if ranges and _continues(ranges[-1], page, label):
            continue
        if label is None:
            ranges.append(LabelRange(page, ""))
        elif (two := _TWO_UP.fullmatch(label)) and int(two[2]) == int(two[1]) + 1:
            ranges.append(LabelRange(page, "D", "", int(two[1]), per_page=2))
        else:
            parts = split_label(label)
            ranges.append(LabelRange(page, parts.style, parts.prefix, parts.number))
    return PageLabels(tuple(ranges), len(labels), source)


def _continues(current: LabelRange, page: int, label: str | None) -> bool:
    """Whether ``current`` already prints ``label`` on ``page``: then the page adds no range.
    A book numbered 1-1,000 is one range; every chunk carries its document's ranges, so one
    range a page made a book's every chunk hold the whole book's labels (issue 31)."""
    if label is None:
        return current.style == "" and not current.prefix
    return bool(current.style) and label == _shown(current.printed(page))


def _shown(printed: list[str]) -> str | None:
    """A page's label from what it prints: ``273``, or ``7-8`` for a two-up; None if none."""
    return "-".join(printed[:1] + printed[-1:]) if len(printed) > 1 else next(iter(printed), None)


# ------------------------------------------------------------------ what the paper prints
@dataclass(frozen=True)
class PageMarks:
    """What a PDF says about its own pages, gathered at conversion: its ``/PageLabels`` (one
    string per page, empty when it has none), the short lines in each page's top and bottom
    margins (running heads and footers, where page numbers are printed), and each page's
    word count and opening words (a cover, a download stamp or a supplement is told by
    them)."""

    pdf_labels: tuple[str, ...] = ()
    margin_lines: tuple[tuple[int, str], ...] = ()  # (PDF page, text)
    page_words: tuple[int, ...] = ()  # words of each PDF page's body text
    page_openings: tuple[str, ...] = ()  # the first words of each PDF page's body text


# ------------------------------------------------------------------ covers and supplements
_COVER_WORDS = re.compile(
    r"downloaded from|this content downloaded|terms (?:and conditions )?of use|"
    r"all use subject to|jstor|for personal use only|cover page",
    re.I,
)
COVER_MAX_WORDS = 60  # a first page this short before a full page is a cover sheet
_SUPPLEMENT = re.compile(r"^\W*(?:supplementary|supplemental|online supplement)", re.I)


def cover_pages(marks: PageMarks, ocr_pages: Iterable[int] = ()) -> frozenset[int]:
    """A publisher's cover sheet or a download stamp as page 1: the words they use, a page
    of a few words (a conference section cover) before a page of many, or a scanned page of
    few words bound before a born-digital paper."""
    words = marks.page_words
    if len(words) < 2:
        return frozenset()
    margins = " ".join(text for page, text in marks.margin_lines if page == 1)
    opening = marks.page_openings[0] if marks.page_openings else ""
    scanned = set(ocr_pages)
    stamped = bool(_COVER_WORDS.search(f"{opening} {margins}")) and words[0] < 400
    sparse = words[0] <= COVER_MAX_WORDS and words[1] >= 4 * max(words[0], 1)
    scanned_sheet = 1 in scanned and 2 not in scanned and words[0] <= 2 * COVER_MAX_WORDS
    return frozenset({1}) if stamped or sparse or scanned_sheet else frozenset()


def supplement_start(marks: PageMarks) -> int | None:
    """The first page of a supplement bound after the article (``SUPPLEMENTARY ONLINE
    DATA``), whose pages are cited S1, S2, ... when they print no numbers."""
    for page, opening in enumerate(marks.page_openings, start=1):
        if page > 1 and _SUPPLEMENT.match(opening):
            return page
    return None


# ------------------------------------------------------------------ the library's range
_RANGE_SPLIT = re.compile(r"\s*(?:--?|–|—|‐|‑)\s*")


def library_range(page: str | None) -> tuple[LabelParts, LabelParts] | None:
    """A CSL ``page`` value as (first, last): ``272-273``, ``272–3`` (abbreviated),
    ``S1-S10``, ``xii-xx``; None for one page or an article number (``e0197919``)."""
    if not page:
        return None
    text = re.sub(r"^\s*(?:pp?\.|pages?)\s*", "", page.strip(), flags=re.I)
    parts = [p for p in _RANGE_SPLIT.split(text.split(",")[0]) if p]
    if len(parts) != 2:
        return None
    first, last = split_label(parts[0]), split_label(parts[1])
    if first.style == "" or last.style == "":
        return None
    if first.style == "D" and last.style == "D" and last.prefix == "" and first.prefix:
        last = LabelParts(first.prefix, "D", last.number)  # S1-10
    if (first.style, first.prefix) != (last.style, last.prefix):
        return None
    if last.number < first.number and first.style == "D":  # 1081-6, 305-13
        digits = str(last.number)
        widened = int(str(first.number)[: -len(digits)] + digits)
        last = LabelParts(last.prefix, "D", widened)
    if last.number < first.number:
        return None
    return first, last


def library_labels(
    page_count: int, page: str | None, covers: frozenset[int] = frozenset()
) -> list[str | None]:
    """Rule 3: the library's range spread over the pages, when its length fits: all pages,
    or all but a leading cover or download-stamp page. [] when it does not fit."""
    bounds = library_range(page)
    if bounds is None:
        return []
    first, last = bounds
    length = last.number - first.number + 1
    numbered = [render_label(first.prefix, first.style, first.number + i) for i in range(length)]
    if length == page_count:
        return list(numbered)
    if length == page_count - 1 and 1 in covers:
        return [None, *numbered]
    return []


def informative_pdf_labels(
    labels: Sequence[str], page_count: int, printed: Sequence[str | None] = ()
) -> list[str | None]:
    """Rule 1: the PDF's ``/PageLabels`` when they exist, are not just the page index (1..n,
    or 0..n-1 as some producers write it), and the paper's printed numbers do not contradict
    them."""
    if len(labels) != page_count or not any(labels):
        return []
    for base in (1, 0):
        if all(label == str(page + base) for page, label in enumerate(labels)):
            return []
    given = [label.strip() or None for label in labels]
    disagree = sum(1 for a, b in zip(given, printed, strict=False) if a and b and a != b)
    agree = sum(1 for a, b in zip(given, printed, strict=False) if a and b and a == b)
    return [] if disagree > agree else given


PagesChoice = Literal["printed", "library"]
_CHOICE = re.compile(r"^\s*citeloom[- ]?pages\s*:\s*(printed|library)\s*$", re.I | re.M)


def pages_choice(text: str | None) -> PagesChoice | None:
    """What an entry chooses when its range and the PDF's numbers disagree: a line
    ``citeloom-pages: printed`` (or ``library``) in its Extra field or CSL ``note``."""
    match = _CHOICE.search(text or "")
    return "printed" if match and match[1].lower() == "printed" else "library" if match else None


def decide_labels(
    page_count: int | None,
    marks: PageMarks,
    library_page: str | None,
    ocr_pages: Iterable[int] = (),
    choice: PagesChoice | None = None,
) -> PageLabels:
    """A document's labels by the first rule that applies (see the module's docstring); the
    library's range first when the PDF's own numbers disagree with it and it fits, unless the
    entry's ``choice`` is the printed pages."""
    if not page_count:
        return PageLabels((), 0, "none")
    covers = cover_pages(marks, ocr_pages)
    printed = printed_labels(page_count, marks.margin_lines, covers, supplement_start(marks))
    rules: dict[LabelSource, list[str | None]] = {
        "pdf-labels": informative_pdf_labels(marks.pdf_labels, page_count, printed),
        "printed": printed,
        "library": library_labels(page_count, library_page, covers),
    }
    own: tuple[LabelSource, list[str | None]] | None = next(
        ((s, rules[s]) for s in ("pdf-labels", "printed") if rules[s]), None
    )
    disagree = None
    if own is not None and (shown := _disagreeing(library_page, own[1])) is not None:
        library_first = bool(rules["library"]) and choice != "printed"
        used: LabelSource = "library" if library_first else own[0]
        disagree = PagesDisagree(shown, _span(own[1]), used, choice is not None)
        if library_first:
            rules = {"library": rules["library"]}
    for source, labels in rules.items():
        if labels:
            return replace(from_labels(labels, source), disagree=disagree)
    return from_labels(
        [None if p in covers else str(p) for p in range(1, page_count + 1)], "pdf-page"
    )


def _disagreeing(library_page: str | None, labels: Sequence[str | None]) -> str | None:
    """The library's range as written ("205-218") when fewer than half of the numbers the
    PDF gives in its numbering (two-up pages count both) fall inside it; else None."""
    bounds = library_range(library_page)
    if bounds is None:
        return None
    first, last = bounds
    numbers = []
    for label in labels:
        for part in label.split("-") if label and _TWO_UP.fullmatch(label) else [label or ""]:
            parts = split_label(part)
            if part and (parts.style, parts.prefix) == (first.style, first.prefix):
                numbers.append(parts.number)
    inside = sum(first.number <= n <= last.number for n in numbers)
    if not numbers or 2 * inside >= len(numbers):
        return None
    return f"{first.render()}-{last.render()}"


def _span(labels: Sequence[str | None]) -> str:
    shown = [label for label in labels if label]
    return f"{shown[0]}-{shown[-1]}" if len(shown) > 1 else (shown[0] if shown else "")


def pdf_pages(page_count: int) -> PageLabels:
    """Rule 4 without a cover: the PDF page is the label."""
    return PageLabels((LabelRange(1, "D", "", 1),), page_count, "pdf-page")
