"""BM25 sparse vectors, encoded on the client with Qdrant's own BM25 model.

``qdrant_edge.Bm25`` produces the same token ids as a Qdrant server's BM25 inference, so the
embedded engine and a server index identical sparse vectors; the server then applies IDF over
its collection (``Modifier.IDF``) exactly as the embedded shard does.

A term id is the hash of a word's Snowball stem, so stems of different languages are different
terms unless they are the same string. For a collection of several languages (its
``languages``, e.g. German and English):

- a chunk holds each word's stem in every language (a stem two languages share, once), so a
  German word meets its German inflections and an English word its English ones, in whichever
  language the paper or its abstract was written;
- a stop word of any of the languages is dropped in all of them ("und" is no English term,
  "the" no German one);
- a query word whose stems differ keeps one, the variant the collection's document frequency
  confirms (``choose``): both would otherwise count, and every word with two stems would
  weigh double in the score and in the ceiling fusion divides by.

One language encodes exactly as before languages existed, so older collections stay valid.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from qdrant_edge import Bm25, Bm25Config, Language, StopwordsSet

from citeloom.domain.languages import DEFAULT_LANGUAGES

# Chunks are at most 254 word pieces, roughly 150 BM25 terms once stop words are gone.
BM25_SETTINGS: dict[str, Any] = {"language": "english", "k": 1.2, "b": 0.75, "avg_len": 150.0}
_SHAPE = {key: value for key, value in BM25_SETTINGS.items() if key != "language"}

# What a query word asks for: each of its BM25 terms with the weight the query gives it.
Terms = dict[int, float]
# The engine's IDF of each of the given terms that some chunk holds (absent: no chunk does).
IdfProbe = Callable[[Sequence[int]], dict[int, float]]


@lru_cache(maxsize=8)
def _models(languages: tuple[str, ...]) -> tuple[Bm25, ...]:
    if len(languages) == 1:
        return (Bm25(Bm25Config(language=languages[0], **_SHAPE)),)
    stop = StopwordsSet(languages={getattr(Language, name.capitalize()) for name in languages})
    return tuple(Bm25(Bm25Config(language=name, stopwords=stop, **_SHAPE)) for name in languages)


def encode_document(
    text: str, languages: Sequence[str] = DEFAULT_LANGUAGES
) -> tuple[list[int], list[float]]:
    models = _models(tuple(languages))
    if len(models) == 1:
        vector = models[0].embed_document(text)
        return list(vector.indices), list(vector.values)
    # Every language counts the same words once stop words are gone, so a stem two languages
    # share has the same weight in both.
    merged: dict[int, float] = {}
    for model in models:
        vector = model.embed_document(text)
        for term, weight in zip(vector.indices, vector.values, strict=True):
            merged[term] = max(merged.get(term, 0.0), weight)
    terms = sorted(merged)
    return terms, [merged[t] for t in terms]


def encode_query(
    text: str, languages: Sequence[str] = DEFAULT_LANGUAGES, idf: IdfProbe | None = None
) -> tuple[list[int], list[float]]:
    """The query's sparse vector; with several languages, one variant per word (``idf``: how
    the collection confirms them, see ``choose``)."""
    models = _models(tuple(languages))
    if len(models) == 1:
        vector = models[0].embed_query(text)
        return list(vector.indices), list(vector.values)
    merged: Terms = {}
    for terms in query_terms(text, languages, idf).values():
        merged.update(terms)
    indices = sorted(merged)
    return indices, [merged[t] for t in indices]


def query_terms(
    text: str, languages: Sequence[str] = DEFAULT_LANGUAGES, idf: IdfProbe | None = None
) -> dict[str, Terms]:
    """Each word of a query with the BM25 terms it becomes, in order of first occurrence.

    A word BM25 drops (a stop word) is left out, and so is a word whose terms an earlier word
    already brought ("marshes" after "marsh"): the engine's query vector holds each term once,
    so per-word weights then add up to the query's own score."""
    return weigh_query(text, languages, idf)[0]


def weigh_query(
    text: str, languages: Sequence[str] = DEFAULT_LANGUAGES, idf: IdfProbe | None = None
) -> tuple[dict[str, Terms], dict[int, float]]:
    """``query_terms`` and the IDF of the terms the words keep, from one probe of the
    collection (``idf``; None: no collection to ask, every term weighs 0)."""
    models = _models(tuple(languages))
    candidates: list[tuple[str, list[tuple[int, ...]]]] = []
    for word in re.findall(r"[^\W_]+", text):
        variants = [tuple(dict.fromkeys(m.embed_query(word).indices)) for m in models]
        distinct = list(dict.fromkeys(v for v in variants if v))
        if distinct:
            candidates.append((word, distinct))
    every = sorted({t for _, variants in candidates for v in variants for t in v})
    known = idf(every) if idf is not None and every else {}
    seen: set[int] = set()
    words: dict[str, Terms] = {}
    for word, variants in candidates:
        terms = choose(variants, known)
        if terms and not set(terms) <= seen and word not in words:
            words[word] = terms
            seen.update(terms)
    return words, known


def choose(variants: list[tuple[int, ...]], idf: dict[int, float]) -> Terms:
    """The variant of a word the collection's document frequency confirms: one whose terms
    chunks hold, and of those the one most chunks hold (the lowest IDF). A German word's
    German stem gathers its inflections ("Böden", "Boden") and so more chunks than its
    English stem does, and an English word's English stem gathers its own. When no chunk
    holds any variant, the first language's (it scores nothing either way)."""
    if len(variants) == 1:
        return dict.fromkeys(variants[0], 1.0)

    def rank(index: int) -> tuple[bool, int, float, int]:
        terms = variants[index]
        held = [idf[t] for t in terms if t in idf]
        whole = len(held) == len(terms)
        return (not whole, 0 if whole else -len(held), max(held, default=0.0), index)

    best = min(range(len(variants)), key=rank)
    return dict.fromkeys(variants[best], 1.0)


def idf_from_probe(score: float, stored: Any, term: int) -> float:
    """A term's IDF, read off the engine: a query of that one term (weight 1) scores a chunk
    holding it ``idf * value``, where value is the chunk's stored BM25 weight of the term
    (``stored``: the chunk's sparse vector as the client returns it)."""
    weights = dict(zip(stored.indices, stored.values, strict=True))
    value = float(weights.get(term, 0.0))
    return score / value if value > 0 else 0.0


def word_weights(words: dict[str, Terms], idf: dict[int, float]) -> dict[str, float]:
    """Per-word weights from per-term IDFs (0.0 for terms no chunk holds)."""
    return {
        word: sum(weight * idf.get(t, 0.0) for t, weight in terms.items())
        for word, terms in words.items()
    }
