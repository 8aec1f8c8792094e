"""The page at ``/`` of ``citeloom serve``, as served: only files of this server, no inline
script, no way for a document's text to become markup, and shipped in the wheel. Its use in a
real browser is tests/integration/test_serve_page.py."""

from __future__ import annotations

import fnmatch
import re
import tomllib

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from citeloom.config import load_settings
from citeloom.entrypoints import examples
from citeloom.entrypoints.http import create_app
from citeloom.entrypoints.http.page import PAGE_ASSETS, WEB
from tests.conftest import ROOT, write_config


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    folder = tmp_path_factory.mktemp("page")
    config = write_config(folder, ROOT / "references" / "example.json")
    return create_app(load_settings(config), preload=False)  # no model, no index opened


def test_the_page_loads_only_files_this_server_serves_and_runs_no_inline_script(app):
    client = TestClient(app, base_url="http://127.0.0.1")
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    scripts = re.findall(r"<script([^>]*)>", page.text)
    assert scripts and all('src="' in attrs for attrs in scripts)  # none inline
    linked = re.findall(r'(?:src|href)="([^"#][^"]*)"', page.text)
    assets = [url for url in linked if url.startswith(f"{PAGE_ASSETS}/")]
    assert len(assets) == 2, linked  # the script and the style
    for url in assets:
        assert client.get(url).status_code == 200, url
    assert all(url.startswith(("/", "data:")) and not url.startswith("//") for url in linked)
    assert "https://" not in page.text and "http://" not in page.text


def test_no_text_becomes_markup_in_the_page_script():
    script = re.sub(r"^\s*//.*$", "", (WEB / "page.js").read_text(encoding="utf-8"), flags=re.M)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script, f"page.js uses {sink}: build elements and set textContent"


def test_every_element_the_script_looks_up_is_on_the_page():
    script = (WEB / "page.js").read_text(encoding="utf-8")
    page = (WEB / "index.html").read_text(encoding="utf-8")
    wanted = set(re.findall(r'\$\("([\w-]+)"\)', script))
    ids = set(re.findall(r'\sid="([\w-]+)"', page))
    assert wanted and wanted <= ids, sorted(wanted - ids)
    # and every field of the page has its label (a screen reader names it, a click focuses it)
    fields = set(re.findall(r'<(?:input|select|textarea)[^>]*\sid="([\w-]+)"', page))
    labelled = set(re.findall(r'<label for="([\w-]+)"', page))
    assert fields <= labelled, sorted(fields - labelled)


def test_the_page_files_ship_in_the_wheel():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["citeloom"]
    package = ROOT / "src" / "citeloom"
    files = [p.relative_to(package).as_posix() for p in WEB.iterdir() if p.is_file()]
    assert {"index.html", "page.css", "page.js"} <= {f.rsplit("/", 1)[-1] for f in files}
    for file in files:
        assert any(fnmatch.fnmatch(file, pattern) for pattern in patterns), file


def test_the_page_is_not_an_api_route_and_unknown_page_files_get_the_error_shape(app):
    client = TestClient(app, base_url="http://127.0.0.1")
    assert "/" not in client.get("/openapi.json").json()["paths"]
    missing = client.get(f"{PAGE_ASSETS}/nope.js")
    assert missing.status_code == 404 and set(missing.json()) == {"error", "field"}


def test_a_tokenless_server_refuses_a_request_addressed_to_another_name(app):
    """DNS rebinding: a web page re-points its own name at 127.0.0.1 and calls the API from
    the visitor's browser; its requests carry its own name as Host and are refused unread."""
    for host in ("127.0.0.1:8765", "localhost", "[::1]:8765", "LOCALHOST:1"):
        assert TestClient(app, base_url=f"http://{host}").get("/").status_code == 200, host
    for host in ("attacker.example", "attacker.example:8765", "127.0.0.1.attacker.example"):
        rebound = TestClient(app, base_url=f"http://{host}")
        for answer in (rebound.get("/"), rebound.get("/projects"), rebound.post("/query")):
            assert answer.status_code == 403, host
            assert "addressed to this machine" in answer.json()["error"]


BYLINES = [
    ["Ardel, Ines", "Reyes, Tomas", "Halvorsen, Sigrid"],
    ["Ardel, Ines", "Reyes, Tomas"],
    ["Ardel, Ines"],
    [],
    ["  ", "Lee, Bo", "Kim, Ann"],
]


def test_the_page_names_who_and_when_by_the_rule_of_the_cli_and_the_tui():
    """The byline's who and when, run by node from page.js, against ``result_text.byline``
    on the same fields."""
    import json
    import shutil
    import subprocess

    from citeloom.entrypoints.result_text import byline
    from citeloom.services.usecases.wire import PassageOut

    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node to run page.js's byline")
    script = (WEB / "page.js").read_text(encoding="utf-8")
    found = re.search(r"^function byline\(.*?^}$", script, flags=re.M | re.S)
    assert found, "page.js has no function byline"
    # el() stubbed: the byline's parts as text, the who-and-when first
    probe = (
        "const el = (tag, attrs, ...parts) => attrs.text !== undefined ? attrs.text : "
        "parts.filter((p) => p !== null)[0] || '';\n"
        f"{found.group(0)}\n"
        "const items = JSON.parse(process.argv[1]);\n"
        "console.log(JSON.stringify(items.map((item) => byline(item, null))));"
    )
    items = [{"authors": authors, "year": 2023, "title": None} for authors in BYLINES]
    done = subprocess.run(
        [node, "-e", probe, json.dumps(items)], capture_output=True, text=True, check=True
    )
    shown = json.loads(done.stdout)
    example = PassageOut.model_validate(examples.PASSAGE)
    expected = [byline(example.model_copy(update={"authors": a})) for a in BYLINES]
    assert (
        shown
        == expected
        == [
            "Ardel et al., 2023",
            "Ardel and Reyes, 2023",
            "Ardel, 2023",
            "2023",
            "Lee and Kim, 2023",
        ]
    )
