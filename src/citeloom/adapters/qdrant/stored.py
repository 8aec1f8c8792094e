"""Names and record shapes both Qdrant engines share: the vector names a collection is made
with, a stored record read back as the ``IndexPoint`` it was written from, and search hits as
``ScoredPoint`` (both clients return records with ``id``, a ``vector`` dict, a ``payload`` and,
for hits, a ``score``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeloom.domain.models import IndexPoint, ScoredPoint

DENSE, SPARSE = "dense", "bm25"


def stored_point(record: Any) -> IndexPoint:
    """A record read with its vectors and payload, as the point that was stored: the BM25
    vector as stored (the text it was made from, heading context included, is not kept)."""
    vectors = record.vector
    sparse = vectors[SPARSE]
    payload = record.payload or {}
    return IndexPoint(
        id=str(record.id),
        vector=list(vectors[DENSE]),
        text=payload.get("fulltext", ""),
        payload=payload,
        sparse=(list(sparse.indices), list(sparse.values)),
    )


def scored(hits: Iterable[Any]) -> list[ScoredPoint]:
    return [ScoredPoint(id=str(h.id), score=float(h.score), payload=h.payload) for h in hits]
