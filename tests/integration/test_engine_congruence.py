"""The two Qdrant engines compared with each other on random data, as qdrant-client's congruence
tests compare its local engine with a server: the same random library is written through the
Index port to Qdrant Edge (embedded) and to the server engine (qdrant-client's in-process engine,
and a live server when QDRANT_URL is set), the same random reads and writes are made on both,
and their answers are compared with each other rather than with expectations.

``tests/integration/test_index_congruence.py`` holds each engine to hand-made expectations;
this module finds what those did not think of: any filter, limit, tie or write on which the
engines answer differently. Rankings are compared as qdrant-client compares them: the same
ids in the same order where scores differ, the same set of ids among equal scores (a tie may
come back in either order, and a tie cut by the limit may leave different members out), and
scores within a tolerance, never exactly.

``CITELOOM_CONGRUENCE_SEED`` sets the seed (fixed by default, so a failure is reproducible; each
message names the seed and the round) and ``CITELOOM_CONGRUENCE_ROUNDS`` the number of random
queries of each kind (default 60).
"""

from __future__ import annotations

import math
import os
import random
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from citeloom.adapters.qdrant.core import QdrantIndex
from citeloom.adapters.qdrant.edge_engine import EdgeEngine
from citeloom.adapters.qdrant.server_engine import ServerEngine
from citeloom.domain.ids import chunk_id
from citeloom.domain.models import (
    Chunk,
    ConvertedDocument,
    IndexPoint,
    MetadataMatch,
    Reference,
    ScoredPoint,
)
from citeloom.domain.records import build_payload
from citeloom.ports.index import Index, SearchFilter
from citeloom.services.query import QueryOptions, QueryService

pytestmark = pytest.mark.real

SEED = int(os.environ.get("CITELOOM_CONGRUENCE_SEED", "20261126"))
ROUNDS = int(os.environ.get("CITELOOM_CONGRUENCE_ROUNDS", "60"))
DIMENSIONS = 8
MODEL = "random/8"
PROJECTS = ("p", "p", "p", "q")  # most documents in p; q's must never show in p's answers
# Content words, drawn with Zipf-like weights so that BM25 sees common and rare terms, and
# stop words, which BM25 drops (a query of them alone finds nothing)
WORDS = (
    *("marsh", "sediment", "carbon", "burial", "tidal", "flat", "erosion", "loess", "soil"),
    *("slope", "graphene", "quantum", "hall", "electron", "library", "office", "quiet"),
    *("hours", "accretion", "lagoon", "peat", "creek", "flux", "core", "model", "field"),
    *("sample", "method", "result", "estimate", "rate", "growth", "decline", "survey"),
)
STOP = ("the", "of", "and", "in", "a")
CITEKEYS = ("ardel2023", "berg1999", "chen2011", "diaz2020", "eng2015", "fox2008")
TAGS = ("review", "field", "model", "lab")
COLLECTIONS = ("Thesis/Chapter 1", "Thesis/Chapter 2", "Reading")
SECTIONS = (
    ("1 Introduction",),
    ("2 Methods", "2.1 Sampling"),
    ("2 Methods", "2.2 Dating"),
    ("3 Results",),
    ("4 Discussion",),
)
SECTION_WORDS = ("introduction", "methods", "sampling", "dating", "results", "discussion")


def tolerance(score: float) -> float:
    """How far two engines' scores of one point may differ: float32 against float64 arithmetic
    and IDF computed by each engine itself."""
    return 1e-4 * max(1.0, abs(score))


# ---------------------------------------------------------------------- the random library
@dataclass(frozen=True)
class Library:
    documents: list[tuple[str, str, list[IndexPoint]]]  # doc_id, source path, points

    @property
    def points(self) -> list[IndexPoint]:
        return [p for _, _, points in self.documents for p in points]


