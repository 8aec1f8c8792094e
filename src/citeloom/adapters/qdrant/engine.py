"""What an engine must do for ``QdrantIndex`` (``core``): the few primitives in which the
embedded Qdrant Edge shard and a Qdrant server differ. Everything else, the write guard,
replacing a document, paging, the term-weight probe, the payload indexes a collection
carries, is written once in the core over these.

A ``collection`` here is a project's collection name as the caller gives it; each engine
resolves it to the physical collection its own way (a pointer file, a server alias)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from citeloom.adapters.qdrant.filter_plan import IndexKind, Plan
from citeloom.domain.models import IndexPoint, ScoredPoint

Sparse = tuple[list[int], list[float]]  # a BM25 query vector: term ids and their weights


@dataclass(frozen=True)
class Page:
    """One page of a read through a collection: the points ``plan`` selects (all, if None)
    from ``offset`` on, with these payload keys (all, if True) and with or without vectors."""

    plan: Plan | None
    offset: str | None
    limit: int
    payload: bool | list[str] = True
    vectors: bool = False
    what: str = "read points"  # the step, named if it fails


class Engine(Protocol):
    batch_size: int  # points one write of a bulk load carries

    # ------------------------------------------------------------------ collections
    def meta(self, collection: str) -> dict[str, Any] | None:
        """What the collection remembers about itself (``collection_meta``); None when there
        is no such collection."""
        ...

    def create(self, collection: str, meta: dict[str, Any]) -> None:
        """Make whatever of the collection is missing (nothing, when it is whole), with
        ``meta`` as what it remembers."""
        ...

    def update_meta(self, collection: str, changes: dict[str, Any]) -> None:
        """Merge ``changes`` into what an existing collection remembers (its project, when
        one adopts it or a rename hands it over)."""
        ...

    def exists(self, collection: str) -> bool:
        """Whether the collection holds points that can be read (reads of a missing one
        answer empty)."""
        ...

    def points_count(self, collection: str) -> int: ...

    def indexed_keys(self, collection: str) -> set[str]:
        """The payload keys the collection has an index on."""
        ...

    def create_payload_index(self, collection: str, key: str, kind: IndexKind) -> None: ...

    # ------------------------------------------------------------------ writing
    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None: ...

    def delete_where(self, collection: str, plan: Plan, what: str) -> None:
        """Delete the points the plan selects (``what``: the step, named if it fails)."""
        ...

    def set_payload_where(
        self, collection: str, plan: Plan, key: str | None, values: dict[str, Any]
    ) -> None:
        """Merge ``values`` into the payload object ``key`` of the points the plan selects
        (None: into the payload itself)."""
        ...

    def flush(self, collection: str) -> None:
        """Make the writes so far durable (each write of a server already is)."""
        ...

    def optimize(self, collection: str) -> None: ...

    # ------------------------------------------------------------------ reading
    def scroll(self, collection: str, page: Page) -> tuple[list[Any], Any]:
        """One page of records (``id``, ``payload``, ``vector``) and the id the next page
        starts at (None after the last)."""
        ...

    def query(
        self, collection: str, vector: list[float] | Sparse, plan: Plan, limit: int
    ) -> list[ScoredPoint]:
        """The nearest points to a dense vector, or the best BM25 matches of a sparse one."""
        ...

    def probe(self, collection: str, terms: list[int]) -> list[Any | None]:
        """For each BM25 term, the best hit of a query of that term alone at weight 1 (with
        its ``score`` and stored sparse ``vector``), or None when no point holds it."""
        ...

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[Any]:
        """The records of these ids, with payload and without vectors."""
        ...

    def count(self, collection: str, plan: Plan) -> int: ...

    def facet(self, collection: str, key: str, plan: Plan, limit: int) -> list[str]:
        """The distinct values of an indexed keyword field among the points the plan
        selects (exact counts, at most ``limit`` values)."""
        ...

    # ------------------------------------------------------------------ names
    def physical(self, collection: str) -> str: ...

    def switch_collection(self, collection: str, physical: str) -> str | None: ...

    def drop_collection(self, physical: str) -> None: ...

    def remove_alias(self, collection: str) -> None: ...

    def list_collections(self) -> list[str]: ...

    # ------------------------------------------------------------------ holding
    def make_way(self, busy_timeout_s: float | None) -> bool:
        """Release what another process waits for; False when nobody does (or the engine is
        shared and nobody ever waits)."""
        ...

    def close(self) -> None: ...
