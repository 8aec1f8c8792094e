from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self

from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import CollectionInfo, DocumentSummary, IndexPoint, ScoredPoint


@dataclass(frozen=True)
class SearchFilter:
    """Restrictions every search applies. ``project`` is mandatory: no result ever crosses
    projects, even if two projects were pointed at the same collection."""

    project: str
    citekeys: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()  # library collections, as paths: "Thesis/Chapter 2"
    year_from: int | None = None
    year_to: int | None = None
    doc_ids: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()  # words that must occur in the section path
    phrases: tuple[str, ...] = ()  # must occur in the chunk text, in this order
    terms: tuple[str, ...] = ()  # words that must occur in the chunk text (for counting)
    point_ids: tuple[str, ...] = ()  # only these chunks: score another signal's candidates
    chunk_range: tuple[int, int] | None = None  # chunk_index from..to, both included
    pages: tuple[int, int] | None = None  # chunks overlapping these PDF pages, both included


class IndexReader(Protocol):
    """Reading a project's collection: what query, answer, check, browse and export need.

    The embedding model a collection was created with is stored with it; ``check_model``
    refuses a search with another model's vectors (they would match nothing sensible). So are
    the languages its BM25 terms are stemmed for: a collection encodes every chunk and query
    with its own, and a caller configured for others gets ``LanguagesMismatch``. And so is the
    project that made it: ``check_owner`` refuses a project of another name (two configs
    naming the same index and collection), before anything is read."""

    def collection_info(self, collection: str) -> CollectionInfo | None: ...

    def check_owner(self, collection: str, project: str) -> None:
        """Raise ``CollectionOwnerMismatch`` if the collection is another project's: the one
        it records, or, made before collections recorded one, the one project every chunk of
        it carries. A missing collection passes, and so does an old one that is empty or
        holds several projects' chunks."""
        ...

    def check_model(
        self, collection: str, embed_model: str, languages: Sequence[str] | None = None
    ) -> None:
        """Raise ``EmbeddingModelMismatch`` if the collection holds another model's vectors,
        and ``LanguagesMismatch`` if it holds BM25 terms of other ``languages`` (None: only
        the model is checked)."""
        ...

    def documents(self, collection: str, project: str) -> list[DocumentSummary]: ...

    def dense_search(
        self, collection: str, vector: Sequence[float], filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        """The ``limit`` nearest chunks, best first; equal scores in the order of their ids,
        also where the limit cuts them, so that every engine returns the same chunks."""
        ...

    def text_search(
        self, collection: str, text: str, filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        """The ``limit`` best BM25 matches, best first, ties as in ``dense_search``; none
        when ``text`` holds no term (only stop words)."""
        ...

    def term_weights(self, collection: str, text: str) -> dict[str, float]:
        """How ``text_search`` weighs each word of ``text`` here: the IDF the engine gives the
        word's BM25 terms (summed when a word has several), 0.0 for a word no chunk holds.

        Words BM25 ignores (stop words) are left out, and words that BM25 reduces to the same
        terms ("marsh", "marshes") appear once, so the weights sum to the score a chunk of
        average length holding each query term once would get: the query's own ceiling,
        which fusion normalises BM25 by (see ``domain.fusion``). A collection of several
        languages counts one stem per word, the one its chunks confirm, as ``text_search``
        does."""
        ...

    def payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict]: ...

    def scroll_points(
        self, collection: str, offset: str | None = None, limit: int = 256
    ) -> tuple[list[IndexPoint], str | None]:
        """One page of the collection's points, every project's, as stored: dense vector, BM25
        vector (``sparse``), payload, and the chunk's text (``fulltext``). Pass the offset it
        returns to read the next page; None means this was the last. For export: a project
        moves between engines without re-embedding."""
        ...

    def chunks(self, collection: str, filters: SearchFilter, limit: int) -> dict[str, dict]:
        """Up to ``limit`` chunks matching the filter, as id -> payload, in no set order:
        browsing a document by its metadata rather than by a query (the caller puts them in
        reading order). A missing collection holds none."""
        ...

    def count(self, collection: str, filters: SearchFilter) -> int:
        """Chunks matching the filter (document frequencies for query confidence)."""
        ...

    def field_values(self, collection: str, key: str, filters: SearchFilter) -> list[str]:
        """The distinct values a keyword field of the payload (``zotero.tags``,
        ``zotero.collections``) holds among the chunks the filter selects, sorted: what a
        filter on that field can name."""
        ...


class IndexWriter(Protocol):
    """Writing a project's collection: ingest, notes, reindex and import.

    Writing into another project's collection raises ``CollectionOwnerMismatch``, vectors of
    another model than the collection was created with ``EmbeddingModelMismatch``, and
    another stemming ``LanguagesMismatch``, before anything is written
    (``ensure_collection``)."""

    def ensure_collection(
        self,
        collection: str,
        embed_model: str,
        dimensions: int,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        *,
        project: str,
    ) -> None:
        """Create the collection for ``project``, this model and these BM25 languages, or
        check that the existing one has them (the write guard). An existing collection that
        records no project (made before collections did) and is not another's by its chunks
        (``check_owner``) is adopted: it records ``project`` from now on."""
        ...

    def replace_document(
        self, collection: str, doc_id: str, source_path: str, points: Sequence[IndexPoint]
    ) -> None:
        """Store a document's chunks and remove any older chunks of the same doc_id or path."""
        ...

    def upsert_points(self, collection: str, points: Sequence[IndexPoint]) -> None:
        """Write points as they are, in one durable write: a bulk load (an imported project,
        a benchmark library) whose documents are new to the collection, so nothing stale has
        to go. Ingest uses ``replace_document``, which also removes older copies."""
        ...

    def optimize(self, collection: str) -> None:
        """Make a collection quick to open and to search after a bulk of writes: merge its
        segments and build the vector graph of a large one. Seconds to a minute on a large
        collection, so it runs once at the end of a run that wrote, never per document."""
        ...

    def delete_document(self, collection: str, doc_id: str) -> None:
        """Remove every chunk of a document (a stale copy, or a file gone from the library)."""
        ...

    def relabel_document(
        self, collection: str, doc_id: str, fields: dict[str, dict[str, Any]]
    ) -> None:
        """Merge ``fields`` ({"zotero": {...}, "doc": {...}}) into every chunk of a document,
        leaving vectors and the other payload keys as they are."""
        ...


class IndexAdmin(Protocol):
    """The collections behind a project's name: reindex and import stage a new one and switch
    the name to it; drop and validate find and remove what is left; a renamed project takes
    its collection over."""

    def physical(self, collection: str) -> str:
        """The collection a project's collection name resolves to (after reindex, another)."""
        ...

    def switch_collection(self, collection: str, physical: str) -> str | None:
        """Point the project's collection name at ``physical`` at once; returns the
        collection it pointed at before, when that is now unused."""
        ...

    def drop_collection(self, physical: str) -> None: ...

    def remove_alias(self, collection: str) -> None:
        """Point the project's collection name at nothing again (undo ``switch_collection``):
        after its collections are dropped, the next ingest or import creates it anew."""
        ...

    def list_collections(self) -> list[str]:
        """Every physical collection the index holds, staging ones a killed reindex or
        import left behind included, so they can be found and removed."""
        ...

    def hand_over(self, collection: str, old: str, new: str) -> int:
        """A project renamed on purpose: every point stored under project ``old`` is stored
        under ``new`` (the payload's ``project``, which every search filters by), then the
        collection records ``new`` as its project. Vectors stay as they are. Returns the
        points moved; run again after an interruption, it moves what is left. The caller
        checks first that the collection is ``old``'s (or no project's)."""
        ...


class Index(IndexReader, IndexWriter, IndexAdmin, Protocol):
    """Per-project collections holding a dense vector and a BM25 sparse vector per chunk, in
    the three roles above, held open until closed: ``with bootstrap.index(settings) as
    index:`` closes it however the block ends (an embedded shard is held by one process at a
    time, so it must not outlive its use)."""

    def close(self) -> None: ...

    def make_way(self, busy_timeout_s: float | None = None) -> bool:
        """Between two units of a long-lived process's work: if another process waits for
        what this index holds, release it now; the next use opens it again, waiting at most
        ``busy_timeout_s`` (None: as before). False, and nothing released, when nobody waits
        (a Qdrant server is shared: nobody ever does)."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None:
        """Close the index."""
        ...
