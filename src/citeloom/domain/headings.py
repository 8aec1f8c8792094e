"""Heading levels from section numbering, for PDFs that carry no outline (bookmarks).

Docling derives levels from an outline when there is one, and otherwise from numbering and
font style; it reads "1", "1.2" and "1.2.3" but not appendix numbering ("A", "A.2") nor the
IEEE style of roman sections with lettered subsections ("IV." then "A."). A wrong level puts
every later chunk under the wrong section path, so numbering that is unambiguous wins here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_ARABIC = re.compile(r"^(\d{1,2}(?:\.\d{1,2})*)\.?\s+\S")
_APPENDIX_SUB = re.compile(r"^([A-Z])((?:\.\d{1,2})+)\.?\s+\S")
_LETTER = re.compile(r"^([A-Z])(\.?)\s+\S")
_ROMAN = re.compile(r"^(I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII)\.\s+\S")


def numbering_levels(headings: Sequence[str]) -> list[int | None]:
    """The level each heading's numbering implies (1 = top), or None where the numbering
    says nothing certain (no number, or a lone capital that may be the word "A")."""
    appendices = {m.group(1) for h in headings if (m := _APPENDIX_SUB.match(h))}
    romans = sum(1 for h in headings if _ROMAN.match(h) and not h.startswith(("I. ", "V. ")))
    levels: list[int | None] = []
    for text in headings:
        if m := _ARABIC.match(text):
            levels.append(m.group(1).count(".") + 1)
        elif m := _APPENDIX_SUB.match(text):
            levels.append(m.group(2).count(".") + 1)
        elif romans >= 2 and _ROMAN.match(text):
            levels.append(1)
        elif _LETTER.match(text) and appendices:
            levels.append(1)  # "A Field protocol", "B Data": appendices, since "A.1" exists
        elif (m := _LETTER.match(text)) and m.group(2) and romans >= 2:
            levels.append(2)  # "A. Route discovery" under "IV. PROTOCOL OPERATION"
        else:
            levels.append(None)
    return levels


def repeated_labels(headings: Sequence[str], max_words: int = 4) -> set[int]:
    """Indexes of short unnumbered "headings" whose text occurs more than once: table column
    heads ("Method"), figure labels and template fields repeat, section titles do not. Made
    plain text, they stop giving every chunk after them a wrong section path."""
    keys = [re.sub(r"\W+", " ", h).strip().casefold() for h in headings]
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return {
        i
        for i, (text, key) in enumerate(zip(headings, keys, strict=True))
        if counts[key] > 1
        and len(key.split()) <= max_words
        and not (_ARABIC.match(text) or _APPENDIX_SUB.match(text) or _ROMAN.match(text))
    }
