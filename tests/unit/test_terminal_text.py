"""One set of characters a terminal acts on rather than shows, three treatments: printed
output escapes them, a name or path keeps to one line, the TUI shows and copies text without
them (``entrypoints/stdout.py``)."""

from __future__ import annotations

import pytest

from citeloom.entrypoints.render import document_line, ingest_summary
from citeloom.entrypoints.stdout import one_line, terminal_safe, without_controls
from citeloom.services.ingest import DocumentOutcome, IngestReport
from citeloom.services.usecases.ingest import IngestResponse


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("a\x1b]52;c;Zm9yZ2Vk\x07b", "ab"),  # a clipboard write ended by BEL
        ("a\x1b]0;title\x1b\\b", "ab"),  # a window title ended by ST
        ("a\x9d52;c;Zm9y\x9cb", "ab"),  # the same in C1 form
        ("a\x1b[1;31mb\x1b[0m", "ab"),  # colours
        ("a\x9b2Jb", "ab"),  # clear the screen, C1 form
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # a DCS (sixel) string
        ("a\x1b]unended", "aunended"),  # only the introducer: the words stay readable
        ("a\u202eb\u202c\u2066c\u2069\u200fd\u061ce", "abcde"),  # bidi controls
        ("tab\tand\nline", "tab\tand\nline"),  # layout stays
        ("a\x00\x08\x7fb", "ab"),
    ],
)
def test_what_a_screen_shows_has_no_sequence_and_no_bidi_control(text, seen):
    assert without_controls(text) == seen


def test_printed_output_escapes_and_a_name_keeps_to_one_line():
    assert terminal_safe("a\x1b[31mb\u202e\nc") == "a\\x1b[31mb\\u202e\nc"
    assert one_line("notes\nfailed    x.pdf\tz\r") == "notes\\nfailed    x.pdf\\tz\\x0d"


def test_no_file_name_starts_a_line_of_ingest_output():
    forged = "/papers/notes\nfailed    thesis.pdf: FORGED"
    done = DocumentOutcome(path=forged, status="ingested", chunks=1, pages=1)
    failed = DocumentOutcome(
        path=forged, status="failed", error=f"{forged}: cannot be read; chmod u+r '{forged}'"
    )
    report = IngestReport("cid", "p", "c", "m", "/var/audit/cid.jsonl", [done, failed])
    report.pruned = [forged]
    summary = ingest_summary(IngestResponse.of(report))
    for text in (document_line(done), document_line(failed), summary):
        assert not any(line.startswith("failed    thesis") for line in text.splitlines()), text
    assert document_line(failed).count("\n") == 0
