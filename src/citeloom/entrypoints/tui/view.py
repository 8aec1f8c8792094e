"""How the TUI shows an answer, a result and a passage: Rich text built from the response
models the CLI, HTTP and MCP share (``services/usecases/``), nothing decided here that the use cases
decide (whether there is an answer, which page a quote is on, what a citation says); a byline
and the PDF pages are named as the CLI names them (``result_text``).

Rich only (Textual draws it), so these are tested without running the app.

Textual writes text to the terminal as it is: a passage holding ``ESC]52;c;...BEL`` would set
the user's clipboard just by being shown, ``ESC[31m`` recolour the screen, U+202E reverse
what follows. So everything drawn from stored text is ``Shown`` text (those removed as it is
taken in), and what ``c`` and ``y`` copy is the same text (``Item.cited``, ``Item.quoted``): what
is pasted into a draft is what the researcher saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text

from citeloom.domain.errors import CiteloomError
from citeloom.domain.text import trim
from citeloom.entrypoints.outcomes import internal
from citeloom.entrypoints.result_text import byline, pdf_pages, quote_page
from citeloom.entrypoints.stdout import without_controls
from citeloom.services.usecases.wire import CitationOut, PassageOut

if TYPE_CHECKING:
    from citeloom.services.usecases.answer import AnswerResponse
    from citeloom.services.usecases.passage import PassageContextResponse
    from citeloom.services.usecases.projects import ProjectOut

BAR_WIDTH = 20
SHOWN_CHARS = 170  # of a passage in the list: two lines of an 80-column terminal


class Shown(Text):
    """Rich text that takes in strings as a screen shows them: without the escape sequences,
    control characters and bidi controls a terminal would act on (``without_controls``).
    Cleaned before Rich sees them: Rich drops a BEL itself, and an OSC 52 sequence without
    its BEL would leave its payload on the screen as words."""

    def __init__(self, text: str = "", style: str | Style = "", **options: Any) -> None:
        super().__init__(without_controls(text), style, **options)

    def append(self, text: str | Text, style: str | Style | None = None) -> Shown:
        super().append(without_controls(text) if isinstance(text, str) else text, style)
        return self


def shown(text: str, style: str = "") -> Text:
    """A line of the app's own (a status, a heading, an error) as the screen may show it."""
    return Shown(text, style=style)


@dataclass(frozen=True)
class Item:
    """One row of the results: a verified quote of the answer, or a passage (a lead)."""

    result: CitationOut | PassageOut  # what the row shows, opens and reads around
    label: str  # the pandoc citation: the quote's own page, or the passage's pages
    text: str  # the verified sentence exactly as stored, or the passage's text
    quote: str | None = None  # the verified sentence, for a quote
    page: int | None = None  # the PDF page to open: the quote's, or the passage's first

    @classmethod
    def of_quote(cls, citation: CitationOut) -> Item:
        return cls(citation, citation.label, citation.quote, citation.quote, citation.page)

    @classmethod
    def of_passage(cls, passage: PassageOut) -> Item:
        return cls(passage, passage.label, passage.text, None, passage.page_start)

    @property
    def cited(self) -> str:
        """What ``c`` copies: the pandoc citation, as shown."""
        return without_controls(self.label)

    @property
    def quoted(self) -> str:
        """What ``y`` copies: the words in quotation marks, then the citation, as shown."""
        words = " ".join(without_controls(self.text).split())
        return f'"{words}" {self.cited}'


def items(report: AnswerResponse) -> tuple[list[Item], list[Item]]:
    """The answer's quotes and the passages it was sought in (the leads when there is none)."""
    quotes = [Item.of_quote(c) for c in report.citations]
    return quotes, [Item.of_passage(p) for p in report.leads or []]


def confidence_bar(confidence: float, answered: bool, width: int = BAR_WIDTH) -> Text:
    """``confidence ████████░░░░ 0.62``: green when the service answered, red when not."""
    share = min(max(confidence, 0.0), 1.0)
    filled = round(share * width)
    colour = "green" if answered else "red"
    bar = Text("confidence ", style="bold")
    bar.append("█" * filled, style=colour)
    bar.append("░" * (width - filled), style="bright_black")
    bar.append(f" {confidence:.2f}", style=f"bold {colour}")
    return bar


