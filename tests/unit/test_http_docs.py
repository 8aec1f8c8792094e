"""What ``citeloom serve`` tells a reader at /docs: a valid OpenAPI 3.1 document whose every
field is described and every body has an example the server accepts, a page built only from
files on this machine, and one set of field names and limits shared with the other doors."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from citeloom.config import load_settings
from citeloom.entrypoints import examples
from citeloom.entrypoints.http import DOCS_ASSETS, ERROR_STATUSES, create_app
from citeloom.services.usecases import answer, check, passage, projects, query, wire
from citeloom.services.usecases.health import HealthResponse
from tests.conftest import ROOT, write_config

JSON_ROUTES = {
    ("/query", "post"),
    ("/answer", "post"),
    ("/check", "post"),
    ("/passage", "post"),
    ("/projects", "get"),
    ("/health", "get"),
}
ROUTES = {*JSON_ROUTES, ("/file", "get")}  # /file answers the stored file itself


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    folder = tmp_path_factory.mktemp("docs")
    config = write_config(folder, ROOT / "references" / "example.json")
    return create_app(load_settings(config), preload=False)  # no model, no index opened


@pytest.fixture(scope="module")
def openapi(app: FastAPI) -> dict[str, Any]:
    return TestClient(app, base_url="http://127.0.0.1").get("/openapi.json").json()


# every model /docs shows: the requests and responses of the use cases the API serves
MODELS = {
    name: value
    for module in (answer, check, passage, projects, query, wire)
    for name, value in vars(module).items()
    if isinstance(value, type) and issubclass(value, BaseModel)
} | {"HealthResponse": HealthResponse}


def model_of(ref: dict[str, Any]) -> type[BaseModel]:
    return MODELS[ref["$ref"].rsplit("/", 1)[1]]


def test_the_openapi_document_is_valid_openapi_3_1(openapi):
    from openapi_spec_validator import validate

    assert openapi["openapi"].startswith("3.1")
    validate(openapi)  # raises, naming the path, on anything the OpenAPI 3.1 schema forbids
    operations = {(path, method) for path, item in openapi["paths"].items() for method in item}
    assert operations == ROUTES  # /docs and its assets are not API routes


def test_every_route_shows_request_and_response_examples_the_server_accepts(openapi):
    for path, method in JSON_ROUTES:
        operation = openapi["paths"][path][method]
        bodies = [operation["responses"]["200"]]
        if method == "post":
            bodies.append(operation["requestBody"])
        for body in bodies:
            schema = body["content"]["application/json"]["schema"]
            examples = openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]][
                "examples"
            ]
            assert examples, f"{method} {path} shows no example"
            for example in examples:
                model_of(schema).model_validate(example)  # extra="forbid": no stray key


def test_every_model_has_valid_examples_and_every_field_a_description(openapi):
    for name, component in openapi["components"]["schemas"].items():
        model = MODELS[name]
        assert model.model_config.get("extra") == "forbid", name
        assert component.get("examples"), f"{name} has no example"
        for example in component["examples"]:
            model.model_validate(example)
        for field, spec in component["properties"].items():
            assert len(spec.get("description", "")) > 10, f"{name}.{field} has no description"


def test_the_examples_come_from_the_bundled_example_project(openapi):
    components = openapi["components"]["schemas"]
    query = components["QueryRequest"]["examples"][0]
    assert query == {"project": "example", "query": examples.QUESTION}
    passage = components["PassageOut"]["examples"][0]
    assert passage["label"] == "[@ardel2023marsh, p. 118]"
    assert (passage["page_start"], passage["page_label_start"]) == (2, "118")


def test_every_error_status_is_declared_with_what_it_means_and_an_example(openapi):
    from citeloom.entrypoints.outcomes import INTERNAL, TABLE

    answered = {row[1] for row in TABLE} | {INTERNAL.http_status, 401, 403, 413, 422}
    assert answered == set(ERROR_STATUSES)
    for path, method in ROUTES:
        responses = openapi["paths"][path][method]["responses"]
        for status in answered:
            response, declared = responses[str(status)], ERROR_STATUSES[status]
            assert response["description"] == declared.meaning
            body = response["content"]["application/json"]
            assert body["schema"]["$ref"].endswith("/ErrorResponse")
            # as the server sends it: "field" is there, null or not
            assert body["example"] == {"error": declared.error, "field": declared.field}


def test_the_docs_page_loads_only_files_this_server_serves(app):
    client = TestClient(app, base_url="http://127.0.0.1")
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
    client = TestClient(app, base_url="http://127.0.0.1")
    for path in ("/redoc", f"{DOCS_ASSETS}/nope.js", "/docs/oauth2-redirect"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert set(answer.json()) == {"error", "field"}, path


def test_projects_has_the_fields_of_mcp_list_projects():
    from citeloom.services.inspection import ProjectSummary

    names = [f.name for f in dataclasses.fields(ProjectSummary)]
    assert list(projects.ProjectOut.model_fields) == names


def _bounds(model: type[BaseModel], field: str) -> tuple[Any, Any]:
    spec = model.model_json_schema()["properties"][field]
    number = next(s for s in spec.get("anyOf", [spec]) if s.get("type") == "integer")
    return number.get("minimum"), number.get("maximum")


def test_query_limits_are_one_across_the_cli_http_and_mcp():
    import typer

    from citeloom.domain.query_syntax import MAX_TOP_K
    from citeloom.entrypoints.cli import app as cli
    from citeloom.entrypoints.mcp_arguments import QueryArgs

    command: Any = typer.main.get_command(cli)
    options = {p.name: p.type for p in command.commands["query"].params}
    for field in ("top_k", "per_doc", "budget"):
        http = _bounds(query.QueryRequest, field)
        assert http == _bounds(QueryArgs, field), field
        assert (options[field].min, options[field].max) == http, field  # --top-k, ...
    assert _bounds(query.QueryRequest, "top_k") == (1, MAX_TOP_K)


def test_the_http_api_guide_shows_what_projects_returns():
    text = (ROOT / "docs" / "http-api.md").read_text(encoding="utf-8")
    shown = re.search(r"`GET /projects` answers.*?```json\n(.*?)```", text, flags=re.S)
    assert shown, "docs/http-api.md shows no /projects answer"
    shown_answer = projects.ProjectsResponse.model_validate(json.loads(shown.group(1)))
    assert shown_answer.dump() == {"projects": [examples.PROJECT]}
