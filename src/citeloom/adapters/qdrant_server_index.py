"""The server index: the same port over a Qdrant server (or cluster) through qdrant-client.

Behaviour matches the embedded adapter point for point: the same vectors (dense + client-side
BM25 with server IDF), the same payload indexes, the same replace semantics and the same write
guard, with the embedding model kept in the collection's metadata. The congruence tests run
both adapters through one suite (against ``QdrantClient(":memory:")`` here, and a real server
when ``QDRANT_URL`` is set).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from citeloom.adapters import bm25
from citeloom.adapters.collection_meta import guard, languages_of, new_meta
from citeloom.adapters.qdrant.filter_plan import Condition, filter_plan, payload_indexes
from citeloom.adapters.qdrant.stored import DENSE, SPARSE, stored_point
from citeloom.domain.errors import IndexUnavailable
from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import CollectionInfo, DocumentSummary, IndexPoint, ScoredPoint
from citeloom.domain.records import (
    SUMMARY_FIELDS,
    summarise_documents,
)
from citeloom.ports.index import SearchFilter


def _filter(filters: SearchFilter) -> Any:
    from qdrant_client import models

    return models.Filter(must=[_condition(c) for c in filter_plan(filters)])


def _condition(c: Condition) -> Any:
    from qdrant_client import models

    if c.kind == "ids":
        return models.HasIdCondition(has_id=list(c.values))
    if c.kind == "range":
        return models.FieldCondition(key=c.key, range=models.Range(gte=c.low, lte=c.high))
    match = {
        "equals": lambda: models.MatchValue(value=c.values[0]),
        "any": lambda: models.MatchAny(any=list(c.values)),
        "words": lambda: models.MatchText(text=c.values[0]),
        "phrase": lambda: models.MatchPhrase(phrase=c.values[0]),
    }[c.kind]()
    return models.FieldCondition(key=c.key, match=match)


def _point_struct(point: IndexPoint, languages: Sequence[str]) -> Any:
    from qdrant_client import models

    indices, values = point.sparse or bm25.encode_document(point.text, languages)
    return models.PointStruct(
        id=point.id,
        vector={
            DENSE: list(point.vector),
            SPARSE: models.SparseVector(indices=indices, values=values),
        },
        payload=point.payload,
    )


class QdrantServerIndex:
    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        timeout_ms: int = 15000,
        client: Any = None,
        shard_number: int | None = None,
        replication_factor: int | None = None,
        write_consistency_factor: int | None = None,
    ) -> None:
        """The last three: how a new collection is spread over a cluster's nodes (None: the
        server's default); they apply when a collection is created, never later."""
        self.url = url or ":memory:"
        self._placement = {
            key: value
            for key, value in (
                ("shard_number", shard_number),
                ("replication_factor", replication_factor),
                ("write_consistency_factor", write_consistency_factor),
            )
            if value is not None
        }
        if client is None:
            from qdrant_client import QdrantClient

            client = QdrantClient(
                url=url,
                api_key=api_key,
                timeout=max(1, timeout_ms // 1000),
                check_compatibility=False,  # one clear error if the server is down, not two
            )
        self._client = client

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a client call; connection trouble becomes ``IndexUnavailable`` (exit 3)."""
        try:
            return fn(*args, **kwargs)
        except Exception as error:  # httpx, grpc and qdrant-client errors alike
            name = type(error).__name__
            raise IndexUnavailable(
                f"Qdrant at {self.url} is unavailable while trying to {what} ({name}: {error}). "
                "Check that the server runs (docker compose up -d) and [qdrant] url."
            ) from error

    # ------------------------------------------------------------------ aliases
    def physical(self, collection: str) -> str:
        """The collection a project name points at: a Qdrant alias set by reindex, or itself."""
        aliases = self._call("read aliases", self._client.get_aliases).aliases
        return next((a.collection_name for a in aliases if a.alias_name == collection), collection)

    def switch_collection(self, collection: str, physical: str) -> str | None:
        from qdrant_client import models

        old = self.physical(collection)
        operations: list[Any] = []
        if old == collection:
            # a collection created before any reindex carries the project's name itself; an
            # alias of that name can only exist once it is gone (the one non-atomic moment)
            if self._call("list collections", self._client.collection_exists, collection):
                self._call("drop a collection", self._client.delete_collection, collection)
        else:
            operations.append(
                models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=collection))
            )
        operations.append(
            models.CreateAliasOperation(
                create_alias=models.CreateAlias(collection_name=physical, alias_name=collection)
            )
        )
        self._call("switch an alias", self._client.update_collection_aliases, operations)
        return old if old not in (physical, collection) else None

    def drop_collection(self, physical: str) -> None:
        if self._call("list collections", self._client.collection_exists, physical):
            self._call("drop a collection", self._client.delete_collection, physical)

    def remove_alias(self, collection: str) -> None:
        from qdrant_client import models

        if self.physical(collection) == collection:
            return  # no alias of that name
        delete = models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=collection))
        self._call("remove an alias", self._client.update_collection_aliases, [delete])

    def list_collections(self) -> list[str]:
        listed = self._call("list collections", self._client.get_collections).collections
        return sorted(c.name for c in listed)

    # ------------------------------------------------------------------ collections
    def _meta(self, collection: str) -> dict[str, Any] | None:
        if not self._call("list collections", self._client.collection_exists, collection):
            return None
        info = self._call("read a collection", self._client.get_collection, collection)
        return dict(info.config.metadata or {})

    def collection_info(self, collection: str) -> CollectionInfo | None:
        meta = self._meta(collection)
        if meta is None:
            return None
        points = self._call("count points", self._client.count, collection, exact=True).count
        return CollectionInfo(
            name=collection,
            embed_model=str(meta.get("embed_model")),
            dimensions=int(meta.get("dimensions", 0)),
            points=points,
            languages=languages_of(meta),
        )

    def _languages(self, collection: str) -> tuple[str, ...]:
        """What the collection's BM25 terms are stemmed for (see EdgeIndex._languages)."""
        return languages_of(self._meta(collection))

    def check_model(
        self, collection: str, embed_model: str, languages: Sequence[str] | None = None
    ) -> None:
        meta = self._meta(collection)
        if meta is not None:
            guard(collection, meta, embed_model, languages)

    def ensure_collection(
        self,
        collection: str,
        embed_model: str,
        dimensions: int,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
    ) -> None:
        from qdrant_client import models

        meta = self._meta(collection)
        if meta is not None:
            guard(collection, meta, embed_model, languages)
            self._ensure_indexes(collection)
            return
        self._call(
            "create a collection",
            self._client.create_collection,
            collection,
            vectors_config={
                DENSE: models.VectorParams(size=dimensions, distance=models.Distance.COSINE)
            },
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            metadata=new_meta(collection, embed_model, dimensions, languages),
            **self._placement,
        )
        self._ensure_indexes(collection)

    def _ensure_indexes(self, collection: str) -> None:
        """Payload indexes, created on first use: also on a collection an older version made
        (building one over existing points is how Qdrant adds it), as the embedded index does."""
        from qdrant_client import models

        info = self._call("read a collection", self._client.get_collection, collection)
        have = set(info.payload_schema or {})
        wanted = [
            (
                key,
                {
                    "keyword": models.PayloadSchemaType.KEYWORD,
                    "integer": models.PayloadSchemaType.INTEGER,
                }.get(kind)
                or models.TextIndexParams(
                    type=models.TextIndexType.TEXT,
                    tokenizer=models.TokenizerType.WORD,
                    lowercase=True,
                    ascii_folding=True,
                    phrase_matching=kind == "phrase text",
                ),
            )
            for key, kind in payload_indexes()
        ]
        for key, schema in wanted:
            if key not in have:
                self._call(
                    "create a payload index",
                    self._client.create_payload_index,
                    collection,
                    key,
                    field_schema=schema,
                )

    # ------------------------------------------------------------------ writing
    def replace_document(
        self, collection: str, doc_id: str, source_path: str, points: Sequence[IndexPoint]
    ) -> None:
        from qdrant_client import models

        languages = self._languages(collection)
        structs = [_point_struct(p, languages) for p in points]
        if structs:
            self._call("store points", self._client.upsert, collection, points=structs, wait=True)
        stale = models.Filter(
            should=[
                models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id)),
                models.FieldCondition(
                    key="source.path", match=models.MatchValue(value=source_path)
                ),
            ],
            must_not=[models.HasIdCondition(has_id=[p.id for p in points])] if points else None,
        )
        self._call(
            "delete stale points",
            self._client.delete,
            collection,
            points_selector=models.FilterSelector(filter=stale),
            wait=True,
        )

    def upsert_points(self, collection: str, points: Sequence[IndexPoint]) -> None:
        languages = self._languages(collection)
        for start in range(0, len(points), 256):
            batch = [_point_struct(p, languages) for p in points[start : start + 256]]
            self._call("store points", self._client.upsert, collection, points=batch, wait=True)

    def optimize(self, collection: str) -> None:
        """Nothing to do: the server's own optimiser merges segments and builds the vector
        graph in the background (with the same default graph as the embedded engine)."""

    def delete_document(self, collection: str, doc_id: str) -> None:
        from qdrant_client import models

        only = models.Filter(
            must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]
        )
        self._call(
            "delete a document",
            self._client.delete,
            collection,
            points_selector=models.FilterSelector(filter=only),
            wait=True,
        )

    def relabel_document(
        self, collection: str, doc_id: str, fields: dict[str, dict[str, Any]]
    ) -> None:
        from qdrant_client import models

        only = models.Filter(
            must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]
        )
        for key, values in fields.items():
            self._call(
                "relabel a document",
                self._client.set_payload,
                collection,
                payload=values,
                points=only,
                key=key,
                wait=True,
            )

    # ------------------------------------------------------------------ reading
    def documents(self, collection: str, project: str) -> list[DocumentSummary]:
        from qdrant_client import models

        if self._meta(collection) is None:
            return []
        payloads: list[dict[str, Any]] = []
        offset = None
        project_filter = models.Filter(
            must=[models.FieldCondition(key="project", match=models.MatchValue(value=project))]
        )
        while True:
            records, offset = self._call(
                "list documents",
                self._client.scroll,
                collection,
                scroll_filter=project_filter,
                limit=1024,
                offset=offset,
                with_payload=list(SUMMARY_FIELDS),
            )
            payloads.extend(r.payload or {} for r in records)
            if offset is None:
                break
        return summarise_documents(payloads)

    def _query(
        self, collection: str, query: Any, using: str, filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        response = self._call(
            "search",
            self._client.query_points,
            collection,
            query=query,
            using=using,
            query_filter=_filter(filters),
            limit=limit,
            with_payload=True,
        )
        return [
            ScoredPoint(id=str(p.id), score=float(p.score), payload=p.payload)
            for p in response.points
        ]

    def dense_search(
        self, collection: str, vector: Sequence[float], filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        return self._query(collection, list(vector), DENSE, filters, limit)

    def text_search(
        self, collection: str, text: str, filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        from qdrant_client import models

        languages = self._languages(collection)
        indices, values = bm25.encode_query(text, languages, partial(self._idf, collection))
        if not indices:
            return []
        return self._query(
            collection, models.SparseVector(indices=indices, values=values), SPARSE, filters, limit
        )

    def term_weights(self, collection: str, text: str) -> dict[str, float]:
        meta = self._meta(collection)
        probe = None if meta is None else partial(self._idf, collection)
        words, idf = bm25.weigh_query(text, languages_of(meta), probe)
        return bm25.word_weights(words, idf)

    def _idf(self, collection: str, terms: Sequence[int]) -> dict[int, float]:
        """The embedded adapter's probe (``EdgeIndex._idf``), as one batch request."""
        from qdrant_client import models

        probes = self._call(
            "search",
            self._client.query_batch_points,
            collection,
            requests=[
                models.QueryRequest(
                    query=models.SparseVector(indices=[t], values=[1.0]),
                    using=SPARSE,
                    limit=1,
                    with_vector=[SPARSE],
                )
                for t in terms
            ],
        )
        idf = {}
        for term, response in zip(terms, probes, strict=True):
            if response.points:
                hit = response.points[0]
                vectors: Any = hit.vector
                idf[term] = bm25.idf_from_probe(float(hit.score), vectors[SPARSE], term)
        return idf

    def payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict]:
        records = self._call(
            "read points", self._client.retrieve, collection, ids=list(ids), with_payload=True
        )
        return {str(r.id): r.payload or {} for r in records}

    def scroll_points(
        self, collection: str, offset: str | None = None, limit: int = 256
    ) -> tuple[list[IndexPoint], str | None]:
        if self._meta(collection) is None:
            return [], None
        records, after = self._call(
            "read points",
            self._client.scroll,
            collection,
            limit=limit,
            offset=offset,
            with_payload=True,
            with_vectors=True,
        )
        return [stored_point(r) for r in records], None if after is None else str(after)

    def chunks(self, collection: str, filters: SearchFilter, limit: int) -> dict[str, dict]:
        if self._meta(collection) is None:
            return {}
        found: dict[str, dict] = {}
        offset = None
        while len(found) < limit:
            records, offset = self._call(
                "read chunks",
                self._client.scroll,
                collection,
                scroll_filter=_filter(filters),
                limit=min(1024, limit - len(found)),
                offset=offset,
                with_payload=True,
            )
            found.update((str(r.id), r.payload or {}) for r in records)
            if offset is None:
                break
        return found

    def count(self, collection: str, filters: SearchFilter) -> int:
        if self._meta(collection) is None:
            return 0
        result = self._call(
            "count points",
            self._client.count,
            collection,
            count_filter=_filter(filters),
            exact=True,
        )
        return result.count

    def close(self) -> None:
        self._call("close the connection", self._client.close)
