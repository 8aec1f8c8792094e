"""Who may open an embedded shard: one process at a time, and the others wait their turn.

Under ``index_dir``::

    <collection>.lock          held (flock, exclusive) by the one process that has the shard
    <collection>.wait          held shared by a process waiting for it (an ingest, a CLI query)
    <collection>.wait-server   held shared by a long-lived server waiting for it

Qdrant Edge's own WAL lock is not enough: measured with qdrant-edge-py 0.9.0, a second process
trying to open a shard that another is writing to gets in after a few attempts and both then
fail with "Tracker journal ... is shorter than expected". So every opener first takes the
exclusive ``flock`` on a lock file of ours, and a second one waits for it (announcing itself on
a wait file, so that a server holding the shard lets go), then fails with a clear "index busy".
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from citeloom.domain.errors import IndexBusy, IndexUnavailable

# Lock files a process waiting for a shard holds shared (``ShardLocks.hold``): an ingest or a
# CLI query, and a long-lived server (which lets the former go first).
WAIT = ".wait"
SERVER_WAIT = ".wait-server"


@dataclass
class ShardLocks:
    """The locks one process holds on the shards under ``index_dir``.

    ``busy_timeout_s``: how long to wait for another process to release a shard before
    failing with "index busy"; ``on_wait`` is told once that we are waiting;
    ``yield_to_waiters``: let a process already waiting for a shard have it first (a
    long-lived server opening the index for each call, which would otherwise take the shard
    back between two calls before a waiting ingest gets its turn)."""

    index_dir: Path
    busy_timeout_s: float = 0.0
    on_wait: Callable[[str], None] | None = None
    yield_to_waiters: bool = False
    # physical collection -> fd holding its flock
    _fds: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    def __contains__(self, physical: str) -> bool:
        return physical in self._fds

    def hold(self, physical: str) -> None:
        """Hold the collection's lock file until ``release``, waiting for another process
        at most ``busy_timeout_s`` (see the module docstring for why Qdrant Edge's own lock
        does not do)."""
        if physical in self._fds:
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
        wanted = self.index_dir / f"{physical}{WAIT}"
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
        self._fds[physical] = fd

    def waited_for(self) -> bool:
        """Whether another process waits for a shard held here (its shared lock on one of
        the wait files)."""
        return any(
            _held(self.index_dir / f"{physical}{suffix}")
            for physical in self._fds
            for suffix in (WAIT, SERVER_WAIT)
        )

    def release(self, physical: str) -> None:
        os.close(self._fds.pop(physical))  # releases the flock

    def release_all(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


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


def _busy(folder: Path, waited: float) -> IndexBusy:
    after = f" after waiting {waited:g} s" if waited else ""
    return IndexBusy(
        f"index busy{after}: {folder} is open in another citeloom process (the embedded "
        "engine allows one at a time). Try again when it has finished, raise [qdrant] "
        "busy_timeout_s, or use a Qdrant server for shared access."
    )