def random_text(rng: random.Random) -> str:
    weights = [1 / (rank + 1) for rank in range(len(WORDS))]
    words = rng.choices(WORDS, weights, k=rng.randint(3, 18))
    words += rng.choices(STOP, k=rng.randint(0, 4))
    rng.shuffle(words)
    return " ".join(words)


def random_vector(rng: random.Random) -> list[float]:
    vector = [rng.gauss(0.0, 1.0) for _ in range(DIMENSIONS)]
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def random_reference(rng: random.Random, citekey: str) -> Reference:
    return Reference(
        citekey,
        f"Paper {citekey}",
        year=rng.choice([None, *range(1995, 2025)]),
        tags=tuple(rng.sample(TAGS, rng.randint(0, 2))),
        collections=tuple(rng.sample(COLLECTIONS, rng.randint(0, 2))),
    )


def random_library(rng: random.Random, documents: int = 16) -> Library:
    """Documents of random chunks: random texts and vectors, some of them repeated (exact ties
    for both signals), random references, sections, pages, notes and projects."""
    references = {key: random_reference(rng, key) for key in CITEKEYS}
    texts: list[str] = []
    vectors: list[list[float]] = []
    out = []
    for n in range(documents):
        doc_id = f"{n:02d}" + uuid.UUID(int=rng.getrandbits(128)).hex[:14]
        note = rng.random() < 0.2
        path = f"note:{doc_id}" if note else f"papers/{doc_id}.pdf"
        ref = references[rng.choice(CITEKEYS)] if rng.random() < 0.8 else None
        document = ConvertedDocument(path, doc_id * 4, f"Document {n}", rng.randint(3, 30), (), "")
        match = MetadataMatch(ref, "doi" if ref else None)
        project = rng.choice(PROJECTS)
        points = []
        for index in range(rng.randint(1, 7)):
            repeat = texts and rng.random() < 0.15
            text = rng.choice(texts) if repeat else random_text(rng)
            vector = rng.choice(vectors) if vectors and rng.random() < 0.1 else random_vector(rng)
            texts.append(text)
            vectors.append(vector)
            section = rng.choice(SECTIONS)
            first = rng.randint(1, document.page_count)
            last = min(document.page_count, first + rng.randint(0, 2))
            chunk = Chunk(doc_id, index, text, text, section, first, last, len(text.split()))
            payload = build_payload(
                project=project,
                chunk=chunk,
                document=document,
                match=match,
                embed_model=MODEL,
                ingest_id="random",
                chunk_total=0,
            )
            point_id = chunk_id(doc_id, section, first, last, MODEL, index)
            points.append(IndexPoint(point_id, vector, text, payload))
        out.append((doc_id, path, points))
    return Library(out)


def random_filter(rng: random.Random, library: Library) -> SearchFilter:
    """A project and any mix of the port's filters, drawn so that most select something."""
    texts = [p.text.split() for p in library.points]
    chosen = rng.choice(texts)
    start = rng.randrange(len(chosen))
    phrase = " ".join(chosen[start : start + rng.randint(2, 3)])
    first = rng.randint(1, 25)
    year = rng.randint(1995, 2024)
    doc_ids = [doc_id for doc_id, _, _ in library.documents]
    options: dict[str, Callable[[], Any]] = {
        "citekeys": lambda: tuple(rng.sample(CITEKEYS, rng.randint(1, 3))),
        "tags": lambda: (rng.choice(TAGS),),
        "collections": lambda: (rng.choice(COLLECTIONS),),
        "year_from": lambda: year,
        "year_to": lambda: year + rng.randint(0, 15),
        "doc_ids": lambda: tuple(rng.sample(doc_ids, rng.randint(1, 4))),
        "sections": lambda: (rng.choice(SECTION_WORDS),),
        "phrases": lambda: (phrase if rng.random() < 0.8 else "quiet carbon hours",),
        "terms": lambda: (rng.choice(WORDS),),
        "pages": lambda: (first, first + rng.randint(0, 4)),
        "chunk_range": lambda: (rng.randint(0, 3), rng.randint(3, 6)),
    }
    picked = rng.sample(sorted(options), rng.choice([0, 0, 1, 1, 2, 3]))
    return SearchFilter(project=rng.choice(PROJECTS), **{key: options[key]() for key in picked})


