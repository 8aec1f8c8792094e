"""A named pipe, a device or a socket given as a document is refused without being read:
reading one waits for ever (a pipe without a writer) or never ends (/dev/zero)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeloom.domain.errors import DocumentError
from citeloom.services.ingest import refuse_unreadable
from citeloom.services.ingest_state import hash_file, not_a_document


def finishes(work, seconds: float = 10.0):
    """``work()``'s result, or a failure when it blocks (a read of a pipe would)."""
    out: list = []

    def run() -> None:
        try:
            out.append(work())
        except Exception as error:  # raised again in the test's own thread
            out.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked"
    if isinstance(out[0], Exception):
        raise out[0]
    return out[0]


@pytest.fixture
def files(tmp_path: Path) -> Iterator[dict[str, Path]]:
    regular = tmp_path / "paper.txt"
    regular.write_text("a paper", encoding="utf-8")
    fifo = tmp_path / "fifo.pdf"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.pdf"
    zero.symlink_to("/dev/zero")
    link = tmp_path / "link.txt"
    link.symlink_to(regular)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock.pdf"))
    yield {
        "regular": regular,
        "link": link,
        "folder": tmp_path,
        "fifo": fifo,
        "zero": zero,
        "socket": tmp_path / "sock.pdf",
    }
    server.close()


def test_each_kind_is_named_and_a_link_names_what_it_points_at(files):
    assert not_a_document(files["regular"]) is None
    assert not_a_document(files["link"]) is None  # a link to a file is read as the file
    assert not_a_document(files["folder"]) is None  # searched, not read
    assert not_a_document(files["folder"] / "missing.pdf") is None  # said elsewhere
    assert str(not_a_document(files["fifo"])).startswith("a named pipe (FIFO), not a document")
    assert str(not_a_document(files["zero"])).startswith(
        "a link to /dev/zero, a character device, not a document"
    )
    assert str(not_a_document(files["socket"])).startswith("a socket, not a document")


def test_the_batch_keeps_the_readable_paths_and_a_failed_outcome_names_each_other(files):
    given = [files["fifo"], files["regular"], files["zero"], files["folder"]]
    kept, refused = finishes(lambda: refuse_unreadable(given))
    assert kept == [files["regular"], files["folder"]]
    assert [(r.path, r.status) for r in refused] == [
        (str(files["fifo"]), "failed"),
        (str(files["zero"]), "failed"),
    ]
    assert all(r.error and r.error.startswith(f"{r.path}: ") for r in refused)


def test_a_file_replaced_by_a_pipe_during_a_run_fails_without_being_read(files):
    with pytest.raises(DocumentError) as refused:
        finishes(lambda: hash_file(files["fifo"]))
    assert str(files["fifo"]) in str(refused.value) and "named pipe" in str(refused.value)


@pytest.mark.parametrize("command", ["ingest", "watch"])
def test_named_alone_it_is_refused_before_the_index_is_opened(files, tmp_path, command):
    from typer.testing import CliRunner

    from citeloom.entrypoints.cli import app

    (tmp_path / "refs.json").write_text("[]", encoding="utf-8")
    config = tmp_path / "citeloom.toml"
    config.write_text(
        '[paths]\nindex_dir = "var/qdrant"\naudit_dir = "var/audit"\n'
        '[project."papers"]\ncollection = "proj-papers"\nreferences_json = "refs.json"\n',
        encoding="utf-8",
    )
    args = [command, str(files["fifo"]), str(files["zero"]), "-p", "papers", "-c", str(config)]
    done = finishes(lambda: CliRunner().invoke(app, args))
    assert done.exit_code == 1
    assert done.output.splitlines() == [
        f"error: {files['fifo']}: {not_a_document(files['fifo'])}",
        f"error: {files['zero']}: {not_a_document(files['zero'])}",
    ]
    assert not (tmp_path / "var").exists()  # no index opened, no audit begun


def test_import_refuses_a_device_or_a_folder_at_once_and_takes_a_pipe(files, tmp_path):
    from typer.testing import CliRunner

    from citeloom.entrypoints.cli import app
    from citeloom.services.export_file import refuse_unreadable_import

    for path in (files["zero"], files["folder"], files["socket"]):
        done = finishes(lambda p=path: CliRunner().invoke(app, ["import", str(p), "-p", "x"]))
        assert done.exit_code == 2 and done.output.startswith(f"error: {path} is a ")
        assert "Nothing was imported. Name the export file." in done.output
    assert "/dev/zero, a character device" in str(
        finishes(lambda: CliRunner().invoke(app, ["import", str(files["zero"]), "-p", "x"])).output
    )
    refuse_unreadable_import(files["fifo"])  # a pipe is read as it comes: <(zcat export.gz)
    refuse_unreadable_import(files["regular"])
