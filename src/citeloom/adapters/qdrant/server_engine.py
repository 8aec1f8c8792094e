"""The server engine: a Qdrant server (or cluster) through qdrant-client.

The collection's metadata (``collection_meta``) is kept in the collection's own ``metadata``,
and reindex switches a project's name with a Qdrant alias. Every client call goes through
``_call``, so a server that is down or unreachable is one ``IndexUnavailable`` (exit 3) naming
the step. The congruence tests run this engine against ``QdrantClient(":memory:")``, and a real
server when ``QDRANT_URL`` is set.

``qdrant_client`` is imported on first use: it takes a while, and only a configured server
needs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from citeloom.adapters.qdrant.engine import Page, Sparse
from citeloom.adapters.qdrant.filter_plan import TEXT_INDEX, IndexKind, Plan, Renderer
from citeloom.adapters.qdrant.stored import DENSE, SPARSE, scored
from citeloom.domain.errors import IndexUnavailable
from citeloom.domain.models import IndexPoint, ScoredPoint


@cache
def _renderer() -> Renderer:
    from qdrant_client import models

    return Renderer(
        filter=models.Filter,
        field=models.FieldCondition,
        matches={
            "equals": lambda value: models.MatchValue(value=value),
            "any": lambda values: models.MatchAny(any=values),
            "words": lambda text: models.MatchText(text=text),
            "phrase": lambda phrase: models.MatchPhrase(phrase=phrase),
        },
        range=lambda low, high: models.Range(gte=low, lte=high),
        has_id=lambda ids: models.HasIdCondition(has_id=list(ids)),
    )


def _render(plan: Plan | None) -> Any:
    return _renderer()(plan)


def _point_struct(point: IndexPoint) -> Any:
    from qdrant_client import models

    if point.sparse is None:  # the core encodes BM25 in the collection's languages
        raise ValueError(f"point {point.id} reached the engine without its BM25 vector")
    indices, values = point.sparse
    vectors = {
        DENSE: list(point.vector),
        SPARSE: models.SparseVector(indices=indices, values=values),
    }
    return models.PointStruct(id=point.id, vector=vectors, payload=point.payload)


class ServerEngine:
    batch_size = 256

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
        """``client``: a ready client (tests pass ``QdrantClient(":memory:")``). The last
        three: how a new collection is spread over a cluster's nodes (None: the server's
        default); they apply when a collection is created, never later."""
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
        self.client = client

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

    # ------------------------------------------------------------------ names
    def physical(self, collection: str) -> str:
        """The collection a project name points at: a Qdrant alias set by reindex, or itself."""
        aliases = self._call("read aliases", self.client.get_aliases).aliases
        return next((a.collection_name for a in aliases if a.alias_name == collection), collection)

    def switch_collection(self, collection: str, physical: str) -> str | None:
        from qdrant_client import models

        old = self.physical(collection)
        operations: list[Any] = []
        if old == collection:
            # a collection created before any reindex carries the project's name itself; an
            # alias of that name can only exist once it is gone (the one non-atomic moment)
            self.drop_collection(collection)
        else:
            operations.append(
                models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=collection))
            )
        operations.append(
            models.CreateAliasOperation(
                create_alias=models.CreateAlias(collection_name=physical, alias_name=collection)
            )
        )
        self._call("switch an alias", self.client.update_collection_aliases, operations)
        return old if old not in (physical, collection) else None

    def drop_collection(self, physical: str) -> None:
        if self.exists(physical):
            self._call("drop a collection", self.client.delete_collection, physical)

    def remove_alias(self, collection: str) -> None:
        from qdrant_client import models

        if self.physical(collection) == collection:
            return  # no alias of that name
        delete = models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=collection))
        self._call("remove an alias", self.client.update_collection_aliases, [delete])

    def list_collections(self) -> list[str]:
        listed = self._call("list collections", self.client.get_collections).collections
        return sorted(c.name for c in listed)

    # ------------------------------------------------------------------ holding
    def make_way(self, busy_timeout_s: float | None = None) -> bool:
        """A server is shared: nobody waits for this process to let go."""
        return False

    def close(self) -> None:
        self._call("close the connection", self.client.close)

    # ------------------------------------------------------------------ collections
    def meta(self, collection: str) -> dict[str, Any] | None:
        if not self.exists(collection):
            return None
        info = self._call("read a collection", self.client.get_collection, collection)
        return dict(info.config.metadata or {})

    def create(self, collection: str, meta: dict[str, Any]) -> None:
        from qdrant_client import models

        if self.exists(collection):
            return
        self._call(
            "create a collection",
            self.client.create_collection,
            collection,
            vectors_config={
                DENSE: models.VectorParams(
                    size=int(meta["dimensions"]), distance=models.Distance.COSINE
                )
            },
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            metadata=meta,
            **self._placement,
        )

    def update_meta(self, collection: str, changes: dict[str, Any]) -> None:
        """The whole metadata sent, ``changes`` merged in: the same end whether a server
        merges what it is sent or replaces it. Sent to the collection itself, not to an alias
        reindex pointed at it."""
        meta = self.meta(collection)
        if meta is None:
            raise IndexUnavailable(
                f"collection '{collection}' does not exist on Qdrant at {self.url}. Run "
                "citeloom ingest first."
            )
        self._call(
            "update a collection's metadata",
            self.client.update_collection,
            self.physical(collection),
            metadata={**meta, **changes},
        )

    def exists(self, collection: str) -> bool:
        return bool(self._call("list collections", self.client.collection_exists, collection))

    def points_count(self, collection: str) -> int:
        return int(self._call("count points", self.client.count, collection, exact=True).count)

    def indexed_keys(self, collection: str) -> set[str]:
        info = self._call("read a collection", self.client.get_collection, collection)
        return set(info.payload_schema or {})

    def create_payload_index(self, collection: str, key: str, kind: IndexKind) -> None:
        from qdrant_client import models

        schema = {
            "keyword": models.PayloadSchemaType.KEYWORD,
            "integer": models.PayloadSchemaType.INTEGER,
        }.get(kind) or models.TextIndexParams(
            type=models.TextIndexType.TEXT,
            tokenizer=models.TokenizerType.WORD,
            phrase_matching=kind == "phrase text",
            **TEXT_INDEX,
        )
        self._call(
            "create a payload index",
            self.client.create_payload_index,
            collection,
            key,
            field_schema=schema,
        )

    # ------------------------------------------------------------------ writing
    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        structs = [_point_struct(p) for p in points]
        self._call("store points", self.client.upsert, collection, points=structs, wait=True)

    def delete_where(self, collection: str, plan: Plan, what: str) -> None:
        from qdrant_client import models

        selector = models.FilterSelector(filter=_render(plan))
        self._call(what, self.client.delete, collection, points_selector=selector, wait=True)

    def set_payload_where(
        self, collection: str, plan: Plan, key: str | None, values: dict[str, Any]
    ) -> None:
        self._call(
            "relabel points",
            self.client.set_payload,
            collection,
            payload=values,
            points=_render(plan),
            key=key,
            wait=True,
        )

    def flush(self, collection: str) -> None:
        """Nothing to do: every write waited for the server to apply it (``wait=True``)."""

    def optimize(self, collection: str) -> None:
        """Nothing to do: the server's own optimiser merges segments and builds the vector
        graph in the background (with the same default graph as the embedded engine)."""

    # ------------------------------------------------------------------ reading
    def scroll(self, collection: str, page: Page) -> tuple[list[Any], Any]:
        return self._call(
            page.what,
            self.client.scroll,
            collection,
            scroll_filter=_render(page.plan),
            offset=page.offset,
            limit=page.limit,
            with_payload=page.payload,
            with_vectors=page.vectors,
        )

    def query(
        self, collection: str, vector: list[float] | Sparse, plan: Plan, limit: int
    ) -> list[ScoredPoint]:
        from qdrant_client import models

        using, query = (
            (SPARSE, models.SparseVector(indices=vector[0], values=vector[1]))
            if isinstance(vector, tuple)
            else (DENSE, vector)
        )
        response = self._call(
            "search",
            self.client.query_points,
            collection,
            query=query,
            using=using,
            query_filter=_render(plan),
            limit=limit,
            with_payload=True,
        )
        return scored(response.points)

    def probe(self, collection: str, terms: list[int]) -> list[Any | None]:
        from qdrant_client import models

        requests = [
            models.QueryRequest(
                query=models.SparseVector(indices=[t], values=[1.0]),
                using=SPARSE,
                limit=1,
                with_vector=[SPARSE],
            )
            for t in terms
        ]
        responses = self._call(
            "search", self.client.query_batch_points, collection, requests=requests
        )
        return [r.points[0] if r.points else None for r in responses]

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[Any]:
        return self._call(
            "read points", self.client.retrieve, collection, ids=list(ids), with_payload=True
        )

    def count(self, collection: str, plan: Plan) -> int:
        result = self._call(
            "count points", self.client.count, collection, count_filter=_render(plan), exact=True
        )
        return int(result.count)

    def facet(self, collection: str, key: str, plan: Plan, limit: int) -> list[str]:
        response = self._call(
            "list field values",
            self.client.facet,
            collection,
            key=key,
            facet_filter=_render(plan),
            limit=limit,
            exact=True,
        )
        return [str(hit.value) for hit in response.hits]
