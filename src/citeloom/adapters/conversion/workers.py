"""Conversion in a worker process (``ingest --jobs N``, ADR 0024).

Each ``WorkerConverter`` owns one child process, started with the ``spawn`` method on its first
conversion (a run that converts nothing starts none), which builds its own converter (Docling is
imported there, never in the parent) and converts one file at a time for it. The parent keeps
everything else: matching, chunking, embedding, every write and the audit, in file order.

A child that dies (killed for memory, a crash inside a native library) fails the one file it
was converting, with a message naming it; the next conversion starts a new child. A child
ignores Ctrl-C: the parent decides whether the conversions running are waited for (the first
Ctrl-C) or stopped (``close``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from citeloom.domain.errors import DocumentError
from citeloom.domain.models import ConvertedDocument
from citeloom.ports import Converter, PagesSeen, ReportsPages

# Peak RSS of one worker converting the shared papers (benchmarks/ingest_throughput.py
# --jobs 2, ADR 0024: 351 MB), rounded up: what ``default_jobs`` sets aside for each.
WORKER_MB = 400
# What the writer (this process: embedder, index, documents in hand) peaked at in that run
# (661 MB), rounded up.
WRITER_MB = 700
# Conversion's share of an ingest's CPU is about a quarter to a third (0.078-0.1 s of a page's
# 0.3): one converting process per three cores keeps the one embedding writer fed.
CORES_PER_WORKER = 3
_STOP_WAIT_S = 5.0


def default_jobs(cores: int, available_mb: float) -> int:
    """Worker processes for an ingest on a machine with ``cores`` usable cores and
    ``available_mb`` of memory free: one per three cores, as many as the memory left beside
    the writer holds, and 1 (conversion on a thread of the process, no worker) when that
    is all there is room for."""
    by_cores = cores // CORES_PER_WORKER
    by_memory = int((available_mb - WRITER_MB) // WORKER_MB)
    return max(1, min(by_cores, by_memory))


def machine_jobs() -> int:
    """``default_jobs`` for this machine: the cores this process may run on and the memory
    the kernel says is available (Linux; elsewhere the cores alone decide)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return default_jobs(cores, _available_mb())


def _available_mb() -> float:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("inf")


def _serve(conn: Connection, build: Callable[[], Converter]) -> None:
    """The child: build a converter on the first file, then convert what the parent sends
    until it sends None or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    converter: Converter | None = None

    def seen(path: Path, done: int, total: int) -> None:  # told to the parent as it goes
        conn.send(("pages", (str(path), done, total)))

    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if job is None:
            return
        path, sha256 = job
        try:
            if converter is None:
                converter = build()
                if isinstance(converter, ReportsPages):
                    converter.report_pages(seen)
            answer: tuple[str, object] = ("ok", converter.convert(Path(path), sha256))
        except Exception as error:  # raised again in the parent, as the converter raised it
            answer = ("error", _portable(error))
        conn.send(answer)


def _portable(error: Exception) -> Exception:
    """The error itself when it survives pickling, else its type and words."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _how_it_ended(exitcode: int | None) -> str:
    if exitcode is None:
        return "it stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (the system may have run out of memory)" if -exitcode == signal.SIGKILL else ""
        return f"it was killed by {name}{hint}"
    return f"it exited with code {exitcode}"


class WorkerConverter:
    """Converts in a child process of its own; one conversion at a time (a lock), so one
    worker may serve a conversion thread and, rarely, the caller."""

    def __init__(self, build: Callable[[], Converter], name: str = "citeloom-worker") -> None:
        """``build``: makes the child's converter; it must pickle (a module-level function,
        or a ``functools.partial`` of one over picklable settings)."""
        self._build = build
        self._name = name
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self.started = 0  # children started, a crash's replacement included
        self._seen: PagesSeen | None = None

    def report_pages(self, seen: PagesSeen | None) -> None:
        """The child's pages, as its converter tells them (between a job and its answer)."""
        self._seen = seen

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        with self._lock:
            conn = self._child()
            try:
                conn.send((str(path), sha256))
                kind, value = conn.recv()
                while kind == "pages":
                    assert isinstance(value, tuple)
                    if (seen := self._seen) is not None:
                        seen(Path(value[0]), value[1], value[2])
                    kind, value = conn.recv()
            except (EOFError, OSError, pickle.UnpicklingError) as error:
                ended = self._reap()
                raise DocumentError(
                    f"{path}: the conversion worker stopped while converting this file "
                    f"({ended}). The rest of the batch goes on; ingest this file alone "
                    "with --jobs 1 to see why, and if memory ran out, lower --jobs or "
                    "[conversion] max_pages."
                ) from error
        if kind == "error":
            assert isinstance(value, Exception)
            raise value
        assert isinstance(value, ConvertedDocument)
        return value

    def _child(self) -> Connection:
        if self._process is not None and self._conn is not None and self._process.is_alive():
            return self._conn
        self._reap()
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        process = context.Process(
            target=_serve, args=(theirs, self._build), name=self._name, daemon=True
        )
        process.start()
        theirs.close()
        self._process, self._conn = process, mine
        self.started += 1
        return mine

    def _reap(self) -> str:
        """Forget a child that is gone (or stop one that no longer answers); how it ended."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is None:
            return "it was not running"
        process.join(_STOP_WAIT_S)
        if process.exitcode is None:
            process.kill()
            process.join()
            return _how_it_ended(None)
        return _how_it_ended(process.exitcode)

    def close(self) -> None:
        """Stop the child: asked to, when idle; killed when a conversion is still running
        (an error or a second Ctrl-C: nobody will take its result)."""
        if self._lock.acquire(blocking=False):
            try:
                if self._conn is not None:
                    with contextlib.suppress(OSError):
                        self._conn.send(None)
                self._reap()
            finally:
                self._lock.release()
            return
        process = self._process
        if process is not None and process.is_alive():
            process.kill()  # the converting thread then sees the pipe close and lets go
