"""Plain text, taken as it is: paragraphs split at blank lines, no headings, no pages."""

from __future__ import annotations

import re
from pathlib import Path

from citeloom.adapters.conversion.docling_converter import read_head
from citeloom.domain.errors import DocumentError
from citeloom.domain.models import Block, BlockKind, ConvertedDocument
from citeloom.domain.text import normalise_text

TEXT_SUFFIXES = frozenset({".txt", ".text"})


class PlainTextConverter:
    converter_id = "plaintext-1"

    def supports(self, path: Path) -> bool:
        return path.suffix.lower() in TEXT_SUFFIXES

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        head = read_head(path)
        if b"\x00" in head:
            raise DocumentError(
                f"{path}: binary data in a .txt file. Rename it with its real extension."
            )
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            text = path.read_text(encoding="latin-1")
        paragraphs = [normalise_text(p) for p in re.split(r"\n\s*\n", text)]
        blocks = tuple(Block(p, BlockKind.TEXT, None) for p in paragraphs if p)
        return ConvertedDocument(
            source_path=str(path),
            sha256=sha256,
            title=None,
            page_count=None,
            blocks=blocks,
            converter=self.converter_id,
        )
