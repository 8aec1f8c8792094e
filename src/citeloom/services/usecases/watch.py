"""watch: a project's folders, references file and Zotero library followed, and one ingest
run made after each settled batch of changes, each with its own audit and its own hold of the
index, released between runs. What it follows when given no path, and the run itself, are
decided here; the command shows its events and stops it through ``Dependencies.display``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from citeloom.domain.errors import ConfigError
from citeloom.services.usecases.base import Request, Response, UseCase
from citeloom.services.usecases.ingest import Sources, refused_apart

if TYPE_CHECKING:
    from citeloom.services.deadline import Deadline
    from citeloom.services.ingest import IngestReport, ProgressHook
    from citeloom.services.usecases.dependencies import Dependencies
    from citeloom.services.watch import WatchSources


class WatchRequest(Request):
    paths: list[Path] = Field(
        default_factory=list,
        description="Folders or files to follow; empty: the project's Zotero directory when "
        "it has one, else [paths] raw_dir.",
    )
    prune: bool = Field(
        False, description="Remove stored documents whose files are gone (or the project's)."
    )
    settle_s: float = Field(
        1.0, ge=0.05, le=600, description="Seconds without changes before a batch is ingested."
    )
    jobs: int | None = Field(
        1, ge=1, le=64, description="Documents converted at once (None: as the machine suits)."
    )


class WatchResponse(Response):
    project: str = Field(description="The project followed.")
    runs: int = Field(description="Ingest runs made before it stopped.")


def watch_sources(deps: Dependencies, request: WatchRequest) -> Sources:
    """What ``watch`` follows: the paths given, else the project's Zotero directory when it
    has one, else [paths] raw_dir."""
    raw_dir = deps.builders.raw_dir
    paths = list(request.paths)
    if not paths and deps.project(request.project).zotero is None:
        if not raw_dir.exists():
            raise ConfigError(
                f"no path given, and the default folder [paths] raw_dir ({raw_dir}) does "
                f"not exist. Pass the folder of your papers (citeloom watch ~/papers -p "
                f"{request.project}), or give the project a zotero directory."
            )
        paths = [raw_dir]
    given, refused = refused_apart(paths)
    return Sources(given, refused)


def watch(deps: Dependencies, request: WatchRequest, deadline: Deadline | None) -> WatchResponse:
    """Keep the collection in step with the sources until the command says stop."""
    project = request.project
    sources = watch_sources(deps, request).reported(deps)
    prune = request.prune or deps.project(project).prune
    with deps.index(None, project):
        pass  # another project's collection: refused before watching begins, not per run
    shown: list[ProgressHook | None] = [None]  # the display's hook, once it runs

    def run_once(followed: WatchSources, should_stop: Callable[[], bool]) -> IngestReport:
        with deps.index(None, project) as index:
            return deps.builders.ingest_service(project, index, request.jobs).run(
                followed.folders,
                progress=shown[0],
                prune=prune,
                should_stop=should_stop,
                from_library=followed.library_root is not None,
                allow_empty=True,
            )

    service = deps.builders.watch_service(project, sources.given, request.settle_s, run_once)
    display = deps.display
    with display.running() as progress:
        shown[0] = progress
        runs = service.run(display.event, should_stop=display.should_stop)
    return WatchResponse(project=project, runs=runs)


WATCH = UseCase("watch", WatchRequest, WatchResponse, watch)
