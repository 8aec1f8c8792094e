"""The DocumentText adapter: page texts read back from the conversion cache.

The cache holds every converted document by file hash, as the chunks were cut from it, so it
is the stored document text a quote is verified against. It is read only, never converted:
answering a question must not start Docling. An entry made by another converter version (the
settings changed since the ingest) still holds the text the index was built from when no
entry of the current version exists.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path

from citeloom.adapters.conversion.cache import CachingConverter, from_json
from citeloom.domain.models import ConvertedDocument


class CachedDocumentText:
    """Parsed documents are kept: a server answers from the same papers call after call. The
    least recently read go past ``keep`` (a parsed thesis is a few MB)."""

    def __init__(self, cache: CachingConverter | None, cache_dir: Path, keep: int = 64) -> None:
        self.cache = cache
        self.folder = cache_dir / "conversions"
        self.keep = keep
        self._pages: OrderedDict[str, dict[int | None, list[tuple[str, str]]]] = OrderedDict()
        self._lock = threading.Lock()

    def _entries(self, sha256: str) -> list[Path]:
        current = [self.cache.cached(sha256)] if self.cache is not None else []
        others = sorted(
            (self.folder / sha256[:2]).glob(f"{sha256}-*.json"),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        return [*current, *(p for p in others if p not in current)]

    def _document(self, sha256: str) -> ConvertedDocument | None:
        for path in self._entries(sha256):
            try:
                return from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # missing or damaged: the next candidate, else no stored text
        return None

    def pages(self, sha256: str) -> dict[int | None, str] | None:
        blocks = self.page_blocks(sha256)
        if blocks is None:
            return None
        return {page: "\n".join(text for _, text in items) for page, items in blocks.items()}

    def page_blocks(self, sha256: str) -> dict[int | None, list[tuple[str, str]]] | None:
        with self._lock:
            if sha256 in self._pages:
                self._pages.move_to_end(sha256)
                return self._pages[sha256]
        document = self._document(sha256) if sha256 else None
        if document is None:  # not converted on this machine yet: look again next time
            return None
        pages: dict[int | None, list[tuple[str, str]]] = {}
        for block in document.blocks:
            pages.setdefault(block.page, []).append((str(block.kind), block.text))
        with self._lock:
            self._pages[sha256] = pages
            while len(self._pages) > self.keep:
                self._pages.popitem(last=False)
        return pages
