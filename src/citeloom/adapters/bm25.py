"""BM25 sparse vectors, encoded on the client with Qdrant's own BM25 model.

``qdrant_edge.Bm25`` produces the same token ids as a Qdrant server's BM25 inference, so the
embedded engine and a server index identical sparse vectors; the server then applies IDF over
its collection (``Modifier.IDF``) exactly as the embedded shard does.
"""

from __future__ import annotations

import re
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


def query_terms(text: str) -> dict[str, tuple[int, ...]]:
    """Each word of a query with the BM25 terms it becomes, in order of first occurrence.

    A word BM25 drops (a stop word) is left out, and so is a word whose terms an earlier word
    already brought ("marshes" after "marsh"): the engine's query vector holds each term once,
    so per-word weights then add up to the query's own score."""
    seen: set[int] = set()
    words: dict[str, tuple[int, ...]] = {}
    for word in re.findall(r"[^\W_]+", text):
        terms = tuple(dict.fromkeys(encode_query(word)[0]))
        if terms and not set(terms) <= seen:
            words.setdefault(word, terms)
            seen.update(terms)
    return words


def idf_from_probe(score: float, stored: Any, term: int) -> float:
    """A term's IDF, read off the engine: a query of that one term (weight 1) scores a chunk
    holding it ``idf * value``, where value is the chunk's stored BM25 weight of the term
    (``stored``: the chunk's sparse vector as the client returns it)."""
    weights = dict(zip(stored.indices, stored.values, strict=True))
    value = float(weights.get(term, 0.0))
    return score / value if value > 0 else 0.0


def word_weights(words: dict[str, tuple[int, ...]], idf: dict[int, float]) -> dict[str, float]:
    """Per-word weights from per-term IDFs (0.0 for terms no chunk holds)."""
    return {word: sum(idf.get(t, 0.0) for t in terms) for word, terms in words.items()}
