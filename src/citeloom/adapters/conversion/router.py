"""One Converter in front of several, chosen by file type."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from citeloom.domain.errors import DocumentError
from citeloom.domain.models import ConvertedDocument
from citeloom.ports import Converter, PagesSeen, ReportsPages


class FormatRouter:
    def __init__(self, converters: Sequence[Converter]) -> None:
        self.converters = list(converters)

    def supports(self, path: Path) -> bool:
        return any(c.supports(path) for c in self.converters)

    def _for(self, path: Path) -> Converter:
        for converter in self.converters:
            if converter.supports(path):
                return converter
        raise DocumentError(
            f"{path}: unsupported file type '{path.suffix or path.name}'. citeloom ingests PDF, "
            "DOCX, HTML, Markdown and plain text."
        )

    @property
    def converter_id(self) -> str:
        return "+".join(c.converter_id for c in self.converters)

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        return self._for(path).convert(path, sha256)

    def report_pages(self, seen: PagesSeen | None) -> None:
        for converter in self.converters:
            if isinstance(converter, ReportsPages):
                converter.report_pages(seen)
