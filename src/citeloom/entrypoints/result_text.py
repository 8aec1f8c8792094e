"""How a result is named in text, the same in the CLI's output and the TUI's screen, both
drawn from the response models the CLI, HTTP and MCP share (``services/usecases/wire.py``); the web
page's ``byline`` (``http/web/page.js``) follows the same rule from the same fields.

- ``byline``: who and when, "Ardel et al., 2023" (two authors: "Ardel and Reyes, 2023").
- ``pdf_pages``: " (PDF p. 2)" beside a printed label that is not the PDF page, for opening
  the file; nothing where the two agree.
- ``quote_page``: the same for a quoted sentence, which is on one page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from citeloom.domain.citation import family_names, pdf_pages_differ

if TYPE_CHECKING:
    from citeloom.services.usecases.wire import CitationOut, PassageOut


def byline(passage: PassageOut) -> str:
    names = family_names(passage.authors)
    who = names[0] if names else ""
    if who and len(names) > 2:
        who += " et al."
    elif len(names) == 2:
        who += " and " + names[1]
    return ", ".join(x for x in (who, str(passage.year) if passage.year else None) if x)


def pdf_pages(p: PassageOut) -> str:
    if not pdf_pages_differ(p.page_start, p.page_end, p.page_label_start, p.page_label_end):
        return ""
    if p.page_end is None or p.page_end == p.page_start:
        return f" (PDF p. {p.page_start})"
    return f" (PDF pp. {p.page_start}-{p.page_end})"


def quote_page(c: CitationOut) -> str:
    """The PDF page of a quoted sentence, where it is not the printed one."""
    return f" (PDF p. {c.page})" if c.page is not None and c.page_label != str(c.page) else ""
