"""Rule 2 of the page labels: the page numbers a paper prints in its margins.

A margin line may print a page number alone (``273``, ``- 4 -``, ``xii``, ``S3``), as a
counter (``Page 3 of 10``, ``2/16``) or at an edge of a running head (``148 A. Author et
al.``). Every numbering those numbers imply is a vote, and the numberings most pages print
are taken (``printed_labels``); a document sampled from a longer one, whose numbers only
rise, keeps each page's own (``_sampled``). ``page_labels`` decides between this rule and
the others.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from citeloom.domain.page_numerals import LabelParts, Style, from_roman, render_label


@dataclass(frozen=True)
class _Token:
    parts: LabelParts
    strong: bool  # a line that is only a page number, or a counter: "Page 3 of 10", "2/16"
    counter: bool = False  # "Page 3 of 10", "2/16": numbered from the article's first page


_DECORATION = " \t-–—|·•[](){}<>*~_.,:;"
_PAGE_OF = re.compile(r"\b(?:page|seite)\s+(\d{1,5})\s+(?:of|von)\s+(\d{1,5})\b", re.I)
_SLASH = re.compile(r"(?<![\d/.])(\d{1,4})\s*/\s*(\d{1,4})(?![\d/.])")
_WHOLE_NUMBER = re.compile(r"(?:(?:page|p\.?|seite|s\.)\s*)?(\d{1,5})", re.I)
_PREFIXED = re.compile(r"([A-Z]{1,2}|\d{1,3}-|\d{4,7}-)(\d{1,4})")  # S3, 7-45, 013001-3
_ROMAN_WORD = re.compile(r"[ivxlcdm]{1,7}|[IVXLCDM]{2,7}")


def page_tokens(line: str) -> list[LabelParts]:
    """The page labels a margin line may be printing: the whole line (``273``, ``- 4 -``,
    ``xii``, ``S3``, ``013001-3``), ``Page 3 of 10``, ``2/16``, or a number opening or
    closing a running head (``148 A. Author et al.``, ``Journal name 149``)."""
    return [t.parts for t in _tokens(line)]


def _tokens(line: str) -> list[_Token]:
    text = line.strip()
    counters = []
    if (match := _PAGE_OF.search(text)) and int(match[1]) <= int(match[2]):
        counters.append(_Token(LabelParts("", "D", int(match[1])), True, True))
    for match in _SLASH.finditer(text):
        if 0 < int(match[1]) <= int(match[2]) and not _looks_like_date(text, match):
            counters.append(_Token(LabelParts("", "D", int(match[1])), True, True))
    if counters:  # "Page 9 of 11": the 11 is the page count, not a page
        return list(dict.fromkeys(counters))
    bare = text.strip(_DECORATION)
    if match := _WHOLE_NUMBER.fullmatch(bare):
        return [_Token(LabelParts("", "D", int(match[1])), True)]
    if match := _PREFIXED.fullmatch(bare):
        return [_Token(LabelParts(match[1], "D", int(match[2])), True)]
    if _ROMAN_WORD.fullmatch(bare) and (value := from_roman(bare)) is not None:
        return [_Token(LabelParts("", "r" if bare.islower() else "R", value), True)]
    found: list[_Token] = []
    words = bare.split()
    if len(words) >= 2 and len(bare) <= 120:
        for edge in (words[0], words[-1]):
            word = edge.strip(_DECORATION)
            if re.fullmatch(r"\d{1,5}", word):
                found.append(_Token(LabelParts("", "D", int(word)), False))
            elif re.fullmatch(r"[ivxlc]{2,6}", word) and (value := from_roman(word)):
                # not one letter: "IBM DB2 for i" does not print page i
                found.append(_Token(LabelParts("", "r", value), False))
    return list(dict.fromkeys(found))


def _looks_like_date(text: str, match: re.Match[str]) -> bool:
    """``12/2009`` or ``3/4/2010`` is a date, not page 12 of 2009."""
    after = text[match.end() : match.end() + 3]
    return len(match[2]) == 4 or after.startswith("/")


@dataclass(frozen=True)
class _Run:
    """Pages whose printed numbers fit one numbering: the first number printed on a PDF
    page is ``per_page`` * page + ``intercept`` (two-up scans print two pages per page)."""

    style: Style
    prefix: str
    per_page: int
    intercept: int
    pages: tuple[int, ...]
    counter: bool = False  # "Page N of M": counted from the article's first page

    @property
    def first(self) -> int:
        return self.pages[0]

    @property
    def last(self) -> int:
        return self.pages[-1]

    def label(self, page: int) -> str | None:
        first = self.per_page * page + self.intercept
        if first < 1:
            return None
        numbers = [render_label(self.prefix, self.style, first + i) for i in range(self.per_page)]
        return "-".join(numbers)


# A numbering is trusted when at least this many pages print it, and at least this share of
# the pages between its first and last printed number do (full-page figures print none).
MIN_PAGES = 2
MIN_DENSITY = 0.5


def printed_labels(
    page_count: int,
    margin_lines: Iterable[tuple[int, str]],
    covers: frozenset[int] = frozenset(),
    supplement_from: int | None = None,
) -> list[str | None]:
    """Rule 2: labels from the numbers printed in the margins, or [] when no numbering fits.

    Every numbering a margin number implies (style, prefix, pages per PDF page, offset) is a
    vote; numberings are taken by the number of pages that print them, each over the pages
    between its first and last, never overlapping one already taken. A number of a figure
    axis or an equation at the page edge fits no numbering and is outvoted. A page outside
    every numbering that prints a page number of its own keeps it (an excerpt: pages 1, 9,
    10, 11). The other pages get the number the next numbering implies (an article's first
    page rarely prints its number), or the one before it when they trail it by little: a run
    of unnumbered pages longer than any gap inside the numbering is not its next pages (an
    unnumbered supplement is numbered S1, S2, ...)."""
    tokens: dict[int, list[_Token]] = defaultdict(list)
    for page, line in margin_lines:
        tokens[page].extend(_tokens(line))
    runs = _runs(tokens)
    covered = sum(r.last - r.first + 1 for r in runs)
    if not runs or covered < 0.5 * page_count:  # one numbering must fit most pages
        return _sampled(page_count, tokens, covers)
    for page in range(1, page_count + 1):  # pages outside every numbering that print one
        if not any(r.first <= page <= r.last for r in runs):
            strong = [t for t in tokens.get(page, ()) if t.strong]
            if strong:
                first, counter = strong[0].parts, strong[0].counter
                runs.append(
                    _Run(first.style, first.prefix, 1, first.number - page, (page,), counter)
                )
    runs.sort(key=lambda r: r.first)
    labels: list[str | None] = [None] * page_count
    for run in runs:
        for page in range(run.first, run.last + 1):
            labels[page - 1] = run.label(page)
    numbered = [r for r in runs if len(r.pages) >= MIN_PAGES]
    longest_gap = max(
        (b - a for r in numbered for a, b in zip(r.pages, r.pages[1:], strict=False)), default=1
    )
    supplement = 0
    for page in range(1, page_count + 1):
        if any(r.first <= page <= r.last for r in runs) or page in covers:
            continue
        after = next((r for r in runs if r.first > page), None)
        before = next((r for r in reversed(runs) if r.last < page), None)
        if supplement_from is not None and page >= supplement_from and after is None:
            supplement += 1
            labels[page - 1] = f"S{supplement}"
        elif after is not None and after.counter and before is None:
            labels[page - 1] = str(page - len(covers & set(range(1, page))))
        elif after is not None and after.label(page) is not None:
            labels[page - 1] = after.label(page)
        elif before is not None and page - before.last <= max(1, longest_gap - 1):
            labels[page - 1] = before.label(page)
    return labels


def _sampled(
    page_count: int, tokens: Mapping[int, list[_Token]], covers: frozenset[int]
) -> list[str | None]:
    """Pages sampled from a longer document (an excerpt, one page of a paper, a manual's
    sample chapters): no numbering runs over most pages, but the numbers the pages print rise
    through the document at least as fast as its pages do (roman front matter first). The
    longest such chain of one number per page is taken, each page keeping its own; a page that
    prints a number alone on its line keeps it too. [] when the chain does not reach half the
    pages, or is a single number a running head merely ends with."""
    candidates = [
        (page, token) for page in sorted(tokens) if page not in covers for token in tokens[page]
    ]
    best: list[list[int]] = []  # chain (indexes into candidates) ending at each candidate
    for i, (page, token) in enumerate(candidates):
        chain: list[int] = []
        for j in range(i):
            before_page, before = candidates[j]
            rises = before_page < page and _rises(before, before_page, token, page)
            if rises and len(best[j]) > len(chain):
                chain = best[j]
        best.append([*chain, i])
    longest = max(best, key=lambda c: (len(c), sum(candidates[i][1].strong for i in c)), default=[])
    pages = [p for p in range(1, page_count + 1) if p not in covers]
    alone = all(candidates[i][1].strong for i in longest)
    # half the pages at least; three, or numbers standing alone on their lines: a chain of
    # two that a running head's number joins is too little to go on (a library range is more)
    if len(longest) < 0.5 * len(pages) or (len(longest) < 3 and not alone):
        return []
    labels: list[str | None] = [None] * page_count
    for page in pages:  # a number alone on its line, even out of the chain (joined documents)
        strong = [t for t in tokens.get(page, ()) if t.strong]
        if len(strong) == 1:
            labels[page - 1] = strong[0].parts.render()
    for i in longest:
        page, token = candidates[i]
        labels[page - 1] = token.parts.render()
    return labels


def _rises(before: _Token, before_page: int, after: _Token, page: int) -> bool:
    """Whether ``after`` may follow ``before`` in a sampled document: roman front matter
    before arabic pages, and within one numbering at least one number per page."""
    a, b = before.parts, after.parts
    roman = ("r", "R")
    if a.style in roman and b.style not in roman:
        return True
    if (a.style in roman) != (b.style in roman) or a.prefix != b.prefix:
        return False
    return b.number - a.number >= page - before_page


def _runs(tokens: Mapping[int, list[_Token]]) -> list[_Run]:
    votes: dict[tuple[Style, str, int, int], set[int]] = defaultdict(set)
    counters: set[tuple[Style, str, int, int]] = set()
    for page, found in tokens.items():
        arabic = {t.parts.number for t in found if t.parts.style == "D" and not t.parts.prefix}
        for token in found:
            parts = token.parts
            if parts.number < 1:
                continue
            key: tuple[Style, str, int, int] = (parts.style, parts.prefix, 1, parts.number - page)
            votes[key].add(page)
            if token.counter:
                counters.add(key)
        for number in arabic:  # a two-up page prints both halves' numbers
            if number + 1 in arabic:
                votes["D", "", 2, number - 2 * page].add(page)
    runs: list[_Run] = []
    ranked = sorted(
        votes.items(), key=lambda item: (-len(item[1]), item[0][2], abs(item[0][3]), item[0])
    )
    for key, pages in ranked:
        ordered = tuple(sorted(pages))
        span = ordered[-1] - ordered[0] + 1
        if len(ordered) < MIN_PAGES or len(ordered) / span < MIN_DENSITY:
            continue
        if any(not (ordered[-1] < r.first or ordered[0] > r.last) for r in runs):
            continue
        style, prefix, per_page, intercept = key
        runs.append(_Run(style, prefix, per_page, intercept, ordered, key in counters))
    return runs
