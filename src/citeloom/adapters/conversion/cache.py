"""The conversion cache: a converted document is stored by (file hash, converter id).

Conversion is by far the slowest stage (seconds per paper, more with OCR). Re-chunking with
other settings, re-embedding with another model or re-labelling after the library changed
must never convert again, and a new converter version must never reuse old output.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from citeloom.adapters.cache_files import write_atomically
from citeloom.domain.models import (
    Block,
    BlockKind,
    ConversionWarning,
    ConvertedDocument,
    WarningKind,
)
from citeloom.domain.page_labels import PageMarks
from citeloom.ports import Converter, PagesSeen, ReportsPages

# 2: warnings are {"kind", "message"} (a ConversionWarning); 1 kept their wording only
CACHE_FORMAT = 2
_PARTIAL_PREFIX_V1 = "partial: "


def to_json(document: ConvertedDocument) -> dict[str, Any]:
    return {"format": CACHE_FORMAT, **asdict(document)}


def from_json(data: dict[str, Any]) -> ConvertedDocument:
    """The document of a cache entry of this format or format 1; a ``ValueError`` for any
    other (a newer citeloom wrote it), which the cache then converts again."""
    version = data.get("format", 1)
    if version not in (1, CACHE_FORMAT):
        raise ValueError(f"conversion cache format {version} is not {CACHE_FORMAT}")
    fields = {k: v for k, v in data.items() if k != "format"}
    fields["blocks"] = tuple(
        Block(b["text"], BlockKind(b["kind"]), b["page"], b["level"]) for b in fields["blocks"]
    )
    fields["ocr_pages"] = tuple(fields.get("ocr_pages", ()))
    fields["warnings"] = tuple(_warning(w) for w in fields.get("warnings", ()))
    marks = fields.get("page_marks") or {}
    fields["page_marks"] = PageMarks(
        pdf_labels=tuple(marks.get("pdf_labels", ())),
        margin_lines=tuple((int(page), str(text)) for page, text in marks.get("margin_lines", ())),
        page_words=tuple(marks.get("page_words", ())),
        page_openings=tuple(marks.get("page_openings", ())),
    )
    return ConvertedDocument(**fields)


def _warning(stored: Any) -> ConversionWarning:
    if not isinstance(stored, str):
        return ConversionWarning(WarningKind(stored["kind"]), str(stored["message"]))
    # Format 1 kept the wording only. A conversion cut short (whose warnings began with
    # "partial: ") was never stored, so a stored warning is about a page without a text
    # layer; one that reads "partial: " all the same is taken as partial, and so converted
    # again rather than served.
    if stored.startswith(_PARTIAL_PREFIX_V1):
        return ConversionWarning(WarningKind.PARTIAL, stored.removeprefix(_PARTIAL_PREFIX_V1))
    return ConversionWarning(WarningKind.OCR, stored)


class CachingConverter:
    def __init__(self, inner: Converter, cache_dir: Path) -> None:
        self.inner = inner
        self.folder = cache_dir / "conversions"
        self.version = hashlib.sha256(inner.converter_id.encode()).hexdigest()[:12]
        self.hits = 0

    @property
    def converter_id(self) -> str:
        return self.inner.converter_id

    def supports(self, path: Path) -> bool:
        return self.inner.supports(path)

    def report_pages(self, seen: PagesSeen | None) -> None:
        """Conversions that run are told of (one served from the cache has no pages to go)."""
        if isinstance(self.inner, ReportsPages):
            self.inner.report_pages(seen)

    def cached(self, sha256: str) -> Path:
        return self.folder / sha256[:2] / f"{sha256}-{self.version}.json"

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        cached = self.cached(sha256)
        if cached.is_file():
            try:
                document = from_json(json.loads(cached.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError):
                document = None  # a damaged entry is converted again and overwritten
            if document is not None and not document.partial:
                self.hits += 1
                # the same bytes may sit under another name now
                return replace(document, source_path=str(path))
        document = self.inner.convert(path, sha256)
        if document.partial:
            # cut short by [conversion] timeout_s or max_pages: raising the limit must convert
            # the whole document next time, not return this part
            return document
        self.remember(document)
        return document

    def remember(self, document: ConvertedDocument) -> None:
        """Keep a converted document by its hash: also one made without a file (a note
        stored through MCP), which re-labelling and reindex then find here."""
        try:
            encoded = json.dumps(to_json(document), ensure_ascii=False).encode()
            write_atomically(self.cached(document.sha256), encoded)
        except OSError:
            pass  # a cache that cannot be written only costs time
