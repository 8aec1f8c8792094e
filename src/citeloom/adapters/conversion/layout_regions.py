"""Labelled lines grouped into regions, each of which becomes one Docling cluster.

Lines join a region above them when they go on in it: the same kind of text, close below it
(a line of prose at the page's own leading, so a manuscript set with double spacing is not a
paragraph a line), overlapping it, and neither indented nor shifted away as a new paragraph
or column would be. So paragraphs never cross a column gutter, and Docling's reading order
reads two-column pages column by column. On page 1, the side-by-side author and affiliation
blocks between title and abstract become full-width rows, so they do not pull the reading
order sideways.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from citeloom.adapters.conversion.layout_lines import (
    FURNITURE,
    Label,
    Line,
    PageContext,
    Region,
    is_prose,
    paragraph_gap,
    region_width,
    starts_numbered,
)

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
    if region.label is Label.TEXT and line.label is Label.TEXT and is_prose(last):
        widest = paragraph_gap(font_size, ctx)  # a line of prose goes on at the page's leading
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
        return same_face and line.label is Label.SECTION_HEADER and not starts_numbered(line.text)
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
