from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol


class ChangeWatcher(Protocol):
    """File-system events, grouped: what ``watch`` follows a project's sources with."""

    def changes(
        self,
        roots: Sequence[Path],
        accept: Callable[[Path], bool],
        should_stop: Callable[[], bool],
    ) -> Iterator[set[Path]]:
        """Batches of changed paths under ``roots`` that ``accept`` keeps, each yielded once
        the files have settled: no event for a while, and their sizes and modification times
        unchanged since (a file still being written is never handed over half-done). Ends
        when ``should_stop`` says so. The first batch is empty, handed over as soon as the
        watching has begun: a run made then misses no change."""
        ...
