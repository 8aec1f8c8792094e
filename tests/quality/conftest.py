"""The one project every quality test reads, built once a session.

papers/ and paginated/ of the shared corpus and the bundled examples, with the libraries of
all three joined, ingested into one embedded project by citeloom's own ingest. Its conversion
cache (fresh each session, so a change to the converter is always measured) serves the tests
that only convert: Docling's ground truth, page labels and matching convert each file once
between them and the ingest. The fixture takes the corpus folder, as ``converted`` takes a
path, so that every test reading the corpus names it and carries the ``shared`` marker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
    """The quality tests' project. ``converter`` works at once; ``index()`` ingests on the
    first call, and every later call returns the same open index."""

    corpus: Path
    folder: Path
    settings: Any = None
    converter: Any = None
    config: Path = field(init=False)
    _index: Any = None
    _embedder: Any = None

    def __post_init__(self) -> None:
        from citeloom import bootstrap

        self.config = write_config(self.folder, joined_library(self.folder, *LIBRARIES))
        self.settings = bootstrap.settings(self.config)
        self.converter = bootstrap.converter(self.settings)

    def index(self) -> Any:
        if self._index is None:
            from citeloom import bootstrap

            index = bootstrap.index(self.settings)
            folders = [self.corpus / "papers", self.corpus / "paginated", EXAMPLES]
            report = bootstrap.ingest_service(self.settings, PROJECT, index).run(folders)
            assert report.totals["failed"] == 0, report.totals
            self._index = index
        return self._index

    def embedder(self) -> Any:
        """The project's embedding model, loaded once for every service of the session."""
        if self._embedder is None:
            from citeloom import bootstrap

            self._embedder = bootstrap.embedder(self.settings, self.settings.get_project(PROJECT))
        return self._embedder

    def close(self) -> None:
        if self._index is not None:
            self._index.close()


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
