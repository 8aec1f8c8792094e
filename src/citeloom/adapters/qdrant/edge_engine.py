"""The embedded engine: one Qdrant Edge shard per project collection, inside this process.

Layout under ``index_dir``::

    <collection>/collection.json   project, embedding model, dimensions, BM25 settings (the sidecar)
    <collection>/shard/            the Qdrant Edge shard
    <collection>.alias.json        where reindex switched the name to (a Qdrant alias's stand-in)
    <collection>.lock, .wait ...   who holds the shard and who waits for it (``edge_locks``)

Only one process may open a shard, so every use of a collection first holds its lock
(``edge_locks``): the sidecar is read and the shard opened only then.

Dense search is exact (HNSW ``m=0``; ADR 0008 has the measurements against a graph). Ingest
calls ``optimize`` once at the end of a run that wrote: without it a shard stays one appendable
segment whose in-memory indexes are rebuilt on every open.

A shard's BM25 statistics (the IDF of each term) go on counting deleted points for as long as
it stays open: reopened, it counts the points that are left. So a shard that lost points is
reopened before its next BM25 query or term-weight probe (``_counted``): a long-lived process
(``serve``, ``mcp``) that deletes a note and then answers a query scores it as a new process,
and as qdrant-client's engine, would (found by tests/integration/test_engine_congruence.py).
Writes in bulk (an ingest) never query between their deletes, so they never pay for it.

Qdrant Edge writes through memory maps: when the disk fills up in the middle of a write the
process dies of SIGBUS (measured with qdrant-edge-py 0.9.0 on ext4 and tmpfs), which nothing
can catch or report. So every write first checks that the disk has room for it plus a reserve
(``reserve_bytes``) and is refused with a ``StorageError`` otherwise, before anything is
written.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FacetRequest,
    FieldCondition,
    Filter,
    HasIdCondition,
    HnswIndexConfig,
    MatchAny,
    MatchPhrase,
    MatchText,
    MatchValue,
    Modifier,
    PayloadSchemaType,
    Point,
    QuantizationSearchParams,
    Query,
    QueryBatchRequest,
    QueryRequest,
    RangeFloat,
    ScalarQuantizationConfig,
    ScalarType,
    ScrollRequest,
    SearchParams,
    SparseVector,
    TextIndexParams,
    TokenizerType,
    UpdateOperation,
)

from citeloom.adapters.qdrant.edge_locks import ShardLocks
from citeloom.adapters.qdrant.engine import Page, Sparse
from citeloom.adapters.qdrant.filter_plan import TEXT_INDEX, IndexKind, Plan, Renderer
from citeloom.adapters.qdrant.stored import DENSE, SPARSE, scored
from citeloom.domain.errors import CiteloomError, IndexBusy, IndexUnavailable, StorageError
from citeloom.domain.models import IndexPoint, ScoredPoint

MB = 2**20
# Room kept free on the index's disk beyond a write's own estimate (one WAL segment).
RESERVE_BYTES = 32 * MB
SIDECAR = "collection.json"
# No vector graph (m=0): dense search is exact at every size. Measured at 100k chunks (ADR
# 0008), an HNSW graph took 4.5 min of CPU to build, found 86% of the exact top 50, and was not
# faster on two cores.
HNSW = HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000)
# An int8 copy of the vectors that an optimised segment is scanned through first; the best
# 2 x limit are then rescored with the float vectors. At 100k chunks: the same top 50 as the
# float scan for every one of 100 paper queries, at less than half its CPU (ADR 0008).
QUANTIZED = ScalarQuantizationConfig(type=ScalarType.Int8, quantile=0.99, always_ram=True)
RESCORED = SearchParams(quantization=QuantizationSearchParams(rescore=True, oversampling=2.0))
ALIAS_SUFFIX = ".alias.json"

_render = Renderer(
    filter=Filter,
    field=FieldCondition,
    matches={"equals": MatchValue, "any": MatchAny, "words": MatchText, "phrase": MatchPhrase},
    range=lambda low, high: RangeFloat(gte=low, lte=high),
    has_id=lambda ids: HasIdCondition({uuid.UUID(i) for i in ids}),
)


def _config(dimensions: int) -> EdgeConfig:
    return EdgeConfig(
        vectors={
            DENSE: EdgeVectorParams(
                size=dimensions,
                distance=Distance.Cosine,
                hnsw_config=HNSW,
                quantization_config=QUANTIZED,
            )
        },
        sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
    )


def _edge_point(point: IndexPoint) -> Point:
    if point.sparse is None:  # the core encodes BM25 in the collection's languages
        raise ValueError(f"point {point.id} reached the engine without its BM25 vector")
    indices, values = point.sparse
    return Point(
        id=point.id,
        vector={DENSE: list(point.vector), SPARSE: SparseVector(indices=indices, values=values)},
        payload=point.payload,
    )


def _sparse_query(indices: list[int], values: list[float]) -> Any:
    return Query.Nearest(SparseVector(indices=indices, values=values), using=SPARSE)


class EdgeEngine:
    batch_size = 1024

    def __init__(
        self,
        index_dir: Path,
        busy_timeout_s: float = 0.0,
        on_wait: Callable[[str], None] | None = None,
        reserve_bytes: int = RESERVE_BYTES,
        yield_to_waiters: bool = False,
    ) -> None:
        """``busy_timeout_s``, ``on_wait``, ``yield_to_waiters``: how to wait for a shard
        another process holds (``edge_locks.ShardLocks``); ``reserve_bytes``: free space a
        write must leave on the index's disk."""
        self.index_dir = index_dir
        self.reserve_bytes = reserve_bytes
        self.locks = ShardLocks(index_dir, busy_timeout_s, on_wait, yield_to_waiters)
        self._shards: dict[str, EdgeShard] = {}
        self._lost_points: set[str] = set()  # open shards whose IDF still counts deleted points

    def _dir(self, collection: str) -> Path:
        return self.index_dir / self.physical(collection)

    # ------------------------------------------------------------------ names
    def physical(self, collection: str) -> str:
        """The folder a project's collection lives in: itself, or where reindex switched it
        (a pointer file, the embedded engine's stand-in for a Qdrant alias)."""
        pointer = self.index_dir / f"{collection}{ALIAS_SUFFIX}"
        if pointer.is_file():
            try:
                return str(json.loads(pointer.read_text(encoding="utf-8"))["collection"])
            except (OSError, ValueError, KeyError) as error:
                raise IndexUnavailable(
                    f"{pointer}: unreadable ({error}). Restore it or remove it to use "
                    f"'{collection}' itself."
                ) from error
        return collection

    def switch_collection(self, collection: str, physical: str) -> str | None:
        old = self.physical(collection)
        pointer = self.index_dir / f"{collection}{ALIAS_SUFFIX}"
        tmp = pointer.with_suffix(".tmp")
        tmp.write_text(json.dumps({"collection": physical}), encoding="utf-8")
        os.replace(tmp, pointer)  # atomic: readers see the old or the new collection
        return old if old != physical else None

    def drop_collection(self, physical: str) -> None:
        self.locks.hold(physical)
        shard = self._shards.pop(physical, None)
        self._lost_points.discard(physical)
        if shard is not None:
            shard.close()
        shutil.rmtree(self.index_dir / physical, ignore_errors=True)
        self.locks.release(physical)

    def remove_alias(self, collection: str) -> None:
        (self.index_dir / f"{collection}{ALIAS_SUFFIX}").unlink(missing_ok=True)

    def list_collections(self) -> list[str]:
        if not self.index_dir.is_dir():
            return []
        return sorted(entry.name for entry in self.index_dir.iterdir() if entry.is_dir())

    # ------------------------------------------------------------------ holding
    def make_way(self, busy_timeout_s: float | None = None) -> bool:
        """If another process waits for a shard this engine holds (its shared lock on
        ``<collection>.wait``), close everything so that it gets the shard now. The next use
        reopens it after the waiter is done, waiting at most ``busy_timeout_s`` (default: as
        before; set whether or not anyone waits). False, and nothing closed, when nobody
        waits: reopening a shard costs about a tenth of a second, too much to pay between
        every two units of a server's work."""
        if busy_timeout_s is not None:
            self.locks.busy_timeout_s = busy_timeout_s
        if not self.locks.waited_for():
            return False
        self.close()
        return True

    def close(self) -> None:
        for shard in self._shards.values():
            shard.close()
        self._shards.clear()
        self._lost_points.clear()
        self.locks.release_all()

    def _ensure_room(self, needed: int = 0) -> None:
        """Refuse a write the disk may not hold (see the module docstring)."""
        try:
            stat = os.statvfs(self.index_dir)
        except OSError:
            return  # the write itself will say what is wrong with the folder
        free = stat.f_bavail * stat.f_frsize
        if free < needed + self.reserve_bytes:
            raise StorageError(
                f"{self.index_dir}: the disk is (nearly) full: {free / MB:.1f} MB free, and "
                f"writing needs about {needed / MB:.1f} MB plus {self.reserve_bytes / MB:.0f} "
                "MB to spare. Nothing of the document in hand was written. Free some space "
                "(or move [paths] index_dir to a larger disk), then run the same command again."
            )

    # ------------------------------------------------------------------ collections
    def meta(self, collection: str) -> dict[str, Any] | None:
        # Every use of a collection starts here or in _shard, with the lock: an index_dir that
        # cannot hold the index fails alike for validate, query and ingest (not only when
        # something is written), and nothing is read while another process writes.
        self.locks.hold(self.physical(collection))
        path = self._dir(collection) / SIDECAR
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise IndexUnavailable(
                f"{path}: unreadable collection metadata ({error}). Restore it or remove the "
                f"folder {self._dir(collection)} and ingest again."
            ) from error

    def _shard(self, collection: str) -> EdgeShard | None:
        physical = self.physical(collection)
        if physical in self._shards:
            return self._shards[physical]
        self.locks.hold(physical)
        shard_dir = self.index_dir / physical / "shard"
        if not shard_dir.is_dir():
            return None
        try:
            shard = EdgeShard.load(str(shard_dir))
        except Exception as error:  # busy here means a process that is not citeloom
            raise _unavailable(shard_dir, error) from error
        self._shards[physical] = shard
        return shard

    def _require(self, collection: str) -> EdgeShard:
        shard = self._shard(collection)
        if shard is None:
            raise IndexUnavailable(
                f"collection '{collection}' does not exist under {self.index_dir}. Run "
                "citeloom ingest first."
            )
        return shard

    def create(self, collection: str, meta: dict[str, Any]) -> None:
        """The sidecar, then the shard: a shard is never there without what made it."""
        self.locks.hold(self.physical(collection))  # before looking: no race to create
        folder = self._dir(collection)
        if not (folder / SIDECAR).is_file():
            self._ensure_room()
            try:
                folder.mkdir(parents=True, exist_ok=True)
                tmp = folder / (SIDECAR + ".tmp")
                tmp.write_text(json.dumps(meta, indent=2), encoding="utf-8")
                os.replace(tmp, folder / SIDECAR)
            except OSError as error:
                raise IndexUnavailable(
                    f"{folder}: cannot create the collection ({error.strerror}). Check "
                    "[paths] index_dir and its permissions."
                ) from error
        if self._shard(collection) is None:
            shard_dir = folder / "shard"
            try:
                shard = EdgeShard.create(str(shard_dir), _config(int(meta["dimensions"])))
            except Exception as error:
                raise _unavailable(shard_dir, error) from error
            self._shards[self.physical(collection)] = shard

    def update_meta(self, collection: str, changes: dict[str, Any]) -> None:
        """The sidecar rewritten whole under a temporary name and renamed over the old one: a
        reader sees what the collection remembered before or after, never half of it."""
        meta = self.meta(collection)  # holds the lock
        if meta is None:
            raise IndexUnavailable(
                f"collection '{collection}' does not exist under {self.index_dir}. Run "
                "citeloom ingest first."
            )
        folder = self._dir(collection)
        self._ensure_room()
        try:
            tmp = folder / (SIDECAR + ".tmp")
            tmp.write_text(json.dumps({**meta, **changes}, indent=2), encoding="utf-8")
            os.replace(tmp, folder / SIDECAR)
        except OSError as error:
            raise IndexUnavailable(
                f"{folder / SIDECAR}: cannot update the collection's metadata "
                f"({error.strerror}). Check [paths] index_dir and its permissions."
            ) from error

    def exists(self, collection: str) -> bool:
        return self._shard(collection) is not None

    def points_count(self, collection: str) -> int:
        # the shard keeps its point count; an exact count() would visit every point
        shard = self._shard(collection)
        return shard.info().points_count if shard is not None else 0

    def indexed_keys(self, collection: str) -> set[str]:
        return set(self._require(collection).info().payload_schema)

    def create_payload_index(self, collection: str, key: str, kind: IndexKind) -> None:
        schema: Any = {
            "keyword": PayloadSchemaType.Keyword,
            "integer": PayloadSchemaType.Integer,
        }.get(kind) or TextIndexParams(
            tokenizer=TokenizerType.Word, phrase_matching=kind == "phrase text", **TEXT_INDEX
        )
        self._require(collection).update(UpdateOperation.create_field_index(key, schema))

    # ------------------------------------------------------------------ writing
    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        shard = self._require(collection)
        self._ensure_room(bytes_for(points))
        shard.update(UpdateOperation.upsert_points([_edge_point(p) for p in points]))

    def delete_where(self, collection: str, plan: Plan, what: str) -> None:
        shard = self._require(collection)
        self._ensure_room()
        before = shard.info().points_count
        shard.update(UpdateOperation.delete_points_by_filter(_render(plan)))
        if shard.info().points_count != before:
            self._lost_points.add(self.physical(collection))

    def _counted(self, collection: str) -> EdgeShard:
        """The shard for a query whose score depends on its BM25 statistics: reopened first
        if it lost points since it was opened (see the module docstring), which costs what
        opening it does, once after deletes."""
        physical = self.physical(collection)
        if physical in self._lost_points:
            self._lost_points.discard(physical)
            shard = self._shards.pop(physical, None)
            if shard is not None:
                shard.flush()
                shard.close()  # the lock stays held: no other process gets in between
        return self._require(collection)

    def set_payload_where(
        self, collection: str, plan: Plan, key: str | None, values: dict[str, Any]
    ) -> None:
        shard = self._require(collection)
        self._ensure_room()
        shard.update(UpdateOperation.set_payload_by_filter(_render(plan), values, key=key))

    def flush(self, collection: str) -> None:
        self._require(collection).flush()

    def optimize(self, collection: str) -> None:
        shard = self._require(collection)
        shard_dir = self._dir(collection) / "shard"
        # merging segments writes them anew before the old ones go; counted in blocks the
        # disk holds (Qdrant's memory maps are sparse files many times their content)
        segments = (f.stat() for f in (shard_dir / "segments").rglob("*") if f.is_file())
        self._ensure_room(sum(512 * stat.st_blocks for stat in segments))
        # reopened with today's settings, so a shard an older version made gets them too (the
        # int8 copy); Qdrant checks that they are compatible with what is stored
        physical = self.physical(collection)
        shard.close()
        del self._shards[physical]
        self._lost_points.discard(physical)  # reopened below: its statistics are counted anew
        dimensions = int((self.meta(collection) or {}).get("dimensions", 0))
        try:
            shard = EdgeShard.load(str(shard_dir), _config(dimensions))
        except Exception as error:
            raise _unavailable(shard_dir, error) from error
        self._shards[physical] = shard
        shard.optimize()

    # ------------------------------------------------------------------ reading
    def scroll(self, collection: str, page: Page) -> tuple[list[Any], Any]:
        request = ScrollRequest(
            offset=uuid.UUID(page.offset) if page.offset else None,
            limit=page.limit,
            filter=_render(page.plan),
            with_payload=page.payload,
            with_vector=page.vectors,
        )
        return self._require(collection).scroll(request)

    def query(
        self, collection: str, vector: list[float] | Sparse, plan: Plan, limit: int
    ) -> list[ScoredPoint]:
        if isinstance(vector, tuple):
            shard, query, params = self._counted(collection), _sparse_query(*vector), None
        else:
            shard = self._require(collection)
            query, params = Query.Nearest(vector, using=DENSE), RESCORED
        request = QueryRequest(
            limit=limit, query=query, filter=_render(plan), params=params, with_payload=True
        )
        return scored(shard.query(request))

    def probe(self, collection: str, terms: list[int]) -> list[Any | None]:
        batch = QueryBatchRequest(
            [
                QueryRequest(limit=1, query=_sparse_query([t], [1.0]), with_vector=[SPARSE])
                for t in terms
            ]
        )
        return [hits[0] if hits else None for hits in self._counted(collection).query_batch(batch)]

    def retrieve(self, collection: str, ids: Sequence[str]) -> list[Any]:
        shard = self._require(collection)
        return shard.retrieve([uuid.UUID(i) for i in ids], with_payload=True, with_vector=False)

    def count(self, collection: str, plan: Plan) -> int:
        return self._require(collection).count(CountRequest(filter=_render(plan), exact=True))

    def facet(self, collection: str, key: str, plan: Plan, limit: int) -> list[str]:
        request = FacetRequest(key=key, limit=limit, exact=True, filter=_render(plan))
        return [str(hit.value) for hit in self._require(collection).facet(request).hits]


def _is_busy(error: Exception) -> bool:
    message = str(error)
    return "WouldBlock" in message or "lock" in message.lower()


def _unavailable(shard_dir: Path, error: Exception) -> CiteloomError:
    if _is_busy(error):
        return IndexBusy(
            f"index busy: {shard_dir} is open in another process. Close it and try again."
        )
    if f"os error {errno.ENOSPC}" in str(error):  # opening a shard writes to it
        return StorageError(
            f"{shard_dir}: cannot open the index: its disk is full ({error}). Free some "
            "space, then run the same command again."
        )
    return IndexUnavailable(f"{shard_dir}: cannot open the index ({error}).")


def bytes_for(points: Sequence[IndexPoint]) -> int:
    """What storing these points may take on disk, generously: each vector, payload and text
    lands in the write-ahead log and again in the segment and its indexes. Measured by
    benchmarks/index_disk_use.py: 8.0-8.8 KB a chunk of 384 dimensions and 1,200 characters
    on ext4; this estimate is about twice that."""
    return sum(
        3 * (4 * len(p.vector) + len(json.dumps(p.payload, default=str)) + 2 * len(p.text))
        for p in points
    )
