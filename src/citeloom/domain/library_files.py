"""The files a reference manager keeps for its entries (Zotero's attachments).

A library that holds the files itself needs no guessing: each attachment names its entry.
What cannot be ingested is said, per attachment, so that nothing is dropped in silence.

An attachment is known by its library and its own key (``1/ABCD2345``), never by its file
name: Zotero renames and moves attachment files by itself (Zotero 7's automatic renaming), and
a renamed file is the same attachment of the same entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LibraryItem:
    """Where a stored document sits in the library: the attachment it was ingested from and
    the entry that attachment belongs to."""

    attachment: str  # the attachment's identity: "<library id>/<key>", e.g. "1/PDFKEY01"
    item_key: str  # its parent entry's key; the attachment's own for a standalone file
    # its library in a zotero:// link: "library" (the user's own) or "groups/<group id>";
    # None when Zotero gives it no address (a feed) (domain.zotero_links)
    link_library: str | None = None


@dataclass(frozen=True)
class LibraryAttachment:
    """One file attachment of the library."""

    path: str  # absolute: under the data directory's storage/, or a linked file anywhere
    item_key: str  # the attachment's own key in the library ("ABCD2345")
    parent_key: str | None  # the entry it is attached to; None for a standalone file
    citekey: str | None  # the entry's citation key; None when it has no usable one
    content_type: str | None
    # why it is not ingested ("the file is missing", "not a PDF (text/html)"); None: it is
    skipped: str | None = None
    library_id: int = 1  # Zotero's libraryID: 1 is the user's own library, groups follow
    # why the entry has no usable citation key (none at all, or one another entry claims too)
    no_key: str | None = None
    link_library: str | None = None  # its library in a zotero:// link (LibraryItem's)

    @property
    def identity(self) -> str:
        return f"{self.library_id}/{self.item_key}"

    @property
    def item(self) -> LibraryItem:
        return LibraryItem(self.identity, self.parent_key or self.item_key, self.link_library)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "item_key": self.item_key,
            "parent_key": self.parent_key,
            "citekey": self.citekey,
            "content_type": self.content_type,
            "skipped": self.skipped,
            "library_id": self.library_id,
            "no_key": self.no_key,
            "link_library": self.link_library,
        }
