"""Names and record shapes both Qdrant transports share: the vector names a collection is
made with, and a stored record read back as the ``IndexPoint`` it was written from (both
clients return records with ``id``, a ``vector`` dict and a ``payload``)."""

from __future__ import annotations

from typing import Any

from citeloom.domain.models import IndexPoint

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
