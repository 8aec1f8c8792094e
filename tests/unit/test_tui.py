"""The TUI's pieces without the library: how results are drawn and copied, the filters, the
PDF opener, and the app's promise to stay responsive while a call runs (a fake session whose
answer waits). The real index, model and example papers: tests/integration/test_tui.py."""

from __future__ import annotations

import asyncio
import html
import sys
import threading
import time
from typing import Any, cast

import pytest

from citeloom.domain.records import Passage
from citeloom.domain.relations import WorkFlags
from citeloom.entrypoints.tui.opener import file_url, open_at, open_result
from citeloom.entrypoints.tui.session import ToggledFilters
from citeloom.entrypoints.tui.view import (
    Item,
    answer_panel,
    confidence_bar,
    passage_row,
)
from citeloom.services.answer import NO_ANSWER
from citeloom.services.usecases.answer import AnswerResponse
from citeloom.services.usecases.projects import ProjectOut
from citeloom.services.usecases.wire import PassageOut


def stored(text: str = "Restored sites accreted 6.8 mm a year.", **fields: Any) -> Passage:
    values: dict[str, Any] = {
        "rank": 1,
        "score": 0.9,
        "chunk_id": "6f1c0e9e-8d7a-4f43-9b51-0c6a4a3b2d10",
        "citekey": "ardel2023marsh",
        "title": "Carbon Burial in Restored Tidal Marshes",
        "authors": ("Ardel, Ines", "Reyes, Tomas", "Halvorsen, Sigrid"),
        "year": 2023,
        "doi": None,
        "url": None,
        "page_start": 2,
        "page_end": 2,
        "section": "3.1 Accretion rates",
        "section_path": ("3 Results", "3.1 Accretion rates"),
        "text": text,
        "source": "/papers/ardel2023.pdf",
        "doc_id": "d1",
        "page_label_start": "118",
        "page_label_end": "118",
        "page_label_source": "pdf-labels",
    }
    return Passage(**{**values, **fields})


def passage(text: str = "Restored sites accreted 6.8 mm a year.", **fields: Any) -> PassageOut:
    """A result as the answer's response carries it."""
    return PassageOut.from_passage(stored(text, **fields))


def leads(question: str, project: str, *found: PassageOut) -> AnswerResponse:
    """An answer that falls back to leads."""
    return AnswerResponse(
        question=question,
        project=project,
        answer=None,
        citations=[],
        confidence=0.31,
        fallback=True,
        leads=list(found),
        reason="Not covered.",
    )


# ---------------------------------------------------------------------- drawing
def test_a_result_without_version_fields_has_no_banner():
    assert passage().banner is None
    assert not passage_row(Item.of_passage(passage())).plain.startswith(" ")


@pytest.mark.parametrize(
    ("flags", "notice"),
    [
        (WorkFlags(retracted=True), "RETRACTED"),
        (WorkFlags(superseded_by="ardel2024marsh"), "superseded by @ardel2024marsh"),
    ],
)
def test_a_version_or_retraction_shows_its_banner_above_the_result(flags, notice):
    result = passage(flags=flags)
    assert result.banner is not None and result.banner.startswith(notice)
    row = passage_row(Item.of_passage(result)).plain
    assert row.startswith(f" {result.banner} \n1. [@ardel2023marsh, p. 118]")


def test_the_confidence_bar_is_as_long_as_the_confidence_and_green_only_for_an_answer():
    bar = confidence_bar(0.75, answered=True, width=20)
    assert bar.plain == "confidence " + "█" * 15 + "░" * 5 + " 0.75"
    assert {str(s.style) for s in bar.spans if "█" in bar.plain[s.start : s.end]} == {"green"}
    low = confidence_bar(0.2, answered=False, width=20)
    assert low.plain.count("█") == 4
    assert {str(s.style) for s in low.spans if "█" in low.plain[s.start : s.end]} == {"red"}


def test_no_answer_says_so_with_the_reason_and_offers_the_leads_as_leads():
    text = answer_panel(leads("q", "p", passage())).plain
    assert NO_ANSWER in text and "Not covered." in text and "(not an answer)" in text
    assert "0.31" in text


