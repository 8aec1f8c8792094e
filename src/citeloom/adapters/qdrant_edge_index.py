"""The embedded index: one Qdrant Edge shard per project collection, inside this process.

Layout under ``index_dir``::

    <collection>/collection.json   embedding model, dimensions, BM25 settings (the sidecar)
    <collection>/shard/            the Qdrant Edge shard

    <collection>.lock              held (flock) by the one process that has the shard open

Only one process may open a shard. Qdrant Edge's own WAL lock is not enough: measured with
qdrant-edge-py 0.9.0, a second process trying to open a shard that another is writing to gets
in after a few attempts and both then fail with "Tracker journal ... is shorter than
expected". So every opener first takes an exclusive ``flock`` on a lock file of ours and a
second one waits for it, then fails with a clear "index busy" error.

Dense search is exact (HNSW ``m=0``; ADR 0008 has the measurements against a graph). Ingest
calls ``optimize`` once at the end of a run that wrote: without it a shard stays one appendable
segment whose in-memory indexes are rebuilt on every open.

Qdrant Edge writes through memory maps: when the disk fills up in the middle of a write the
process dies of SIGBUS (measured with qdrant-edge-py 0.9.0 on ext4 and tmpfs), which nothing
can catch or report. So every write first checks that the disk has room for it plus a reserve
(``reserve_bytes``) and is refused with a ``StorageError`` otherwise, before anything is
written.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
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

from citeloom.adapters import bm25
from citeloom.adapters.collection_meta import guard, languages_of, new_meta
from citeloom.adapters.qdrant.filter_plan import Condition, filter_plan, payload_indexes
from citeloom.adapters.qdrant.stored import DENSE, SPARSE, stored_point
from citeloom.domain.errors import CiteloomError, IndexBusy, IndexUnavailable, StorageError
from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.domain.models import CollectionInfo, DocumentSummary, IndexPoint, ScoredPoint
from citeloom.domain.records import (
    SUMMARY_FIELDS,
    summarise_documents,
)
from citeloom.ports.index import SearchFilter

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


def _edge_filter(filters: SearchFilter) -> Filter:
    return Filter(must=[_edge_condition(c) for c in filter_plan(filters)])


def _edge_condition(c: Condition) -> Any:
    if c.kind == "ids":
        return HasIdCondition({uuid.UUID(i) for i in c.values})
    if c.kind == "range":
        return FieldCondition(key=c.key, range=RangeFloat(gte=c.low, lte=c.high))
    match: Any = {
        "equals": lambda: MatchValue(c.values[0]),
        "any": lambda: MatchAny(list(c.values)),
        "words": lambda: MatchText(c.values[0]),
        "phrase": lambda: MatchPhrase(c.values[0]),
    }[c.kind]()
    return FieldCondition(key=c.key, match=match)


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


def _text_index(phrases: bool) -> TextIndexParams:
    return TextIndexParams(
        tokenizer=TokenizerType.Word,
        lowercase=True,
        ascii_folding=True,
        phrase_matching=phrases,
    )


def _edge_point(point: IndexPoint, languages: Sequence[str]) -> Point:
    indices, values = point.sparse or bm25.encode_document(point.text, languages)
    return Point(
        id=point.id,
        vector={DENSE: list(point.vector), SPARSE: SparseVector(indices=indices, values=values)},
        payload=point.payload,
    )


def _scored(points: Sequence[Any]) -> list[ScoredPoint]:
    return [ScoredPoint(id=str(p.id), score=float(p.score), payload=p.payload) for p in points]


# Lock files a process waiting for a shard holds shared (``_lock``): an ingest or a CLI query,
# and a long-lived server (which lets the former go first).
WAIT = ".wait"
SERVER_WAIT = ".wait-server"


class EdgeIndex:
    def __init__(
        self,
        index_dir: Path,
        busy_timeout_s: float = 0.0,
        on_wait: Callable[[str], None] | None = None,
        reserve_bytes: int = RESERVE_BYTES,
        yield_to_waiters: bool = False,
    ) -> None:
        """``busy_timeout_s``: how long to wait for another process to release a shard
        before failing with "index busy"; ``on_wait`` is told once that we are waiting;
        ``reserve_bytes``: free space a write must leave on the index's disk;
        ``yield_to_waiters``: let a process already waiting for a shard have it first (a
        long-lived server opening the index for each call, which would otherwise take the
        shard back between two calls before a waiting ingest gets its turn)."""
        self.index_dir = index_dir
        self.yield_to_waiters = yield_to_waiters
        self.busy_timeout_s = busy_timeout_s
        self.on_wait = on_wait
        self.reserve_bytes = reserve_bytes
        self._shards: dict[str, EdgeShard] = {}
        self._locks: dict[str, int] = {}  # physical collection -> fd holding its flock

    # ------------------------------------------------------------------ plumbing
    def _dir(self, collection: str) -> Path:
        return self.index_dir / self.physical(collection)

    # ------------------------------------------------------------------ aliases
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
        self._lock(physical)
        shard = self._shards.pop(physical, None)
        if shard is not None:
            shard.close()
        shutil.rmtree(self.index_dir / physical, ignore_errors=True)
        os.close(self._locks.pop(physical))

    def remove_alias(self, collection: str) -> None:
        (self.index_dir / f"{collection}{ALIAS_SUFFIX}").unlink(missing_ok=True)

    def list_collections(self) -> list[str]:
        if not self.index_dir.is_dir():
            return []
        return sorted(entry.name for entry in self.index_dir.iterdir() if entry.is_dir())

    def _lock(self, physical: str) -> None:
        """Hold the collection's lock file for as long as this index is open (see the module
        docstring for why Qdrant Edge's own lock does not do)."""
        if physical in self._locks:
            return
        try:
            self.index_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.index_dir / f"{physical}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise IndexUnavailable(
                f"{self.index_dir}: cannot hold the index ({error.strerror}). Set [paths] "
                "index_dir to a folder you can write to, or fix its permissions."
            ) from error
        started = time.monotonic()
        deadline = started + self.busy_timeout_s
        tell_at = started + min(1.0, self.busy_timeout_s / 2)
        told = False
        wanted = self.index_dir / f"{physical}.wait"
        # a server announces on a file of its own: it checks .wait to let an ingest go first,
        # and would find its own lock there
        announce = self.index_dir / f"{physical}{SERVER_WAIT if self.yield_to_waiters else WAIT}"
        waiting: int | None = None  # fd holding a shared flock on the announce file
        try:
            while True:
                if self.yield_to_waiters and time.monotonic() < deadline and _held(wanted):
                    time.sleep(0.02)  # an ingest waits already: its turn first
                    continue
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        os.close(fd)
                        raise _busy(self.index_dir / physical, self.busy_timeout_s) from None
                    if waiting is None:  # "I am waiting": a server holding it lets go
                        waiting = os.open(announce, os.O_RDWR | os.O_CREAT, 0o644)
                        fcntl.flock(waiting, fcntl.LOCK_SH)
                    # a server lets go within a tenth of a second: only a real wait is told,
                    # and told before the deadline however short the timeout
                    if not told and self.on_wait is not None and time.monotonic() > tell_at:
                        self.on_wait(
                            f"{self.index_dir / physical} is in use by another citeloom "
                            f"process; waiting up to {self.busy_timeout_s:g} s ..."
                        )
                        told = True
                    time.sleep(0.02 if waiting is not None and not told else 0.1)
        finally:
            if waiting is not None:
                os.close(waiting)
        self._locks[physical] = fd

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

    def _meta(self, collection: str) -> dict[str, Any] | None:
        # Every use of a collection starts here or in _shard, with the lock: an index_dir that
        # cannot hold the index fails alike for validate, query and ingest (not only when
        # something is written), and nothing is read while another process writes.
        self._lock(self.physical(collection))
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
        self._lock(physical)
        shard_dir = self.index_dir / physical / "shard"
        if not shard_dir.is_dir():
            return None
        try:
            shard = EdgeShard.load(str(shard_dir))
        except Exception as error:  # busy here means a process that is not citeloom
            raise _unavailable(shard_dir, error) from error
        self._shards[physical] = shard
        return shard

    # ------------------------------------------------------------------ collections
    def collection_info(self, collection: str) -> CollectionInfo | None:
        meta = self._meta(collection)
        if meta is None:
            return None
        shard = self._shard(collection)
        # the shard keeps its point count; an exact count() would visit every point
        points = shard.info().points_count if shard is not None else 0
        return CollectionInfo(
            name=collection,
            embed_model=str(meta.get("embed_model")),
            dimensions=int(meta.get("dimensions", 0)),
            points=points,
            languages=languages_of(meta),
        )

    def _languages(self, collection: str) -> tuple[str, ...]:
        """What the collection's BM25 terms are stemmed for: every chunk and query of it is
        encoded so (``collection_meta``)."""
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
        self._lock(self.physical(collection))  # before reading the model: no race to create
        meta = self._meta(collection)
        if meta is not None:
            guard(collection, meta, embed_model, languages)
        else:
            self._ensure_room()
            meta = new_meta(collection, embed_model, dimensions, languages)
            folder = self._dir(collection)
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
            self._create_shard(collection, int(meta["dimensions"]))
        self._ensure_indexes(self._require(collection))

    def _create_shard(self, collection: str, dimensions: int) -> None:
        shard_dir = self._dir(collection) / "shard"
        try:
            shard = EdgeShard.create(str(shard_dir), _config(dimensions))
        except Exception as error:
            raise _unavailable(shard_dir, error) from error
        self._shards[self.physical(collection)] = shard

    @staticmethod
    def _ensure_indexes(shard: EdgeShard) -> None:
        """Payload indexes, created on first use (also on collections made by older
        versions: building one over existing points is how Qdrant adds it)."""
        have = set(shard.info().payload_schema)
        for key, kind in payload_indexes():
            if key not in have:
                schema: Any = {
                    "keyword": PayloadSchemaType.Keyword,
                    "integer": PayloadSchemaType.Integer,
                }.get(kind) or _text_index(phrases=kind == "phrase text")
                shard.update(UpdateOperation.create_field_index(key, schema))

    def _require(self, collection: str) -> EdgeShard:
        shard = self._shard(collection)
        if shard is None:
            raise IndexUnavailable(
                f"collection '{collection}' does not exist under {self.index_dir}. Run "
                "citeloom ingest first."
            )
        return shard

    # ------------------------------------------------------------------ writing
    def replace_document(
        self, collection: str, doc_id: str, source_path: str, points: Sequence[IndexPoint]
    ) -> None:
        shard = self._require(collection)
        self._ensure_room(_bytes_for(points))
        languages = self._languages(collection)
        edge_points = [_edge_point(p, languages) for p in points]
        # New chunks first, then whatever else belonged to this file or content: a crash in
        # between leaves the new copy complete and the old one removable by the next run.
        if edge_points:
            shard.update(UpdateOperation.upsert_points(edge_points))
        stale = Filter(
            should=[
                FieldCondition(key="doc_id", match=MatchValue(doc_id)),
                FieldCondition(key="source.path", match=MatchValue(source_path)),
            ],
            must_not=[HasIdCondition({uuid.UUID(p.id) for p in points})] if points else None,
        )
        shard.update(UpdateOperation.delete_points_by_filter(stale))
        shard.flush()

    def upsert_points(self, collection: str, points: Sequence[IndexPoint]) -> None:
        shard = self._require(collection)
        languages = self._languages(collection)
        for start in range(0, len(points), 1024):
            batch = points[start : start + 1024]
            self._ensure_room(_bytes_for(batch))
            shard.update(UpdateOperation.upsert_points([_edge_point(p, languages) for p in batch]))
        shard.flush()

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
        dimensions = int((self._meta(collection) or {}).get("dimensions", 0))
        try:
            shard = EdgeShard.load(str(shard_dir), _config(dimensions))
        except Exception as error:
            raise _unavailable(shard_dir, error) from error
        self._shards[physical] = shard
        shard.optimize()

    def delete_document(self, collection: str, doc_id: str) -> None:
        shard = self._require(collection)
        self._ensure_room()
        only = Filter(must=[FieldCondition(key="doc_id", match=MatchValue(doc_id))])
        shard.update(UpdateOperation.delete_points_by_filter(only))
        shard.flush()

    def relabel_document(
        self, collection: str, doc_id: str, fields: dict[str, dict[str, Any]]
    ) -> None:
        shard = self._require(collection)
        self._ensure_room()
        only = Filter(must=[FieldCondition(key="doc_id", match=MatchValue(doc_id))])
        for key, values in fields.items():
            shard.update(UpdateOperation.set_payload_by_filter(only, values, key=key))
        shard.flush()

    # ------------------------------------------------------------------ reading
    def documents(self, collection: str, project: str) -> list[DocumentSummary]:
        shard = self._shard(collection)
        if shard is None:
            return []
        payloads: list[dict[str, Any]] = []
        offset = None
        project_filter = Filter(must=[FieldCondition(key="project", match=MatchValue(project))])
        while True:
            records, offset = shard.scroll(
                ScrollRequest(
                    offset=offset,
                    limit=1024,
                    filter=project_filter,
                    with_payload=list(SUMMARY_FIELDS),
                )
            )
            payloads.extend(record.payload or {} for record in records)
            if offset is None:
                break
        return summarise_documents(payloads)

    def dense_search(
        self, collection: str, vector: Sequence[float], filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        shard = self._require(collection)
        request = QueryRequest(
            limit=limit,
            query=Query.Nearest(list(vector), using=DENSE),
            filter=_edge_filter(filters),
            params=RESCORED,
            with_payload=True,
        )
        return _scored(shard.query(request))

    def text_search(
        self, collection: str, text: str, filters: SearchFilter, limit: int
    ) -> list[ScoredPoint]:
        languages = self._languages(collection)
        indices, values = bm25.encode_query(text, languages, partial(self._idf, collection))
        if not indices:
            return []
        shard = self._require(collection)
        request = QueryRequest(
            limit=limit,
            query=Query.Nearest(SparseVector(indices=indices, values=values), using=SPARSE),
            filter=_edge_filter(filters),
            with_payload=True,
        )
        return _scored(shard.query(request))

    def term_weights(self, collection: str, text: str) -> dict[str, float]:
        languages = self._languages(collection)
        words, idf = bm25.weigh_query(text, languages, partial(self._idf, collection))
        return bm25.word_weights(words, idf)

    def _idf(self, collection: str, terms: Sequence[int]) -> dict[int, float]:
        """The engine's IDF of each term some chunk holds: one single-term query per term,
        planned as one batch; the best chunk holding the term reveals it (score / stored
        weight), and no hit means no chunk has it."""
        shard = self._shard(collection)
        if shard is None or not terms:
            return {}
        probes = shard.query_batch(
            QueryBatchRequest(
                [
                    QueryRequest(
                        limit=1,
                        query=Query.Nearest(SparseVector(indices=[t], values=[1.0]), using=SPARSE),
                        with_vector=[SPARSE],
                    )
                    for t in terms
                ]
            )
        )
        idf = {}
        for term, hits in zip(terms, probes, strict=True):
            vectors: Any = hits[0].vector if hits else None
            if vectors:
                idf[term] = bm25.idf_from_probe(float(hits[0].score), vectors[SPARSE], term)
        return idf

    def payloads(self, collection: str, ids: Sequence[str]) -> dict[str, dict]:
        shard = self._require(collection)
        records = shard.retrieve([uuid.UUID(i) for i in ids], with_payload=True, with_vector=False)
        return {str(r.id): r.payload or {} for r in records}

    def scroll_points(
        self, collection: str, offset: str | None = None, limit: int = 256
    ) -> tuple[list[IndexPoint], str | None]:
        shard = self._shard(collection)
        if shard is None:
            return [], None
        records, after = shard.scroll(
            ScrollRequest(
                offset=uuid.UUID(offset) if offset else None,
                limit=limit,
                with_payload=True,
                with_vector=True,
            )
        )
        return [stored_point(r) for r in records], None if after is None else str(after)

    def chunks(self, collection: str, filters: SearchFilter, limit: int) -> dict[str, dict]:
        shard = self._shard(collection)
        found: dict[str, dict] = {}
        offset = None
        while shard is not None and len(found) < limit:
            records, offset = shard.scroll(
                ScrollRequest(
                    offset=offset,
                    limit=min(1024, limit - len(found)),
                    filter=_edge_filter(filters),
                    with_payload=True,
                )
            )
            found.update((str(r.id), r.payload or {}) for r in records)
            if offset is None:
                break
        return found

    def count(self, collection: str, filters: SearchFilter) -> int:
        shard = self._shard(collection)
        if shard is None:
            return 0
        return shard.count(CountRequest(filter=_edge_filter(filters), exact=True))

    def make_way(self, busy_timeout_s: float | None = None) -> bool:
        """Between two units of a long-lived server's work (two citations of one check): if
        another process waits for a shard this index holds (its shared lock on
        ``<collection>.wait``), close everything so that it gets the shard now. The next use
        reopens it after the waiter is done, waiting at most ``busy_timeout_s`` (default: as
        before; set whether or not anyone waits). False, and nothing closed, when nobody
        waits: reopening a shard costs about a tenth of a second, too much to pay between
        every two units."""
        if busy_timeout_s is not None:
            self.busy_timeout_s = busy_timeout_s
        if not any(
            _held(self.index_dir / f"{physical}{suffix}")
            for physical in self._locks
            for suffix in (WAIT, SERVER_WAIT)
        ):
            return False
        self.close()
        return True

    def close(self) -> None:
        for shard in self._shards.values():
            shard.close()
        self._shards.clear()
        for fd in self._locks.values():
            os.close(fd)  # releases the flock
        self._locks.clear()


def _held(wanted: Path) -> bool:
    """Whether a process is waiting for the shard (holds the shared lock on ``wanted``)."""
    try:
        fd = os.open(wanted, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases the probe's own lock at once


def _is_busy(error: Exception) -> bool:
    message = str(error)
    return "WouldBlock" in message or "lock" in message.lower()


def _busy(folder: Path, waited: float) -> IndexBusy:
    after = f" after waiting {waited:g} s" if waited else ""
    return IndexBusy(
        f"index busy{after}: {folder} is open in another citeloom process (the embedded "
        "engine allows one at a time). Try again when it has finished, raise [qdrant] "
        "busy_timeout_s, or use a Qdrant server for shared access."
    )


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


def _bytes_for(points: Sequence[IndexPoint]) -> int:
    """What storing these points may take on disk, generously: each vector, payload and text
    lands in the write-ahead log and again in the segment and its indexes. Measured by
    benchmarks/index_disk_use.py: 8.0-8.8 KB a chunk of 384 dimensions and 1,200 characters
    on ext4; this estimate is about twice that."""
    return sum(
        3 * (4 * len(p.vector) + len(json.dumps(p.payload, default=str)) + 2 * len(p.text))
        for p in points
    )
