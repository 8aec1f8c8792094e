"""Ingest converts the next document while the current one is embedded, and decides, stores
and records exactly what a one-thread run does (fakes at every port)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from citeloom.domain.errors import DocumentError
from citeloom.services.ingest import IngestService
from citeloom.services.lookahead import ConversionAhead
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)
from tests.unit.test_services import REFS, write


class RecordingConverter(FakeConverter):
    """Remembers which files it started on, and on which thread."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.threads: set[str] = set()
        self.events = {f"d{i}.pdf": threading.Event() for i in range(10)}

    def convert(self, path, sha256):
        self.started.append(path.name)
        self.threads.add(threading.current_thread().name)
        self.events[path.name].set()
        return super().convert(path, sha256)


class WaitingEmbedder(FakeEmbedder):
    """Embeds document n only once the conversion of document n+1 has started (or gives up
    after a while), and notes whether it had."""

    def __init__(self, converter: RecordingConverter, documents: int) -> None:
        super().__init__()
        self.converter, self.documents = converter, documents
        self.overlapped: list[bool] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        n = len(self.overlapped)
        if n + 1 < self.documents:
            self.overlapped.append(self.converter.events[f"d{n + 1}.pdf"].wait(timeout=10))
        return super().embed_documents(texts)


def service(index: FakeIndex, converter: FakeConverter, embedder: FakeEmbedder, ahead: int):
    return IngestService(
        project="p",
        collection="c",
        converter=converter,
        chunker=FakeChunker(),
        metadata=FakeMetadata(REFS),
        embedder=embedder,
        index=index,
        audit=MemoryAudit(),
        convert_ahead=ahead,
    )


def papers(tmp_path: Path, count: int, broken: Sequence[int] = ()) -> Path:
    folder = tmp_path / "pdfs"
    folder.mkdir(exist_ok=True)
    for i in range(count):
        body = "BROKEN" if i in broken else f"TITLE Paper {i}\n# 1 Intro\nText {i}.\fMore {i}."
        write(folder, f"d{i}.pdf", body)
    return folder


def test_the_next_document_is_converted_while_the_current_one_is_embedded(tmp_path):
    folder = papers(tmp_path, 4)
    converter = RecordingConverter()
    embedder = WaitingEmbedder(converter, 4)
    report = service(FakeIndex(), converter, embedder, ahead=1).run([folder])
    assert embedder.overlapped == [True, True, True]
    assert converter.threads == {"citeloom-convert"}
    assert converter.started == ["d0.pdf", "d1.pdf", "d2.pdf", "d3.pdf"]  # each once
    assert [d.status for d in report.documents] == ["ingested"] * 4


def comparable(service: IngestService) -> tuple[dict, list[dict]]:
    points = {
        pid: (p.vector, {k: v for k, v in p.payload.items() if k != "ingest_id"})
        for pid, p in service.index.collections["c"]["points"].items()
    }
    events = [
        {k: v for k, v in e.items() if k != "durations_s"}
        for e in service.audit.events
        if e["event"] == "document"
    ]
    return points, events


def test_converting_ahead_stores_and_records_what_one_thread_does(tmp_path):
    folder = papers(tmp_path, 5, broken=[2])
    write(folder, "d5.pdf", (folder / "d1.pdf").read_text())  # a copy: stored once
    runs = {}
    for ahead in (0, 1):
        lines: list[tuple[int, str, str]] = []

        def progress(outcome, number, total, lines=lines):
            lines.append((number, Path(outcome.path).name, outcome.status))

        ingest = service(FakeIndex(), FakeConverter(), FakeEmbedder(), ahead)
        ingest.run([folder], progress=progress)
        runs[ahead] = (comparable(ingest), lines)
    assert runs[1] == runs[0]
    (_, events), lines = runs[1]
    assert [line[0] for line in lines] == [1, 2, 3, 4, 5, 6]  # progress in file order
    assert [e["status"] for e in events] == ["ingested"] * 2 + ["failed"] + ["ingested"] * 2 + [
        "skipped"
    ]
    assert "damaged" in events[2]["error"]  # the thread's failure, reported for its file