def test_copying_gives_the_pandoc_citation_and_the_quote_on_one_line():
    item = Item.of_passage(passage("Restored sites\naccreted  6.8 mm a year."))
    assert item.label == "[@ardel2023marsh, p. 118]"
    assert item.quoted == '"Restored sites accreted 6.8 mm a year." [@ardel2023marsh, p. 118]'


def test_filters_toggle_one_paper_or_section_and_say_what_they_keep():
    none = ToggledFilters()
    assert not none and none.describe() == "none"
    paper = none.toggled_paper("ardel2023marsh")
    assert paper.citekeys == ("ardel2023marsh",) and paper.toggled_paper("ardel2023marsh") == none
    both = ToggledFilters(("a", "b"), 2015, None, "methods")
    assert both.describe() == "@a @b · 2015– · § methods"
    assert both.toggled_section("methods").section is None
    assert ToggledFilters(year_to=0)  # a year, however odd, is a filter


# ---------------------------------------------------------------------- the PDF
def test_the_pdf_is_addressed_at_its_page_and_other_files_without_one(tmp_path):
    pdf = tmp_path / "a b.pdf"
    assert file_url(str(pdf), 3) == pdf.as_uri() + "#page=3"
    assert "%20" in file_url(str(pdf), 3)
    assert file_url(str(tmp_path / "notes.docx"), 3).endswith("notes.docx")


def test_without_an_opener_the_address_is_shown_instead(tmp_path, monkeypatch):
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    said = open_at(str(pdf), 2)
    assert said == (
        f"no program to open files here (xdg-open / open); open it yourself: {pdf.as_uri()}#page=2"
    )
    assert open_at(str(tmp_path / "gone.pdf"), 2).startswith("the file is no longer at ")
    assert open_at("note:0123abcd", 1) == "a note has no file to open"


def _stored(tmp_path, link_library: str | None):
    """A passage as a query returns it, of a PDF Zotero holds (``link_library``) or stored
    before links existed (None)."""
    from citeloom.domain.library_files import LibraryItem
    from citeloom.domain.models import Chunk, ConvertedDocument, MetadataMatch, Reference
    from citeloom.domain.records import build_payload, passage_from_payload

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    item = LibraryItem("1/PDFBOS01", "BOSONS01", link_library)
    match = MetadataMatch(Reference("key2009", "Bosons"), "zotero", 1.0, item=item)
    document = ConvertedDocument(str(pdf), "0" * 64, "Bosons", 5, (), "test")
    payload = build_payload(
        project="p",
        chunk=Chunk("d", 0, "text", "text", (), 3, 3, 1),
        document=document,
        match=match,
        embed_model="m",
        ingest_id="i",
    )
    return PassageOut.from_passage(passage_from_payload(1, 0.5, "c", payload)), pdf


