"""One request's time limit, for every long-lived server (``citeloom mcp``, ``citeloom serve``).

The work runs in a worker thread; the server answers when the work is done or when its time is
up, whichever comes first. A worker cannot be interrupted, so it checks the ``Deadline``
between its units of work and stops there: nothing it left half-done is ever reported as
done. Once a write has begun it is finished, and the server waits for it and answers truly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from citeloom.domain.errors import TimeLimitExceeded

T = TypeVar("T")
# An index wait ends this long before the deadline, so the answer is still on time.
WAIT_MARGIN_S = 0.25


class Deadline:
    """One call's time limit, shared by the server (which stops waiting) and the worker
    (which stops before writing). Once a write has begun it is finished: the server then
    waits for it rather than report a timeout over a half-written call."""

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
        """The server stops waiting; False if a write has begun (wait for it instead)."""
        with self._lock:
            if self.writing:
                return False
            self._given_up = True
            return True


async def within(deadline: Deadline, work: Callable[[], T]) -> T:
    """``work()`` in a worker thread, its answer or its exception; ``TimeLimitExceeded`` when
    the deadline comes first and no write has begun (the worker stops at its next check of
    the deadline, and whatever it returns then is dropped)."""
    outcome: dict[str, Any] = {}
    done = anyio.Event()

    async def run() -> None:
        try:
            outcome["ok"] = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except Exception as error:
            outcome["error"] = error
        done.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(run)
            with anyio.move_on_after(deadline.remaining()):
                await done.wait()
            if not done.is_set() and not deadline.give_up():
                await done.wait()  # a write began in time: finish it, answer truly
            if not done.is_set():
                group.cancel_scope.cancel()
    finally:
        deadline.give_up()  # also when the caller is gone: the worker stops at its next check
    if "error" in outcome:
        raise outcome["error"]
    if "ok" not in outcome:
        raise TimeLimitExceeded(f"did not finish within {deadline.seconds:g} s")
    return outcome["ok"]
