"""The entry points over the application of the fakes (``tests/fake_builders.py``): the CLI,
the HTTP API and the MCP tools read a draft as LaTeX by the one rule of the check use case; and
a use case added to the table of use cases is served at HTTP and MCP with nothing else to
write (the worked example of docs/development.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import Field
from typer.testing import CliRunner

from citeloom.config import load_settings
from citeloom.domain.models import Reference
from citeloom.entrypoints import use_case_table
from citeloom.entrypoints.cli import app as cli
from citeloom.entrypoints.http import create_app
from citeloom.entrypoints.mcp_server import tool_list
from citeloom.entrypoints.mcp_tools import ToolRuntime
from citeloom.entrypoints.runtime import Runtime
from citeloom.entrypoints.time_limit import Deadline
from citeloom.entrypoints.use_case_table import Http, Served, Tool
from citeloom.services.application import Citeloom
from citeloom.services.deadline import Deadline as CallDeadline
from citeloom.services.usecases.base import Request, Response, UseCase, build
from citeloom.services.usecases.dependencies import Dependencies
from citeloom.services.usecases.ingest import INGEST, IngestRequest
from tests.conftest import write_config
from tests.fake_builders import FakeBuilders, FakeProject, fake_application

REFS = [Reference("smith2020", "Salt Marsh Carbon", ("Smith, Ann",), 2020)]
CARBON = "Restored marshes buried 12% more carbon each year"
# LaTeX reads % as the start of a comment: the citation after it is not there
DRAFT = f"{CARBON} [@smith2020, p. 2].\n"


@pytest.fixture
def served(tmp_path: Path) -> tuple[Citeloom, Path]:
    """The application over the fakes with one paper ingested, and a config naming its
    project (what a door reads its settings from)."""
    papers = tmp_path / "papers"
    papers.mkdir()
    text = f"TITLE Salt Marsh Carbon\n# 1 Intro\nMarshes.\f# 2 Results\n{CARBON}."
    (papers / "smith.pdf").write_text(text, encoding="utf-8")
    builders = FakeBuilders(papers, REFS, {"papers": FakeProject("proj-papers")})
    app = fake_application(builders, long_lived=True)
    app.run(INGEST, build(IngestRequest, project="papers"))
    (tmp_path / "refs.json").write_text("[]", encoding="utf-8")
    return app, write_config(tmp_path, tmp_path / "refs.json")


def cited_at_cli(served: tuple[Citeloom, Path], draft: Path, monkeypatch) -> list[str]:
    app, config = served
    monkeypatch.setattr("citeloom.entrypoints.cli.search.application", lambda config: app)
    args = ["check", str(draft), "-c", str(config), "--local", "--json"]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code in (0, 1), done.output
    return [c["citation"] for c in json.loads(done.output)["citations"]]


def cited_over_http(served: tuple[Citeloom, Path], name: str, text: str) -> list[str]:
    app, config = served
    client = TestClient(
        create_app(load_settings(config), preload=False, served=app), base_url="http://127.0.0.1"
    )
    body = {"project": "papers", "draft": text, "name": name}
    answer = client.post("/check", json=body)
    assert answer.status_code == 200, answer.text
    return [c["citation"] for c in answer.json()["citations"]]


def cited_over_mcp(served: tuple[Citeloom, Path], name: str, text: str) -> list[str]:
    app, config = served
    tools = ToolRuntime(Runtime(load_settings(config), app=app))
    arguments = {"project": "papers", "draft": text, "name": name}
    answer = tools.call("check_citations", arguments, Deadline(30))
    return [c["citation"] for c in answer["citations"]]


@pytest.mark.parametrize(
    ("name", "text", "cited"),
    [
        ("chapter.md", DRAFT, ["[@smith2020, p. 2]"]),
        ("chapter.tex", DRAFT, []),
        ("chapter.latex", DRAFT, []),
        ("chapter.ltx", DRAFT, []),
        ("draft", DRAFT, ["[@smith2020, p. 2]"]),  # no name: the text decides
        ("draft", f"\\documentclass{{article}}\n{DRAFT}", []),
        ("notes.md", f"As \\cite[p.~2]{{smith2020}} shows.\n{DRAFT}", ["\\cite[p.~2]{smith2020}"]),
    ],
)
def test_a_draft_is_read_as_latex_by_one_rule_at_every_entry_point(
    served, tmp_path, monkeypatch, name, text, cited
):
    """A name ending in .tex, .latex or .ltx is LaTeX (``%`` starts a comment), any other
    name leaves it to the text: LaTeX when it holds \\documentclass or a \\cite command."""
    file = tmp_path / "drafts" / name
    file.parent.mkdir()
    file.write_text(text, encoding="utf-8")
    assert cited_at_cli(served, file, monkeypatch) == cited
    # the same text under the same name, over HTTP and MCP, which take a draft's text
    assert cited_over_http(served, str(file), text) == cited
    assert cited_over_mcp(served, str(file), text) == cited


# ---------------------------------------------------------------------- a use case added
class CitekeysResponse(Response):
    project: str = Field(description="The project.")
    citekeys: list[str] = Field(description="The citekeys of its stored papers, sorted.")


def citekeys(
    deps: Dependencies, request: Request, deadline: CallDeadline | None
) -> CitekeysResponse:
    """The citekeys of the papers a project holds."""
    collection = deps.project(request.project).collection
    with deps.index(deadline, request.project) as index:
        documents = index.documents(collection, request.project)
    keys = sorted({d.citekey for d in documents if d.citekey})
    return CitekeysResponse(project=request.project, citekeys=keys)


CITEKEYS = UseCase("citekeys", Request, CitekeysResponse, citekeys)
ROW = Served(
    CITEKEYS,
    Http("POST", "/citekeys", "The citekeys of the papers a project holds"),
    Tool("list_citekeys", "The citekeys of the papers a project holds, to cite them."),
)


def citekeys_text(response: CitekeysResponse) -> str:
    """Its text, as a CLI command would print it (``render.py``)."""
    return "\n".join(f"@{key}" for key in response.citekeys) or "no papers"


@pytest.fixture
def with_citekeys(monkeypatch) -> Iterator[None]:
    monkeypatch.setattr(use_case_table, "TABLE", (*use_case_table.TABLE, ROW))
    yield


def test_a_use_case_added_to_the_table_is_served_at_http_and_mcp(served, with_citekeys):
    app, config = served
    settings = load_settings(config)
    client = TestClient(
        create_app(settings, preload=False, served=app), base_url="http://127.0.0.1"
    )
    answer = client.post("/citekeys", json={"project": "papers"})
    assert answer.json() == {"project": "papers", "citekeys": ["smith2020"]}
    assert "/citekeys" in client.get("/openapi.json").json()["paths"]
    wrong = client.post("/citekeys", json={"project": "papers", "projct": 1})
    assert wrong.status_code == 422 and wrong.json()["field"] == "projct"
    tools = ToolRuntime(Runtime(settings, app=app))
    listed = tool_list(["papers"], list(tools.tools.values()))
    assert "list_citekeys" in [t.name for t in listed]
    called = tools.call("list_citekeys", {"project": "papers"}, Deadline(30))
    assert called == answer.json()
    assert citekeys_text(app.run(CITEKEYS, Request(project="papers"))) == "@smith2020"
