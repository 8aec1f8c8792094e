"""The inspect use case: what a project's collection holds, document by document, and which
documents are stored only in part (a run killed while writing them) with how to repair them."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from citeloom.domain.models import CollectionInfo, DocumentSummary
from citeloom.domain.relations import DocumentFacts, Relation
from citeloom.ports import IndexReader, RelationSource


@dataclass
class InspectReport:
    project: str
    collection: str
    info: CollectionInfo | None
    documents: list[DocumentSummary] = field(default_factory=list)

    @property
    def incomplete(self) -> list[DocumentSummary]:
        return [d for d in self.documents if not d.complete]

    @property
    def fix(self) -> str | None:
        return repair(self.project, self.incomplete)


def repair(project: str, incomplete: Sequence[DocumentSummary]) -> str | None:
    """How to make incomplete documents whole: ingest their folders again (an ingest writes
    anew every document it finds stored in part); a note is stored again as it was given."""
    if not incomplete:
        return None
    folders = sorted({str(Path(d.path).parent) for d in incomplete if d.kind != "note"})
    steps = []
    if folders:
        where = " ".join(shlex.quote(f) for f in folders)
        steps.append(f"ingest their folders again: citeloom ingest {where} --project {project}")
    if any(d.kind == "note" for d in incomplete):
        steps.append("store each incomplete note again (MCP store_chunks)")
    return "; ".join(steps)


def inspect_project(index: IndexReader, project: str, collection: str) -> InspectReport:
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


def summarise_project(
    index: IndexReader, project: str, collection: str, embedding_model: str
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


@dataclass
class PreprintPdf:
    """A stored PDF that is a preprint of the entry it is matched to (arXiv's stamp)."""

    doc_id: str
    path: str
    citekey: str
    evidence: str


@dataclass
class RelationsReport:
    """``citeloom inspect --relations``: every relation of the project's library, certain
    ones (applied) and possible ones (shown, never applied), each with its evidence."""

    project: str
    sources: tuple[str, ...]
    relations: list[Relation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    preprint_pdfs: list[PreprintPdf] = field(default_factory=list)

    @property
    def certain(self) -> list[Relation]:
        return [r for r in self.relations if r.certainty == "certain"]

    @property
    def possible(self) -> list[Relation]:
        return [r for r in self.relations if r.certainty == "possible"]


def document_facts(documents: Sequence[DocumentSummary]) -> list[DocumentFacts]:
    """What each stored paper says about versions (notes and unmatched documents say none)."""
    return [
        DocumentFacts(d.doc_id, d.path, d.citekey, d.arxiv_stamp, d.also_fits)
        for d in documents
        if d.citekey and d.kind == "paper"
    ]


def inspect_relations(
    index: IndexReader, project: str, collection: str, relations: RelationSource
) -> RelationsReport:
    """The relations of the project's library, with those its stored PDFs add."""
    info = index.collection_info(collection)
    documents = index.documents(collection, project) if info else []
    facts = document_facts(documents)
    graph = relations.with_documents(facts)
    preprints = []
    for fact in facts:
        flags = graph.flags(fact.citekey, fact.arxiv_stamp)
        if flags.preprint_pdf:
            preprints.append(PreprintPdf(fact.doc_id, fact.path, fact.citekey, flags.preprint_pdf))
    return RelationsReport(
        project=project,
        sources=relations.sources,
        # a relation on a cycle is not applied: it is named among the problems instead
        relations=[r for r in graph.relations if r not in graph.set_aside],
        problems=relations.problems(),
        preprint_pdfs=preprints,
    )
