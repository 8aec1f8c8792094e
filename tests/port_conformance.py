"""Every adapter and every fake, held to its Protocol port by mypy (not collected by pytest).

Protocols are structural: mypy checks an implementation against its port only where one is
used as the other. Each function below is such a use, so a method that drifts from its port
(a renamed argument, a changed return type) fails `mypy` in the test run, in the adapter or
the fake that drifted, instead of at run time in a service.
"""

from __future__ import annotations

from citeloom.adapters.conversion.cache import CachingConverter
from citeloom.adapters.conversion.docling_converter import DoclingConverter
from citeloom.adapters.conversion.plain_text import PlainTextConverter
from citeloom.adapters.conversion.router import FormatRouter
from citeloom.adapters.csl_references import CslMetadataResolver
from citeloom.adapters.embedding.fastembed_embedder import FastEmbedEmbedder
from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder
from citeloom.adapters.jsonl_audit import JsonlAuditLog
from citeloom.adapters.qdrant.core import QdrantIndex
from citeloom.adapters.qdrant.edge_engine import EdgeEngine
from citeloom.adapters.qdrant.engine import Engine
from citeloom.adapters.qdrant.server_engine import ServerEngine
from citeloom.adapters.wordpiece_chunker import WordPieceChunker
from citeloom.bootstrap.application import SettingsBuilders
from citeloom.ports import AuditLog, Chunker, Converter, Embedder, Index, MetadataResolver
from citeloom.services.usecases.dependencies import Builders
from tests.fake_builders import FakeBuilders
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)


def converters(
    a: DoclingConverter,
    b: PlainTextConverter,
    c: FormatRouter,
    d: CachingConverter,
    e: FakeConverter,
) -> list[Converter]:
    return [a, b, c, d, e]


def chunkers(a: WordPieceChunker, b: FakeChunker) -> list[Chunker]:
    return [a, b]


def resolvers(a: CslMetadataResolver, b: FakeMetadata) -> list[MetadataResolver]:
    return [a, b]


def embedders(a: OnnxEmbedder, b: FastEmbedEmbedder, c: FakeEmbedder) -> list[Embedder]:
    return [a, b, c]


def indexes(a: QdrantIndex[EdgeEngine], b: QdrantIndex[ServerEngine], c: FakeIndex) -> list[Index]:
    return [a, b, c]


def engines(a: EdgeEngine, b: ServerEngine) -> list[Engine]:
    """The two Qdrant engines, held to the primitives the core is written over."""
    return [a, b]


def audit_logs(a: JsonlAuditLog, b: MemoryAudit) -> list[AuditLog]:
    return [a, b]


def builders(a: SettingsBuilders, b: FakeBuilders) -> list[Builders]:
    """What the use cases are handed: the settings' builders, and the fakes' for the tests."""
    return [a, b]
