"""One call's time limit, shared by the door that waits for an answer and the use case that
does the work.

A worker thread cannot be interrupted, so the use case checks the ``Deadline`` between its
units of work and stops there: nothing it left half-done is ever reported as done. Once a write
has begun it is finished, and the door waits for it and answers truly
(``entrypoints/time_limit.py`` runs the work and gives up at the deadline).
"""

from __future__ import annotations

import threading
import time

# An index wait ends this long before the deadline, so the answer is still on time.
WAIT_MARGIN_S = 0.25


class Deadline:
    """One call's time limit, shared by the door (which stops waiting) and the worker (which
    stops before writing). Once a write has begun it is finished: the door then waits for it
    rather than report a timeout over a half-written call."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._given_up = False
        self.writing = False

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        return self._given_up or time.monotonic() >= self.end

    def wait_for_index(self, longest: float) -> float:
        """How long this call may wait for another process holding the embedded index: at
        most ``longest`` ([qdrant] busy_timeout_s), ending before the deadline does."""
        return min(longest, max(0.0, self.remaining() - WAIT_MARGIN_S))

    def may_write(self) -> bool:
        with self._lock:
            if self.expired():
                return False
            self.writing = True
            return True

    def give_up(self) -> bool:
        """The door stops waiting; False if a write has begun (wait for it instead)."""
        with self._lock:
            if self.writing:
                return False
            self._given_up = True
            return True
