"""What ``citeloom serve`` shows a reader at /docs: a page built only from files on this
machine."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from citeloom.config import load_settings
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
