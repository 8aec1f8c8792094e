"""The way back to Zotero from a result: ``zotero://`` addresses of its item and its PDF.

Zotero's protocol handler (``chrome/content/zotero/ZoteroProtocolHandler.mjs`` in the Zotero
repository) routes ``zotero://select/library/items/KEY`` and
``zotero://open-pdf/library/items/KEY?page=N`` in the user's own library, and the same under
``groups/GROUPID/`` for a group library (the group's id on zotero.org, ``groups.groupID``,
not the local ``libraryID``). ``open-pdf`` opens the attachment in Zotero's reader at page
index ``N - 1``: N is the 1-based PDF page, not the printed page label (ADR 0027), which is
what a stored chunk's ``page_start`` already is.

Links are made only from what ingest stored about the document's attachment: an index
written before they existed, a file not read from a Zotero data directory, or a library
whose kind Zotero gives no address for (a feed) has none, and nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USER_LIBRARY = "library"  # the address of the user's own library in a zotero:// link
# what a stored library address may be: the user's library or a group by its zotero.org id
_LIBRARY = re.compile(r"library|groups/[1-9][0-9]{0,11}")
# Zotero's object keys are eight characters of 2-9 and A-Z without O; a stored key is only
# checked to be eight of 0-9 and A-Z, enough for it to sit in an address as it is
_KEY = re.compile(r"[0-9A-Z]{8}")


def group_library(group_id: int) -> str:
    """The library part of a zotero:// link to a group library."""
    return f"groups/{group_id}"


@dataclass(frozen=True)
class ZoteroLinks:
    """Where a result lives in Zotero: its entry and the PDF attachment it was read from."""

    library: str  # "library" (the user's own) or "groups/<group id>"
    item_key: str  # the entry (the attachment's own key for a standalone file)
    attachment_key: str
    page: int | None  # the 1-based PDF page the reader opens at

    @property
    def open_pdf(self) -> str:
        """Zotero's reader on the attachment, at the page (with the researcher's highlights)."""
        url = f"zotero://open-pdf/{self.library}/items/{self.attachment_key}"
        return url if self.page is None else f"{url}?page={self.page}"

    @property
    def select(self) -> str:
        """The entry selected in Zotero's item list."""
        return f"zotero://select/{self.library}/items/{self.item_key}"


def zotero_links(
    library: str | None, attachment: str | None, item: str | None, page: int | None
) -> ZoteroLinks | None:
    """The links of a stored document's page, or None when what is stored does not make a
    valid address. ``attachment`` is the stored identity ``"<libraryID>/<KEY>"``."""
    if library is None or attachment is None or item is None:
        return None
    key = attachment.rpartition("/")[2]
    if not (_LIBRARY.fullmatch(library) and _KEY.fullmatch(key) and _KEY.fullmatch(item)):
        return None
    return ZoteroLinks(library, item, key, page if page is not None and page >= 1 else None)