def answer_panel(report: AnswerResponse) -> Text:
    """Above the results: the verdict on the question, with the confidence bar."""
    if report.note:  # nothing indexed yet, or the budget note: the service's own words
        return shown(report.note, style="yellow")
    answered = not report.fallback
    out = Shown().append_text(confidence_bar(report.confidence, answered))
    if answered:
        count = len(report.citations)
        out.append(f"  {count} quote{'' if count == 1 else 's'}, ", style="green")
        out.append("each verified on its page", style="green")
        return out
    from citeloom.services.answer import NO_ANSWER

    out.append("  " + NO_ANSWER, style="bold red")
    if report.reason:
        out.append("\n" + report.reason)
    if report.leads:
        out.append("\nThe nearest passages, to read on (not an answer):", style="italic")
    return out


def _section(result: CitationOut | PassageOut) -> str:
    return " > ".join(result.section_path)


def _banner_line(out: Text, result: CitationOut | PassageOut) -> None:
    """A retraction or version notice above the result, when its paper has one."""
    if result.banner:
        out.append(f" {result.banner} ", style="bold white on red")
        out.append("\n")


def quote_row(item: Item) -> Text:
    """A quote of the answer: the sentence, then its citation and section."""
    citation = item.result
    out = Shown()
    _banner_line(out, citation)
    out.append(f"“{item.quote}”\n")
    out.append(item.label, style="bold cyan")
    if isinstance(citation, CitationOut) and (pdf := quote_page(citation)):
        out.append(pdf, style="cyan")
    if section := _section(citation):
        out.append(f"  § {section}", style="italic")
    return out


def passage_row(item: Item) -> Text:
    """A passage: its citation, who and when, its section, the start of its text."""
    passage = item.result
    assert isinstance(passage, PassageOut)
    out = Shown()
    _banner_line(out, passage)
    out.append(f"{passage.rank}. ", style="bold")
    out.append(item.label, style="bold cyan")
    out.append(pdf_pages(passage), style="cyan")
    if who := byline(passage):
        out.append(f"  {who}", style="bright_black")
    if section := _section(passage):
        out.append(f"\n§ {section}", style="italic")
    out.append("\n" + trim(passage.text, SHOWN_CHARS), style="default")
    return out


def summary_line(summary: ProjectOut) -> str:
    docs = summary.documents
    return f"{docs} document{'' if docs == 1 else 's'}, {summary.chunks} chunks"


def empty_library(project: str) -> Text:
    return shown(
        f"Project '{project}' holds no documents yet. Ingest some (another terminal is "
        f"fine; this screen lets go of the index when it waits):\n"
        f"  citeloom ingest PATH --project {project}",
        style="yellow",
    )


def welcome(project: str) -> Text:
    return shown(
        f"Ask the papers of '{project}' a question. The answer is their own sentences, each "
        "verified on its page, with the passages it comes from.",
        style="italic",
    )


def _chunk(out: Text, passage: PassageOut, *, main: bool, quote: str | None) -> None:
    head = passage.label + pdf_pages(passage)
    if section := _section(passage):
        head += f"  § {section}"
    out.append(head + "\n", style="bold cyan" if main else "cyan")
    body = Shown(" ".join(passage.text.split()), style="default" if main else "bright_black")
    if main and quote:
        marked = " ".join(without_controls(quote).split())
        at = body.plain.find(marked)
        if at >= 0:
            body.stylize("reverse", at, at + len(marked))
    out.append_text(body)
    out.append("\n\n")


@dataclass(frozen=True)
class Reading:
    """The reading view in three parts, so that the screen can scroll the chosen passage
    into view (``screens.PassageScreen``): the title and the neighbours before it (dimmed),
    the passage with the quote marked, the neighbours after it (dimmed)."""

    before: Text
    passage: Text
    after: Text


def passage_page(found: PassageContextResponse, quote: str | None = None) -> Reading:
    """The reading view: the passage between its neighbours (dimmed), the quote marked."""
    passage = found.passage
    before = Shown()
    _banner_line(before, passage)
    title = passage.title or passage.source
    before.append(title + "\n", style="bold")
    if who := byline(passage):
        before.append(who + "\n", style="bright_black")
    before.append("\n")
    for chunk in found.before:
        _chunk(before, chunk, main=False, quote=None)
    main = Shown()
    _chunk(main, passage, main=True, quote=quote)
    after = Shown()
    for chunk in found.after:
        _chunk(after, chunk, main=False, quote=None)
    for part in (before, main, after):
        part.rstrip()
    return Reading(before, main, after)


def error_text(error: BaseException) -> str:
    """An error as the CLI would say it: the services' own message, or a bug named as one."""
    if isinstance(error, CiteloomError):
        return str(error)
    return (
        f"{internal(error)}. Try the same with citeloom -v answer for the traceback, and report it."
    )
