"""The protocol log view: every frame, correlated, filterable, redacted, copyable.

Like Zed's ACP logs panel. Rows show time, direction (→ to the agent, ← from
it), kind, method, the kind of a ``session/update`` (``agent_message_chunk``,
``tool_call``...), id and, for responses, the latency of the request they
answer. Frames are redacted when logged and made inert when shown. The
filter keeps rows matching every word (``-word`` excludes); ``c`` copies
the selected frame as JSON, ``C`` every shown frame as JSON lines, ``p``
jumps to the request/response paired with the selected one.
"""

from __future__ import annotations

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from ._frames import FrameRecord, ProtocolLog, frame_matches
from ._safe import agent_line, sanitize

__all__ = ["ProtocolLogScreen"]

_KIND_STYLE = {
    "request": "cyan",
    "response": "green",
    "error": "bold red",
    "notification": "magenta",
    "invalid": "red",
}


def _row(rec: FrameRecord) -> tuple[Text, ...]:
    info = f"{rec.latency * 1000:.1f} ms" if rec.latency is not None else f"{rec.size} B"
    return (
        Text(str(rec.seq), style="dim"),
        Text(rec.clock()),
        Text(rec.arrow, style="yellow" if rec.direction == "send" else "blue"),
        Text(rec.kind, style=_KIND_STYLE.get(rec.kind, "")),
        agent_line(rec.method or "-"),
        agent_line(rec.detail, "italic"),
        agent_line("" if rec.id is None else str(rec.id)),
        Text(info, style="dim"),
    )


class ProtocolLogScreen(Screen[None]):
    """The frames of the connection, live."""

    DEFAULT_CSS = """
    ProtocolLogScreen Input { dock: top; height: 3; }
    ProtocolLogScreen DataTable { height: 1fr; }
    ProtocolLogScreen VerticalScroll { height: 40%; border-top: hkey $accent; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("escape,ctrl+l,f12", "close", "Close"),
        Binding("c", "copy", "Copy JSON"),
        Binding("C", "copy_all", "Copy shown"),
        Binding("p", "peer", "Paired frame"),
        Binding("slash", "filter", "Filter"),
    ]

    def __init__(self, log: ProtocolLog, query: str = "") -> None:
        super().__init__()
        self.log_model = log
        self.query_text = query
        self._pending: list[FrameRecord] = []
        self._unlisten = log.add_listener(self._pending.append)
        self._shown: list[FrameRecord] = []

    def compose(self) -> ComposeResult:
        """Filter, table, detail, key hints."""
        yield Input(
            self.query_text, placeholder="filter: method, id, text; -word excludes", id="filter"
        )
        table: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)
        table.add_columns("#", "time", "", "kind", "method", "update", "id", "latency/size")
        yield table
        with VerticalScroll():
            yield Static(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        """Fill the table, then follow new frames (batched, 10 times a second)."""
        self._reload()
        self.set_interval(0.1, self._flush)
        self.query_one(DataTable).focus()

    def on_unmount(self) -> None:
        """Stop listening to the log."""
        self._unlisten()

    def _reload(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear()
        self._pending.clear()
        self._shown = self.log_model.filter(self.query_text)
        for rec in self._shown:
            table.add_row(*_row(rec), key=str(rec.seq))
        if self._shown:
            table.move_cursor(row=len(self._shown) - 1)

    def _flush(self) -> None:
        if not self._pending:
            return
        new = [r for r in self._pending if frame_matches(r, self.query_text)]
        self._pending.clear()
        table: DataTable[Text] = self.query_one(DataTable)
        follow = table.cursor_row >= len(self._shown) - 1
        for rec in new:
            table.add_row(*_row(rec), key=str(rec.seq))
        self._shown.extend(new)
        if follow and new:
            table.move_cursor(row=len(self._shown) - 1)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self._reload()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one(DataTable).focus()

    def selected(self) -> FrameRecord | None:
        """The frame under the cursor."""
        table: DataTable[Text] = self.query_one(DataTable)
        row = table.cursor_row
        if 0 <= row < len(self._shown):
            return self._shown[row]
        return None

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        rec = self.selected()
        detail = self.query_one("#detail", Static)
        if rec is None:
            detail.update("")
            return
        peer = self.log_model.find(rec.peer)
        head = Text(f"{rec.arrow} {rec.kind} ", style="bold")
        head.append_text(agent_line(f"{rec.method} {rec.detail} ", "bold"))
        if rec.id is not None:
            head.append_text(agent_line(f"id {rec.id}  "))
        if peer is not None:
            head.append(f"paired with #{peer.seq} ({peer.kind})", style="dim")
        if rec.latency is not None:
            head.append(f"  {rec.latency * 1000:.1f} ms", style="dim")
        body = Syntax(
            sanitize(rec.as_json()),
            "json",
            theme="ansi_dark",
            background_color="default",
            word_wrap=True,
        )
        detail.update(Group(head, body))

    def action_close(self) -> None:
        """Back to the sessions."""
        self.dismiss()

    def action_filter(self) -> None:
        """Focus the filter."""
        self.query_one("#filter", Input).focus()

    def action_copy(self) -> None:
        """Copy the selected frame as JSON (OSC 52 clipboard)."""
        rec = self.selected()
        if rec is not None:
            self.app.copy_to_clipboard(rec.copy_text())
            self.notify(f"frame #{rec.seq} copied as JSON")

    def action_copy_all(self) -> None:
        """Copy the shown frames as JSON lines."""
        lines = [r.copy_text(indent=None) for r in self._shown]
        self.app.copy_to_clipboard("\n".join(lines))
        self.notify(f"{len(lines)} frames copied as JSON lines")

    def action_peer(self) -> None:
        """Jump to the paired request or response."""
        rec = self.selected()
        if rec is None or rec.peer is None:
            return
        for i, other in enumerate(self._shown):
            if other.seq == rec.peer:
                self.query_one(DataTable).move_cursor(row=i)
                return
        self.notify("the paired frame is filtered out")
