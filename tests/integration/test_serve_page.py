"""The page at ``/`` of a real ``citeloom serve``, used in a real headless Chromium (Debian's,
driven by Playwright without a browser download) as a researcher would: ask with the keyboard,
copy a citation, read around a passage, open the PDF at its page, check a draft; at a laptop's
and a phone's width, with and without a token, and nothing fetched from another machine.

The README's screenshot (docs/web.png, 1280x800) is taken here: CITELOOM_REGENERATE_SCREENSHOT=1
writes it anew after a real question on the bundled example papers.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import CITELOOM, EXAMPLES, ROOT, write_config
from tests.integration.test_serve import QUESTION, REFERENCES, start, stop
from tests.integration.test_serve_docs import REQUIRED, browser

pytestmark = pytest.mark.real
RATE = "[@ardel2023marsh, p. 118]"  # the 6.8 mm a year sentence: PDF page 2, printed p. 118
CLAIM = "Restored sites accreted 6.8 millimetres of sediment per year [@ardel2023marsh, p. 118]."
WRONG = "Restored <b>sites</b> accreted 9 millimetres of sediment a year [@ardel2023marsh, p. 118]."
SCREENSHOT = ROOT / "docs" / "web.png"
OFFICES = "how often are researchers interrupted in open-plan offices"
RETRACTION = "retracted for a test of the page's banner"
RELATIONS = 'relations = "relations.toml"'

TOKEN = "page-test-token-4f1c9a"
# every host but this machine resolves to nothing: a page needing a CDN would break here
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


def playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if REQUIRED:
            pytest.fail("CITELOOM_REQUIRE_BROWSER is set but playwright is not installed")
        pytest.skip('playwright is not installed (pip install -e ".[dev]")')
    return sync_playwright


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled example papers ingested into project 'example', as the README does."""
    browser()
    playwright()
    folder = tmp_path_factory.mktemp("page")
    config = write_config(folder, REFERENCES, project="example")
    done = subprocess.run(
        [CITELOOM, "ingest", str(EXAMPLES), "-p", "example", "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return config


@contextmanager
def served(config: Path, token: str | None = None) -> Iterator[str]:
    env = {"CITELOOM_SERVE_TOKEN": token} if token else None
    server, url = start(config, env)
    try:
        yield url
    finally:
        err = stop(server)
        assert "Traceback" not in err
        assert token is None or token not in err  # never logged


@contextmanager
def chromium(url: str, width: int = 1280, height: int = 800) -> Iterator[tuple[Any, list[str]]]:
    """A page of a fresh browser at ``width`` x ``height`` that may use the clipboard, and
    every URL it asked for."""
    with playwright()() as driver:
        engine = driver.chromium.launch(
            executable_path=browser(), args=["--no-sandbox", "--disable-gpu", OFFLINE]
        )
        try:
            context = engine.new_context(viewport={"width": width, "height": height})
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
            asked: list[str] = []
            context.on("request", lambda request: asked.append(request.url))
            yield context.new_page(), asked
        finally:
            engine.close()


def ask(page: Any, url: str, question: str = QUESTION) -> None:
    """Load the page and ask with the keyboard alone: the question box has the focus, Tab
    goes on to Ask, Enter asks."""
    page.goto(f"{url}/")
    page.wait_for_selector("body[data-ready]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "ask-button"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "question"
    page.keyboard.type(question)
    page.keyboard.press("Enter")
    page.wait_for_selector("#quotes li")
    page.wait_for_selector("#results li")


def fits(page: Any, width: int) -> None:
    """Nothing wider than the window: no sideways scrolling to read a result."""
    page.set_viewport_size({"width": width, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def pdf_page_text(data: bytes, index: int) -> str:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        return document[index].get_textpage().get_text_range()
    finally:
        document.close()


def test_ask_copy_read_around_open_the_pdf_and_check_a_draft(library):
    with served(library) as url, chromium(url) as (page, asked):
        ask(page, url)
        assert "Answer: the library's own words" in page.inner_text("#answer")
        assert "verified on its page" in page.inner_text("#quotes")
        shown = page.inner_text("#ask")
        assert not re.search(r"\b(null|undefined|NaN)\b", shown), shown  # no missing part drawn
        if os.environ.get("CITELOOM_REGENERATE_SCREENSHOT") == "1":
            page.screenshot(path=str(SCREENSHOT))
        assert png_size(SCREENSHOT) == (1280, 800)

        # copy the citation of the quote that states the rate
        quote = page.locator("#quotes li", has_text=RATE).first
        quote.locator(f'button.copy[data-copy="{RATE}"]').click()
        page.wait_for_selector("body[data-copied]")
        assert page.evaluate("navigator.clipboard.readText()") == RATE
        assert page.evaluate("document.body.dataset.copied") == RATE
        assert f"Copied {RATE}" in page.inner_text("#status")

        # its PDF link opens the stored file at the PDF page the quote is on (the printed
        # page 118 is the PDF's second page)
        link = quote.locator("a.file")
        href = link.get_attribute("href")
        assert href and href.endswith("#page=2"), href
        with page.expect_popup() as opened:
            link.click()
        assert opened.value.url == f"{url}{href}"
        served_file = httpx.get(f"{url}{href.split('#')[0]}", timeout=30)
        assert served_file.status_code == 200
        assert served_file.headers["content-type"] == "application/pdf"
        assert "6.8" in pdf_page_text(served_file.content, 1)
        assert served_file.content == (EXAMPLES / "ardel2023_restored_marshes.pdf").read_bytes()
        # no other file: only a stored chunk's document, by the path the index recorded
        for chunk in ("00000000-0000-4000-8000-000000000000", "../../../../etc/passwd"):
            refused = httpx.get(f"{url}/file", params={"project": "example", "chunk_id": chunk})
            assert refused.status_code == 400 and "no chunk" in refused.json()["error"]

        # read around the first passage: its neighbours of the same paper, the passage itself
        # marked, each with its own citation
        first = page.locator("#results li").first
        text = first.locator(":scope > p.text").inner_text()
        first.get_by_role("button", name="Read around").click()
        chosen = first.locator(".context .neighbour.chosen")
        chosen.wait_for()
        assert chosen.locator("p.text").inner_text() == text
        neighbours = first.locator(".context .neighbour")
        assert neighbours.count() >= 2
        label = first.locator(":scope > p.label code").inner_text()
        key = label.split(",")[0].rstrip("]")
        for shown in neighbours.locator("code").all_inner_texts():
            assert shown.startswith(key), (shown, key)
        assert page.evaluate("document.activeElement.classList.contains('context')")

        # check a draft: a verdict beside each citation; the draft's markup shown as text
        page.fill("#draft", f"{CLAIM}\n{WRONG}\n")
        page.focus("#draft")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("#checks li")
        verdicts = page.locator("#checks li").evaluate_all(
            "items => items.map(item => item.dataset.verdict)"
        )
        assert verdicts[0] == "supported" and verdicts[1] not in ("supported", None), verdicts
        assert page.locator("#checks b").count() == 0
        assert "<b>sites</b>" in page.inner_text("#checks")

        # readable on a phone and on a laptop
        fits(page, 375)
        fits(page, 1280)
    # nothing off the machine (chrome: and chrome-extension: are the browser's own PDF viewer)
    network = [u for u in asked if re.match(r"(https?|wss?|ftp)://", u)]
    elsewhere = [u for u in network if not u.startswith(f"{url}/")]
    assert network and not elsewhere, elsewhere


MARSH = "[@ardel2023marsh"
PARTS = ("who", "title", "where")  # of a byline


def test_the_page_says_what_its_scores_mean_and_folds_weaker_matches_at_both_widths(library):
    """One plain word per result set instead of a bare confidence; the three passages of the
    two papers that have nothing to do with salt marshes (under the project's floor) folded
    away as weaker matches; a byline stacked on a phone with its title cut to one line."""
    for width in (375, 1280):
        with served(library) as url, chromium(url, width) as (page, _):
            ask(page, url)
            answer, passages = page.inner_text("#answer-meta"), page.inner_text("#passages-meta")
            assert "confidence" not in answer + passages, (answer, passages)
            for where in ("#answer-meta", "#passages-meta"):
                [word] = page.locator(f"{where} .strength").all_inner_texts()
                assert word in ("strong match", "fair match"), word
            assert "the library" in page.get_attribute("#passages-meta .strength", "title")

            shown = page.locator("#results > li.card")
            assert shown.count() >= 1
            assert all(MARSH in label for label in shown.locator("p.label code").all_inner_texts())
            fold = page.locator("#results details.weaker")
            weaker = fold.locator("li.card.weak")
            assert weaker.count() >= 1 and "weaker match" in fold.locator("summary").inner_text()
            labels = weaker.locator("p.label code").all_inner_texts()
            assert labels and not any(MARSH in label for label in labels), labels
            assert not weaker.first.is_visible()  # folded until asked for
            fold.locator("summary").click()
            weaker.first.wait_for(state="visible")

            byline = shown.first.locator(".byline")
            title = byline.locator(".title")
            full = title.get_attribute("title") or ""
            assert full.startswith("Carbon Burial") and title.inner_text().strip() == full
            tops = [byline.locator(f".{part}").bounding_box()["y"] for part in PARTS]
            if width == 375:  # stacked, the title on one line, cut (its whole on hover)
                assert tops[0] < tops[1] < tops[2], tops
                assert title.evaluate("t => t.scrollWidth > t.clientWidth")
                line = title.evaluate("t => parseFloat(getComputedStyle(t).lineHeight)")
                assert title.bounding_box()["height"] < 2 * line
            else:  # who and the title begin one line
                assert tops[0] == tops[1], tops
            fits(page, width)


def test_a_server_with_a_token_takes_it_once_from_the_fragment(library):
    """...and a retracted paper's results carry the retraction banner (a relations file that
    retracts one of the example papers, on the same index)."""
    folder = library.parent
    (folder / "relations.toml").write_text(
        f'[[retracted]]\ncitekey = "lindqvist2021quiet"\nreason = "{RETRACTION}"\n',
        encoding="utf-8",
    )
    config = write_config(
        folder, REFERENCES, project="example", name="retracted.toml", extra=RELATIONS
    )
    with served(config, TOKEN) as url, chromium(url) as (page, _):
        page.goto(f"{url}/")
        page.wait_for_selector("#token-form:not([hidden])")  # asked for, nothing shown
        # the empty project list says why, and so does the status line
        assert page.locator("#project option").all_inner_texts() == ["needs the server's token"]
        assert page.inner_text("#status").startswith("This server needs its token")

        page.goto(f"{url}/#token={TOKEN}")
        page.wait_for_selector("body[data-ready]")
        assert TOKEN not in page.url  # out of the address bar (and the history) at once
        page.keyboard.type(QUESTION)
        page.keyboard.press("Enter")
        page.wait_for_selector("#quotes li")
        link = page.locator("#quotes li", has_text=RATE).first.locator("a.file")
        href = link.get_attribute("href") or ""
        assert httpx.get(f"{url}{href.split('#')[0]}").status_code == 401  # same rule as the API
        with page.expect_popup() as opened:
            link.click()
        popup = opened.value
        popup.wait_for_url(re.compile(r"^blob:"))
        assert popup.url.startswith(f"blob:{url}/") and popup.url.endswith("#page=2"), popup.url

        page.bring_to_front()
        page.fill("#question", OFFICES)
        page.press("#question", "Enter")
        retracted = page.locator("#results li", has_text="[@lindqvist2021quiet").first
        retracted.locator(".banner.retracted").wait_for()
        assert "retracted" in retracted.locator(".banner.retracted").inner_text().lower()
