"""Citation labels in pandoc's syntax, the form editors and AI tools paste into a draft, and
the parts of a result the CLI, the TUI and the page name it by: its authors' family names,
and whether its PDF pages are worth showing beside the printed ones.

The page a label names is the printed one (``domain.page_labels``): ``[@hong1999exact,
p. 273]``, the page a reader finds in the journal, never the PDF's page index. A note is
labelled as a note on the paper, so it is never mistaken for the paper's own words.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeloom.domain.citekeys import no_usable_key_label


def page_locator(start: str | None, end: str | None) -> str | None:
    """``p. 273``; ``pp. 272-273`` for a span; None when neither page is numbered."""
    if start is None or end is None or start == end:
        page = start or end
        return f"p. {page}" if page is not None else None
    return f"pp. {start}-{end}"


def citation_label(
    citekey: str | None,
    label_start: str | None,
    label_end: str | None,
    *,
    note: bool = False,
    annotation: bool = False,
    item: str | None = None,
) -> str:
    """``[@key, p. 12]``; a document without a reference match is marked, never guessed;
    a note reads ``[note on @key, p. 2]`` (``[note]`` when it names no paper), a Zotero
    annotation ``[annotation on @key, p. 2]``. A Zotero attachment whose entry (``item``)
    has no usable citekey is cited by the entry: ``[no citekey: Zotero item ABCD2345, p. 3]``
    (``domain.citekeys``)."""
    pages = page_locator(label_start, label_end)
    if note or annotation:
        what = "annotation" if annotation else "note"
        key = f"{what} on @{citekey}" if citekey else what
    elif citekey:
        key = f"@{citekey}"
    else:
        key = no_usable_key_label(item) if item else "no reference match"
    return f"[{key}, {pages}]" if pages else f"[{key}]"


def family_names(authors: Sequence[str]) -> tuple[str, ...]:
    """Each author's family name, from "Family, Given" (blank entries left out)."""
    return tuple(a.split(",", 1)[0].strip() for a in authors if a.strip())


def pdf_pages_differ(
    page_start: int | None, page_end: int | None, label_start: str | None, label_end: str | None
) -> bool:
    """Whether a passage's PDF pages are worth showing beside its printed ones: a reader
    opening the file needs them where the two differ."""
    return page_start is not None and (str(page_start) != label_start or str(page_end) != label_end)
