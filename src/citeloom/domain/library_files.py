"""The files a reference manager keeps for its entries (Zotero's attachments).

A library that holds the files itself needs no guessing: each attachment names its entry.
What cannot be ingested is said, per attachment, so that nothing is dropped in silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LibraryAttachment:
    """One file attachment of the library."""

    path: str  # absolute: under the data directory's storage/, or a linked file anywhere
    item_key: str  # the attachment's own key in the library ("ABCD2345")
    parent_key: str | None  # the entry it is attached to; None for a standalone file
    citekey: str | None  # the entry's citation key; None when the entry has none
    content_type: str | None
    # why it is not ingested ("the file is missing", "not a PDF (text/html)"); None: it is
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "item_key": self.item_key,
            "parent_key": self.parent_key,
            "citekey": self.citekey,
            "content_type": self.content_type,
            "skipped": self.skipped,
        }
