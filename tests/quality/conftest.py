"""The one project every quality test reads, built once a session.

papers/ and paginated/ of the shared corpus and the bundled examples, with the libraries of
all three joined, ingested into one embedded project by citeloom's own ingest. Its conversion
cache (fresh each session, so a change to the converter is always measured) serves the tests
that only convert: Docling's ground truth, page labels and matching convert each file once
between them and the ingest. The fixture takes the corpus folder, as ``converted`` takes a
path, so that every test reading the corpus names it and carries the ``shared`` marker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from benchmarks.library import joined_library

from tests.conftest import DATA, EXAMPLES, ROOT, write_config

PROJECT = "papers"
LIBRARIES = (
    DATA / "papers.csl.json",
    ROOT / "benchmarks" / "data" / "paginated.csl.json",
    ROOT / "references" / "example.json",
)


@dataclass
class QualityProject:
    """The quality tests' project. ``converter`` works at once; ``app()`` ingests through the
    application on the first call (as ``citeloom serve`` holds it: the index kept open, the
    model loaded once), and every later call returns the same application."""

    corpus: Path
    folder: Path
    settings: Any = None
    converter: Any = None
    config: Path = field(init=False)
    _app: Any = None

    def __post_init__(self) -> None:
        from citeloom import bootstrap

        self.config = write_config(self.folder, joined_library(self.folder, *LIBRARIES))
        self.settings = bootstrap.settings(self.config)
        self.converter = bootstrap.converter(self.settings)

    def app(self) -> Any:
        """``Citeloom`` over the project, ingested."""
        if self._app is None:
            from citeloom.bootstrap.application import application
            from citeloom.services.usecases.ingest import INGEST, IngestRequest

            app = application(self.settings, long_lived=True)
            folders = [self.corpus / "papers", self.corpus / "paginated", EXAMPLES]
            report = app.run(INGEST, IngestRequest(project=PROJECT, paths=folders))
            assert report.totals["failed"] == 0, report.totals
            self._app = app
        return self._app

    @contextmanager
    def check_service(self) -> Iterator[Any]:
        """The application's check service over its held index, for the measures that read
        the checker's parts (its judge, the papers it reads), as ``check`` builds it."""
        app = self.app()
        deps = app.deps
        with deps.index(None, PROJECT) as index:
            embedder, evidence = deps.embedder(PROJECT), deps.evidence(PROJECT)
            yield deps.builders.check_service(PROJECT, index, embedder, evidence)

    def close(self) -> None:
        if self._app is not None:
            self._app.close()


@pytest.fixture(scope="session")
def quality_project(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[Path], QualityProject]]:
    """``quality_project(CORPUS)``: the session's project over that corpus folder."""
    made: dict[Path, QualityProject] = {}

    def get(corpus: Path) -> QualityProject:
        if corpus not in made:
            made[corpus] = QualityProject(corpus, tmp_path_factory.mktemp("quality"))
        return made[corpus]

    yield get
    for project in made.values():
        project.close()
