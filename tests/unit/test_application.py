"""The application object over the fakes: ``Citeloom`` built as ``bootstrap`` builds it, each
use case run through it by its request, answering the response every door prints. A use case
added without a run here fails the last test."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from typing import TypeVar

import pytest
from pydantic import BaseModel

from citeloom.domain.models import Reference
from citeloom.services import usecases
from citeloom.services.application import Citeloom
from citeloom.services.usecases import (
    answer,
    audit,
    check,
    chunks,
    document_file,
    drop,
    health,
    ingest,
    inspect,
    notes,
    passage,
    projects,
    query,
    reindex,
    rename,
    transfer,
    validate,
    watch,
)
from citeloom.services.usecases.base import NoRequest, Request, UseCase, build
from tests.fake_builders import FakeBuilders, FakeProject, fake_application

REFS = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann", "Lee, Bo"), 2020)]
CARBON = "Restored marshes bury carbon at 6.8 tonnes per hectare each year."
R = TypeVar("R", bound=BaseModel)
S = TypeVar("S")


@pytest.fixture
def app(tmp_path: Path) -> Citeloom:
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "smith.pdf").write_text(
        f"TITLE Salt Marsh Carbon\n# 1 Intro\nMarshes are coastal wetlands.\f# 2 Results\n{CARBON}",
        encoding="utf-8",
    )
    (papers / "other.pdf").write_text("TITLE Quiet Offices\nOpen offices are loud.", "utf-8")
    builders = FakeBuilders(
        raw_dir=papers,
        refs=REFS,
        projects={
            "p": FakeProject("c"),
            "q": FakeProject("cq"),
            "q2": FakeProject("cq"),  # q renamed on purpose: it takes cq over
        },
    )
    return fake_application(builders)


def run(app: Citeloom, use_case: UseCase[R, S], request: R) -> S:
    return app.run(use_case, request)


def ingested(app: Citeloom) -> ingest.IngestResponse:
    return run(app, ingest.INGEST, build(ingest.IngestRequest, project="p"))


def test_ingest_reads_raw_dir_and_search_finds_the_cited_page(app):
    stored = ingested(app)
    assert (stored.totals["ingested"], stored.totals["failed"]) == (2, 0)
    assert {d.citekey for d in stored.documents} == {"smith2020", None}
    found = run(app, query.QUERY, build(query.QueryRequest, project="p", query="bury carbon"))
    best = found.results[0]
    assert (best.citekey, best.label, best.text) == ("smith2020", "[@smith2020, p. 2]", CARBON)
    said = run(app, answer.ANSWER, build(answer.AnswerRequest, project="p", question=CARBON))
    assert [c.label for c in said.citations] == ["[@smith2020, p. 2]"]
    draft = f"{CARBON.rstrip('.')} [@smith2020, p. 2]."
    checked = run(app, check.CHECK, build(check.CheckRequest, project="p", draft=draft))
    assert checked.ok and checked.citations[0].verdict == "supported"


def test_a_passage_is_read_between_its_neighbours_and_its_file_opened(app, tmp_path):
    ingested(app)
    listed = run(
        app, chunks.FIND_CHUNKS, build(chunks.FindChunksRequest, project="p", citekey="smith2020")
    )
    assert [c.text for c in listed.chunks] == ["Marshes are coastal wetlands.", CARBON]
    second = listed.chunks[1].chunk_id
    read = run(
        app, passage.PASSAGE, build(passage.PassageRequest, project="p", chunk_id=second, context=1)
    )
    assert [p.text for p in read.before] == ["Marshes are coastal wetlands."]
    stored = run(
        app,
        document_file.DOCUMENT_FILE,
        build(document_file.FileRequest, project="p", chunk_id=second),
    )
    assert stored.path == tmp_path / "papers" / "smith.pdf"


def test_the_projects_their_documents_and_the_servers_health(app):
    ingested(app)
    listed = run(app, projects.LIST_PROJECTS, NoRequest())
    assert [(p.project, p.documents) for p in listed.projects] == [("p", 2), ("q", 0), ("q2", 0)]
    one = run(app, projects.PROJECT, build(Request, project="p"))
    assert one.chunks == 3
    held = run(app, inspect.INSPECT, build(Request, project="p"))
    assert sorted(d.citekey or "-" for d in held.documents) == ["-", "smith2020"]
    related = run(app, inspect.RELATIONS, build(Request, project="p"))
    assert related.relations == []
    cold = run(app, health.HEALTH, NoRequest())
    assert (cold.status, cold.models_loaded) == ("degraded", [])
    run(app, query.QUERY, build(query.QueryRequest, project="p", query="carbon"))
    warm = run(app, health.HEALTH, NoRequest())
    assert warm.status == "ok" and warm.index_reachable


def test_notes_are_stored_listed_and_deleted(app):
    ingested(app)
    item = {"text": "Eelgrass slows the tide.", "citekey": "smith2020", "page": 2}
    kept = run(app, notes.STORE_NOTES, build(notes.StoreNotesRequest, project="p", items=[item]))
    doc_id = kept.stored[0].doc_id
    listed = run(app, notes.LIST_NOTES, build(Request, project="p"))
    assert [n.text for n in listed.notes] == ["Eelgrass slows the tide."]
    gone = run(
        app, notes.DELETE_NOTES, build(notes.DeleteNotesRequest, project="p", doc_ids=[doc_id])
    )
    assert gone.deleted == [doc_id]


def test_a_collection_is_rebuilt_moved_renamed_and_dropped(app, tmp_path):
    ingested(app)
    terms = run(app, reindex.REINDEX, build(reindex.ReindexRequest, project="p"))
    assert terms.switched and not terms.embedded
    file = tmp_path / "p.jsonl"
    out = run(app, transfer.EXPORT, build(transfer.ExportRequest, project="p", file=file))
    moved = run(app, transfer.IMPORT, build(transfer.ImportRequest, project="q", file=file))
    assert out.points == moved.points == 3
    renamed = run(app, rename.RENAME, build(rename.RenameRequest, old="q", new="q2"))
    assert (renamed.collection, renamed.points) == ("cq", 3)
    plan = run(app, drop.DROP_PLAN, build(Request, project="p"))
    dropped = run(app, drop.DROP, build(Request, project="p"))
    assert plan.removed == dropped.removed == ["c@2"]  # reindexed
    left = run(app, projects.LIST_PROJECTS, NoRequest())
    assert [p.documents for p in left.projects] == [0, 0, 2]


def test_validate_audit_and_watch(app):
    request = validate.ValidateRequest(project="p", config="citeloom.toml")
    checked = run(app, validate.VALIDATE, request)
    assert checked.ok and checked.exit_code == 0
    followed = run(app, watch.WATCH, build(watch.WatchRequest, project="p"))
    assert followed.runs == 1  # the catch-up run
    runs = run(app, audit.AUDIT_RUNS, NoRequest())
    assert runs.runs and runs.runs[0].documents == {"ingested": 2}
    one = run(app, audit.AUDIT_RUN, build(audit.RunRequest, correlation_id="test-run"))
    assert one.outcome.startswith("finished")


def test_every_use_case_is_run_above():
    source = Path(__file__).read_text(encoding="utf-8")
    for info in pkgutil.iter_modules(usecases.__path__):
        module = importlib.import_module(f"{usecases.__name__}.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, UseCase):
                ran = re.search(rf"\brun\(\s*app,\s*{info.name}\.{name}\b", source)
                assert ran, f"no test above runs {value.name} through Citeloom"
