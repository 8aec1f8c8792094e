"""``citeloom tui`` driven headless by Textual's pilot at 80x24, on the bundled example papers
with the real index, model and services: what a user sees, types and copies.

The README's screenshot (docs/tui.svg) is made here: CITELOOM_REGENERATE_SCREENSHOT=1 writes
it anew; a normal run checks that the screen it shows still renders so.
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app as cli
from tests.conftest import CITELOOM, EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real

QUESTION = "how fast do restored salt marshes accrete sediment"
RATE = "[@ardel2023marsh, p. 118]"  # the 6.8 mm a year sentence: PDF page 2, printed p. 118
SCREENSHOT = ROOT / "docs" / "tui.svg"
EMPTY = """
[project."empty"]
collection = "proj-empty"
references_json = "{references}"
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example papers ingested into project 'papers'; project 'empty' holds nothing."""
    folder = tmp_path_factory.mktemp("tui")
    references = ROOT / "references" / "example.json"
    config = write_config(folder, references, extra=EMPTY.format(references=references))
    result = CliRunner().invoke(cli, ["ingest", str(EXAMPLES), "-p", "papers", "-c", str(config)])
    assert result.exit_code == 0, result.output
    return config


def screen_lines(svg: str) -> list[str]:
    """The terminal's lines as a user reads them, from a Textual SVG screenshot."""
    cells = re.findall(
        r'<text class="[^"]+" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
        r'clip-path="url\(#[^)]+-line-(\d+)\)">([^<]*)</text>',
        svg,
    )
    width = min(float(length) / len(html.unescape(t)) for _, length, _, t in cells if t)
    lines: dict[int, list[str]] = {}
    for x, _, line, text in cells:
        row = lines.setdefault(int(line), [" "] * 200)
        column = round(float(x) / width)
        for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            row[column + offset] = char
    return ["".join(lines.get(n, [])).rstrip() for n in range(max(lines) + 1)]


def shown(app: Any) -> str:
    return "\n".join(screen_lines(app.export_screenshot()))


