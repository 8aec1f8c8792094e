"""Stored text reaches a terminal escaped: a bell, an escape sequence or a bidi override in a
document is shown, never acted on (issue 20). JSON keeps the text exact."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conftest import CITELOOM, write_config

pytestmark = pytest.mark.real

HOSTILE = (
    "Tidal marshes bury carbon\x07 in sediment \x1b[31mred\x1b[0m and \u202eesrever\u202c fast."
)


def test_control_and_bidi_characters_are_escaped_in_text_and_exact_in_json(tmp_path):
    document = tmp_path / "docs" / "note.md"
    document.parent.mkdir()
    document.write_text(f"# Marsh carbon\n\n{HOSTILE}\n", encoding="utf-8")
    references = tmp_path / "library.json"
    references.write_text("[]", encoding="utf-8")
    config = write_config(tmp_path, references)
    run = [CITELOOM]
    subprocess.run([*run, "ingest", str(document.parent), "-p", "papers", "-c", str(config)],
                   check=True, capture_output=True)  # fmt: skip
    query = [*run, "query", "tidal marshes bury carbon", "-p", "papers", "-c", str(config)]
    shown = subprocess.run(query, check=True, capture_output=True, text=True).stdout
    assert "carbon\\x07 in sediment \\x1b[31mred\\x1b[0m and \\u202eesrever\\u202c" in shown
    assert not any(c in shown for c in "\x07\x1b\u202e\u202c")
    data = subprocess.run([*query, "--json"], check=True, capture_output=True, text=True).stdout
    assert not any(c in data for c in "\x07\x1b\u202e\u202c")  # written as JSON escapes
    assert json.loads(data)["results"][0]["text"].endswith(HOSTILE.rsplit("# ", maxsplit=1)[-1])


def test_a_newline_in_a_file_name_cannot_forge_a_line_of_output(tmp_path):
    """A file someone else named ``x\\nfailed    ...`` would print a line of its own."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    forged = "notes\nfailed    thesis.pdf: FORGED.txt"
    (inbox / forged).write_text("Tidal marshes bury carbon in their sediment.\n", "utf-8")
    fifo = inbox / "pipe\ningested  fake.pdf"
    os.mkfifo(fifo)
    references = tmp_path / "library.json"
    references.write_text("[]", encoding="utf-8")
    config = write_config(tmp_path, references)
    done = subprocess.run(
        [CITELOOM, "ingest", str(inbox / forged), str(fifo), "-p", "papers", "-c", str(config)],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1  # the pipe is refused, the note goes in
    lines = done.stdout.splitlines()
    assert not any(
        line.startswith(("failed    thesis.pdf", "ingested  fake.pdf")) for line in lines
    )
    (line,) = [line for line in lines if "FORGED" in line]
    assert line.startswith("[2/2] ingested  inbox/notes\\nfailed    thesis.pdf: FORGED.txt  ")
    assert lines[0].startswith("[1/2] failed    inbox/pipe\\ningested  fake.pdf: a named pipe")
    (refused,) = done.stderr.splitlines()
    assert refused.startswith(f"error: {inbox}/pipe\\ningested  fake.pdf: a named pipe (FIFO)")