def test_stored_documents_are_not_converted_ahead(tmp_path):
    folder = papers(tmp_path, 4)
    index = FakeIndex()
    service(index, FakeConverter(), FakeEmbedder(), ahead=1).run([folder])
    converter = RecordingConverter()
    report = service(index, converter, FakeEmbedder(), ahead=1).run([folder])
    assert [d.status for d in report.documents] == ["skipped"] * 4
    assert converter.started == []


def test_a_stop_request_finishes_the_document_in_hand_and_starts_no_other(tmp_path):
    folder = papers(tmp_path, 6)
    converter = RecordingConverter()
    ingest = service(FakeIndex(), converter, FakeEmbedder(), ahead=1)
    # another test's conversion thread may still be finishing its file on a busy machine
    before = {t for t in threading.enumerate() if t.name == "citeloom-convert"}
    done: list[int] = []
    report = ingest.run(
        [folder], progress=lambda o, n, total: done.append(n), should_stop=lambda: bool(done)
    )
    assert [d.status for d in report.documents] == ["ingested"] and report.interrupted == 5
    # at most the next document was converted ahead (it is in the conversion cache now)
    assert converter.started in (["d0.pdf"], ["d0.pdf", "d1.pdf"])
    events = [e for e in ingest.audit.events if e["event"] == "document"]
    assert [e["status"] for e in events] == ["ingested"] + ["interrupted"] * 5
    assert not {t for t in threading.enumerate() if t.name == "citeloom-convert"} - before


def test_conversions_wait_for_the_caller_and_errors_reach_it(tmp_path):
    folder = papers(tmp_path, 5, broken=[1])
    files = sorted(folder.glob("*.pdf"))
    converter = RecordingConverter()
    ahead = ConversionAhead(files, converter.convert, lambda p: "sha-" + p.name, depth=1)
    try:
        durations: dict[str, float] = {}
        assert ahead.take(files[0], "sha-d0.pdf", durations).title == "Paper 0"
        assert "convert" in durations
        time.sleep(0.2)  # room for a thread that ignored its bound to run ahead
        assert len(converter.started) <= 2  # d0 taken, d1 waiting: d2 not started
        with pytest.raises(DocumentError, match="damaged"):
            ahead.take(files[1], "sha-d1.pdf", {})
        ahead.passed(files[2])  # e.g. found stored meanwhile: its conversion is dropped
        assert ahead.take(files[3], "sha-d3.pdf", {}).title == "Paper 3"
        # a file converted as other content than the caller reads now is converted again
        assert converter.events["d4.pdf"].wait(timeout=10)
        assert ahead.take(files[4], "sha-changed", {}).sha256 == "sha-changed"
    finally:
        ahead.close(wait=True)
    assert converter.started.count("d4.pdf") == 2


def test_a_file_the_thread_passes_over_is_converted_by_the_caller(tmp_path):
    folder = papers(tmp_path, 2)
    files = sorted(folder.glob("*.pdf"))
    converter = RecordingConverter()
    ahead = ConversionAhead(files, converter.convert, lambda p: None)  # "stored already"
    try:
        assert ahead.take(files[1], "sha", {}).title == "Paper 1"
    finally:
        ahead.close(wait=True)
    assert converter.started == ["d1.pdf"]
    assert converter.threads == {threading.current_thread().name}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_caller_converts_itself_when_the_thread_has_died(tmp_path):
    class Died(BaseException):
        """Not an ``Exception``: nothing on the thread catches it (a bug, say)."""

    folder = papers(tmp_path, 2)
    files = sorted(folder.glob("*.pdf"))
    converter = RecordingConverter()

    reached = threading.Event()

    def convert(path, sha256):
        if threading.current_thread().name == "citeloom-convert":
            reached.set()
            raise Died
        return converter.convert(path, sha256)

    ahead = ConversionAhead(files, convert, lambda p: "sha")
    assert reached.wait(timeout=10)
    ahead.close(wait=True)  # the thread has ended, with d0 claimed and never converted
    assert [ahead.take(f, "sha", {}).title for f in files] == ["Paper 0", "Paper 1"]
    assert converter.started == ["d0.pdf", "d1.pdf"]  # by the caller, without waiting for ever