def run(test: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
    asyncio.run(test(*args))


@pytest.fixture(scope="module")
def runtime(library: Path) -> Iterator[Any]:
    """One warm runtime for the module, as one ``citeloom tui`` keeps it between questions."""
    from citeloom.config import load_settings
    from citeloom.entrypoints.runtime import Runtime

    warm = Runtime(load_settings(library))
    yield warm
    warm.close()


@asynccontextmanager
async def tui(runtime: Any, project: str = "papers") -> AsyncIterator[tuple[Any, Any]]:
    """The app over the warm runtime, as ``citeloom tui`` runs it, in 80x24."""
    from citeloom.entrypoints.tui.app import CiteloomTui
    from citeloom.entrypoints.tui.session import Session

    app = CiteloomTui(Session(runtime), project)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        yield app, pilot


async def settle(app: Any, pilot: Any) -> None:
    """Until the workers' calls are done and their answers drawn."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def ask(app: Any, pilot: Any, question: str, typed: bool = False) -> None:
    """``/``, the question (typed key by key, or pasted), enter, and wait for the answer."""
    await pilot.press("slash")
    box = app.query_one("#question")
    box.value = "" if typed else question
    await pilot.press(*(question if typed else ()), "enter")
    await settle(app, pilot)


def status(app: Any) -> str:
    return str(app.screen.query_one("#status").content)


async def move_to(app: Any, pilot: Any, label: str) -> None:
    """Down the results until the highlighted one cites ``label`` (as c copies it)."""
    for _ in range(12):
        await pilot.press("c")
        if app.clipboard == label:
            return
        await pilot.press("down")
    raise AssertionError(f"no result cites {label}: {shown(app)}")


def picture(app: Any) -> None:
    """docs/tui.svg, the README's screenshot: written anew under the switch; otherwise it must
    still show what this screen shows (the question, the bar, the quotes and citations)."""
    if os.environ.get("CITELOOM_REGENERATE_SCREENSHOT") == "1":
        app.save_screenshot(path=str(SCREENSHOT.parent), filename=SCREENSHOT.name)
    stored = screen_lines(SCREENSHOT.read_text(encoding="utf-8"))
    now = screen_lines(app.export_screenshot())
    assert len(stored) == len(now) == 24

    def steady(line: str) -> str:  # a confidence may move in its last digit elsewhere
        return re.sub(r"[█░]+ 0\.\d+", "", line)

    for line in stored:
        if "confidence" in line or "[@" in line or QUESTION in line:
            assert steady(line) in map(steady, now), f"docs/tui.svg shows {line!r}: regenerate it"


# ---------------------------------------------------------------------- asking and reading
def test_a_question_gets_the_verified_answer_its_confidence_bar_and_the_passages(runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            assert "papers: 3 documents" in shown(app)
            assert "Ask the papers of 'papers' a question." in shown(app)
            await ask(app, pilot, QUESTION, typed=True)
            await pilot.press("c")  # the first quote: the picture shows it copied
            picture(app)
            screen = shown(app)
            bar = next(line for line in screen.splitlines() if "confidence" in line)
            assert re.search(r"confidence █+░* 0\.\d\d  \d quotes?, each verified on its page", bar)
            assert "Answer: the library's own words" in screen
            assert "[@ardel2023marsh, p. 117] (PDF p. 1)" in screen  # printed page, PDF page
            assert "§ Abstract" in screen
            await move_to(app, pilot, RATE)
            assert "§ 3 Results > 3.1 Accretion rates" in shown(app)  # its section, in view
            await pilot.press("end")
            assert re.search(r"\d\. \[@\w+, pp?\. [\d-]+\]", shown(app))  # passages, numbered

    run(go)


def test_moving_through_the_results_and_copying_a_citation_or_the_quote(runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await ask(app, pilot, QUESTION)
            await move_to(app, pilot, RATE)
            assert status(app) == f"copied {RATE}"
            await pilot.press("y")
            assert app.clipboard.startswith('"Restored sites accreted a mean of 6.8 millimetres')
            assert app.clipboard.endswith(f'marshes." {RATE}')
            await pilot.press("end", "c")  # the last passage: its own pages
            assert re.fullmatch(r"\[@\w+, pp?\. [\d-]+\]", app.clipboard)

    run(go)


def reading(app: Any) -> str:
    """The reading view's text: the neighbours before, the chosen passage, those after."""
    parts = (str(app.screen.query_one(f"#{part}").content) for part in READING)
    return "\n\n".join(p for p in parts if p)


READING = ("before", "passage", "after")


async def read_rate(app: Any, pilot: Any) -> None:
    """The 6.8 mm a year quote opened in the reading view."""
    await ask(app, pilot, QUESTION)
    await move_to(app, pilot, RATE)
    await pilot.press("enter")
    await settle(app, pilot)


def test_enter_reads_the_result_between_its_neighbours(runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await read_rate(app, pilot)
            text = reading(app)
            assert text.startswith("Carbon Burial in Restored Tidal Marshes")
            assert "6.8 millimetres" in text
            headers = re.findall(r"^\[@ardel2023marsh, pp?\. [\d-]+\].*$", text, flags=re.M)
            assert len(headers) == 5, text  # the passage and two neighbours on each side
            assert "2 neighbours on each side" in shown(app)
            await pilot.press("minus", "minus")
            await settle(app, pilot)
            text = reading(app)
            assert len(re.findall(r"^\[@ardel2023marsh", text, flags=re.M)) == 1
            await pilot.press("c")
            assert app.clipboard == RATE  # cites the quote's page from here too
            await pilot.press("escape")
            assert "Answer: the library's own words" in shown(app)

    run(go)


def test_the_reading_view_opens_on_the_chosen_passage_not_its_neighbours(runtime):
    """The passage chosen is in view when the reading screen opens, its quote on the screen;
    the neighbours before it are a scroll up."""

    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await read_rate(app, pilot)
            await pilot.pause()  # scrolled once laid out
            view = app.screen.query_one("#reading")
            chosen = app.screen.query_one("#passage")
            assert str(app.screen.query_one("#before").content)  # there is text above it
            top = view.scroll_offset.y
            visible = range(top, top + view.scrollable_content_region.height)
            assert chosen.virtual_region.y in visible, (chosen.virtual_region, top)
            screen = shown(app)
            assert RATE in screen and "6.8 millimetres" in " ".join(screen.split())
            await pilot.press("home")  # the neighbours before it are still there to read
            await pilot.pause()
            assert "Carbon Burial in Restored Tidal Marshes" in shown(app)

    run(go)


def test_a_question_the_library_cannot_answer_says_so_and_lists_leads(runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await ask(app, pilot, "what is the boiling point of liquid helium on Jupiter")
            screen = shown(app)
            assert "No answer found in the library." in screen
            assert "Passages (leads, not an answer)" in screen
            assert "Answer: the library's own words" not in screen
            figure = re.search(r"confidence [█░]+ (0\.\d\d)", screen)
            assert figure and float(figure.group(1)) < 0.5, screen
            await pilot.press("c")
            assert app.clipboard.startswith("[@")  # a lead can still be read and cited

    run(go)


def test_an_empty_library_says_how_to_fill_it(runtime):
    async def go() -> None:
        async with tui(runtime, "empty") as (app, pilot):
            screen = shown(app)
            assert "empty: 0 documents, 0 chunks" in screen
            assert "holds no documents yet" in screen
            assert "citeloom ingest PATH --project empty" in screen
            await ask(app, pilot, QUESTION)
            assert "citeloom ingest --project empty" in shown(app)
            await pilot.press("escape", "c")  # from the question box to the (empty) results
            assert app.clipboard == ""
            assert status(app).startswith("no result chosen")

    run(go)


# ---------------------------------------------------------------------- filters and projects
def test_filters_narrow_the_answer_and_a_project_can_be_switched(runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await ask(app, pilot, "quiet hours")
            await pilot.press("end", "c")
            other = app.clipboard.split(",")[0].removeprefix("[@")
            await pilot.press("k")  # only this paper
            await settle(app, pilot)
            assert f"filters: @{other}" in shown(app)
            labels = set(re.findall(r"\[@(\w+),", shown(app)))
            assert labels == {other}, shown(app)
            await pilot.press("k")  # all papers again
            await settle(app, pilot)
            assert "filters: none" in shown(app)

            await pilot.press("f")
            await pilot.pause()  # the dialog is drawn, its first field focused
            await pilot.press("tab", *"2030", "enter")  # published from 2030
            await settle(app, pilot)
            screen = shown(app)
            assert "filters: 2030–" in screen and "No answer found in the library." in screen
            assert "[@" not in screen
            await pilot.press("f")
            await pilot.pause()
            await pilot.press("tab", "backspace", "backspace", "backspace", "backspace")
            await pilot.press("enter")
            await settle(app, pilot)
            assert "filters: none" in shown(app) and "[@" in shown(app)

            await pilot.press("p")
            await pilot.pause()
            await pilot.press("down", "enter")  # the projects, sorted: papers, then empty
            await settle(app, pilot)
            screen = shown(app)
            assert "empty: 0 documents" in screen and "nothing indexed yet" in screen

    run(go)


def test_an_unreadable_year_is_named_in_the_filters_dialog(runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await pilot.press("escape", "f")
            await pilot.pause()
            await pilot.press("tab", "minus", "enter")
            assert "from: '-' is not a year" in str(app.screen.query_one("#filter-error").content)
            await pilot.press("escape")
            assert "filters: none" in shown(app)

    run(go)


# ---------------------------------------------------------------------- the PDF at its page
def test_o_opens_the_pdf_at_the_quotes_page_or_says_there_is_no_opener(
    runtime, tmp_path, monkeypatch
):
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    seen = tmp_path / "opened.txt"
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / opener
    fake.write_text(f'#!/bin/sh\necho "$@" > {seen}\n', encoding="utf-8")
    fake.chmod(0o755)
    pdf = (EXAMPLES / "ardel2023_restored_marshes.pdf").resolve().as_uri()

    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await ask(app, pilot, QUESTION)
            await move_to(app, pilot, RATE)
            monkeypatch.setenv("PATH", str(tmp_path / "bin"))
            await pilot.press("o")
            assert status(app) == f"opened with {opener}: {pdf}#page=2"
            for _ in range(50):
                if seen.exists():
                    break
                await asyncio.sleep(0.1)
            assert seen.read_text(encoding="utf-8").strip() == f"{pdf}#page=2"
            monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
            await pilot.press("o")
            assert status(app) == (
                f"no program to open files here (xdg-open / open); open it yourself: {pdf}#page=2"
            )

    run(go)


# ---------------------------------------------------------------------- the shard policy
def test_an_ingest_in_another_terminal_is_not_blocked_by_an_open_tui(library, runtime):
    async def go() -> None:
        async with tui(runtime) as (app, pilot):
            await ask(app, pilot, QUESTION)  # the runtime now holds the index open
            ingest = [CITELOOM, "ingest", str(EXAMPLES), "-p", "papers", "-c", str(library)]
            done = await asyncio.to_thread(
                subprocess.run, ingest, capture_output=True, text=True, check=False
            )
            assert done.returncode == 0, done.stderr
            assert "3 skipped" in done.stdout
            await ask(app, pilot, "how were the sediment cores dated")
            assert "[@ardel2023marsh" in shown(app)  # the TUI took the index back

    run(go)


# ---------------------------------------------------------------------- the command
def test_tui_needs_a_terminal_and_a_configured_project(library):
    result = CliRunner().invoke(cli, ["tui", "-c", str(library)])
    assert result.exit_code == 2
    assert "citeloom tui needs a terminal" in result.output
    assert 'citeloom answer "QUESTION" --project empty' in result.output  # the first project
    result = CliRunner().invoke(cli, ["tui", "-p", "nope", "-c", str(library)])
    assert result.exit_code == 2 and "unknown project 'nope'" in result.output


PROBE = """
import sys
from citeloom.entrypoints.cli import main
sys.argv = ["citeloom", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("TEXTUAL=" + str("textual" in sys.modules))
"""


@pytest.mark.parametrize("command", ["query", "tui"])
def test_help_does_not_import_textual(command):
    result = subprocess.run(
        [sys.executable, "-c", PROBE, command, "--help"], capture_output=True, text=True, check=True
    )
    assert "--project" in result.stdout
    assert result.stdout.rstrip().endswith("TEXTUAL=False")