def test_o_opens_zoteros_reader_for_a_zotero_pdf_and_the_file_otherwise(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    opener = tmp_path / "bin" / ("open" if sys.platform == "darwin" else "xdg-open")
    seen = tmp_path / "opened.txt"
    opener.write_text(f'#!/bin/sh\necho "$@" >> {seen}\n', encoding="utf-8")
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    in_zotero, pdf = _stored(tmp_path, "library")
    said = open_result(in_zotero, 3)
    assert said.endswith(": zotero://open-pdf/library/items/PDFBOS01?page=3")
    old, _ = _stored(tmp_path, None)  # stored before links: the file, as before
    assert open_result(old, 3).endswith(f": {pdf.as_uri()}#page=3")
    # the opener runs detached, each in its own process: they may finish in either order
    for _ in range(300):
        if seen.exists() and len(seen.read_text().splitlines()) == 2:
            break
        time.sleep(0.1)
    assert sorted(seen.read_text().splitlines()) == sorted(
        ["zotero://open-pdf/library/items/PDFBOS01?page=3", f"{pdf.as_uri()}#page=3"]
    )


# ---------------------------------------------------------------------- responsiveness
class WaitingSession:
    """Answers "slow" only when let go; every other question at once."""

    def __init__(self) -> None:
        self.projects = ["p"]
        self.go = threading.Event()

    def summary(self, project: str) -> ProjectOut:
        return ProjectOut(
            project=project,
            collection="c",
            embedding_model="m",
            stored_model="m",
            documents=1,
            chunks=1,
        )

    def warm(self, project: str) -> None:
        pass

    def ask(self, project: str, question: str, filters: ToggledFilters) -> AnswerResponse:
        if question == "slow":
            assert self.go.wait(20)
        return leads(question, project, passage(f"the lead for {question}"))


def test_the_screen_answers_keys_while_a_question_is_worked_on_and_drops_a_late_answer():
    from citeloom.entrypoints.tui.app import CiteloomTui
    from citeloom.entrypoints.tui.screens import FiltersScreen

    session = WaitingSession()

    async def go() -> None:
        app = CiteloomTui(cast(Any, session), "p")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press(*"slow", "enter")
            await pilot.pause()
            assert "asking p" in str(app.query_one("#answer").content)
            await pilot.press("escape", "f")  # the filters open while the answer waits
            await pilot.pause()
            assert isinstance(app.screen, FiltersScreen)
            await pilot.press("escape", "slash", *"fast", "enter")
            await pilot.pause(0.2)
            assert "the lead for fast" in str(
                app.query_one("#results").get_option_at_index(1).prompt
            )
            session.go.set()  # the first question's answer arrives last
            await pilot.pause(0.5)
            prompts = [str(o.prompt) for o in app.query_one("#results").options]
            assert any("the lead for fast" in p for p in prompts)
            assert not any("the lead for slow" in p for p in prompts)

    asyncio.run(go())


# ---------------------------------------------------------------------- what is copied
# a passage as a hostile PDF or MCP client may leave it: a clipboard write (OSC 52), a colour,
# a right-to-left override; and a citekey holding a sequence of its own
HOSTILE = (
    "Restored sites \x1b]52;c;Zm9yZ2VkIGNsaXBib2FyZA==\x07accreted \u202e6.8 mm\u202c a "
    "\x1b[31myear\x1b[0m.\x9b2J"
)
UNSEEN = ("\x1b", "\x07", "\u202e", "\u202c", "\x9b", "]52;", "Zm9y", "[31m", "2J")


def test_what_is_copied_is_what_is_shown_without_escapes_or_bidi_controls():
    item = Item.of_passage(passage(HOSTILE, citekey="ardel\x1b[8m2023marsh"))
    row = passage_row(item)
    for text in (item.quoted, item.cited, row.plain):
        assert not any(unseen in text for unseen in UNSEEN), repr(text)
    assert item.quoted == '"Restored sites accreted 6.8 mm a year." [@ardel2023marsh, p. 118]'
    assert item.cited in row.plain and "Restored sites accreted 6.8 mm a year." in row.plain
    # the row keeps its styles: the citation is still drawn bold cyan
    at = row.plain.index(item.cited)
    assert any(s.start <= at and s.end >= at + len(item.cited) and "cyan" in str(s.style)
               for s in row.spans)  # fmt: skip


class HostileSession(WaitingSession):
    def ask(self, project: str, question: str, filters: ToggledFilters) -> AnswerResponse:
        return leads(question, project, passage(HOSTILE))


def test_the_app_neither_draws_nor_copies_what_a_terminal_would_act_on():
    from citeloom.entrypoints.tui.app import CiteloomTui

    async def go() -> None:
        app = CiteloomTui(cast(Any, HostileSession()), "p")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press(*"marsh", "enter")
            await pilot.pause(0.2)
            await pilot.press("y")
            assert app.clipboard == (
                '"Restored sites accreted 6.8 mm a year." [@ardel2023marsh, p. 118]'
            )
            await pilot.press("c")
            assert app.clipboard == "[@ardel2023marsh, p. 118]"
            # what Textual hands the terminal, as its screenshot records it
            screen = html.unescape(app.export_screenshot()).replace("\xa0", " ")
            assert "Restored sites accreted 6.8 mm a year" in screen
            assert not any(unseen in screen for unseen in UNSEEN)

    asyncio.run(go())
