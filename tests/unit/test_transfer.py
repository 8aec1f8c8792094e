"""Export, import and drop over fakes: what citeloom itself writes always passes the import's
checks (papers, notes), an import that fails part-way leaves the project as it was, drop takes
only what is the project's, and inspect and validate name documents stored only in part."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from citeloom.domain.errors import ConfigError, StorageError
from citeloom.domain.models import IndexPoint, Reference
from citeloom.domain.notes import NoteItem
from citeloom.domain.record_check import record_problem
from citeloom.services.drop import drop_plan, drop_project
from citeloom.services.ingest import IngestService
from citeloom.services.notes import NoteService
from citeloom.services.transfer import export_project, import_project
from citeloom.services.usecases.inspect import InspectResponse
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


# ---------------------------------------------------------------- staged import, drop
class FailingIndex(FakeIndex):
    """Fails the second write of an import, as a full disk or a lost server would."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def upsert_points(self, collection, points):
        self.writes += 1
        if self.writes == 2:
            raise StorageError("the disk is full")
        super().upsert_points(collection, points)


def many(exported: Path, tmp_path: Path, copies: int) -> Path:
    """The export with its points repeated under new ids and documents: several pages."""
    lines = exported.read_text(encoding="utf-8").splitlines()
    header, points = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    rows = []
    for n in range(copies):
        for point in points:
            row = json.loads(json.dumps(point))
            row["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{point['id']}/{n}"))
            row["payload"]["doc_id"] += f"-{n}"
            rows.append(row)
    path = tmp_path / "many.jsonl"
    header["points"] = len(rows)
    path.write_text("\n".join(json.dumps(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


def test_an_import_that_fails_part_way_leaves_the_project_as_it_was(exported, tmp_path):
    index = FailingIndex()
    index.ensure_collection(
        "cq", "fake/bow-16", 16, project="q"
    )  # new and empty, as import wants it
    with pytest.raises(StorageError):
        import_project(index, "q", "cq", "fake/bow-16", None, many(exported, tmp_path, 80))
    assert index.writes == 2  # the first page went in, into the staging collection only
    assert index.list_collections() == ["cq"] and index.physical("cq") == "cq"
    assert index.collection_info("cq").points == 0


def test_a_killed_imports_leftover_is_cleared_by_the_next_import(exported):
    index = FakeIndex()
    index.ensure_collection("cq@2", "fake/bow-16", 16, project="q")  # what a killed import leaves
    stray = IndexPoint(str(uuid.UUID(int=7)), [1.0] + [0.0] * 15, "stray", {"project": "q"})
    index.upsert_points("cq@2", [stray])
    report = import_project(index, "q", "cq", "fake/bow-16", None, exported)
    assert index.physical("cq") == "cq@2" and index.list_collections() == ["cq@2"]
    stored = {p.id for p in index.scroll_points("cq", None, 100)[0]}
    assert len(stored) == report.points and stray.id not in stored


def test_drop_removes_the_collection_its_leftovers_and_the_alias_and_nothing_else(exported):
    index = FakeIndex()
    import_project(index, "q", "cq", "fake/bow-16", None, exported)  # lives in cq@2 now
    for name in ("cq@3", "cq@7", "cq@x", "other"):
        index.ensure_collection(name, "fake/bow-16", 16, project="q")
    others = {"r": "cq@7", "s": "other"}  # cq@7 is a project's own collection, not a leftover
    plan = drop_plan(index, "q", "cq", others)
    assert (plan.current, plan.leftovers, plan.documents) == ("cq@2", ["cq@3"], 3)
    report = drop_project(index, "q", "cq", others)
    assert report.removed == ["cq@3", "cq@2"]
    assert index.list_collections() == ["cq@7", "cq@x", "other"]
    assert index.physical("cq") == "cq" and index.collection_info("cq") is None
    assert drop_project(index, "q", "cq", others).removed == []  # again: nothing left


def test_drop_refuses_a_collection_another_project_uses(exported):
    index = FakeIndex()
    import_project(index, "q", "cq", "fake/bow-16", None, exported)
    with pytest.raises(ConfigError, match="also the collection of project 'r'"):
        drop_project(index, "q", "cq", {"r": "cq"})
    assert index.collection_info("cq").points > 0


# ---------------------------------------------------------------- incomplete documents
def test_inspect_and_validate_name_incomplete_documents_and_the_fix(exported, tmp_path):
    from citeloom.services.inspection import inspect_project
    from citeloom.services.validate import ProjectComponents, validate_project

    index = FakeIndex()
    import_project(index, "q", "cq", "fake/bow-16", None, exported)
    paper = next(p for p in index.scroll_points("cq", None, 100)[0] if p.payload["kind"] == "paper")
    index.collections[index.physical("cq")]["points"].pop(paper.id)  # a kill mid-document
    report = inspect_project(index, "q", "cq")
    (broken,) = report.incomplete
    assert broken.doc_id == paper.payload["doc_id"] and broken.chunks == broken.chunk_total - 1
    assert report.fix == f"ingest their folders again: citeloom ingest {tmp_path} --project q"
    assert InspectResponse.of(report).dump()["incomplete"] == 1

    parts = ProjectComponents(
        collection="cq",
        embed_model="fake/bow-16",
        max_tokens=254,
        metadata=lambda: FakeMetadata(REFS),
        embedder=FakeEmbedder,
        chunker=lambda emb: FakeChunker(),
        index=lambda: index,
    )
    checks = {c.name: c for c in validate_project("q", parts)}
    documents = checks["documents"]
    assert not documents.ok and documents.exit_code == 1 and documents.fix == report.fix
    assert "1 of 3 stored only in part" in documents.detail and broken.path in documents.detail