def random_query(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(1, 4))
    if rng.random() < 0.3:
        words.append(rng.choice((*STOP, "zebra", "Marshes", "SEDIMENTS")))
    return " ".join(words)


# ---------------------------------------------------------------------- comparing answers
def assert_same_ranking(a: Sequence[ScoredPoint], b: Sequence[ScoredPoint], what: str) -> None:
    """The same ranking up to ties: the same length, scores close at every rank, each point
    with close scores in both, a point at a different rank only where its score ties, and a
    point one engine returned and the other did not only in a tie cut by the limit."""
    assert len(a) == len(b), f"{what}: {len(a)} against {len(b)} results"
    for rank, (x, y) in enumerate(zip(a, b, strict=True)):
        assert abs(x.score - y.score) <= tolerance(x.score), (
            f"{what}: rank {rank}: score {x.score} against {y.score}"
        )
    ranks_b = {p.id: (rank, p) for rank, p in enumerate(b)}
    last = a[-1].score if a else 0.0
    for rank, x in enumerate(a):
        if x.id not in ranks_b:
            assert abs(x.score - last) <= tolerance(last), (
                f"{what}: {x.id} (rank {rank}, score {x.score}) only in one engine's answer "
                f"and not tied at the cut ({last})"
            )
            continue
        other_rank, y = ranks_b[x.id]
        assert abs(x.score - y.score) <= tolerance(x.score), (
            f"{what}: {x.id} scores {x.score} against {y.score}"
        )
        assert other_rank == rank or abs(b[rank].score - x.score) <= tolerance(x.score), (
            f"{what}: {x.id} at rank {rank} against {other_rank}, with distinct scores"
        )
        assert x.payload == y.payload, f"{what}: {x.id}: payloads differ"
    for rank, y in enumerate(b):
        if y.id not in {x.id for x in a}:
            assert abs(y.score - last) <= tolerance(last), (
                f"{what}: {y.id} (rank {rank}) only in one engine's answer"
            )


