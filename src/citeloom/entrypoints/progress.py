"""Progress of an ingest run: a bar on a terminal (documents, pages, chunks, ETA, and the
pages converted and chunks embedded inside the documents in hand when stdout is a terminal
too), plain lines otherwise, nothing at all with ``--json``; with ``--progress json`` one JSON
object per line on stderr for each event of the run (``JsonProgress``), for a script or an
editor to show, and stdout exactly as without it. Ctrl-C asks the run to stop after the
current document; a second Ctrl-C stops at once."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from citeloom.entrypoints.stdout import echo, echo_err, one_line

if TYPE_CHECKING:
    from citeloom.services.ingest_report import DocumentOutcome, IngestReport


def json_event(data: dict[str, Any]) -> None:
    """One event as one line of JSON on stderr (ASCII only: every other character escaped,
    so no line ever holds a character a terminal acts on)."""
    echo_err(json.dumps(data))


class JsonProgress:
    """``--progress json``: a run told as it goes, one object per line on stderr, stdout left
    to the result. ``started`` (the documents to go through), one ``document`` per document
    in order (its status, file and what was stored, and the counts so far), ``finished`` (the
    run's totals). The schema is in docs/ingest-and-query.md.

    ``lines``: the hook that prints what stdout holds without the flag (the plain line of each
    document when stderr is not a terminal), also told of each document: a script that adds
    the flag must not lose the reasons a document was skipped or failed."""

    def __init__(self, lines: Callable[[DocumentOutcome, int, int], None] | None = None) -> None:
        self.counts = {"ingested": 0, "skipped": 0, "failed": 0}
        self.lines = lines

    def started(self, total: int, correlation_id: str) -> None:
        self.counts = dict.fromkeys(self.counts, 0)
        json_event({"event": "started", "correlation_id": correlation_id, "total": total})

    def __call__(self, outcome: DocumentOutcome, number: int, total: int) -> None:
        if self.lines is not None:
            self.lines(outcome, number, total)
        self.counts[outcome.status] += 1
        json_event(
            {
                "event": "document",
                "status": outcome.status,
                "path": outcome.path,
                "number": number,
                "total": total,
                "counts": dict(self.counts),
                "citekey": outcome.citekey,
                "pages": outcome.pages,
                "chunks": outcome.chunks,
                "error": outcome.error,
            }
        )

    def finished(self, report: IngestReport) -> None:
        json_event(
            {
                "event": "finished",
                "correlation_id": report.correlation_id,
                "totals": report.totals,
                "interrupted": report.interrupted,
                "audit": report.audit_path,
            }
        )


class StopRequest:
    """The first SIGINT (or another of the signals given) is a request, honoured between
    documents; a second one stops at once."""

    def __init__(self, as_json: bool = False) -> None:
        self.requested = False
        self.as_json = as_json  # --progress json: said as an event, like everything on stderr

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
            said = "stopping after the current document (Ctrl-C again to stop at once)"
            if self.as_json:
                json_event({"event": "stopping", "message": said})
            else:
                typer.echo("\n" + said, err=True)

        previous = {number: signal.signal(number, handler) for number in signals}
        try:
            yield
        finally:
            for number, action in previous.items():
                signal.signal(number, action)


def _plain(line: Callable[[Any], str]) -> Callable[[Any, int, int], None]:
    """One line per document on stdout, numbered: where the progress goes when stderr is not
    a terminal."""

    def plain(outcome: Any, number: int, total: int) -> None:
        echo(f"[{number}/{total}] {line(outcome)}")

    return plain


@contextmanager
def ingest_progress(
    enabled: bool, line: Callable[[Any], str], mode: str = "auto"
) -> Iterator[Callable | None]:
    """A progress hook for IngestService.run, or None when nothing should be shown. ``mode``
    json: the events on stderr as JSON, and on stdout the plain lines ``auto`` would print
    there (none when stderr is a terminal: the bar's lines go to stderr), so stdout is the
    same whichever mode is chosen."""
    plain = _plain(line) if enabled and not sys.stderr.isatty() else None
    if mode == "json":
        yield JsonProgress(plain)
        return
    if not enabled or plain is not None:
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
        TextColumn("{task.fields[inside]}", markup=False),  # file names as they are
        console=console,
        transient=True,
    )
    with bar:
        yield BarProgress(bar, line, inside=sys.stdout.isatty())


class BarProgress:
    """The bar of a run on a terminal: documents, pages and chunks so far, and, when stdout is
    a terminal too, the work inside the documents in hand (a 1,064-page book converts and
    embeds for minutes): ``book.pdf: 350/1064 pages converted``, ``a.pdf: 512/2890 chunks
    embedded``. Told from the conversion thread as well as the run's, each change drawn at
    once (rich's display holds a lock)."""

    def __init__(self, bar: Any, line: Callable[[Any], str], inside: bool) -> None:
        self.bar = bar
        self.line = line
        self.inside = inside
        self.task: Any = None
        self.totals = {"pages": 0, "chunks": 0}
        self.doing = {"pages": "", "chunks": ""}  # what converts, what embeds

    def _task(self, total: int | None) -> Any:
        if self.task is None:
            self.task = self.bar.add_task("ingest", total=total, pages=0, chunks=0, inside="")
        return self.task

    def __call__(self, outcome: Any, number: int, total: int) -> None:
        task = self._task(total)
        self.totals["pages"] += outcome.pages or 0
        self.totals["chunks"] += outcome.chunks or 0
        self.doing["chunks"] = ""
        self.bar.console.print(self.line(outcome), markup=False, highlight=False)
        self.bar.update(task, total=total, completed=number, inside=self._inside(), **self.totals)

    def pages(self, path: Path, done: int, total: int) -> None:
        self._within("pages", path, done, total, "pages converted")

    def chunks(self, path: Path, done: int, total: int) -> None:
        self._within("chunks", path, done, total, "chunks embedded")

    def _within(self, kind: str, path: Path, done: int, total: int, what: str) -> None:
        if not self.inside:
            return
        self.doing[kind] = f"{one_line(path.name)}: {done}/{total} {what}" if done < total else ""
        self.bar.update(self._task(None), inside=self._inside(), refresh=True)

    def _inside(self) -> str:
        return " · ".join(text for text in self.doing.values() if text)
