"""Remedies for vocabulary mismatch that change what a signal returns, measured (issue 44).

``fusions.py`` holds the policies that only re-weigh the two lists; these change the lists:

- ``RM3``: pseudo-relevance feedback on the BM25 side (Lavrenko and Croft's relevance model
  mixed with the query, as Anserini's RM3: 10 feedback chunks, 10 terms, the query weighing
  half). The words of the query's best BM25 chunks that the query lacks join it, so a
  paraphrase reaches the page's own words;
- ``BestSentence``: dense scores from sentence vectors beside the chunk vectors: a chunk
  scores by its best sentence (or a mix with its own cosine), so a one-sentence finding inside
  a long chunk is not diluted by the rest of it;
- ``titled``: the project built again with each chunk's embedded text opening with its
  paper's title (the section path is in it already, ``WordPieceChunker.embed_text``).

Each wraps the index a ``QueryService`` reads (``benchmarks/library.py``'s remembered index),
so the whole query pipeline runs as it does in citeloom; each reaches into the Qdrant adapter
where the port has no call for what it needs (a weighted sparse query, stored vectors): a
measurement, not a design.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.library import CachedEmbedder
from citeloom.adapters import bm25
from citeloom.adapters.qdrant.core import best
from citeloom.adapters.qdrant.filter_plan import filter_plan
from citeloom.domain.abstention import STOPWORDS
from citeloom.domain.models import ScoredPoint
from citeloom.domain.sentences import split_sentences
from citeloom.domain.text import comparable_words
from citeloom.ports import SearchFilter

Kept = Callable[[list[ScoredPoint]], list[ScoredPoint]]


def _words(text: str) -> list[str]:
    return [
        w for w in comparable_words(text) if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()
    ]


class RM3:
    """BM25 with RM3 feedback. ``core``: the Qdrant adapter (its engine and IDF probe);
    ``kept``: what the caller's index would keep of a list (a left-out page stays out)."""

    def __init__(
        self,
        inner: Any,
        core: Any,
        kept: Kept = lambda points: points,
        fb_docs: int = 10,
        fb_terms: int = 10,
        original: float = 0.5,
    ) -> None:
        self._inner = inner
        self._core = core
        self._kept = kept
        self.fb_docs, self.fb_terms, self.original = fb_docs, fb_terms, original
        self._expanded: dict[tuple, tuple[list[int], list[float], float] | None] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def text_search(
        self, collection: str, text: str, filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        whole = replace(filters, point_ids=())
        key = (collection, text, whole)
        if key not in self._expanded:
            self._expanded[key] = self._expand(collection, text, whole)
        expanded = self._expanded[key]
        if expanded is None:
            return self._inner.text_search(collection, text, filters, limit)
        indices, values, scale = expanded
        search = partial(
            self._core.engine.query, collection, (indices, values), filter_plan(filters)
        )
        hits = self._kept(best(search, limit))
        return [ScoredPoint(h.id, h.score * scale, h.payload) for h in hits]

    def _expand(
        self, collection: str, text: str, filters: SearchFilter
    ) -> tuple[list[int], list[float], float] | None:
        """The RM3 query's sparse vector, and the factor that puts its scores on the original
        query's ceiling (so BM25's share stays a share of what the expanded query asks)."""
        feedback = self._inner.text_search(collection, text, filters, self.fb_docs)
        if not feedback:
            return None
        languages = self._core._languages(collection)
        probe = partial(self._core._idf, collection)
        query = bm25.query_terms(text, languages, probe)
        if not query:
            return None
        total = sum(p.score for p in feedback) or 1.0
        model: Counter[str] = Counter()
        for point in feedback:
            words = _words((point.payload or {}).get("fulltext", ""))
            if words:
                for word, count in Counter(words).items():
                    model[word] += (point.score / total) * count / len(words)
        weights: dict[int, float] = {}
        for terms in query.values():  # the query: each word 1 / |q|, times |q|
            for term in terms:
                weights[term] = weights.get(term, 0.0) + self.original
        top = model.most_common(self.fb_terms)
        mass = sum(v for _, v in top) or 1.0
        for word, value in top:
            for term in bm25.query_terms(word, languages, probe).get(word, {}):
                share = (1 - self.original) * len(query) * value / mass
                weights[term] = weights.get(term, 0.0) + share
        idf = probe(list(weights))
        ceiling = sum(v * idf.get(t, 0.0) for t, v in weights.items())
        plain = sum(idf.get(t, 0.0) for terms in query.values() for t in terms)
        if ceiling <= 0 or plain <= 0:
            return None
        indices = sorted(weights)
        return indices, [weights[t] for t in indices], plain / ceiling


class BestSentence:
    """Dense search over chunk and sentence vectors of one project: a chunk's score is
    ``mix`` x its best sentence's cosine + (1 - ``mix``) x its own (``mix`` None: the higher of
    the two). Exact, in numpy, over every chunk of the project."""

    def __init__(
        self,
        inner: Any,
        core: Any,
        embedder: CachedEmbedder,
        collection: str,
        project: str,
        kept: Kept = lambda points: points,
        mix: float | None = None,
    ) -> None:
        self._inner = inner
        self._kept = kept
        self.mix = mix
        self.payloads: dict[str, dict] = {}
        vectors: dict[str, list[float]] = {}
        offset = None
        while True:
            points, offset = core.scroll_points(collection, offset, 512)
            for p in points:
                if p.payload.get("project") == project:
                    self.payloads[p.id] = p.payload
                    vectors[p.id] = p.vector
            if offset is None:
                break
        self.ids = sorted(self.payloads)
        self.chunks = np.asarray([vectors[i] for i in self.ids], dtype=np.float32)
        texts, owners = sentences(self.payloads[i].get("fulltext", "") for i in self.ids)
        self.owners = np.asarray(owners)
        self.sentences = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        self.count = len(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def dense_search(
        self, collection: str, vector: Sequence[float], filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        q = np.asarray(vector, dtype=np.float32)
        own = self.chunks @ q
        sentence = np.full(len(self.ids), -1.0, dtype=np.float32)
        np.maximum.at(sentence, self.owners, self.sentences @ q)
        score = (
            np.maximum(own, sentence)
            if self.mix is None
            else (self.mix * np.maximum(sentence, own) + (1 - self.mix) * own)
        )
        allowed = set(filters.point_ids) if filters.point_ids else None
        order = np.argsort(-score, kind="stable")
        out = []
        for i in order:
            pid = self.ids[i]
            if allowed is not None and pid not in allowed:
                continue
            out.append(ScoredPoint(pid, float(score[i]), self.payloads[pid]))
            if len(out) >= limit + 50:  # room for what ``kept`` leaves out
                break
        return self._kept(out)[:limit]


def sentences(texts: Any) -> tuple[list[str], list[int]]:
    """Every sentence of at least four words of each text, and the index of its text."""
    out, owners = [], []
    for i, text in enumerate(texts):
        for s in split_sentences(text):
            if len(s.text.split()) >= 4:
                out.append(s.text.strip())
                owners.append(i)
    return out, owners


def chunk_texts(core: Any, collection: str, project: str) -> list[str]:
    """The text of every chunk of ``project``, as stored."""
    out, offset = [], None
    while True:
        points, offset = core.scroll_points(collection, offset, 512)
        out += [
            p.payload.get("fulltext", "") for p in points if p.payload.get("project") == project
        ]
        if offset is None:
            return out


def embedding_cost(embedder: Any, chunk_texts: list[str]) -> dict[str, float]:
    """CPU seconds to embed the chunks' texts, and their sentences, with ``embedder`` (not
    cached): what sentence vectors add to an ingest's embedding stage."""
    texts, _ = sentences(chunk_texts)
    out: dict[str, float] = {"chunks": len(chunk_texts), "sentences": len(texts)}
    for name, batch in (("chunk_cpu", chunk_texts), ("sentence_cpu", texts)):
        start = time.process_time()
        for first in range(0, len(batch), 64):
            embedder.embed_documents(batch[first : first + 64])
        out[name] = time.process_time() - start
    return out


# ---------------------------------------------------------------- the titled project
def titled(folder: Path, references: Path, sources: Sequence[Path]) -> Path:
    """A project like ``check_claims.prepare``'s whose chunks embed their paper's title above
    the section path: ingested with ``WordPieceChunker`` patched for this process only."""
    from benchmarks.library import write_config
    from citeloom import bootstrap
    from citeloom.adapters.wordpiece_chunker import WordPieceChunker

    chunk, context = WordPieceChunker.chunk, WordPieceChunker._context

    def titled_chunk(self: Any, document: Any, doc_id: str) -> Any:
        self._title = (document.title or "").strip()
        try:
            return chunk(self, document, doc_id)
        finally:
            self._title = ""

    def titled_context(self: Any, path: tuple[str, ...]) -> str:
        title = getattr(self, "_title", "")
        return "\n".join(c for c in (title, context(self, path)) if c)

    config = write_config(folder, "titled", "bench-titled", references)
    WordPieceChunker.chunk = titled_chunk
    WordPieceChunker._context = titled_context
    try:
        settings = bootstrap.settings(config)
        index = bootstrap.index(settings)
        try:
            report = bootstrap.ingest_service(settings, "titled", index).run(list(sources))
            t = report.totals
            print(f"titled ingest: {t['ingested']} ingested, {t['skipped']} skipped")
        finally:
            index.close()
    finally:
        WordPieceChunker.chunk = chunk
        WordPieceChunker._context = context
    return config
