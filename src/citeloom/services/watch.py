"""The watch use case: a project's sources followed, and the index kept in step with them.

Sources are the folders given (as to ``ingest``), the references file (Better BibTeX's "keep
updated" rewrites it) and the Zotero data directory. Each settled batch of changes starts one
ingest run of everything, as ``ingest`` would do it: incremental (unchanged files are
recognised by their hash and skipped), relabelling after a library change, and pruning
documents whose files are gone when the project asks for it. Every run has its own audit and
correlation id. Between runs nothing is held: the embedded index is opened for a run and
closed after it, so a query or the MCP server is never kept waiting by an idle watch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloom.domain.errors import CiteloomError, IndexUnavailable
from citeloom.ports.watcher import ChangeWatcher
from citeloom.services.ingest import IngestReport

log = logging.getLogger("citeloom.watch")

# One ingest run of the sources followed: asked between documents whether to stop (Ctrl-C),
# it opens and closes the index itself (``usecases.watch``).
RunOnce = Callable[["WatchSources", Callable[[], bool]], IngestReport]


@dataclass(frozen=True)
class WatchEvent:
    """What watch tells: ``watching`` (its sources), ``changes``, ``run`` (a run's report),
    ``error`` (a run that could not be made; the next change tries again), ``stopped``."""

    event: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, **self.data}


@dataclass
class WatchSources:
    folders: Sequence[Path] = ()  # folders and files, as given to ingest
    references: Path | None = None  # the references file (CSL-JSON or BibTeX)
    library_root: Path | None = None  # a Zotero data directory
    library_files: Sequence[Path] = ()  # its database files

    def roots(self) -> list[Path]:
        """What to watch: folders whole, a file through its folder (an editor or Better
        BibTeX replaces a file by renaming a new one over it)."""
        roots: dict[Path, None] = {}
        for path in self.folders:
            roots[path if path.is_dir() else path.parent] = None
        if self.references is not None:
            roots[self.references.parent] = None
        if self.library_root is not None:
            roots[self.library_root] = None
        return list(roots)

    def accept(self, path: Path, supports: Callable[[Path], bool]) -> bool:
        """Whether a change of ``path`` concerns the project."""
        if path.name.startswith("."):
            return False
        if path == self.references or path in self.library_files:
            return True
        root = self.library_root
        if root is not None and path.is_relative_to(root / "storage"):
            return True
        for given in self.folders:
            # a folder made inside one (a folder of PDFs copied in): files written into it
            # before the watch on it begins raise no event of their own, the folder's does
            if path == given or (path.is_relative_to(given) and (supports(path) or path.is_dir())):
                return True
        return False


@dataclass
class WatchService:
    project: str
    sources: WatchSources
    run_once: RunOnce
    watcher: ChangeWatcher
    supports: Callable[[Path], bool]
    runs: int = 0

    def run(
        self,
        on_event: Callable[[WatchEvent], None],
        should_stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Catch up once, then run after each settled batch of changes until ``should_stop``.
        Returns the number of runs made."""
        roots = self.sources.roots()
        on_event(
            WatchEvent("watching", {"project": self.project, "roots": [str(r) for r in roots]})
        )
        first = True
        for batch in self.watcher.changes(
            roots, lambda p: self.sources.accept(p, self.supports), should_stop
        ):
            if first:  # watching has begun: catch up with what changed while it did not run
                first = False
                self._run(on_event, should_stop, changed=[])
            else:
                changed = sorted(str(p) for p in batch)
                on_event(WatchEvent("changes", {"count": len(changed), "paths": changed[:50]}))
                self._run(on_event, should_stop, changed)
            if should_stop():
                break
        on_event(WatchEvent("stopped", {"runs": self.runs}))
        return self.runs

    def _run(
        self,
        on_event: Callable[[WatchEvent], None],
        should_stop: Callable[[], bool],
        changed: list[str],
    ) -> None:
        try:
            report = self.run_once(self.sources, should_stop)
        except IndexUnavailable as error:
            on_event(WatchEvent("error", {"error": str(error), "retry": "at the next change"}))
            return
        except CiteloomError as error:  # a references file half-written, a missing folder
            on_event(WatchEvent("error", {"error": str(error), "retry": "at the next change"}))
            return
        self.runs += 1
        on_event(
            WatchEvent(
                "run",
                {
                    "correlation_id": report.correlation_id,
                    "audit": report.audit_path,
                    "changed": changed[:50],
                    "totals": report.totals,
                    "relabelled": len(report.relabelled),
                    "pruned": report.pruned,
                    "interrupted": report.interrupted,
                    "annotations": report.annotations,
                    "failed": [
                        {"path": d.path, "error": d.error}
                        for d in report.documents
                        if d.status == "failed"
                    ],
                },
            )
        )
