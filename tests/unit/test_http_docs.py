"""What ``citeloom serve`` shows a reader at /docs: a page built only from files on this
machine, and one set of field names and limits shared with the other doors."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from citeloom.config import load_settings
from citeloom.entrypoints import schemas
from citeloom.entrypoints.http import DOCS_ASSETS, create_app
from tests.conftest import ROOT, write_config


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    folder = tmp_path_factory.mktemp("docs")
    config = write_config(folder, ROOT / "references" / "example.json")
    return create_app(load_settings(config), preload=False)  # no model, no index opened


def test_the_docs_page_loads_only_files_this_server_serves(app):
    client = TestClient(app)
    page = client.get("/docs")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    linked = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert len(linked) == 3, linked  # script, style, icon
    for url in linked:
        assert url.startswith(f"{DOCS_ASSETS}/"), url  # never another host, nor //host
        assert client.get(url).status_code == 200, url
    assert "https://" not in page.text and "http://" not in page.text
    assert '"validatorUrl": null' in page.text  # Swagger UI's badge would send the schema out
    script = client.get(f"{DOCS_ASSETS}/swagger-ui-bundle.js")
    assert "javascript" in script.headers["content-type"] and len(script.content) > 500_000


def test_no_docs_page_is_served_from_a_cdn_and_unknown_assets_get_the_error_shape(app):
    client = TestClient(app)
    for path in ("/redoc", f"{DOCS_ASSETS}/nope.js", "/docs/oauth2-redirect"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert set(answer.json()) == {"error", "field"}, path


def test_projects_has_the_fields_of_mcp_list_projects():
    from citeloom.services.inspection import ProjectSummary

    names = [f.name for f in dataclasses.fields(ProjectSummary)]
    assert list(schemas.ProjectOut.model_fields) == names


def _bounds(model: type[schemas.BaseModel], field: str) -> tuple[Any, Any]:
    spec = model.model_json_schema()["properties"][field]
    number = next(s for s in spec.get("anyOf", [spec]) if s.get("type") == "integer")
    return number.get("minimum"), number.get("maximum")


def test_query_limits_are_one_across_the_cli_http_and_mcp():
    import typer

    from citeloom.domain.query_syntax import MAX_TOP_K
    from citeloom.entrypoints.cli import app as cli
    from citeloom.entrypoints.mcp_tools import QueryArgs

    command: Any = typer.main.get_command(cli)
    options = {p.name: p.type for p in command.commands["query"].params}
    for field in ("top_k", "per_doc", "budget"):
        http = _bounds(schemas.QueryRequest, field)
        assert http == _bounds(QueryArgs, field), field
        assert (options[field].min, options[field].max) == http, field  # --top-k, ...
    assert _bounds(schemas.QueryRequest, "top_k") == (1, MAX_TOP_K)


def test_the_readme_shows_what_projects_returns():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"`GET /projects` answers.*?```json\n(.*?)```", text, flags=re.S)
    assert shown, "the README's serve section shows no /projects answer"
    answer = schemas.ProjectsResponse.model_validate(json.loads(shown.group(1)))
    assert answer.projects[0].project == "example"
