"""Export and import over fakes: what citeloom itself writes always passes the import's
checks (papers, documents without pages, notes), and the checks' words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeloom.domain.errors import ConfigError
from citeloom.domain.models import Reference
from citeloom.domain.notes import NoteItem
from citeloom.domain.record_check import record_problem
from citeloom.services.ingest import IngestService
from citeloom.services.notes import NoteService
from citeloom.services.transfer import export_project, import_project
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)

REFS = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020, tags=("marsh",))]
PAPER = "TITLE Salt Marsh Carbon\n# 1 Intro\nMarshes bury carbon.\fThey trap sediment."


def parts(index: FakeIndex) -> dict:
    return {
        "project": "p",
        "collection": "c",
        "converter": FakeConverter(),
        "chunker": FakeChunker(),
        "metadata": FakeMetadata(REFS),
        "embedder": FakeEmbedder(),
        "index": index,
        "audit": MemoryAudit(),
    }


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    index = FakeIndex()
    (tmp_path / "smith2020.pdf").write_text(PAPER, encoding="utf-8")
    (tmp_path / "unknown.pdf").write_text("An untitled page without a match.", encoding="utf-8")
    IngestService(**parts(index)).run([tmp_path])
    NoteService(**parts(index)).store(
        [NoteItem("Burial rates matter.", citekey="smith2020", page=2, tags=("todo",))]
    )
    path = tmp_path / "p.jsonl"
    export_project(index, "p", "c", None, path)
    return path


def test_what_citeloom_writes_passes_every_check_and_imports_whole(exported):
    lines = exported.read_text(encoding="utf-8").splitlines()
    payloads = [json.loads(line)["payload"] for line in lines[1:]]
    assert {p["kind"] for p in payloads} == {"paper", "note"}
    assert [record_problem(p) for p in payloads] == [None] * len(payloads)
    target = FakeIndex()
    report = import_project(target, "q", "cq", "fake/bow-16", None, exported, lambda: 16)
    assert report.points == len(payloads) and report.documents == 3
    assert {p.payload["project"] for p in target.scroll_points("cq", None, 100)[0]} == {"q"}


def test_a_file_of_another_length_than_the_model_makes_is_refused(exported):
    with pytest.raises(ConfigError, match=r"line 1: its vectors have 16 dimensions, but"):
        import_project(FakeIndex(), "q", "cq", "fake/bow-16", None, exported, lambda: 384)


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ({}, "is empty"),
        ([], "is a list, not an object"),
        ({"doc_id": "d"}, "lacks project"),
        (
            {"project": "p", "doc_id": "d", "chunk_index": "3"},
            "chunk_index is '3' (a string), not a whole number, 0 or more",
        ),
        (
            {"project": "p", "doc_id": "d", "chunk_index": 0, "source": "x"},
            "source is 'x' (a string), not an object",
        ),
        (
            {"project": "p", "doc_id": "d", "chunk_index": 0, "source": {}},
            "lacks source.path",
        ),
    ],
)
def test_a_payload_is_told_what_it_lacks_or_what_is_wrong(payload, problem):
    assert record_problem(payload) == problem
