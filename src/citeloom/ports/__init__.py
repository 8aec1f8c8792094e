"""Ports: the interfaces services depend on. Adapters implement them; fakes stand in for tests."""

from citeloom.ports.audit import AuditLog
from citeloom.ports.chunker import Chunker
from citeloom.ports.converter import ConversionWorker, Converter, PagesSeen, ReportsPages
from citeloom.ports.document_text import DocumentText
from citeloom.ports.embedder import Embedder
from citeloom.ports.index import Index, IndexAdmin, IndexReader, IndexWriter, SearchFilter
from citeloom.ports.metadata import LibraryAudit, LibraryFiles, MetadataResolver
from citeloom.ports.relations import RelationSource
from citeloom.ports.sentence_store import SentenceVectorStore

__all__ = [
    "AuditLog",
    "Chunker",
    "ConversionWorker",
    "Converter",
    "DocumentText",
    "Embedder",
    "Index",
    "IndexAdmin",
    "IndexReader",
    "IndexWriter",
    "LibraryAudit",
    "LibraryFiles",
    "MetadataResolver",
    "PagesSeen",
    "RelationSource",
    "ReportsPages",
    "SearchFilter",
    "SentenceVectorStore",
]
