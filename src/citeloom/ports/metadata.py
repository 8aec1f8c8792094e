from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from citeloom.domain.citekeys import LibraryProblem
from citeloom.domain.library_files import LibraryAttachment
from citeloom.domain.models import ConvertedDocument, MetadataMatch, Reference
from citeloom.domain.notes import NoteItem


class MetadataResolver(Protocol):
    """Finds the library entry a document is (DOI first, then title); may find none."""

    def references(self) -> list[Reference]: ...

    @property
    def fingerprint(self) -> str:
        """Identity of the library's content; when it changes, stored labels are re-checked."""
        ...

    @property
    def format_name(self) -> str:
        """What the library is read from, as validate names it: "CSL-JSON", "BibTeX" or
        "Zotero"."""
        ...

    def resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch: ...

    def problems(self) -> list[LibraryProblem]:
        """What is wrong with the library's citation keys (a key several entries claim, an
        entry without one): ingest warns of each, validate reports them."""
        ...


@runtime_checkable
class LibraryAudit(Protocol):
    """What validate reports about a library read from a reference manager's database."""

    def disagreements(self) -> list[str]:
        """Entries the database and the references file describe differently."""
        ...


class LibraryFiles(Protocol):
    """A library that holds its entries' files (a Zotero data directory): what to ingest, and
    the annotations made on them, read from one consistent state of the library."""

    @property
    def root(self) -> Path:
        """The library's folder (Zotero's data directory)."""
        ...

    def attachments(self) -> list[LibraryAttachment]: ...

    def annotations(self) -> list[NoteItem]:
        """The PDF annotations of the ingested attachments, as notes of kind "annotation"."""
        ...

    def watched(self) -> list[Path]:
        """The files whose change means the library changed (its database files)."""
        ...
