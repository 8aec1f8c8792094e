"""File-system events through watchfiles (Rust's notify): no polling loop of our own.

watchfiles groups the events of a burst; on top of that a batch is handed over only when the
files have settled: a quiet period without events, after which their sizes and modification
times are the same as at the end of the previous quiet period. A Zotero sync of hundreds of
items, or a PDF copied over a slow disk, is then one batch, read whole.
"""

from __future__ import annotations

import time
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

        settle = self.settle_ms / 1000
        pending: set[Path] = set()
        last_change = 0.0
        checked: tuple[float, dict[Path, Stamp]] | None = None
        started = False
        # Every event comes back here, those of no concern too (a log written beside the
        # references file), so that the quiet period is measured on the clock: filtered in
        # watchfiles, a steady trickle of them would hold a batch back for ever.
        for batch in watch(
            *roots,
            watch_filter=None,
            debounce=self.settle_ms * 4,
            step=min(self.settle_ms, 200),
            stop_event=_StopEvent(should_stop),
            rust_timeout=self.settle_ms,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if should_stop():
                return
            now = time.monotonic()
            relevant = {path for _, name in batch if accept(path := Path(name))}
            if relevant:
                pending |= relevant
                last_change, checked = now, None
            if not started:  # watching has begun: what happens from now on is caught
                started = True
                yield set()
                continue
            if relevant:
                continue
            if not pending or now - last_change < settle:
                continue
            stamps = _stamps(pending)
            if checked is not None and stamps == checked[1] and now - checked[0] >= settle:
                ready, pending, checked = pending, set(), None
                yield ready
            elif checked is None or stamps != checked[1]:
                checked = (now, stamps)  # sizes and times must hold still this long
