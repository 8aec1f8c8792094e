"""The index's lifetime, as the application object holds it for its use cases.

A one-shot process (the CLI) opens the index for each unit of work and closes it after, so the
embedded shard's lock is never held longer than the work.

A long-lived one (``citeloom serve``, ``citeloom mcp``, the TUI) keeps it open: opening an
embedded shard costs about a tenth of a second, most of a warm query. A process that wants the
shard (an ingest in a terminal, a CLI query) announces itself with a shared lock on
``<collection>.wait``; a watcher thread sees it within ``WATCH_S`` and, when no call is
running, lets go of the shard at once (the port's ``make_way``), and every call also makes way
first. Calls take turns on the index (one shard is never opened twice, not even by two threads
of this process), and a call waits for another process no longer than its own time allows.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from citeloom.domain.errors import IndexUnavailable, TimeLimitExceeded
from citeloom.ports import Index
from citeloom.services.deadline import Deadline

WATCH_S = 0.05  # how often an idle long-lived process looks for one waiting for the index
_log = logging.getLogger(__name__)

Opener = Callable[[float | None], Index]  # an index waiting at most this long (None: default)


class IndexHolding:
    def __init__(
        self,
        open_index: Opener,
        busy_timeout_s: float,
        long_lived: bool,
        stopping: Callable[[], bool] = lambda: False,
    ) -> None:
        """``stopping``: whether the server is shutting down (a long call then stops at its
        next unit of work)."""
        self.open_index = open_index
        self.busy_timeout_s = busy_timeout_s
        self.long_lived = long_lived
        self.stopping = stopping
        self._lock = threading.Lock()  # one call on the index at a time
        self._index: Index | None = None
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None

    def _wait(self, deadline: Deadline) -> float:
        return deadline.wait_for_index(self.busy_timeout_s)

    @contextmanager
    def unit(self, deadline: Deadline) -> Iterator[Index]:
        """The index for one unit of work. Long-lived: the warm index, kept open afterwards
        and handed over first to a process that waits for it; a call waits for another
        process holding the embedded project no longer than its deadline allows."""
        if not self.long_lived:
            with self.open_index(None) as index:
                yield index
            return
        if not self._lock.acquire(timeout=max(deadline.remaining(), 0.001)):
            raise TimeLimitExceeded("an earlier call held the index until time ran out")
        try:
            if deadline.expired():
                raise TimeLimitExceeded("time ran out before the call started")
            if self._index is None:
                self._index = self.open_index(self._wait(deadline))
                self._watch()
            else:  # a process waiting already goes first; then ours reopens within our time
                self._index.make_way(self._wait(deadline))
            try:
                yield self._index
            except IndexUnavailable:
                self._drop()  # a server gone, a shard taken: open afresh next time
                raise
        finally:
            self._lock.release()

    def between(self, index: Index, deadline: Deadline) -> Callable[[], None] | None:
        """What a long-lived call does between two of its units of work (two citations of a
        check): stop when its time is up or the server is stopping, and let a process waiting
        for the embedded index have it now. A one-shot process has nothing to hand over."""
        if not self.long_lived:
            return None

        def pause() -> None:
            if deadline.expired() or self.stopping():
                raise TimeLimitExceeded("time ran out between two units of work")
            index.make_way(self._wait(deadline))

        return pause

    def _watch(self) -> None:
        """Start the thread that hands the idle index to a process waiting for it."""
        if self._watcher is not None:
            return

        def watch() -> None:
            while not self._closed.wait(WATCH_S):
                if not self._lock.acquire(blocking=False):
                    continue  # a call is running: it makes way between its units itself
                try:
                    if self._index is not None:
                        self._index.make_way(self.busy_timeout_s)
                except Exception as error:  # the next call opens the index afresh
                    _log.warning("releasing the index: %s", error)
                    self._drop()
                finally:
                    self._lock.release()

        self._watcher = threading.Thread(target=watch, name="citeloom-index-watch", daemon=True)
        self._watcher.start()

    def _drop(self) -> None:
        index, self._index = self._index, None
        if index is not None:
            try:
                index.close()
            except Exception as error:  # closing a broken connection: nothing more to do
                _log.debug("closing the index: %s", error)

    def close(self) -> None:
        """Release the index."""
        self._closed.set()
        with self._lock:
            self._drop()
