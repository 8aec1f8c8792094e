"""File-system events through watchfiles (Rust's notify): no polling loop of our own.

watchfiles groups the events of a burst; on top of that a batch is handed over only when the
files have settled: a quiet period without events, after which their sizes and modification
times are the same as at the end of the previous quiet period. A Zotero sync of hundreds of
items, or a PDF copied over a slow disk, is then one batch, read whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

Stamp = tuple[int, int] | None


def _stamps(paths: set[Path]) -> dict[Path, Stamp]:
    out: dict[Path, Stamp] = {}
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            out[path] = None  # gone (deleted or renamed away): settled too
        else:
            out[path] = (stat.st_size, stat.st_mtime_ns)
    return out


class _StopEvent:
    """What watchfiles asks to know when to stop: the caller's stop request."""

    def __init__(self, should_stop: Callable[[], bool]) -> None:
        self.should_stop = should_stop

    def is_set(self) -> bool:
        return self.should_stop()


class WatchfilesWatcher:
    def __init__(self, settle_s: float = 1.0) -> None:
        # how long without events counts as quiet; a batch waits two quiet periods at least
        self.settle_ms = max(50, int(settle_s * 1000))

    def changes(
        self,
        roots: Sequence[Path],
        accept: Callable[[Path], bool],
        should_stop: Callable[[], bool],
    ) -> Iterator[set[Path]]:
        from watchfiles import watch

        def keep(_change: object, path: str) -> bool:
            return accept(Path(path))

        pending: set[Path] = set()
        seen: dict[Path, Stamp] | None = None
        stop = _StopEvent(should_stop)
        for batch in watch(
            *roots,
            watch_filter=keep,
            debounce=self.settle_ms * 4,
            step=min(self.settle_ms, 200),
            stop_event=stop,
            rust_timeout=self.settle_ms,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if should_stop():
                return
            if batch:
                pending |= {Path(path) for _, path in batch}
                seen = None  # still changing: the quiet period starts again
                continue
            if not pending:
                continue
            now = _stamps(pending)
            if seen is not None and now == seen:
                ready, pending, seen = pending, set(), None
                yield ready
            else:
                seen = now
