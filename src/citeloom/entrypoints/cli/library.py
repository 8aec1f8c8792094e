"""``ingest`` and ``watch``: what the library's files become in the project's collection."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citeloom.domain.errors import ExitCode
from citeloom.entrypoints.cli.base import (
    ConfigOpt,
    JsonOpt,
    ProgressMode,
    ProgressOpt,
    ProjectOpt,
    app,
    application,
    handle_errors,
    print_json,
    stderr_as_json,
    tell,
)
from citeloom.entrypoints.progress import StopRequest
from citeloom.entrypoints.stdout import echo, one_line

if TYPE_CHECKING:
    from citeloom.services.ingest import DocumentOutcome, ProgressHook
    from citeloom.services.watch import WatchEvent


JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        max=64,
        help="Documents converted at once, each in a worker process of its own (about "
        "0.4 GB each); embedding and storing stay in order in this process. 1: convert on "
        "a thread of this process, no worker. Default: one per three cores, as memory allows.",
        show_default=False,
    ),
]


class TerminalDisplay:
    """How ``ingest`` and ``watch`` show their run in the terminal (the use case's
    ``RunDisplay``): each path refused at once in one line (a name from a glob may hold any
    character), the progress and the signals that stop the run set up once the index is held,
    and watch's events."""

    def __init__(
        self,
        progress: Callable[[], AbstractContextManager[ProgressHook | None]],
        stop: StopRequest,
        signals: tuple[int, ...] = (signal.SIGINT,),
        events: Callable[[WatchEvent], None] | None = None,
    ) -> None:
        self.progress = progress
        self.stop = stop
        self.signals = signals
        self.events = events

    def refused(self, outcome: DocumentOutcome) -> None:
        tell(f"error: {one_line(outcome.error or '')}")

    @contextmanager
    def running(self) -> Iterator[ProgressHook | None]:
        with self.stop.installed(self.signals), self.progress() as hook:
            yield hook

    def event(self, event: WatchEvent) -> None:
        if self.events is not None:
            self.events(event)

    def should_stop(self) -> bool:
        return self.stop()


@app.command()
@handle_errors
def ingest(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Documents (PDF, DOCX, HTML, Markdown, text) or folders, searched "
            "recursively. Default: [paths] raw_dir.",
            show_default=False,
        ),
    ] = None,
    project: ProjectOpt = ...,  # type: ignore[assignment]
    citekey: Annotated[
        str | None,
        typer.Option(
            "--citekey",
            help="The library entry of the one file given (wins over DOI and title matching).",
        ),
    ] = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="Remove stored documents whose files are gone from these folders."
        ),
    ] = False,
    zotero: Annotated[
        Path | None,
        typer.Option(
            "--zotero",
            help="A Zotero data directory (holding zotero.sqlite): ingest its PDF attachments, "
            "each labelled with its own item, and read the library from it (as the project's "
            "zotero = DIR does).",
            show_default=False,
        ),
    ] = None,
    jobs: JobsOpt = None,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: JsonOpt = False,
    progress_mode: ProgressOpt = ProgressMode.auto,
) -> None:
    """Convert, chunk, embed and store documents in the project's collection.

    Prints one line per document and a summary with the run's correlation id; the audit of
    the run is written to [paths] audit_dir/<correlation id>.jsonl. Documents already stored
    are re-labelled when the references file changed (no re-embedding). A project with a
    Zotero library and no path given ingests the library's PDF attachments.
    """
    from citeloom.entrypoints import render
    from citeloom.entrypoints.progress import ingest_progress
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.ingest import INGEST, IngestRequest

    if progress_mode == ProgressMode.json:
        stderr_as_json()
    request = build(
        IngestRequest,
        project=project,
        paths=paths or [],
        zotero=zotero,
        citekey=citekey,
        prune=prune,
        jobs=jobs,
    )
    shown = TerminalDisplay(
        lambda: ingest_progress(not as_json, render.document_line, progress_mode.value),
        StopRequest(as_json=progress_mode == ProgressMode.json),
    )
    report = application(config, display=shown).run(INGEST, request)
    if as_json:
        print_json(report.dump())
    else:
        echo(render.ingest_summary(report))
    if report.interrupted:
        raise typer.Exit(int(ExitCode.INTERRUPTED))
    if report.totals["failed"]:
        raise typer.Exit(int(ExitCode.DOCUMENTS_FAILED))


@app.command()
@handle_errors
def watch(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Folders (or files) to follow, as for ingest. Default: the project's Zotero "
            "directory when it has one, else [paths] raw_dir.",
            show_default=False,
        ),
    ] = None,
    project: ProjectOpt = ...,  # type: ignore[assignment]
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Remove stored documents whose files are gone (default: the project's "
            "prune setting).",
        ),
    ] = False,
    settle: Annotated[
        float,
        typer.Option(
            "--settle",
            min=0.05,
            max=600,
            help="Seconds without changes before a batch is ingested (files must also keep "
            "their size and time that long).",
        ),
    ] = 1.0,
    jobs: JobsOpt = None,
    config: ConfigOpt = Path("citeloom.toml"),
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per line for each event.")
    ] = False,
    progress_mode: ProgressOpt = ProgressMode.auto,
) -> None:
    """Keep the project's collection in step with its folders, references file and Zotero
    library: after each settled batch of changes, ingest what is new or changed, relabel
    after a library change and (with prune) remove what is gone. Ctrl-C or SIGTERM finishes
    the document in hand and stops (exit 0); a second one stops at once (exit 130).
    """
    from citeloom.entrypoints import render
    from citeloom.entrypoints.progress import JsonProgress
    from citeloom.services.usecases.base import build
    from citeloom.services.usecases.watch import WATCH, WatchRequest

    in_json = progress_mode == ProgressMode.json
    if in_json:
        stderr_as_json()
    request = build(
        WatchRequest, project=project, paths=paths or [], prune=prune, settle_s=settle, jobs=jobs
    )
    status = render.WatchStatus(as_json, stderr_json=in_json)
    shown = TerminalDisplay(
        lambda: nullcontext(JsonProgress() if in_json else None),
        StopRequest(as_json=in_json),
        (signal.SIGINT, signal.SIGTERM),
        status.show,
    )
    application(config, on_wait=status.waiting, display=shown).run(WATCH, request)
    status.close()
