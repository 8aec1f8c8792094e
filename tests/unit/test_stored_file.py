"""What ``GET /file`` hands out (issue 42, cases 1 and 2): the stored file only while it is
still the document that was ingested, reached by no link, and sent so that a browser never
runs it on the server's origin. Over the fakes of ``tests/fakes.py`` and the response rule
alone; ``tests/integration/test_serve_file.py`` asks a real ``citeloom serve``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from citeloom.config import load_settings
from citeloom.domain.errors import CiteloomError
from citeloom.entrypoints.http import create_app
from citeloom.entrypoints.http.files import file_response
from citeloom.entrypoints.outcomes import outcome
from citeloom.services.browse import BrowseService
from citeloom.services.ingest import IngestService
from citeloom.services.stored_file import StoredFile
from tests.conftest import ROOT, write_config
from tests.fakes import (
    FakeChunker,
    FakeConverter,
    FakeEmbedder,
    FakeIndex,
    FakeMetadata,
    MemoryAudit,
)
from tests.unit.test_browse_and_notes import PAPER, REFS

SECRET = "root:x:0:0:the neighbour wants this line\n"
SANDBOX = "sandbox; default-src 'none'"


@pytest.fixture
def library(tmp_path: Path) -> tuple[BrowseService, str, Path]:
    """Project 'p' holding smith2020.pdf of tmp/papers/, the service, a chunk id of it and
    the file's path."""
    papers = tmp_path / "papers"
    papers.mkdir()
    paper = papers / "smith2020.pdf"
    paper.write_text(PAPER, encoding="utf-8")
    index = FakeIndex()
    ingest(index, papers)
    service = BrowseService(project="p", collection="c", index=index)
    chunk = service.find_chunks("smith2020").passages[0].chunk_id
    return service, chunk, paper


def ingest(index: FakeIndex, folder: Path) -> None:
    IngestService(
        project="p",
        collection="c",
        converter=FakeConverter(),
        chunker=FakeChunker(),
        metadata=FakeMetadata(REFS),
        embedder=FakeEmbedder(),
        index=index,
        audit=MemoryAudit(),
    ).run([folder])


def refused(service: BrowseService, chunk: str) -> tuple[int, str]:
    """The HTTP status and the message ``document_file`` is refused with."""
    with pytest.raises(CiteloomError) as caught:
        service.document_file(chunk)
    return outcome(caught.value).http_status, str(caught.value)


def says_what_to_do(message: str, paper: Path) -> None:
    assert str(paper) in message
    assert "citeloom ingest FOLDER -p p" in message


def test_the_stored_file_is_served_with_the_bytes_that_were_ingested(library):
    service, chunk, paper = library
    served = service.document_file(chunk)
    assert served.path == paper
    assert served.content == paper.read_bytes()


def test_a_file_swapped_for_a_link_is_refused_even_to_the_same_bytes(library, tmp_path):
    service, chunk, paper = library
    copy = tmp_path / "copy.pdf"
    shutil.copy(paper, copy)  # the very bytes that were ingested: only the link is wrong
    paper.unlink()
    paper.symlink_to(copy)
    status, message = refused(service, chunk)
    assert status == 409 and "symbolic link" in message
    says_what_to_do(message, paper)
    secret = tmp_path / "passwd"
    secret.write_text(SECRET, encoding="utf-8")
    paper.unlink()
    paper.symlink_to(secret)
    status, message = refused(service, chunk)
    assert status == 409 and "neighbour" not in message


def test_a_folder_on_the_path_swapped_for_a_link_is_refused(library, tmp_path):
    service, chunk, paper = library
    papers = paper.parent
    shutil.copytree(papers, tmp_path / "elsewhere")  # the same file, reached through a link
    shutil.rmtree(papers)
    papers.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    assert paper.read_bytes() == (tmp_path / "elsewhere" / paper.name).read_bytes()
    status, message = refused(service, chunk)
    assert status == 409 and "symbolic link" in message and str(papers) in message
    says_what_to_do(message, paper)
    # the fix the message gives for a link of one's own: without it, ingest the real folder
    papers.unlink()
    index = service.index
    assert isinstance(index, FakeIndex)
    ingest(index, tmp_path / "elsewhere")
    moved = service.document_file(chunk)
    assert moved.path == tmp_path / "elsewhere" / paper.name
    assert moved.content == moved.path.read_bytes()


def test_a_file_overwritten_since_ingest_is_refused_and_none_of_it_sent(library):
    service, chunk, paper = library
    paper.write_text(SECRET, encoding="utf-8")
    status, message = refused(service, chunk)
    assert status == 409 and "changed since it was ingested" in message
    assert "neighbour" not in message
    says_what_to_do(message, paper)


def test_a_pipe_or_a_folder_in_the_files_place_is_refused_without_waiting(library):
    service, chunk, paper = library
    paper.unlink()
    os.mkfifo(paper)  # opening it to read would wait for a writer for ever
    status, message = refused(service, chunk)
    assert status == 409 and "named pipe" in message
    says_what_to_do(message, paper)
    paper.unlink()
    paper.mkdir()
    status, message = refused(service, chunk)
    assert status == 409 and "a folder" in message


def test_a_chunk_id_is_echoed_at_most_80_characters_long(library):
    service, _, _ = library
    forged = "x" * 100_000
    status, message = refused(service, forged)
    assert status == 400 and "no chunk" in message
    assert len(message) < 400


def test_only_a_pdf_is_shown_as_itself_and_every_file_is_sandboxed(tmp_path):
    page = b"<script>fetch('/projects').then(r => r.text()).then(send)</script>"
    for name, media, disposition in (
        ("paper.pdf", "application/pdf", "inline"),
        ("saved page.html", "text/plain; charset=utf-8", "inline"),
        ("notes.md", "text/plain; charset=utf-8", "inline"),
        ("draft.docx", "application/octet-stream", "attachment"),
    ):
        response = file_response(StoredFile(tmp_path / name, page))
        assert response.body == page
        assert response.headers["content-type"] == media
        assert response.headers["content-disposition"].split(";")[0] == disposition
        assert response.headers["content-security-policy"] == SANDBOX
        assert response.headers["x-content-type-options"] == "nosniff"


def test_a_refusal_of_file_is_sandboxed_too_and_other_routes_are_not(tmp_path):
    config = write_config(tmp_path, ROOT / "references" / "example.json")
    client = TestClient(create_app(load_settings(config), preload=False), "http://127.0.0.1")
    for answer in (
        client.get("/file", params={"project": "nope", "chunk_id": "x"}),  # 404, no index
        client.get("/file"),  # 422: no project, no chunk_id
        client.get("/file", headers={"host": "attacker.example"}),  # 403: a rebound name
    ):
        assert answer.status_code in (403, 404, 422), answer.text
        assert answer.headers["content-security-policy"] == SANDBOX
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" not in client.get("/").headers["content-security-policy"]
