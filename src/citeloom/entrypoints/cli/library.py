"""``ingest`` and ``watch``: what the library's files become in the project's collection."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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
from citeloom.entrypoints.stdout import echo, one_line

if TYPE_CHECKING:
    from citeloom.services.application import Sources
    from citeloom.services.ingest import ProgressHook


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


def _refused(sources: Sources) -> None:
    """Each path refused at once, in one line (a name from a glob may hold any character);
    exit 1 when nothing is left to run."""
    for outcome in sources.refused:
        tell(f"error: {one_line(outcome.error or '')}")
    if sources.nothing_left:
        raise typer.Exit(int(ExitCode.DOCUMENTS_FAILED))


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
    from citeloom.entrypoints.progress import StopRequest, ingest_progress

    if progress_mode == ProgressMode.json:
        stderr_as_json()
    citeloom = application(config)
    sources = citeloom.ingest_sources(project, paths or [], zotero)
    _refused(sources)
    stop = StopRequest(as_json=progress_mode == ProgressMode.json)

    @contextmanager
    def running() -> Iterator[ProgressHook | None]:
        shown = ingest_progress(not as_json, render.document_line, progress_mode.value)
        with stop.installed(), shown as progress:
            yield progress

    report = citeloom.ingest(
        project,
        sources,
        running(),
        zotero=zotero,
        citekey=citekey,
        prune=prune,
        should_stop=stop,
        jobs=jobs,
    )
    if as_json:
        from citeloom.services.report_responses import IngestResponse

        print_json(IngestResponse.of(report).dump())
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
    import signal

    from citeloom.entrypoints import render
    from citeloom.entrypoints.progress import JsonProgress, StopRequest

    in_json = progress_mode == ProgressMode.json
    if in_json:
        stderr_as_json()
    status = render.WatchStatus(as_json, stderr_json=in_json)
    citeloom = application(config, on_wait=status.waiting)
    sources = citeloom.watch_sources(project, paths or [])
    _refused(sources)
    stop = StopRequest(as_json=in_json)
    running = stop.installed((signal.SIGINT, signal.SIGTERM))
    citeloom.watch(
        project,
        sources,
        running,
        status.show,
        prune=prune,
        settle_s=settle,
        should_stop=stop,
        progress=JsonProgress() if in_json else None,
        jobs=jobs,
    )
    status.close()
