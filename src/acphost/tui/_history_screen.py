"""Ctrl+O: the sessions to go back to, this workspace's first, filterable.

Sections, in the order the app gives them: this workspace's conversations
from the local history, then the agent's own ``session/list`` (when it has
one), then the rest of the local history. Typing filters all (every word
must occur, ``-word`` must not); the arrows move, Enter opens, Esc closes.
Titles, prompts and paths are the agent's or the user's: they are shown
inert.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ._history import HistoryRow, HistorySection, row_matches
from ._modal import OnceModal
from ._safe import agent_line, clip

__all__ = ["HistoryScreen", "row_label"]

#: Columns a row's date takes at the right of its first line.
_WHEN = 16


def row_label(row: HistoryRow, width: int, agent: str = "") -> Text:
    """Two lines: the title and the date; then where, who, how long and what it cost."""
    first = Text()
    first.append("● " if row.open else "  ", style="green")
    room = max(width - 2 - _WHEN - 2, 8)
    title = " ".join(row.title.split())
    first.append_text(agent_line(clip(title, room).ljust(room), "bold"))
    first.append("  ")
    first.append(row.when.rjust(_WHEN), style="dim")
    details = [row.cwd]
    if row.agent and row.agent != agent:
        details.append(row.agent)
    if row.turns is not None:
        details.append(f"{row.turns} turn{'s' if row.turns != 1 else ''}")
    if row.cost:
        details.append(row.cost)
    if row.open:
        details.append("open in a tab")
    second = Text("    ")
    second.append_text(agent_line(clip(" · ".join(d for d in details if d), width - 4), "dim"))
    return Text("\n").join([first, second])


class HistoryScreen(OnceModal[HistoryRow | None]):
    """Pick a session: a recorded one (to look at, then resume) or the agent's (to load).

    Args:
        agent: the name of the agent the app runs (other agents' rows name theirs).
        sections: the sections, in order; an empty one shows its note.

    """

    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > Vertical {
        width: 100%; height: 100%; border: thick $accent; background: $surface; padding: 0 1;
    }
    HistoryScreen .history-title { text-style: bold; }
    HistoryScreen Input { background: $boost; margin-bottom: 1; }
    HistoryScreen OptionList { height: 1fr; border: none; padding: 0; }
    HistoryScreen .history-hint { color: $text-muted; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("down", "move('cursor_down')", show=False),
        Binding("up", "move('cursor_up')", show=False),
        Binding("pagedown", "move('page_down')", show=False),
        Binding("pageup", "move('page_up')", show=False),
    ]

    def __init__(self, agent: str, sections: Sequence[HistorySection]) -> None:
        super().__init__()
        self.agent = agent
        self.sections = list(sections)
        self.shown: list[HistoryRow] = []
        self._by_id: dict[str, HistoryRow] = {}

    def compose(self) -> ComposeResult:
        """Title, filter, the two sections, keys."""
        with Vertical():
            yield Static(Text("Sessions"), classes="history-title")
            yield Input(
                placeholder="type to filter (words; -word leaves out)",
                id="history-filter",
                compact=True,
            )
            yield OptionList(id="history-list")
            yield Static(
                Text("↑↓ move · Enter open · type to filter · Esc close"), classes="history-hint"
            )

    def on_mount(self) -> None:
        """Show everything; the filter has the focus."""
        self.fill("")
        self.query_one(Input).focus()

    @property
    def filter_text(self) -> str:
        """The filter as typed."""
        return self.query_one(Input).value

    def fill(self, query: str) -> None:
        """Show the rows matching ``query``, under their section headings."""
        options = self.query_one(OptionList)
        width = max((self.app.size.width or 80) - 6, 30)
        options.clear_options()
        self.shown = []
        self._by_id = {}
        items: list[Option | None] = []

        def section(title: str, rows: Sequence[HistoryRow] | None, note: str) -> None:
            found = [r for r in rows or () if row_matches(r, query)]
            count = f" · {len(found)} of {len(rows)}" if rows and query else ""
            heading = Text(title, style="bold")
            if count:
                heading.append(count, style="dim")
            items.append(Option(heading, disabled=True))
            if not found:
                empty = note if not rows else "(nothing matches the filter)"
                items.append(Option(agent_line(f"  {empty}", "dim italic"), disabled=True))
            for row in found:
                key = f"{row.source}:{row.value}"
                self._by_id[key] = row
                self.shown.append(row)
                items.append(Option(row_label(row, width, self.agent), id=key))

        for n, part in enumerate(self.sections):
            if n:
                items.append(None)
            section(part.title, part.rows, part.note)
        options.add_options(items)
        first = next((i for i, o in enumerate(items) if o is not None and not o.disabled), None)
        if first is not None:
            # The separator is not an option: count the options before the first row.
            options.highlighted = sum(1 for o in items[:first] if o is not None)

    @on(Input.Changed, "#history-filter")
    def _filtered(self, event: Input.Changed) -> None:
        event.stop()
        self.fill(event.value)

    def action_move(self, action: str) -> None:
        """Move the highlight (the filter keeps the focus)."""
        getattr(self.query_one(OptionList), f"action_{action}")()

    @property
    def highlighted(self) -> HistoryRow | None:
        """The row under the highlight."""
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None:
            return None
        option = options.get_option_at_index(index)
        return self._by_id.get(option.id or "")

    @on(Input.Submitted, "#history-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        row = self.highlighted
        if row is not None:
            self.answer(row)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self._by_id.get(event.option.id or "")
        if row is not None:
            self.answer(row)

    def on_key(self, event: Key) -> None:
        """Esc closes."""
        if event.key == "escape":
            event.stop()
            self.answer(None)
