"""Opening a result at its page with the system's opener (xdg-open, or open on macOS): in
Zotero's reader (``zotero://open-pdf/…?page=N``, with the researcher's own highlights) when
the result's PDF was read from a Zotero data directory, else the file (``file://…#page=N``).

Over SSH there is usually none, or it would open on the remote machine: the TUI then says so
and shows the address instead, which a local viewer (or Zotero) understands.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from citeloom.domain.notes import is_note_path

if TYPE_CHECKING:
    from citeloom.services.usecases.wire import CitationOut, PassageOut


def file_url(source: str, page: int | None) -> str:
    """``file:///…/paper.pdf#page=2``: the PDF page (not the printed one), which is what PDF
    viewers and browsers jump to; other formats have no pages."""
    url = Path(source).resolve().as_uri()
    if page is not None and source.lower().endswith(".pdf"):
        url += f"#page={page}"
    return url


def system_opener() -> str | None:
    """The path of the program that opens a file as the desktop would, if there is one."""
    return shutil.which("open" if sys.platform == "darwin" else "xdg-open")


def open_result(result: CitationOut | PassageOut, page: int | None) -> str:
    """``o``: a result at PDF page ``page`` (the quote's, or the passage's first), in Zotero's
    reader when its PDF was read from a Zotero data directory (Zotero finds its own file:
    the result's ``zotero`` link is at that page), else the file."""
    if result.zotero is not None:
        return _launch(result.zotero.open_pdf)
    return open_at(result.source, page)


def open_at(source: str, page: int | None) -> str:
    """Open ``source`` at ``page`` and say what happened, in one line for the status bar."""
    if is_note_path(source):
        return "a note has no file to open"
    if not Path(source).is_file():
        return f"the file is no longer at {source}; ingest its new place to open it from here"
    return _launch(file_url(source, page))


def _launch(url: str) -> str:
    opener = system_opener()
    if opener is None:
        return f"no program to open files here (xdg-open / open); open it yourself: {url}"
    try:
        subprocess.Popen(
            [opener, url],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a viewer outlives the TUI and never draws on it
        )
    except OSError as error:
        return f"{Path(opener).name} could not be started ({error}); open it yourself: {url}"
    return f"opened with {Path(opener).name}: {url}"
