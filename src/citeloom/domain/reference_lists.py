"""A paper's reference list, recognised so that it is never taken as the paper's words.

A reader's rule: the entries of a paper's bibliography name other works; a title there ("Five-
year follow-up of prophylactic vena cava filters") or a venue ("In online proceedings of CLEF
2007") is not something the paper states. Quoted as evidence, such an entry "supports" a claim
about its topic or its year. ``check`` and ``answer`` both leave reference lists out of the
sentences they gather.

A list is recognised by its heading (References, Bibliography, Literaturverzeichnis, ...) and,
where a conversion lost that heading or split the list into headings of its own, by the shape
of an entry: a list of authors with initials, a venue with volume and pages, "In Proceedings
of", a DOI or an arXiv identifier. A body sentence that cites "(Smith et al., 2004)" or "[12]"
has none of these shapes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

REFERENCE_HEADINGS = frozenset(
    {
        "references",
        "reference",
        "references and notes",
        "notes and references",
        "references cited",
        "literature cited",
        "cited literature",
        "literature",
        "bibliography",
        "works cited",
        "literatur",
        "literaturverzeichnis",
        "quellen",
        "quellenverzeichnis",
        "bibliographie",
        "références",
        "referencias",
        "bibliografía",
        "bibliografia",
    }
)

# section numbering before a heading's words: "7.", "VII.", "7.1"
_HEADING_NUMBER = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})*|[IVXLC]{1,6})\.?\s+")
# a numbered section or appendix heading after a reference list ends it: "A.1 Proofs", "C. Data"
_SECTION_NUMBER = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})*|[A-H](?:\.\d{1,2})*)\.?\s+[A-Z]")

_NAME = r"[A-Z][\w'’\-]*[a-z][\w'’\-]*"  # a family name: capitalised, some lower case
_CAPS_NAME = r"[A-Z][A-Z'’\-]{2,}"  # "ABADI," in small capitals
_INITIALS = r"(?:[A-Z]\.[\s\-]?){1,3}"
# an author with initials: "Edgar, R. C.", "Rogers FB", "E. B. Flagg", "ABADI, D. J."
_AUTHOR = re.compile(
    rf"(?:\b(?:{_NAME}|{_CAPS_NAME}),\s{_INITIALS}"
    rf"|\b{_NAME}\s[A-Z]{{1,3}}(?=[,:]|\s(?:and|&)\s)"
    rf"|\b{_INITIALS}\s?{_NAME}(?=,|\set\sal))"
)
# an entry's opening: "[12] ", "12. " followed by an author
_NUMBERED_AUTHOR = re.compile(
    rf"^\s*(?:\[\d{{1,3}}\]|\d{{1,3}}\.)\s*(?:{_NAME}|{_CAPS_NAME}|{_INITIALS})"
    rf"(?:,\s{_INITIALS}|\s[A-Z]{{1,3}}[,:]|\s{_NAME}(?:,|\set\sal))"
)
_VENUE_MARKS = (
    # "In Proceedings of", "In: Proc. of the", "in online proceedings of"
    re.compile(r"\b[Ii]n:?\s+(?:the\s+)?(?:online\s+)?(?:Proc\.|[Pp]roceedings\b)"),
    re.compile(r"\bProc\.\s+of\b"),
    re.compile(r"\b(?:doi|DOI)\s*:?\s*10\.\d{3,}/"),
    re.compile(r"\barXiv(?::\s?[\w.\-/]+\d|\s+preprint)"),
    re.compile(r"\[SPIRES\]|\bISBN\b|\bISSN\b"),
    # volume(issue):pages "30(3):642", journal year;volume:pages "2007;370:511",
    # year, volume:pages "1999, 30:484-88"
    re.compile(r"\b\d{1,4}\s?\(\d{1,4}\)\s?:\s?\d+"),
    re.compile(r"\b(?:1[89]|20)\d\d\s?[;,]\s?\d{1,4}\s?(?:\(\d{1,4}\))?\s?:\s?\d+"),
    re.compile(r"\b[Vv]ol\.\s?\d+.{0,40}\b[Pp]p?\.\s?\d+"),
    re.compile(r"\b[Pp]p\.\s?\d+\s?[-–—]\s?\d+"),
)
# a heading that ends a reference list without numbering
_AFTER_LIST = re.compile(r"^\s*(?:appendix|appendices|supplementary|supplemental|anhang)\b", re.I)
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b")


def is_reference_heading(heading: str) -> bool:
    """The heading of a reference list ("References", "VII. REFERENCES", "Literatur:")."""
    key = _HEADING_NUMBER.sub("", heading).strip().rstrip(":.").strip().casefold()
    return key in REFERENCE_HEADINGS


def entry_marks(text: str) -> int:
    """How many shapes of a bibliography entry ``text`` has (see ``is_reference_entry``)."""
    marks = sum(1 for pattern in _VENUE_MARKS if pattern.search(text))
    if _NUMBERED_AUTHOR.match(text):
        marks += 1
    if len(_AUTHOR.findall(text)) >= 2 and _YEAR.search(text):
        marks += 1  # a list of authors with initials and a year
    return marks


def is_reference_entry(text: str, long_block: int = 400) -> bool:
    """Whether ``text`` (a block of a page, or a heading a conversion made of one) is an entry
    of a reference list by its shape. A block of body length needs two such shapes: a
    paragraph may give one DOI or name one proceedings; a run of entries glued into one block
    has many."""
    marks = entry_marks(text)
    return marks >= 2 or (marks == 1 and len(text) <= long_block)


def in_reference_list(section_path: Sequence[str]) -> bool:
    """Whether a chunk under ``section_path`` is in a reference list: under a reference
    heading (and no numbered section, an appendix, after it), or under a heading a
    conversion made of an entry ("31. Haentjens P: Thromboembolic prophylaxis ...")."""
    if section_path and is_reference_entry(section_path[-1]):
        return True
    for i in range(len(section_path) - 1, -1, -1):
        if is_reference_heading(section_path[i]):
            after = section_path[i + 1 :]
            return not any(_ends_list(h) for h in after)
    return False


def reference_blocks(blocks: Sequence[tuple[str, str]]) -> list[bool]:
    """For a document's blocks in reading order, as (kind, text), which are reference-list
    entries: every block after a reference heading until a numbered section (an appendix;
    its heading may have come out as a line of text), and any block shaped as an entry."""
    out: list[bool] = []
    listing = False
    for kind, text in blocks:
        if kind in ("heading", "title"):
            if is_reference_heading(text):
                listing = True
            elif _ends_list(text):
                listing = False
        elif listing and _heading_line(text):
            listing = False
        out.append(listing or is_reference_entry(text))
    # an entry's middle line ("Hadziomerovic A, Kachura JR: Gunther Tulip ...") between two
    # lines shaped as entries continues the list
    for i in range(1, len(out) - 1):
        if not out[i] and out[i - 1] and out[i + 1] and blocks[i][0] not in ("heading", "title"):
            out[i] = True
    return out


def _ends_list(heading: str) -> bool:
    """A heading after a reference list that starts a section of the paper again."""
    numbered = _SECTION_NUMBER.match(heading) and not is_reference_entry(heading)
    return bool(numbered or _AFTER_LIST.match(heading))


def _heading_line(text: str, longest: int = 100) -> bool:
    """A line of text that is a numbered section heading the conversion did not mark ("A.
    Partitioned vs. unpartitioned variable projection algorithms"): short, numbered, a
    capitalised word after the number, no year, comma or closing full stop of an entry."""
    return (
        len(text) <= longest
        and bool(_SECTION_NUMBER.match(text) or _AFTER_LIST.match(text))
        and not _YEAR.search(text)
        and "," not in text
        and not text.rstrip().endswith(".")
        and entry_marks(text) == 0
    )


def mark_reference_lists(
    pages: dict[int | None, list[tuple[str, str]]], kind: str
) -> dict[int | None, list[tuple[str, str]]]:
    """A document's page blocks, (kind, text) in reading order per page, with the entries of
    its reference list given ``kind`` instead of their own (read in page order: a list's
    heading may be on an earlier page than its entries)."""
    order = sorted(pages, key=lambda page: -1 if page is None else page)
    flat = [(page, k, text) for page in order for k, text in pages[page]]
    entries = reference_blocks([(k, text) for _, k, text in flat])
    out: dict[int | None, list[tuple[str, str]]] = {page: [] for page in order}
    for (page, k, text), entry in zip(flat, entries, strict=True):
        out[page].append((kind if entry else k, text))
    return out
