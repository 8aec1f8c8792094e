"""A long document is not silent: ``citeloom ingest`` on a terminal shows, under its bar, the
pages converted and the chunks embedded of the document in hand, and nothing of it when stdout
is not a terminal or with ``--progress json``. The real CLI runs on a 60-page PDF made here,
in a pseudo-terminal as a person's shell gives it, and with pipes as a script gives them."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, write_config
from tests.integration.test_serve import REFERENCES

pytestmark = pytest.mark.real
PAGES = 60  # past one batch of pages (50): the count moves inside the document
WORDS = [
    "marsh",
    "sediment",
    "carbon",
    "tide",
    "estuary",
    "accretion",
    "core",
    "burial",
    "salt",
    "creek",
    "mud",
]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\r")


def book(folder: Path) -> Path:
    """A made-up book of ``PAGES`` pages, each with its own text."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = folder / "long book.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for page in range(1, PAGES + 1):
        text = pdf.beginText(72, 770)
        text.setFont("Helvetica", 11)
        for line in range(30):
            words = [WORDS[(page * 7 + line * 3 + n) % len(WORDS)] for n in range(12)]
            text.textLine(f"{' '.join(words).capitalize()} {page}.{line}.")
        pdf.drawText(text)
        pdf.drawString(300, 40, str(page))
        pdf.showPage()
    pdf.save()
    return path


def project(folder: Path) -> tuple[Path, Path]:
    """A fresh project (its own conversion cache: the book is converted in each test)."""
    folder.mkdir()
    return write_config(folder, REFERENCES), book(folder)


def in_terminal(args: list[str], stdout_too: bool = True) -> tuple[int, str, str]:
    """Run ``args`` with stderr (and stdout unless ``stdout_too`` is false, when it goes to a
    pipe) on a pseudo-terminal 200 columns wide; what the terminal got, ANSI codes dropped,
    and what the pipe got."""
    import fcntl
    import struct
    import termios

    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    env = {**os.environ, "COLUMNS": "200", "LINES": "50", "TERM": "xterm-256color"}
    process = subprocess.Popen(
        args,
        stdin=side,
        stdout=side if stdout_too else subprocess.PIPE,
        stderr=side,
        env=env,
        close_fds=True,
    )
    os.close(side)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([main], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed: the process has gone
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    piped = process.stdout.read().decode() if process.stdout else ""
    code = process.wait()
    os.close(main)
    return code, ANSI.sub("\n", seen.decode("utf-8", "replace")), piped


def test_pages_converted_and_chunks_embedded_show_on_a_terminal_and_nowhere_else(tmp_path):
    config, pdf = project(tmp_path / "terminal")
    code, screen, _ = in_terminal([CITELOOM, "ingest", str(pdf), "-p", "papers", "-c", str(config)])
    assert code == 0, screen
    assert f"long book.pdf: 0/{PAGES} pages converted" in screen, screen
    assert f"long book.pdf: 50/{PAGES} pages converted" in screen, screen
    embedded = re.findall(r"long book\.pdf: 0/(\d+) chunks embedded", screen)
    assert embedded and int(embedded[0]) > PAGES, screen  # the book's chunks, counted out
    assert "1 ingested" in screen

    # nothing of it off a terminal: stdout and stderr to pipes, as a script runs it
    config, pdf = project(tmp_path / "piped")
    piped = subprocess.run(
        [CITELOOM, "ingest", str(pdf), "-p", "papers", "-c", str(config)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    # the progress phrases, not the words: the test's own folder is named after it
    assert "pages converted" not in piped.stdout + piped.stderr
    assert "chunks embedded" not in piped.stdout + piped.stderr
    assert re.match(r"\[1/1\] ingested ", piped.stdout), piped.stdout

    # stdout to a pipe, stderr on a terminal: the bar, but not the work inside the document
    config, pdf = project(tmp_path / "redirected")
    code, screen, out = in_terminal(
        [CITELOOM, "ingest", str(pdf), "-p", "papers", "-c", str(config)], stdout_too=False
    )
    assert code == 0 and "1 ingested" in out, screen
    assert "pages converted" not in screen and "chunks embedded" not in screen

    config, pdf = project(tmp_path / "json")
    code, screen, out = in_terminal(
        [CITELOOM, "ingest", str(pdf), "-p", "papers", "-c", str(config), "--json",
         "--progress", "json"],
        stdout_too=False,
    )  # fmt: skip
    assert code == 0, screen
    events = [json.loads(line)["event"] for line in screen.split("\n") if line.startswith("{")]
    assert events == ["started", "document", "finished"], screen
    assert "pages converted" not in screen and json.loads(out)["totals"]["ingested"] == 1


if sys.platform == "win32":  # pragma: no cover - pseudo-terminals are POSIX
    pytestmark = [pytestmark, pytest.mark.skip(reason="needs a POSIX pseudo-terminal")]
