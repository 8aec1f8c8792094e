"""The one warm runtime behind every long-lived door: ``citeloom mcp``, and ``citeloom serve``'s
REST routes and ``/mcp/``.

What outlives a request or a tool call lives here once: the settings and project lookup, one
cache of embedding models (each loaded once per process, however many doors use it), one
index kept open between calls, and one way to run work under a time limit (``time_limit``).

The index policy. Opening an embedded shard costs about a tenth of a second, most of a warm
query, so the runtime keeps it open between calls. A process that wants the shard (an ingest
in a terminal, a CLI query) announces itself with a shared lock on ``<collection>.wait``; a
watcher thread sees it within ``WATCH_S`` and, when no call is running, closes the shard at
once, and every call also makes way first. Calls take turns on the index (one shard is never
opened twice, not even by two threads of this process), and a call waits for another process
no longer than its own time allows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from citeloom import bootstrap
from citeloom.domain.errors import CiteloomError, IndexUnavailable, TimeLimitExceeded
from citeloom.entrypoints.time_limit import Deadline, within

if TYPE_CHECKING:
    from citeloom.adapters.embedding.loader import LoadedEmbedder
    from citeloom.config import ProjectConfig, Settings
    from citeloom.ports import DocumentText, Index
    from citeloom.services.answer import AnswerService
    from citeloom.services.check import CheckService
    from citeloom.services.evidence import WarmEvidence

T = TypeVar("T")
WATCH_S = 0.05  # how often an idle runtime looks for a process waiting for the index
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limit:
    """A call's time limit and the setting that sets it, named in the message over it."""

    seconds: float
    setting: str  # "[mcp] timeout_s"


