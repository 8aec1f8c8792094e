"""The ``citeloom tui`` app: a question box, the verified answer with its confidence bar, and
the quotes and passages to read, cite and open.

Every call into the library runs in a worker thread through ``Session`` (the warm runtime),
so typing, moving and reading never wait for the index; an answer that arrives after a newer
question was asked is dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from citeloom.domain.text import trim
from citeloom.entrypoints.stdout import without_controls
from citeloom.entrypoints.tui.opener import open_result
from citeloom.entrypoints.tui.screens import FiltersScreen, PassageScreen, ProjectScreen
from citeloom.entrypoints.tui.session import Session, ToggledFilters
from citeloom.entrypoints.tui.view import (
    Item,
    answer_panel,
    empty_library,
    error_text,
    items,
    passage_row,
    quote_row,
    shown,
    summary_line,
    welcome,
)

if TYPE_CHECKING:
    from citeloom.config import Settings
    from citeloom.services.usecases.answer import AnswerResponse
    from citeloom.services.usecases.projects import ProjectOut

HINT = "↑↓ choose a result · enter reads it between its neighbours · / asks again"
RESULT_ACTIONS = {
    "ask", "cite", "quote", "open_pdf", "toggle_paper", "toggle_section", "filters", "project",
    "to_results",
}  # fmt: skip
CSS = """
#top { height: 1; background: $primary-background; padding: 0 1; }
#question { margin: 0; }
#answer { height: auto; max-height: 5; padding: 0 1; }
#results { height: 1fr; border: none; padding: 0 1; scrollbar-gutter: stable; }
#reading { height: 1fr; padding: 0 1; }
#reading #passage { margin: 1 0; }
#status { height: auto; max-height: 3; color: $text-muted; padding: 0 1; }
#dialog {
    width: 70; max-width: 100%; height: auto; max-height: 100%;
    background: $panel; border: thick $primary; padding: 0 1;
}
#dialog .title { text-style: bold; }
#dialog .hint { color: $text-muted; }
#years { height: auto; }
#years Input { width: 1fr; }
#filter-error { height: auto; }
ProjectScreen, FiltersScreen { align: center middle; }
ProjectScreen #projects { height: auto; max-height: 16; }
"""


class CiteloomTui(App[None]):
    TITLE = "citeloom"
    CSS = CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "ask", "Ask"),
        Binding("c", "cite", "Cite"),
        Binding("y", "quote", "Quote"),
        Binding("o", "open_pdf", "PDF"),
        Binding("k", "toggle_paper", "Paper"),
        Binding("s", "toggle_section", "Section"),
        Binding("f", "filters", "Filters"),
        Binding("p", "project", "Project"),
        Binding("escape", "to_results", "Results", show=False),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, session: Session, project: str) -> None:
        super().__init__()
        self.session = session
        self.project = project
        self.filters = ToggledFilters()
        self.question: str | None = None
        self.report: AnswerResponse | None = None
        self._summary = "opening …"
        self._asked = 0  # the number of the latest question: older answers are dropped
        self._rows: dict[str, Item] = {}

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="top")
        yield Input(placeholder="Ask your library a question, then press enter", id="question")
        yield Static("", id="answer")
        yield OptionList(id="results")
        yield Static(Text(HINT), id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._show_top()
        self._main.query_one("#question").focus()
        self._load(self.project)

    @property
    def _main(self) -> Screen[object]:
        """The question, answer and results: workers answer into it whatever is in view."""
        return self.screen_stack[0]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The results' keys act on the main screen only (a passage has its own)."""
        if action not in RESULT_ACTIONS or not self.screen_stack:
            return True
        return self.screen is self._main

    def _show_top(self) -> None:
        self._main.query_one("#top", Static).update(
            shown(f"{self.project}: {self._summary} · filters: {self.filters.describe()}")
        )

    def say(self, message: str) -> None:
        """One line at the bottom of the screen in view."""
        for status in self.screen.query("#status"):
            if isinstance(status, Static):
                status.update(shown(message))  # never markup: citations hold brackets

    def _panel(self, content: Text) -> None:
        self._main.query_one("#answer", Static).update(content)

    # ------------------------------------------------------------------ the project
    @work(thread=True, exclusive=True, group="load")
    def _load(self, project: str) -> None:
        """What the project holds, then its model warmed, so the first answer is quick."""
        try:
            summary = self.session.summary(project)
        except Exception as error:
            self.call_from_thread(self._load_failed, project, error)
            return
        self.call_from_thread(self._loaded, project, summary)
        if summary.chunks:
            try:
                self.session.warm(project)
            except Exception as error:
                self.call_from_thread(self._load_failed, project, error)

    def _loaded(self, project: str, summary: ProjectOut) -> None:
        if project != self.project:
            return
        self._summary = summary_line(summary)
        self._show_top()
        if self.question is None:
            self._panel(empty_library(project) if not summary.chunks else welcome(project))

    def _load_failed(self, project: str, error: Exception) -> None:
        if project == self.project:
            self._panel(shown(error_text(error), style="red"))

    # ------------------------------------------------------------------ asking
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        question = event.value.strip()
        if not question:
            self.say("type a question first")
            return
        self.question = question
        self._ask()

    def _ask(self) -> None:
        if self.question is None:
            return
        self._asked += 1
        self._panel(shown(f"asking {self.project} …", style="italic"))
        self._asking(self._asked, self.project, self.question, self.filters)

    @work(thread=True, exclusive=True, group="ask")
    def _asking(self, number: int, project: str, question: str, filters: ToggledFilters) -> None:
        try:
            report = self.session.ask(project, question, filters)
        except Exception as error:
            self.call_from_thread(self._failed, number, error)
            return
        self.call_from_thread(self._answered, number, report)

    def _failed(self, number: int, error: Exception) -> None:
        if number != self._asked:
            return
        self.report = None
        self._fill([], [])
        self._panel(shown(error_text(error), style="red"))

    def _answered(self, number: int, report: AnswerResponse) -> None:
        if number != self._asked:
            return
        self.report = report
        self._panel(answer_panel(report))
        quotes, passages = items(report)
        self._fill(quotes, passages)
        if quotes or passages:
            self._main.query_one("#results").focus()
            self.say(HINT)

    def _fill(self, quotes: list[Item], passages: list[Item]) -> None:
        results = self._main.query_one("#results", OptionList)
        results.clear_options()
        self._rows = {}
        options: list[Option | None] = []
        for kind, rows, draw in (("q", quotes, quote_row), ("p", passages, passage_row)):
            if not rows:
                continue
            heading = "Answer: the library's own words" if kind == "q" else "Passages"
            if kind == "p" and not quotes:
                heading = "Passages (leads, not an answer)"
            options.append(Option(Text(heading, style="bold"), disabled=True))
            for number, item in enumerate(rows):
                key = f"{kind}{number}"
                self._rows[key] = item
                options.append(Option(draw(item), id=key))
                options.append(None)
        results.add_options(options)
        results.action_first()
        results.scroll_home(animate=False)  # the heading above the first result too

    # ------------------------------------------------------------------ the results
    def highlighted(self) -> Item | None:
        results = self._main.query_one("#results", OptionList)
        if results.highlighted is None:
            return None
        key = results.get_option_at_index(results.highlighted).id
        return self._rows.get(key or "")

    def _chosen(self) -> Item | None:
        item = self.highlighted()
        if item is None:
            self.say("no result chosen: ask a question, then move to a result")
        return item

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        item = self._rows.get(event.option.id or "")
        if item is not None:
            self.push_screen(PassageScreen(item, self.project))

    def copy(self, text: str) -> None:
        """Onto the clipboard of the terminal in front of the user (OSC 52: over SSH too),
        as the screen shows it (``Item.cited``, ``Item.quoted``; cleaned here once more, so
        no caller can copy what was not shown)."""
        text = without_controls(text)
        self.copy_to_clipboard(text)
        self.say(f"copied {trim(text, 64)}")

    def open_pdf(self, item: Item) -> None:
        """In Zotero's reader when the result's PDF came from a Zotero data directory, else
        the file, at the page of the quote or passage."""
        self.say(open_result(item.result, item.page))

    def action_cite(self) -> None:
        if item := self._chosen():
            self.copy(item.cited)

    def action_quote(self) -> None:
        if item := self._chosen():
            self.copy(item.quoted)

    def action_open_pdf(self) -> None:
        if item := self._chosen():
            self.open_pdf(item)

    def action_ask(self) -> None:
        self._main.query_one("#question").focus()

    def action_to_results(self) -> None:
        self._main.query_one("#results").focus()

    # ------------------------------------------------------------------ filters and projects
    def _filter(self, filters: ToggledFilters) -> None:
        self.filters = filters
        self._show_top()
        self.say(f"filters: {filters.describe()}")
        self._ask()

    def action_toggle_paper(self) -> None:
        item = self._chosen()
        if item is None:
            return
        if item.result.citekey is None:
            self.say("this passage's paper has no citekey: it matched no library entry")
            return
        self._filter(self.filters.toggled_paper(item.result.citekey))

    def action_toggle_section(self) -> None:
        item = self._chosen()
        if item is None:
            return
        if not item.result.section_path:
            self.say("this passage is in no section")
            return
        self._filter(self.filters.toggled_section(item.result.section_path[-1]))

    def action_filters(self) -> None:
        def chosen(filters: ToggledFilters | None) -> None:
            if filters is not None:
                self._filter(filters)

        self.push_screen(FiltersScreen(self.filters), chosen)

    def action_project(self) -> None:
        def chosen(project: str | None) -> None:
            if project is None or project == self.project:
                return
            self.project = project
            self.filters = ToggledFilters()  # citekeys and sections belong to the other library
            self._summary = "opening …"
            self._show_top()
            self._fill([], [])
            self._panel(Text())
            self.say(f"project {project}")
            self._load(project)
            self._ask()

        self.push_screen(ProjectScreen(self.session.projects, self.project), chosen)


def run(settings: Settings, project: str) -> None:
    """The app over a warm runtime of its own, until the user quits; the index is let go of
    on the way out, whatever happened."""
    import logging

    from textual.logging import TextualHandler

    from citeloom.entrypoints.runtime import Runtime

    # a log line written to the terminal would tear the screen: Textual's console gets it
    logging.getLogger().handlers[:] = [TextualHandler()]
    runtime = Runtime(settings)
    try:
        CiteloomTui(Session(runtime), project).run()
    finally:
        runtime.close()
