"""BM25 sparse vectors, encoded on the client with Qdrant's own BM25 model.

``qdrant_edge.Bm25`` produces the same token ids as a Qdrant server's BM25 inference, so the
embedded engine and a server index identical sparse vectors; the server then applies IDF over
its collection (``Modifier.IDF``) exactly as the embedded shard does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from qdrant_edge import Bm25, Bm25Config

# Chunks are at most 254 word pieces, roughly 150 BM25 terms once stop words are gone.
BM25_SETTINGS: dict[str, Any] = {"language": "english", "k": 1.2, "b": 0.75, "avg_len": 150.0}


@lru_cache(maxsize=1)
def _model() -> Bm25:
    return Bm25(Bm25Config(**BM25_SETTINGS))


def encode_document(text: str) -> tuple[list[int], list[float]]:
    vector = _model().embed_document(text)
    return list(vector.indices), list(vector.values)


def encode_query(text: str) -> tuple[list[int], list[float]]:
    vector = _model().embed_query(text)
    return list(vector.indices), list(vector.values)
