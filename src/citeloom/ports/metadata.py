from __future__ import annotations

from typing import Protocol

from citeloom.domain.models import ConvertedDocument, MetadataMatch, Reference


class MetadataResolver(Protocol):
    """Finds the library entry a document is (DOI first, then title); may find none."""

    def references(self) -> list[Reference]: ...

    @property
    def fingerprint(self) -> str:
        """Identity of the library's content; when it changes, stored labels are re-checked."""
        ...

    def resolve(self, document: ConvertedDocument, hint: str | None = None) -> MetadataMatch: ...
