"""An ingest stopped by an unexpected error is never called finished in its audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloom.services.audit_report import summarise_run
from citeloom.services.ingest import IngestService
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)


def test_an_error_outside_any_document_ends_the_audit_as_aborted(tmp_path: Path):
    for name in ("a.pdf", "b.pdf", "c.pdf"):
        (tmp_path / name).write_text(f"TITLE {name}\nSome text of {name}.", "utf-8")
    audit = MemoryAudit()
    service = IngestService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(),
        embedder=FakeEmbedder(),
        index=FakeIndex(),
        audit=audit,
    )

    def progress(outcome, number: int, total: int) -> None:
        if number == 2:  # e.g. the terminal went away in a way nobody foresaw
            raise RuntimeError("progress display broke")

    with pytest.raises(RuntimeError):
        service.run([tmp_path], progress=progress)
    documents = [
        (Path(e["path"]).name, e["status"]) for e in audit.events if e["event"] == "document"
    ]
    assert documents == [("a.pdf", "ingested"), ("b.pdf", "ingested"), ("c.pdf", "aborted")]
    run = summarise_run("test-run", audit.events)
    assert run.outcome.startswith("aborted: internal error (RuntimeError: progress display broke")
