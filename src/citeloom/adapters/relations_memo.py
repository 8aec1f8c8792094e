"""What a process remembers of the library's relations between units of work: the graphs it
built, by the key of the files they came from, and the files' digests, by path and stat.

A server answers many queries on one library, and each query builds its ``LibraryRelations``
afresh (so a changed references file is noticed at once): without this memo each would hash
the library and read the relations cache file again, and warn of a cycle again. Bounded
(least recently used first out): a process serves a few libraries, never thousands, and a
library that changes leaves its old keys behind. One memo is owned by the object that lives
as long as the process's configuration (``Settings.relations_memo``); an object made without
one keeps its own, so nothing is shared between tests or processes.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from citeloom.domain.relations import RelationGraph

K = TypeVar("K")
V = TypeVar("V")

GRAPHS = 8  # libraries (and versions of one) kept: a process serves a few projects
DIGESTS = 64  # files: references and relations files of those libraries


class BoundedMemo(Generic[K, V]):
    """A small least-recently-used map, safe to share between a server's threads. A value is
    computed outside the lock: two threads may compute the same one, and either is kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        found = self.get(key)
        if found is None:
            found = compute()
            self.put(key, found)
        return found


class RelationsMemo:
    """The graphs (with their problems) by cache key, and file digests by (path, inode, size,
    modification time): a large library is hashed once per change, not once per query."""

    def __init__(self, graphs: int = GRAPHS, digests: int = DIGESTS) -> None:
        self.graphs: BoundedMemo[str, tuple[RelationGraph, list[str]]] = BoundedMemo(graphs)
        self._digests: BoundedMemo[tuple[str, int, int, int], bytes] = BoundedMemo(digests)

    def digest(self, path: Path) -> bytes:
        """The SHA-256 of the file's bytes (``OSError`` when it cannot be read)."""
        stat = path.stat()
        key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
        return self._digests.get_or_compute(key, lambda: hashlib.sha256(path.read_bytes()).digest())
