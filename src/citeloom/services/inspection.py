"""The inspect use case: what a project's collection holds, document by document."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from citeloom.domain.models import CollectionInfo, DocumentSummary
from citeloom.ports import Index


@dataclass
class InspectReport:
    project: str
    collection: str
    info: CollectionInfo | None
    documents: list[DocumentSummary] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "collection": self.collection,
            "exists": self.info is not None,
            "points": self.info.points if self.info else 0,
            "embed_model": self.info.embed_model if self.info else None,
            "dimensions": self.info.dimensions if self.info else None,
            "documents": [_document_json(d) for d in self.documents],
        }


def _document_json(doc: DocumentSummary) -> dict[str, Any]:
    fields = {k: v for k, v in asdict(doc).items() if k != "labels"}
    labels = doc.labels
    return {
        **fields,
        "pages": doc.page_count,
        "complete": doc.complete,
        "page_labels": labels.source if labels else None,
        "printed_pages": labels.span() if labels else None,
    }


def inspect_project(index: Index, project: str, collection: str) -> InspectReport:
    info = index.collection_info(collection)
    documents = index.documents(collection, project) if info else []
    return InspectReport(project=project, collection=collection, info=info, documents=documents)


@dataclass
class ProjectSummary:
    """One line of a project list: what is configured and what its collection holds."""

    project: str
    collection: str
    embedding_model: str  # configured
    stored_model: str | None  # what the collection's vectors were made with (None: empty)
    documents: int
    chunks: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summarise_project(
    index: Index, project: str, collection: str, embedding_model: str
) -> ProjectSummary:
    report = inspect_project(index, project, collection)
    return ProjectSummary(
        project=project,
        collection=collection,
        embedding_model=embedding_model,
        stored_model=report.info.embed_model if report.info else None,
        documents=len(report.documents),
        chunks=sum(d.chunks for d in report.documents),
    )
