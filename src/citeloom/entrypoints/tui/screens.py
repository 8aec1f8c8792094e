"""The TUI's other screens: a passage between its neighbours, the filters, the projects.

Each fits an 80x24 terminal; the reading screen fetches its passage in a worker thread, like
every other call, and cites, quotes and opens exactly as the results list does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from citeloom.entrypoints.tui.session import ToggledFilters
from citeloom.entrypoints.tui.view import Item, error_text, passage_page, shown
from citeloom.services.browse import MAX_CONTEXT

if TYPE_CHECKING:
    from citeloom.entrypoints.tui.session import Session
    from citeloom.services.usecases.passage import PassageContextResponse

READ_CONTEXT = 2  # neighbours on each side when a passage is opened


class Host(Protocol):
    """What the screens ask of the app that shows them (``app.CiteloomTui``), named here so
    that the screens do not import the app that imports them."""

    session: Session

    def copy(self, text: str) -> None: ...

    def open_pdf(self, item: Item) -> None: ...


class PassageScreen(Screen[None]):
    """One result in its document: the chunks before and after it, dimmed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("c", "cite", "Cite"),
        Binding("y", "quote", "Quote"),
        Binding("o", "open_pdf", "Open PDF"),
        Binding("plus", "context(1)", "More"),
        Binding("minus", "context(-1)", "Less"),
    ]

    def __init__(self, item: Item, project: str) -> None:
        super().__init__()
        self.item = item
        self.project = project
        self.context = READ_CONTEXT

    @property
    def tui(self) -> Host:
        return cast("Host", self.app)

    def compose(self) -> ComposeResult:
        yield Static(self._heading(), id="top")
        with VerticalScroll(id="reading"):
            yield Static(Text(), id="before", classes="neighbours")
            yield Static(Text("reading …"), id="passage")
            yield Static(Text(), id="after", classes="neighbours")
        yield Static(Text(), id="status")
        yield Footer(compact=True)

    def _heading(self) -> Text:
        return shown(f"{self.item.label} · {self.context} neighbours on each side · esc: back")

    def on_mount(self) -> None:
        self.query_one("#reading").focus()
        self._fetch(self.context)

    @work(thread=True, exclusive=True, group="passage")
    def _fetch(self, context: int) -> None:
        try:
            found = self.tui.session.passage(self.project, self.item.result.chunk_id, context)
        except Exception as error:
            self.app.call_from_thread(self._show_error, error)
            return
        self.app.call_from_thread(self._show, found)

    def _show(self, found: PassageContextResponse) -> None:
        self.query_one("#top", Static).update(self._heading())
        reading = passage_page(found, self.item.quote)
        self.query_one("#before", Static).update(reading.before)
        self.query_one("#after", Static).update(reading.after)
        chosen = self.query_one("#passage", Static)
        chosen.update(reading.passage)
        # the chosen passage at the top of the view, its neighbours above it a scroll away:
        # once laid out, since its place is known only when the text above is wrapped
        self.call_after_refresh(self._open_on, chosen)

    def _open_on(self, chosen: Static) -> None:
        self.query_one("#reading", VerticalScroll).scroll_to_widget(chosen, animate=False, top=True)

    def _show_error(self, error: Exception) -> None:
        for part in ("#before", "#after"):
            self.query_one(part, Static).update(Text())
        self.query_one("#passage", Static).update(shown(error_text(error), style="red"))

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_cite(self) -> None:
        self.tui.copy(self.item.cited)

    def action_quote(self) -> None:
        self.tui.copy(self.item.quoted)

    def action_open_pdf(self) -> None:
        self.tui.open_pdf(self.item)

    def action_context(self, step: int) -> None:
        wanted = min(max(self.context + step, 0), MAX_CONTEXT)
        if wanted != self.context:
            self.context = wanted
            self._fetch(wanted)


def _year(text: str, name: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a year") from None


class FiltersScreen(ModalScreen[ToggledFilters | None]):
    """``citeloom query``'s filters: papers, years, section. Empty fields filter nothing."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, filters: ToggledFilters) -> None:
        super().__init__()
        self.filters = filters

    def compose(self) -> ComposeResult:
        f = self.filters
        with Vertical(id="dialog"):
            yield Label("Filters: only passages that match all of these", classes="title")
            yield Label("Papers (citekeys, separated by spaces)")
            yield Input(" ".join(f.citekeys), id="citekeys", placeholder="ardel2023marsh")
            yield Label("Published from / until (years)")
            with Horizontal(id="years"):
                yield Input(_text(f.year_from), id="year-from", type="integer", placeholder="2015")
                yield Input(_text(f.year_to), id="year-to", type="integer", placeholder="2024")
            yield Label("Words of the section path")
            yield Input(f.section or "", id="section", placeholder="methods")
            yield Static("", id="filter-error")
            yield Label("enter: apply (empty fields: no filter) · esc: cancel", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#citekeys").focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = {i.id: i.value for i in self.query(Input)}
        try:
            chosen = ToggledFilters(
                citekeys=tuple((value["citekeys"] or "").replace(",", " ").split()),
                year_from=_year(value["year-from"] or "", "from"),
                year_to=_year(value["year-to"] or "", "until"),
                section=(value["section"] or "").strip() or None,
            )
        except ValueError as error:
            self.query_one("#filter-error", Static).update(Text(str(error), style="red"))
            return
        self.dismiss(chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _text(year: int | None) -> str:
    return "" if year is None else str(year)


class ProjectScreen(ModalScreen[str | None]):
    """The configured projects; enter switches to the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, projects: list[str], current: str) -> None:
        super().__init__()
        self.projects = projects
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Switch to project (enter) · esc: stay", classes="title")
            yield OptionList(
                *(
                    Option(shown(f"{name}{'  (now)' if name == self.current else ''}"), id=name)
                    for name in self.projects
                ),
                id="projects",
            )

    def on_mount(self) -> None:
        projects = self.query_one("#projects", OptionList)
        projects.highlighted = self.projects.index(self.current)
        projects.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