class Runtime:
    def __init__(self, settings: Settings, stopping: Callable[[], bool] = lambda: False) -> None:
        """``stopping``: whether the server is shutting down (a long call then stops at its
        next unit of work)."""
        self.settings = settings
        self.stopping = stopping
        self.model_load_s: dict[str, float] = {}
        self._models: dict[str, LoadedEmbedder] = {}
        self._models_lock = threading.Lock()
        self._index_lock = threading.Lock()  # one call on the index at a time
        self._index: Index | None = None
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None
        self._evidence: dict[str, WarmEvidence] = {}  # by embedding model
        self._texts: DocumentText | None = None

    # ------------------------------------------------------------------ projects and models
    def project(self, name: str) -> ProjectConfig:
        """The configured project, or ``UnknownProject``."""
        return self.settings.get_project(name)

    @property
    def models_loaded(self) -> list[str]:
        return sorted(self._models)

    def embedder(self, project: str) -> LoadedEmbedder:
        """The project's model, loaded once on first use and kept for the process's life."""
        config = self.project(project)
        with self._models_lock:
            model = config.embedding_model
            if model not in self._models:
                started = time.perf_counter()
                self._models[model] = bootstrap.embedder(self.settings, config)
                self.model_load_s[model] = time.perf_counter() - started
            return self._models[model]

    def evidence(self, project: str) -> WarmEvidence:
        """Sentence vectors of the project's model and stored page texts, kept between
        answers and checks (embedding candidate sentences was most of an answer's time)."""
        model = self.project(project).embedding_model
        with self._models_lock:
            if self._texts is None:
                self._texts = bootstrap.document_text(self.settings)
            if model not in self._evidence:
                self._evidence[model] = bootstrap.warm_evidence(self.settings, self._texts)
            return self._evidence[model]

    def answer_service(self, project: str, index: Index) -> AnswerService:
        """``citeloom answer`` with this process's model and caches."""
        return bootstrap.answer_service(
            self.settings, project, index, self.embedder(project), self.evidence(project)
        )

    def check_service(self, project: str, index: Index) -> CheckService:
        """``citeloom check`` with this process's model and caches."""
        return bootstrap.check_service(
            self.settings, project, index, self.embedder(project), self.evidence(project)
        )

    def preload(self) -> None:
        """Load every configured project's model now, so the first request is not slow."""
        for name in sorted(self.settings.project):
            try:
                self.embedder(name)
            except CiteloomError as error:  # reported by /health and by that project's calls
                _log.warning("project %s: %s", name, error)

    # ------------------------------------------------------------------ the index
    def _wait(self, deadline: Deadline) -> float:
        return deadline.wait_for_index(self.settings.qdrant.busy_timeout_s)

    @contextmanager
    def index(self, deadline: Deadline) -> Iterator[Index]:
        """The warm index for one call: kept open afterwards, handed over first to a process
        that waits for it. A call waits for another process holding the embedded project no
        longer than the call may last."""
        if not self._index_lock.acquire(timeout=max(deadline.remaining(), 0.001)):
            raise TimeLimitExceeded("an earlier call held the index until time ran out")
        try:
            if deadline.expired():
                raise TimeLimitExceeded("time ran out before the call started")
            if self._index is None:
                self._index = bootstrap.index(self.settings, busy_timeout_s=self._wait(deadline))
                self._watch()
            else:  # a process waiting already goes first; then ours reopens within our time
                bootstrap.make_way(self._index, self._wait(deadline))
            try:
                yield self._index
            except IndexUnavailable:
                self._drop_index()  # a server gone, a shard taken: open afresh next time
                raise
        finally:
            self._index_lock.release()

    def between(self, index: Index, deadline: Deadline) -> Callable[[], None]:
        """What a call does between two of its units of work (two citations of a check):
        stop when its time is up or the server is stopping, and let a process waiting for
        the embedded index have it now."""

        def pause() -> None:
            if deadline.expired() or self.stopping():
                raise TimeLimitExceeded("time ran out between two units of work")
            bootstrap.make_way(index, self._wait(deadline))

        return pause

    def _watch(self) -> None:
        """Start the thread that hands the idle index to a process waiting for it."""
        if self._watcher is not None:
            return

        def watch() -> None:
            while not self._closed.wait(WATCH_S):
                if not self._index_lock.acquire(blocking=False):
                    continue  # a call is running: it makes way between its units itself
                try:
                    if self._index is not None:
                        bootstrap.make_way(self._index, self.settings.qdrant.busy_timeout_s)
                except Exception as error:  # the next call opens the index afresh
                    _log.warning("releasing the index: %s", error)
                    self._drop_index()
                finally:
                    self._index_lock.release()

        self._watcher = threading.Thread(target=watch, name="citeloom-index-watch", daemon=True)
        self._watcher.start()

    def _drop_index(self) -> None:
        index, self._index = self._index, None
        if index is not None:
            try:
                index.close()
            except Exception as error:  # closing a broken connection: nothing more to do
                _log.debug("closing the index: %s", error)

    def close(self) -> None:
        """Release the index (the models go with the process)."""
        self._closed.set()
        with self._index_lock:
            self._drop_index()

    # ------------------------------------------------------------------ running a call
    async def run(self, what: str, work: Callable[[Deadline], T], limit: Limit) -> T:
        """``work`` in a worker thread under ``limit``; over it, ``TimeLimitExceeded`` and
        nothing of the work is reported (the worker stops at its next unit)."""
        deadline = Deadline(limit.seconds)
        try:
            return await within(deadline, partial(work, deadline))
        except TimeLimitExceeded:
            if self.stopping():
                raise TimeLimitExceeded(
                    f"{what} was stopped: the server is shutting down; nothing of it is "
                    "reported. Send it again when the server is back."
                ) from None
            raise TimeLimitExceeded(
                f"{what} did not finish within {limit.setting} = {limit.seconds:g} s "
                "(waiting for earlier calls or an ingest counts); nothing of it is reported. "
                f"Send less at a time (a draft in parts), try again later, or raise "
                f"{limit.setting}."
            ) from None
