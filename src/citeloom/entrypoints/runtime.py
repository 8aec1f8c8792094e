"""The warm application behind every long-lived door: ``citeloom mcp``, ``citeloom serve``'s
REST routes and ``/mcp/``, and the TUI.

``app`` is the use-case layer held long-lived (``services.application.Citeloom``: the index kept
open between calls and handed to a process that waits for it, each model loaded once); what a
door adds here is running a call in a worker thread under its time limit, and saying so when
the limit or the server's shutdown ends it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from citeloom.domain.errors import TimeLimitExceeded
from citeloom.entrypoints.time_limit import Deadline, within

if TYPE_CHECKING:
    from citeloom.config import Settings
    from citeloom.services.application import Citeloom

T = TypeVar("T")


@dataclass(frozen=True)
class Limit:
    """A call's time limit and the setting that sets it, named in the message over it."""

    seconds: float
    setting: str  # "[mcp] timeout_s"


class Runtime:
    def __init__(
        self,
        settings: Settings,
        stopping: Callable[[], bool] = lambda: False,
        app: Citeloom | None = None,
    ) -> None:
        """``stopping``: whether the server is shutting down (a long call then stops at its
        next unit of work); ``app``: the application to serve (default: the one ``bootstrap``
        builds over ``settings``, long-lived)."""
        from citeloom.bootstrap.application import application

        self.settings = settings
        self.stopping = stopping
        self.app = app or application(settings, long_lived=True, stopping=stopping)

    def close(self) -> None:
        self.app.close()

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
