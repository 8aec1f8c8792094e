"""Conversion one document ahead of the rest of an ingest.

Conversion is mostly Python (Docling's stages hold the GIL), embedding mostly onnxruntime
(which releases it), so on two cores a thread that converts document n+1 while document n is
chunked, embedded and written uses the second core that a sequential run leaves idle (ADR 0009).

Only conversions move to the thread. Everything that decides or changes something (hashes
compared with the index, matching, chunking, embedding, writes, the audit, progress lines)
stays on the calling thread, in file order, so a run decides and records exactly what a
sequential one does. What the thread produces is a guess the caller may ignore: a document the
caller finds already stored is skipped even if it was converted ahead (its conversion is only
cached), and a document the thread passed over is converted by the caller itself.

With ``ingest --jobs N`` (ADR 0024) there are N such threads, each handing its conversions to
a worker process of its own (``helpers``): they claim the run's files in order, so the caller
still takes them in file order and nothing else changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from citeloom.domain.models import ConvertedDocument
from citeloom.services.pipeline import timed

Convert = Callable[[Path, str], ConvertedDocument]
# the content to convert a file as, or None when the file needs no conversion (already stored
# completely, or unreadable: the caller then reports it)
Wanted = Callable[[Path], str | None]


@dataclass
class _Done:
    sha256: str
    document: ConvertedDocument | None
    error: Exception | None
    seconds: float


class ConversionAhead:
    """Converts the files of a run in order on one thread (or one per helper), at most
    ``depth`` conversions ahead of what the caller has taken.

    Memory stays bounded: one conversion running per thread and ``depth`` converted documents
    waiting. Daemon threads, so that a second Ctrl-C (or any error) ends the process without
    waiting for a conversion nobody will use; ``close(wait=True)`` waits for them instead.
    ``helpers``: one conversion function per thread (a worker process each); without them one
    thread converts with ``convert``, which is also what the caller converts with itself.
    """

    def __init__(
        self,
        files: Sequence[Path],
        convert: Convert,
        wanted: Wanted,
        depth: int = 1,
        helpers: Sequence[Convert] = (),
    ) -> None:
        self._files = list(files)
        self._convert = convert
        self._wanted = wanted
        self._depth = max(1, depth)
        self._lock = threading.Condition()
        self._claimed: set[Path] = set()  # files a thread or the caller has started on
        self._done: dict[Path, _Done | None] = {}  # None: a thread passed it over
        self._waiting = 0  # converted documents not yet taken
        self._closed = False
        converts = list(helpers) or [convert]
        self._running = len(converts)  # threads not yet returned
        self._finished = False  # every thread has returned: nothing more will be converted
        names = [f"citeloom-convert-{n}" for n in range(1, len(converts) + 1)]
        self._threads = [
            threading.Thread(target=self._work, args=(one,), name=name, daemon=True)
            for one, name in zip(converts, names if helpers else ["citeloom-convert"], strict=True)
        ]
        for thread in self._threads:
            thread.start()

    def take(self, path: Path, sha256: str, durations: dict[str, float]) -> ConvertedDocument:
        """The conversion of ``path``, made on the thread, or here when the thread did not
        convert it; its seconds go to ``durations`` and its error is raised here, as if the
        caller had converted the file itself."""
        with self._lock:
            if path in self._claimed:
                while path not in self._done and not self._finished:
                    self._lock.wait()
                done = self._done.pop(path, None)
                if done is not None:
                    self._waiting -= 1
                    self._lock.notify_all()
            else:  # the thread has not reached it: it must not start on it now
                self._claimed.add(path)
                done = None
        if done is None or done.sha256 != sha256:
            with timed(durations, "convert"):
                return self._convert(path, sha256)
        durations["convert"] = done.seconds
        if done.error is not None:
            raise done.error
        assert done.document is not None
        return done.document

    def passed(self, path: Path) -> None:
        """The caller is done with ``path`` without its conversion (skipped, or failed before
        converting): a conversion made ahead is dropped."""
        with self._lock:
            self._claimed.add(path)
            if self._done.pop(path, None) is not None:
                self._waiting -= 1
                self._lock.notify_all()

    def close(self, wait: bool = False) -> None:
        """No new conversion starts; ``wait``: until the one running has finished (its
        result then sits in the conversion cache for the next run)."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        if wait:
            for thread in self._threads:
                thread.join()

    def _work(self, convert: Convert) -> None:
        try:
            self._convert_all(convert)
        finally:  # also if it died of a bug: the caller then converts what is left itself
            with self._lock:
                self._running -= 1
                self._finished = self._running == 0
                self._lock.notify_all()

    def _convert_all(self, convert: Convert) -> None:
        for path in self._files:
            with self._lock:
                while self._waiting >= self._depth and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                if path in self._claimed:
                    continue
                self._claimed.add(path)
            done: _Done | None = None
            try:
                done = self._convert_one(path, convert)
            finally:  # a claimed file is always answered, or the caller would wait for it
                with self._lock:
                    self._done[path] = done
                    if done is not None:
                        self._waiting += 1
                    self._lock.notify_all()

    def _convert_one(self, path: Path, convert: Convert) -> _Done | None:
        try:
            sha256 = self._wanted(path)
        except Exception:  # the caller meets the same error when it reads the file
            return None
        if sha256 is None:
            return None
        start = time.perf_counter()
        try:
            document = convert(path, sha256)
        except Exception as error:  # raised again on the caller's thread, by take()
            return _Done(sha256, None, error, time.perf_counter() - start)
        return _Done(sha256, document, None, time.perf_counter() - start)
