"""Citation labels in pandoc's syntax, the form editors and AI tools paste into a draft."""

from __future__ import annotations


def page_label(page_start: int | None, page_end: int | None) -> str | None:
    if page_start is None:
        return None
    if page_end is None or page_end == page_start:
        return f"p. {page_start}"
    return f"pp. {page_start}-{page_end}"


def citation_label(citekey: str | None, page_start: int | None, page_end: int | None) -> str:
    """``[@key, p. 12]``; a document without a reference match is marked, never guessed."""
    pages = page_label(page_start, page_end)
    key = f"@{citekey}" if citekey else "no reference match"
    return f"[{key}, {pages}]" if pages else f"[{key}]"
