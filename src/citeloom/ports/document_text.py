from __future__ import annotations

from typing import Protocol


class DocumentText(Protocol):
    """The stored text of a converted document, page by page: what ``answer`` and ``check``
    verify a quote against and take its page from (a chunk may span pages; a sentence is on
    one)."""

    def pages(self, sha256: str) -> dict[int | None, str] | None:
        """Each page's text (its blocks in reading order, as indexing normalised them, joined
        by newlines; ``None`` for a format without pages), or ``None`` when this machine
        holds no stored conversion of the document."""
        ...

    def page_blocks(self, sha256: str) -> dict[int | None, list[tuple[str, str]]] | None:
        """Each page's blocks in reading order as (kind, text), the kind a ``BlockKind``
        value ("text", "caption", "table", "footnote", ...): ``check`` takes a caption for
        evidence only when no body sentence states the claim. ``None`` as for ``pages``."""
        ...
