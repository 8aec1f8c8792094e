"""What a collection remembers about itself: the embedding model and how BM25 was encoded.

The embedded engine has no collection metadata, so it lives in a JSON sidecar next to the
shard; a Qdrant server keeps the same dict in the collection's ``metadata``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from citeloom import __version__
from citeloom.adapters.bm25 import BM25_SETTINGS
from citeloom.domain.errors import EmbeddingModelMismatch

META_FORMAT = 1


def new_meta(collection: str, embed_model: str, dimensions: int) -> dict[str, Any]:
    return {
        "format": META_FORMAT,
        "collection": collection,
        "embed_model": embed_model,
        "dimensions": dimensions,
        "bm25": dict(BM25_SETTINGS),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "created_by": f"citeloom {__version__}",
    }


def guard(collection: str, meta: dict[str, Any], embed_model: str) -> None:
    stored = meta.get("embed_model")
    if stored != embed_model:
        raise EmbeddingModelMismatch(collection, str(stored), embed_model)