@dataclass
class Pair:
    """The same library in two engines; ``both`` makes one call of the port on each (on the
    pair's collection), ``each`` runs a function of an index on each."""

    edge: Index
    other: Index
    collection: str = "proj-random"

    def both(self, method: str, *args: Any) -> tuple[Any, Any]:
        return self.each(lambda index: getattr(index, method)(self.collection, *args))

    def each(self, call: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
        return call(self.edge, *args), call(self.other, *args)

    def close(self) -> None:
        """Drop the collection (a live server keeps it otherwise) and close both indexes."""
        for index in (self.edge, self.other):
            index.drop_collection(index.physical(self.collection))
            index.close()

    def load(self, library: Library, rng: random.Random) -> None:
        for index in (self.edge, self.other):
            index.ensure_collection(self.collection, MODEL, DIMENSIONS, project="p")
        for doc_id, path, points in library.documents:
            if rng.random() < 0.5:  # as an ingest writes it, and as an import does
                self.both("replace_document", doc_id, path, points)
            else:
                self.both("upsert_points", points)
        self.assert_same_collection("loaded")

    def assert_same_collection(self, what: str) -> None:
        """What ``info`` and ``validate`` report, as qdrant-client compares its collections."""
        a, b = self.both("collection_info")
        assert a == b, f"collection info {what}: {a} against {b}"


def other_engines() -> Iterator[Any]:
    yield pytest.param("client-local", id="edge-vs-client-local")
    yield pytest.param("server", id="edge-vs-server")


def make_pair(kind: str, folder: Path, library: Library, seed: int) -> Pair:
    if kind == "server":
        if not os.environ.get("QDRANT_URL"):
            pytest.skip("no live Qdrant server: set QDRANT_URL (docker compose up) to include it")
        other = QdrantIndex(
            ServerEngine(url=os.environ["QDRANT_URL"], api_key=os.environ.get("QDRANT_API_KEY"))
        )
    else:
        from qdrant_client import QdrantClient

        other = QdrantIndex(ServerEngine(client=QdrantClient(":memory:")))
    pair = Pair(QdrantIndex(EdgeEngine(folder)), other, f"rnd-{uuid.uuid4().hex[:8]}")
    pair.load(library, random.Random(seed))
    return pair


@pytest.fixture(scope="module", params=list(other_engines()))
def loaded(request, tmp_path_factory) -> Iterator[tuple[Pair, Library]]:
    """One random library in both engines, optimised as an ingest leaves it: for the reads."""
    library = random_library(random.Random(SEED))
    pair = make_pair(request.param, tmp_path_factory.mktemp("edge"), library, SEED)
    pair.both("optimize")
    yield pair, library
    pair.close()


def where(round_: int) -> str:
    return f"seed {SEED}, round {round_}"


# ---------------------------------------------------------------------- reads
def test_dense_searches_agree(loaded):
    pair, library = loaded
    rng = random.Random(SEED + 1)
    for round_ in range(ROUNDS):
        filters, limit = random_filter(rng, library), rng.choice([1, 3, 5, 10, 100])
        vector = random_vector(rng)
        if rng.random() < 0.2:  # a stored vector: its point, and any copy of it, score 1
            vector = rng.choice(library.points).vector
        a, b = pair.both("dense_search", vector, filters, limit)
        assert_same_ranking(a, b, f"dense {filters} limit {limit} ({where(round_)})")


def test_bm25_searches_agree(loaded):
    pair, library = loaded
    rng = random.Random(SEED + 2)
    for round_ in range(ROUNDS):
        filters, limit = random_filter(rng, library), rng.choice([1, 3, 5, 10, 100])
        text = random_query(rng)
        a, b = pair.both("text_search", text, filters, limit)
        assert_same_ranking(a, b, f"bm25 {text!r} {filters} limit {limit} ({where(round_)})")


def test_candidate_restricted_searches_agree(loaded):
    """What a hybrid query asks for the candidates one signal found and the other did not:
    the same search restricted to those points."""
    pair, library = loaded
    rng = random.Random(SEED + 3)
    for round_ in range(ROUNDS):
        ids = tuple(p.id for p in rng.sample(library.points, rng.randint(1, 8)))
        filters = replace(random_filter(rng, library), point_ids=ids)
        text, vector = random_query(rng), random_vector(rng)
        a, b = pair.both("text_search", text, filters, len(ids))
        assert_same_ranking(a, b, f"bm25 of candidates {filters} ({where(round_)})")
        a, b = pair.both("dense_search", vector, filters, len(ids))
        assert_same_ranking(a, b, f"dense of candidates {filters} ({where(round_)})")


def test_term_weights_agree(loaded):
    pair, _library = loaded
    rng = random.Random(SEED + 4)
    for round_ in range(ROUNDS):
        text = random_query(rng)
        a, b = pair.both("term_weights", text)
        assert set(a) == set(b), f"term weights of {text!r} ({where(round_)})"
        for word, weight in a.items():
            assert abs(weight - b[word]) <= tolerance(weight), f"{word} in {text!r}"


class RandomEmbedder:
    """Query vectors drawn from the text's own seed: the same text, the same vector on both
    engines, unrelated to any stored vector (the port's reads, not a model, are compared)."""

    model_id = MODEL
    dimensions = DIMENSIONS
    max_tokens = 256
    tokenizer_id = "random"

    def embed_query(self, text: str) -> list[float]:
        return random_vector(random.Random(f"{SEED}:{text}"))

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def count_tokens(self, text: str) -> int:
        return len(text.split())


@pytest.mark.parametrize("fusion", ["linear", "rrf", "dbsf"])
def test_hybrid_queries_agree(loaded, fusion):
    """The whole query use case on each engine: both signals, the candidates each found
    scored by the other, the BM25 ceiling from the engine's IDF, fusion, diversity, the
    confidence and whether the library answers at all."""
    pair, library = loaded
    rng = random.Random(f"{SEED}:{fusion}")

    def search(index: Index, text: str, options: QueryOptions, candidates: int) -> Any:
        service = QueryService(
            project="p",
            collection=pair.collection,
            embedder=RandomEmbedder(),
            index=index,
            fusion=fusion,
            candidates=candidates,
        )
        return service.search(text, options)

    for round_ in range(ROUNDS // 3):
        text = random_query(rng)
        if rng.random() < 0.2:  # a quoted phrase of a stored text
            words = rng.choice(library.points).text.split()
            text += ' "' + " ".join(words[:2]) + '"'
        candidates = rng.choice([5, 20, 50])
        options = QueryOptions(
            top_k=rng.choice([1, 3, 6, 10]),
            citekeys=tuple(rng.sample(CITEKEYS, rng.choice([0, 0, 2]))),
            per_doc=rng.choice([None, 1, 3]),
        )
        a, b = pair.each(search, text, options, candidates)
        what = f"hybrid {fusion} {text!r} {options} ({where(round_)})"
        assert_same_ranking(
            [ScoredPoint(p.chunk_id, p.score, None) for p in a.results],
            [ScoredPoint(p.chunk_id, p.score, None) for p in b.results],
            what,
        )
        assert abs(a.confidence - b.confidence) <= 1e-4, what
        assert a.answerable == b.answerable or abs(a.confidence - 0.5) <= 1e-4, what


def test_counts_chunks_payloads_and_documents_agree(loaded):
    pair, library = loaded
    rng = random.Random(SEED + 5)
    for round_ in range(ROUNDS):
        filters = random_filter(rng, library)
        a, b = pair.both("count", filters)
        assert a == b, f"count {filters} ({where(round_)})"
        a, b = pair.both("chunks", filters, 1000)
        assert a == b, f"chunks {filters} ({where(round_)})"
        assert len(a) == pair.edge.count(pair.collection, filters)
        ids = [p.id for p in rng.sample(library.points, 5)] + [str(uuid.uuid4())]
        a, b = pair.both("payloads", ids)
        assert a == b, f"payloads ({where(round_)})"
    for project in set(PROJECTS):
        a, b = pair.both("documents", project)
        assert a == b, f"documents of {project}"


def scrolled(index: Index, collection: str, limit: int) -> list[list[IndexPoint]]:
    pages, offset = [], None
    while True:
        page, offset = index.scroll_points(collection, offset, limit)
        pages.append(page)
        if offset is None:
            return pages


def assert_same_points(a: Sequence[IndexPoint], b: Sequence[IndexPoint], what: str) -> None:
    assert [p.id for p in a] == [p.id for p in b], f"{what}: other ids or order"
    for x, y in zip(a, b, strict=True):
        assert x.payload == y.payload and x.text == y.text, f"{what}: {x.id}"
        assert x.sparse is not None and y.sparse is not None
        assert x.sparse[0] == y.sparse[0], f"{what}: {x.id}: BM25 terms differ"
        assert all(abs(u - v) <= 1e-6 for u, v in zip(x.sparse[1], y.sparse[1], strict=True))
        # cosine collections may keep vectors normalised: compare directions
        dot = sum(u * v for u, v in zip(x.vector, y.vector, strict=True))
        norms = math.dist(x.vector, [0.0] * DIMENSIONS) * math.dist(y.vector, [0.0] * DIMENSIONS)
        assert abs(dot / norms - 1.0) <= 1e-5, f"{what}: {x.id}: vectors differ"


def test_scrolling_pages_agree(loaded):
    pair, library = loaded
    for limit in (1, 7, 64):
        a, b = pair.each(scrolled, pair.collection, limit)
        assert [len(page) for page in a] == [len(page) for page in b], f"pages of {limit}"
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same_points(x, y, f"scroll page {n} of {limit}")
        assert sum(len(page) for page in a) == len(library.points)


# ---------------------------------------------------------------------- writes
@pytest.mark.parametrize("kind", list(other_engines()))
def test_random_writes_leave_both_engines_alike(kind, tmp_path):
    """Replacing, deleting and relabelling documents at random (deletes by filter and payload
    updates by filter underneath), then every read compared again, in the same processes: a
    long-lived server writes and answers without reopening anything."""
    rng = random.Random(SEED + 6)
    library = random_library(rng)
    pair = make_pair(kind, tmp_path / "edge", library, SEED + 6)
    try:
        random_writes(pair, library, rng)
    finally:
        pair.close()


def random_writes(pair: Pair, library: Library, rng: random.Random) -> None:
    documents = list(library.documents)
    for step in range(ROUNDS // 2):
        action = rng.choice(["replace", "move", "delete", "relabel", "overwrite", "add"])
        doc_id, path, points = rng.choice(documents)
        if action == "replace":  # the same document chunked anew: fewer or other chunks
            kept = rng.sample(points, rng.randint(0, len(points)))
            fresh = random_library(rng, 1).documents[0][2]
            new = kept + [
                replace(p, payload={**p.payload, "doc_id": doc_id, "project": "p"})
                for p in fresh[: rng.randint(0, 2)]
            ]
            pair.both("replace_document", doc_id, path, new)
        elif action == "move":  # the same content at another path
            new_path = f"moved/{step}/{doc_id}.pdf"
            pair.both("replace_document", doc_id, new_path, points)
        elif action == "delete":
            pair.both("delete_document", doc_id)
        elif action == "relabel":
            fields = {
                "zotero": {"citekey": rng.choice(CITEKEYS), "tags": [rng.choice(TAGS)]},
                "doc": {"year": rng.randint(1990, 2024)},
            }
            pair.both("relabel_document", doc_id, fields)
        elif action == "overwrite":  # an import over a copy it holds: same ids, other content
            other = random_library(rng, 1).documents[0][2]
            new = [
                replace(p, text=o.text, vector=o.vector, payload={**p.payload, "fulltext": o.text})
                for p, o in zip(points, other * len(points), strict=False)
            ]
            pair.both("upsert_points", new)
        else:
            doc_id, path, points = random_library(rng, 1).documents[0]
            documents.append((doc_id, path, points))
            pair.both("replace_document", doc_id, path, points)
        compare_after(pair, library, rng, f"after {action} of {doc_id} (seed {SEED}, step {step})")
    pair.both("optimize")  # as an ingest ends: Qdrant Edge reopens its shard
    compare_after(pair, library, rng, f"after the writes and optimize (seed {SEED})")


def compare_after(pair: Pair, library: Library, rng: random.Random, what: str) -> None:
    """Every kind of read once more, after a write."""
    pair.assert_same_collection(what)
    a, b = pair.each(scrolled, pair.collection, 1000)
    assert_same_points(a[0], b[0], what)
    for project in set(PROJECTS):
        a, b = pair.both("documents", project)
        assert a == b, what
    filters = random_filter(rng, library)
    text, vector = random_query(rng), random_vector(rng)
    a, b = pair.both("text_search", text, filters, 10)
    assert_same_ranking(a, b, f"bm25 {text!r} {filters} {what}")
    a, b = pair.both("dense_search", vector, filters, 10)
    assert_same_ranking(a, b, f"dense {filters} {what}")
    a, b = pair.both("count", filters)
    assert a == b, f"count {filters} {what}"
