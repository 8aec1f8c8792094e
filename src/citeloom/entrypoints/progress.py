"""Progress of an ingest run: a bar on a terminal (documents, pages, chunks, ETA), plain
lines otherwise, nothing at all with ``--json``. Ctrl-C asks the run to stop after the current
document; a second Ctrl-C stops at once."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import typer

from citeloom.entrypoints.stdout import echo


class StopRequest:
    """The first SIGINT (or another of the signals given) is a request, honoured between
    documents; a second one stops at once."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested

    @contextmanager
    def installed(self, signals: tuple[int, ...] = (signal.SIGINT,)) -> Iterator[None]:
        """``signals``: ``watch`` adds SIGTERM, the way a service manager or ``kill`` ends a
        long-running process, so that it ends as after Ctrl-C: the document in hand stored,
        the audit closed, its ``stopped`` event said."""

        def handler(signum: int, frame: Any) -> None:
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True
            typer.echo(
                "\nstopping after the current document (Ctrl-C again to stop at once)", err=True
            )

        previous = {number: signal.signal(number, handler) for number in signals}
        try:
            yield
        finally:
            for number, action in previous.items():
                signal.signal(number, action)


@contextmanager
def ingest_progress(enabled: bool, line: Callable[[Any], str]) -> Iterator[Callable | None]:
    """A progress hook for IngestService.run, or None when nothing should be shown."""
    if not enabled:
        yield None
        return
    if not sys.stderr.isatty():

        def plain(outcome: Any, number: int, total: int) -> None:
            echo(f"[{number}/{total}] {line(outcome)}")

        yield plain
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    bar = Progress(
        TextColumn("ingesting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("documents, {task.fields[pages]} pages, {task.fields[chunks]} chunks"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    task = None
    totals = {"pages": 0, "chunks": 0}

    def update(outcome: Any, number: int, total: int) -> None:
        nonlocal task
        if task is None:
            task = bar.add_task("ingest", total=total, pages=0, chunks=0)
        totals["pages"] += outcome.pages or 0
        totals["chunks"] += outcome.chunks or 0
        bar.console.print(line(outcome), markup=False, highlight=False)
        bar.update(task, completed=number, pages=totals["pages"], chunks=totals["chunks"])

    with bar:
        yield update
