from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from citeloom.domain.relations import DocumentFacts, RelationGraph


class RelationSource(Protocol):
    """The relations of a project's library: inferred from the references file, declared in
    the project's relations file, and (``with_documents``) those its stored PDFs add.
    Always current: computed again whenever either file changes."""

    def graph(self) -> RelationGraph: ...

    def with_documents(self, documents: Sequence[DocumentFacts]) -> RelationGraph:
        """The graph with what these documents' facts add (``DocumentFacts``)."""
        ...

    def problems(self) -> list[str]:
        """Declared relations that cannot apply (a citekey not in the library), each a line."""
        ...

    @property
    def sources(self) -> tuple[str, ...]:
        """The files the relations come from, for people reading a report."""
        ...
