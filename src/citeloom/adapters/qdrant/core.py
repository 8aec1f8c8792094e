"""The ``Index`` port, written once for every Qdrant engine.

``QdrantIndex`` holds what the embedded engine (``edge_engine``: a Qdrant Edge shard in this
process) and a server (``server_engine``: qdrant-client) must agree on: the write guard on the
collection's project and embedding model, which payload indexes a collection carries, how a
document replaces its older copy, how pages are read, how BM25 term weights are probed. An
engine supplies only the primitives in which they differ (``engine.Engine``); filters are
planned in ``filter_plan``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Generic, Self, TypeVar

from citeloom.adapters import bm25
from citeloom.adapters.qdrant.collection_meta import (
    adopting,
    guard,
    guard_owner,
    languages_of,
    new_meta,
    owner_of,
)
from citeloom.adapters.qdrant.engine import Engine, Page
from citeloom.adapters.qdrant.filter_plan import (
    Plan,
    document_plan,
    filter_plan,
    others_plan,
    payload_indexes,
    stale_plan,
)
from citeloom.adapters.qdrant.stored import SPARSE, stored_point
from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import CollectionInfo, DocumentSummary, IndexPoint, ScoredPoint
from citeloom.domain.records import SUMMARY_FIELDS, summarise_documents
from citeloom.ports.index import SearchFilter

E = TypeVar("E", bound=Engine)
PAGE = 1024  # records read at a time when a read goes through many
# The most distinct values a field listing returns: more tags than a library holds.
FIELD_VALUES = 100_000


class QdrantIndex(Generic[E]):
    def __init__(self, engine: E) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ holding
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.engine.close()

    def make_way(self, busy_timeout_s: float | None = None) -> bool:
        """Between two units of a long-lived server's work (two citations of one check): if
        another process waits for what this index holds, release it now; the next use opens
        it again, waiting at most ``busy_timeout_s`` (default: as before). False, and nothing
        released, when nobody waits (a Qdrant server is shared: nobody ever does)."""
        return self.engine.make_way(busy_timeout_s)

    # ------------------------------------------------------------------ names
    def physical(self, collection: str) -> str:
        return self.engine.physical(collection)

    def switch_collection(self, collection: str, physical: str) -> str | None:
        return self.engine.switch_collection(collection, physical)

    def drop_collection(self, physical: str) -> None:
        self.engine.drop_collection(physical)

    def remove_alias(self, collection: str) -> None:
        self.engine.remove_alias(collection)

    def list_collections(self) -> list[str]:
        return self.engine.list_collections()

    # ------------------------------------------------------------------ collections
    def collection_info(self, collection: str) -> CollectionInfo | None:
        meta = self.engine.meta(collection)
        if meta is None:
            return None
        return CollectionInfo(
            name=collection,
            embed_model=str(meta.get("embed_model")),
            dimensions=int(meta.get("dimensions", 0)),
            points=self.engine.points_count(collection),
            languages=languages_of(meta),
            owner=owner_of(meta),
        )

    def _languages(self, collection: str) -> tuple[str, ...]:
        """What the collection's BM25 terms are stemmed for: every chunk and query of it is
        encoded so, whatever a caller is configured for (``collection_meta``)."""
        return languages_of(self.engine.meta(collection))

    def check_owner(self, collection: str, project: str) -> None:
        meta = self.engine.meta(collection)
        if meta is not None:
            guard_owner(collection, self._owner(collection, meta), project)

    def _owner(self, collection: str, meta: dict[str, Any]) -> str | None:
        """The project the collection records; for one made before collections recorded it,
        the one project every chunk of it carries (None: empty, or several projects'), so
        that an upgrade protects a collection before anything writes to it again. A read and
        a count, until a write records the project."""
        owner = owner_of(meta)
        if owner is not None or not self.engine.exists(collection):
            return owner
        page = Page(None, None, 1, ["project"], what="read a chunk's project")
        records, _ = self.engine.scroll(collection, page)
        first = (records[0].payload or {}).get("project") if records else None
        if first is None:
            return None
        held = self.engine.count(collection, others_plan(str(first)))
        return str(first) if held == 0 else None

    def check_model(
        self, collection: str, embed_model: str, languages: Sequence[str] | None = None
    ) -> None:
        meta = self.engine.meta(collection)
        if meta is not None:
            guard(collection, meta, embed_model, languages)

    def ensure_collection(
        self,
        collection: str,
        embed_model: str,
        dimensions: int,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        *,
        project: str,
    ) -> None:
        meta = self.engine.meta(collection)
        adopt = None
        if meta is None:
            meta = new_meta(collection, embed_model, dimensions, languages, project=project)
        else:
            # first: the rest is another project's business
            guard_owner(collection, self._owner(collection, meta), project)
            guard(collection, meta, embed_model, languages)
            adopt = adopting(meta, project)
        self.engine.create(collection, meta)
        if adopt is not None:  # made before collections recorded their project
            self.engine.update_meta(collection, adopt)
        # payload indexes, created on first use: also on a collection an older version made
        # (building one over existing points is how Qdrant adds it)
        have = self.engine.indexed_keys(collection)
        for key, kind in payload_indexes():
            if key not in have:
                self.engine.create_payload_index(collection, key, kind)

    # ------------------------------------------------------------------ writing
    def _encoded(self, collection: str, points: Sequence[IndexPoint]) -> list[IndexPoint]:
        """Each point with its BM25 vector, in the collection's languages (a point read back
        from an index keeps the one it carries)."""
        languages = self._languages(collection)
        return [
            p if p.sparse else replace(p, sparse=bm25.encode_document(p.text, languages))
            for p in points
        ]

    def replace_document(
        self, collection: str, doc_id: str, source_path: str, points: Sequence[IndexPoint]
    ) -> None:
        # New chunks first, then whatever else belonged to this file or content: a crash in
        # between leaves the new copy complete and the old one removable by the next run. A
        # book's thousands of chunks go in writes of ``batch_size``, as a bulk load's do, so
        # that no write (and no BM25 encoding held for it) grows with the document.
        self._upsert(collection, points)
        stale = stale_plan(doc_id, source_path, [p.id for p in points])
        self.engine.delete_where(collection, stale, "delete stale points")
        self.engine.flush(collection)

    def upsert_points(self, collection: str, points: Sequence[IndexPoint]) -> None:
        self._upsert(collection, points)
        self.engine.flush(collection)

    def _upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        size = self.engine.batch_size
        for start in range(0, len(points), size):
            self.engine.upsert(collection, self._encoded(collection, points[start : start + size]))

    def optimize(self, collection: str) -> None:
        self.engine.optimize(collection)

    def delete_document(self, collection: str, doc_id: str) -> None:
        self.engine.delete_where(collection, document_plan(doc_id), "delete a document")
        self.engine.flush(collection)

    def relabel_document(
        self, collection: str, doc_id: str, fields: dict[str, dict[str, Any]]
    ) -> None:
        for key, values in fields.items():
            self.engine.set_payload_where(collection, document_plan(doc_id), key, values)
        self.engine.flush(collection)

    def hand_over(self, collection: str, old: str, new: str) -> int:
        # the points first, then the record: a run killed in between is repeated as it was
        # (the collection still names ``old``), and finds fewer points to move
        plan = filter_plan(SearchFilter(old))
        moved = self.engine.count(collection, plan) if self.engine.exists(collection) else 0
        if moved:
            self.engine.set_payload_where(collection, plan, None, {"project": new})
            self.engine.flush(collection)
        self.engine.update_meta(collection, {"project": new})
        return moved

    # ------------------------------------------------------------------ reading
    def _records(
        self,
        collection: str,
        plan: Plan,
        payload: bool | list[str],
        what: str,
        limit: int | None = None,
    ) -> Iterator[Any]:
        """The records the plan selects (up to ``limit``), page by page; none from a missing
        collection."""
        if not self.engine.exists(collection):
            return
        offset, read = None, 0
        while limit is None or read < limit:
            page = PAGE if limit is None else min(PAGE, limit - read)
            records, offset = self._page(collection, Page(plan, offset, page, payload, what=what))
            read += len(records)
            yield from records
            if offset is None:
                return

    def _page(self, collection: str, page: Page) -> tuple[list[Any], str | None]:
        records, after = self.engine.scroll(collection, page)
        return records, None if after is None else str(after)

    def documents(self, collection: str, project: str) -> list[DocumentSummary]:
        records = self._records(
            collection,
            filter_plan(SearchFilter(project)),
            list(SUMMARY_FIELDS),
            "list documents",
        )
        return summarise_documents(r.payload or {} for r in records)

    def chunks(self, collection: str, filters: SearchFilter, limit: int) -> dict[str, dict]:
        records = self._records(collection, filter_plan(filters), True, "read chunks", limit)
        return {str(r.id): r.payload or {} for r in records}

    def scroll_points(
        self, collection: str, offset: str | None = None, limit: int = 256
    ) -> tuple[list[IndexPoint], str | None]:
        if not self.engine.exists(collection):
            return [], None
        records, after = self._page(collection, Page(None, offset, limit, vectors=True))
        return [stored_point(r) for r in records], after

    def count(self, collection: str, filters: SearchFilter) -> int:
        if not self.engine.exists(collection):
            return 0
        return self.engine.count(collection, filter_plan(filters))

    def field_values(self, collection: str, key: str, filters: SearchFilter) -> list[str]:
        if not self.engine.exists(collection):
            return []
        return sorted(self.engine.facet(collection, key, filter_plan(filters), FIELD_VALUES))

    def payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict]:
        return {str(r.id): r.payload or {} for r in self.engine.retrieve(collection, ids)}

    def dense_search(
        self, collection: str, vector: Sequence[float], filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        search = partial(self.engine.query, collection, list(vector), filter_plan(filters))
        return best(search, limit)

    def text_search(
        self, collection: str, text: str, filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        languages = self._languages(collection)
        sparse = bm25.encode_query(text, languages, partial(self._idf, collection))
        if not sparse[0]:
            return []
        return best(partial(self.engine.query, collection, sparse, filter_plan(filters)), limit)

    def term_weights(self, collection: str, text: str) -> dict[str, float]:
        meta = self.engine.meta(collection)
        probe = None if meta is None else partial(self._idf, collection)
        words, idf = bm25.weigh_query(text, languages_of(meta), probe)
        return bm25.word_weights(words, idf)

    def _idf(self, collection: str, terms: Sequence[int]) -> dict[int, float]:
        """The engine's IDF of each term some chunk holds: one single-term query per term,
        sent as one batch; the best chunk holding the term reveals it (score / stored
        weight), and no hit means no chunk has it."""
        if not terms or not self.engine.exists(collection):
            return {}
        idf = {}
        for term, hit in zip(terms, self.engine.probe(collection, list(terms)), strict=True):
            if hit is not None and hit.vector:
                idf[term] = bm25.idf_from_probe(float(hit.score), hit.vector[SPARSE], term)
        return idf


def best(search: Callable[[int], list[ScoredPoint]], limit: int) -> list[ScoredPoint]:
    """The ``limit`` best hits of ``search`` (a query given its limit), equal scores in the
    order of their ids, the cut at ``limit`` included. An engine returns tied points in an
    order of its own and cuts a tie at the limit wherever it falls (Qdrant Edge and a server
    do not pick the same members), and a hybrid query scores what one signal found with the
    other: so one hit more is asked for, and more while a tie runs past the cut, and the tie
    is cut by id. Found by tests/integration/test_engine_congruence.py."""
    if limit <= 0:
        return []
    fetch = limit + 1
    while True:
        hits = search(fetch)
        if len(hits) < fetch or hits[-1].score != hits[limit - 1].score:
            break
        fetch *= 2
    return sorted(hits, key=lambda hit: (-hit.score, hit.id))[:limit]
