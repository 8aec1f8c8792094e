"""``ingest --jobs N``: documents converted in worker processes, stored in file order by this
one; a worker that dies fails its one file and the rest of the batch goes through (fake
converter in real child processes)."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest

from citeloom.adapters.conversion.workers import WorkerConverter, default_jobs
from citeloom.domain.errors import DocumentError
from citeloom.domain.models import ConvertedDocument
from citeloom.services.ingest import IngestService
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)
from tests.unit.test_lookahead import comparable, papers
from tests.unit.test_services import REFS, write


class ProcessNamingConverter(FakeConverter):
    """Names the process that converted a document in its title; a file that reads CRASH
    kills the process converting it, as the kernel does when memory runs out."""

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        if path.read_text(encoding="utf-8").startswith("CRASH"):
            os.kill(os.getpid(), signal.SIGKILL)
        document = super().convert(path, sha256)
        return replace(document, pdf_metadata={"pid": str(os.getpid())})


def build() -> ProcessNamingConverter:  # module level: a worker process unpickles it
    return ProcessNamingConverter()


def build_plain() -> FakeConverter:
    return FakeConverter()


class PagingConverter(FakeConverter):
    """Tells its pages as Docling's converter does for a long PDF, two at a time."""

    seen = None

    def report_pages(self, seen) -> None:
        self.seen = seen

    def convert(self, path: Path, sha256: str) -> ConvertedDocument:
        for done in (0, 2, 4, 5):
            if self.seen is not None:
                self.seen(path, done, 5)
        return super().convert(path, sha256)


def build_paging() -> PagingConverter:
    return PagingConverter()


def service(workers: list[WorkerConverter]) -> IngestService:
    return IngestService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(REFS),
        embedder=FakeEmbedder(),
        index=FakeIndex(),
        audit=MemoryAudit(),
        workers=workers,
    )


def test_a_worker_converts_in_a_process_of_its_own_and_starts_a_new_one_after_a_crash(
    tmp_path,
):
    good = write(tmp_path, "good.pdf", "TITLE A\nText.")
    crash = write(tmp_path, "crash.pdf", "CRASH")
    broken = write(tmp_path, "broken.pdf", "BROKEN")
    worker = WorkerConverter(build)
    try:
        first = worker.convert(good, "a" * 64)
        assert first.title == "A" and first.pdf_metadata["pid"] != str(os.getpid())
        with pytest.raises(DocumentError) as crashed:
            worker.convert(crash, "b" * 64)
        assert str(crash) in str(crashed.value) and "SIGKILL" in str(crashed.value)
        with pytest.raises(DocumentError, match="damaged"):  # the converter's own error
            worker.convert(broken, "c" * 64)
        again = worker.convert(good, "a" * 64)
        assert again.pdf_metadata["pid"] not in (first.pdf_metadata["pid"], str(os.getpid()))
        assert worker.started == 2
    finally:
        worker.close()


def test_workers_store_and_record_what_one_process_does_and_a_crash_fails_one_file(tmp_path):
    folder = papers(tmp_path, 5, broken=[2])
    write(folder, "d5.pdf", (folder / "d1.pdf").read_text())  # a copy: stored once
    one = service([])
    one.run([folder])
    workers = [WorkerConverter(build_plain), WorkerConverter(build_plain)]
    two = service(workers)
    two.run([folder])
    assert comparable(two) == comparable(one)  # the same points, the same audit, in order
    assert all(w._process is None for w in workers)  # the run stopped its workers

    write(folder, "d3.pdf", "CRASH")
    lines: list[tuple[int, str, str]] = []
    crashing = service([WorkerConverter(build), WorkerConverter(build)])
    crashing.run([folder], progress=lambda o, n, _: lines.append((n, Path(o.path).name, o.status)))
    assert lines == [
        (1, "d0.pdf", "ingested"),
        (2, "d1.pdf", "ingested"),
        (3, "d2.pdf", "failed"),  # BROKEN: the converter's own error
        (4, "d3.pdf", "failed"),  # its worker was killed
        (5, "d4.pdf", "ingested"),
        (6, "d5.pdf", "skipped"),
    ]
    crash = next(e for e in crashing.audit.events if e.get("path", "").endswith("d3.pdf"))
    assert "conversion worker stopped" in crash["error"] and "--jobs 1" in crash["error"]


@pytest.mark.parametrize(
    ("cores", "available_mb", "jobs"),
    [
        (2, 16_000, 1),
        (4, 16_000, 1),
        (8, 16_000, 2),
        (16, 64_000, 5),
        (16, 1_500, 2),
        (16, 1_000, 1),
    ],
)
def test_the_default_number_of_workers_follows_cores_and_memory(cores, available_mb, jobs):
    assert default_jobs(cores, available_mb) == jobs


def test_a_worker_passes_on_the_pages_its_child_converts(tmp_path):
    """A book converted in a worker process shows its pages at the terminal all the same."""
    book = write(tmp_path, "book.pdf", "TITLE Book\nText.")
    worker = WorkerConverter(build_paging)
    told: list[tuple[str, int, int]] = []
    try:
        worker.report_pages(lambda path, done, total: told.append((path.name, done, total)))
        assert worker.convert(book, "a" * 64).title == "Book"
        worker.report_pages(None)
        worker.convert(book, "a" * 64)  # told to nobody
    finally:
        worker.close()
    assert told == [("book.pdf", 0, 5), ("book.pdf", 2, 5), ("book.pdf", 4, 5), ("book.pdf", 5, 5)]
