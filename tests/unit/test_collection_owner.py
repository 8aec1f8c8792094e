"""Issue 42, case 4, over fakes: a collection belongs to the project that made it. Each use
case that writes or removes (ingest, notes, reindex, import, drop) refuses another project's
collection before anything changes, validate fails it naming the owner, every door answers it
as the model guard is answered, and rename-project hands a collection over on purpose."""

from __future__ import annotations

import copy
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from citeloom.domain.errors import CollectionOwnerMismatch, ConfigError
from citeloom.domain.models import Reference
from citeloom.domain.notes import NoteItem
from citeloom.entrypoints.outcomes import McpCode, outcome
from citeloom.services.drop import drop_plan, drop_project
from citeloom.services.ingest import IngestService
from citeloom.services.notes import NoteService
from citeloom.services.reindex import ReindexService, TermsReindex
from citeloom.services.rename import rename_project
from citeloom.services.transfer import export_project, import_project
from citeloom.services.validate import validate_project
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)
from tests.unit.test_validate import by_name
from tests.unit.test_validate import parts as components

REFS = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020)]


def parts(index: FakeIndex, project: str) -> dict:
    return {
        "project": project,
        "collection": "c",
        "converter": FakeConverter(),
        "chunker": FakeChunker(),
        "metadata": FakeMetadata(REFS),
        "embedder": FakeEmbedder(),
        "index": index,
        "audit": MemoryAudit(),
    }


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.pdf").write_text(
        "TITLE Salt Marsh Carbon\n# 1 Intro\nMarshes bury carbon.\fThey trap sediment.",
        encoding="utf-8",
    )
    (folder / "b.pdf").write_text("An untitled page about quiet offices.", encoding="utf-8")
    return folder


@pytest.fixture
def held(papers: Path) -> FakeIndex:
    """Collection 'c', made by project 'p' and holding its two papers."""
    index = FakeIndex()
    IngestService(**parts(index, "p")).run([papers])
    return index


def test_every_write_under_another_project_name_is_refused_before_anything_changes(
    held: FakeIndex, papers: Path, tmp_path: Path
):
    export = tmp_path / "p.jsonl"
    export_project(held, "p", "c", None, export)
    before = copy.deepcopy((held.collections, held.aliases))
    writes = {
        "ingest": lambda: IngestService(**parts(held, "q")).run([papers]),
        "notes": lambda: NoteService(**parts(held, "q")).store([NoteItem("Burial matters.")]),
        "reindex": lambda: ReindexService(**parts(held, "q")).run(),
        "terms reindex": lambda: TermsReindex(
            project="q", collection="c", index=held, chunker=FakeChunker(), audit=MemoryAudit()
        ).run(),
        "import": lambda: import_project(held, "q", "c", "fake/bow-16", None, export),
        "drop plan": lambda: drop_plan(held, "q", "c", {}),
        "drop": lambda: drop_project(held, "q", "c", {}),
    }
    for name, write in writes.items():
        with pytest.raises(CollectionOwnerMismatch) as error:
            write()
        assert (error.value.collection, error.value.owner, error.value.project) == (
            "c",
            "p",
            "q",
        ), name
        assert error.value.exit_code == 4
    assert (held.collections, held.aliases) == before


def test_a_collection_made_before_owners_is_the_projects_whose_chunks_it_holds(
    held: FakeIndex, papers: Path
):
    held.collections["c"]["owner"] = None  # as citeloom left it before collections recorded one
    foreign = by_name(validate_project("q", components(index=held)))["collection project"]
    assert not foreign.ok and "'c' belongs to project 'p'" in foreign.detail
    before = copy.deepcopy(held.collections)
    with pytest.raises(CollectionOwnerMismatch):
        IngestService(**parts(held, "q")).run([papers])
    with pytest.raises(ConfigError, match="belongs to project 'p', not 'x'"):
        rename_project(held, "x", "q", "c")
    assert held.collections == before
    mine = by_name(validate_project("p", components(index=held)))["collection project"]
    assert mine.ok and "records no project yet" in mine.detail
    IngestService(**parts(held, "p")).run([papers])
    assert held.collection_info("c").owner == "p"


def test_a_collection_two_projects_shared_before_owners_is_the_first_writers(
    held: FakeIndex, papers: Path, tmp_path: Path
):
    held.collections["c"]["owner"] = None
    point = next(iter(held.collections["c"]["points"].values()))
    theirs = {**point.payload, "project": "x"}  # another config wrote here before
    held.upsert_points("c", [replace(point, id=str(uuid.UUID(int=1)), payload=theirs)])
    folder = tmp_path / "q"
    folder.mkdir()
    (folder / "c.pdf").write_text("TITLE Tidal Flats\nMudflats drain slowly.", encoding="utf-8")
    IngestService(**parts(held, "q")).run([folder])
    assert held.collection_info("c").owner == "q"
    with pytest.raises(CollectionOwnerMismatch):
        IngestService(**parts(held, "p")).run([papers])


def test_validate_fails_another_projects_collection_naming_its_owner(held: FakeIndex):
    checks = by_name(validate_project("q", components(index=held)))
    owner = checks["collection project"]
    assert not owner.ok and owner.exit_code == 4
    assert "'c' belongs to project 'p', which made it" in owner.detail
    assert owner.fix is not None and "citeloom rename-project p q" in owner.fix
    assert "collection model" not in checks  # another project's collection is not judged further
    mine = by_name(validate_project("p", components(index=held)))["collection project"]
    assert mine.ok and mine.detail == "'c' belongs to 'p'"


def test_every_door_answers_the_owner_guard_with_exit_4_and_http_409():
    answer = outcome(CollectionOwnerMismatch("c", "p", "q"))
    assert (answer.exit_code, answer.http_status, answer.mcp_code) == (
        4,
        409,
        McpCode.INVALID_PROJECT,
    )
    assert "rename-project" in answer.fix


def test_rename_hands_the_collection_and_every_chunk_over(held: FakeIndex):
    documents = held.documents("c", "p")
    report = rename_project(held, "p", "r", "c")
    assert report.points == sum(d.chunks for d in documents) == held.collection_info("c").points
    assert held.documents("c", "r") == documents and held.documents("c", "p") == []
    held.check_owner("c", "r")
    with pytest.raises(CollectionOwnerMismatch):
        held.check_owner("c", "p")
    assert rename_project(held, "p", "r", "c").points == 0  # run again: nothing left to move


def test_rename_refuses_a_third_projects_collection_and_names_what_to_run(held: FakeIndex):
    before = copy.deepcopy(held.collections)
    with pytest.raises(ConfigError) as error:
        rename_project(held, "x", "r", "c")
    assert "belongs to project 'p', not 'x'" in str(error.value)
    assert "citeloom rename-project p r" in str(error.value)
    with pytest.raises(ConfigError, match="given 'p' twice"):
        rename_project(held, "p", "p", "c")
    assert held.collections == before
    with pytest.raises(ConfigError, match="no collection 'c' in this index"):
        rename_project(FakeIndex(), "p", "r", "c")
