"""Running a use case under a time limit, for every long-lived door (``citeloom serve``,
``citeloom mcp``, the TUI).

The work runs in a worker thread; the door answers when the work is done or when its time is
up, whichever comes first. The worker checks its ``Deadline`` (``services/deadline.py``)
between its units of work and stops there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from citeloom.domain.errors import TimeLimitExceeded
from citeloom.services.deadline import Deadline

T = TypeVar("T")
__all__ = ["Deadline", "within"]


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
