from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

from citeloom.domain.models import ConvertedDocument


class Converter(Protocol):
    """Turns a file into reading-ordered blocks with pages and heading levels.

    Raises ``DocumentError`` with a message naming the file and the fix when the file cannot
    be converted; the batch goes on without it.
    """

    @property
    def converter_id(self) -> str:
        """Name and version of the conversion: a new one never reuses cached output."""
        ...

    def supports(self, path: Path) -> bool: ...

    def convert(self, path: Path, sha256: str) -> ConvertedDocument: ...


class ConversionWorker(Protocol):
    """A converter in a process of its own (``ingest --jobs N``): one conversion at a time;
    a worker that dies fails the one file it held (``DocumentError``) and the next conversion
    starts a new one. ``close`` stops it, waiting for nothing."""

    def convert(self, path: Path, sha256: str) -> ConvertedDocument: ...

    def close(self) -> None: ...


# Told while a long document converts: the file, its pages converted so far, and the pages to
# convert. Called on whichever thread converts (a conversion runs ahead of the document in
# hand), so what it calls must be safe to call from there.
PagesSeen = Callable[[Path, int, int], None]


@runtime_checkable
class ReportsPages(Protocol):
    """A converter (or conversion worker) that can tell how far a long document has got, for a
    person at a terminal (``ingest`` shows it under its bar). ``None`` stops the telling."""

    def report_pages(self, seen: PagesSeen | None) -> None: ...
