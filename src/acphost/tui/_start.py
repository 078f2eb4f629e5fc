"""The start screen: the agent, its state and protocol, the workspace, its sandbox, the keys.

Shown in place of the conversation until the first session opens (with a
picker when several agents are configured and none was named), then at the
top of each new session's transcript. It reads a
:class:`~acphost.tui._model.StartInfo`; agent-provided names are inert.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ._model import ConnectionState, StartInfo
from ._safe import agent_line

__all__ = ["KEY_HINTS", "StartPanel", "start_text"]

#: The keys a new user needs first (F1 lists them all).
KEY_HINTS = (
    ("Enter", "send"),
    ("Esc", "cancel"),
    ("F2", "mode"),
    ("F3", "model"),
    ("^N", "new tab"),
    ("^L", "log"),
    ("F1", "all keys"),
    ("^Q", "quit"),
)

_STATE = {
    ConnectionState.WAITING: ("○ not started: pick an agent below", "bold"),
    ConnectionState.CONNECTING: ("◌ starting…", "yellow"),
    ConnectionState.AUTHENTICATING: ("◌ logging in…", "yellow"),
    ConnectionState.CONNECTED: ("● connected", "green"),
    ConnectionState.CRASHED: ("✗ exited", "bold red"),
    ConnectionState.CLOSED: ("○ closed", "dim"),
}


def start_text(info: StartInfo) -> Table:
    """The start screen's body: a title line, then label/value rows, then the keys."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", no_wrap=True, justify="right")
    grid.add_column()
    title = agent_line(info.agent, "bold")
    if info.version:
        title.append(" ")
        title.append_text(agent_line(info.version))
    if info.source:
        title.append(f"  ({info.source})", style="dim")
    state, style = _STATE[info.connection]
    grid.add_row("agent", title)
    status = Text(state, style=style)
    if info.auth:
        status.append(" · ")
        status.append_text(agent_line(info.auth))
    if info.protocol is not None:
        status.append(f" · {info.protocol.text}")
    grid.add_row("state", status)
    grid.add_row("workspace", Text(info.workspace))
    if info.access:
        grid.add_row("access", Text(info.access))
    if info.sandbox is not None:
        # Paths and the reason are the file system's and the kernel's: shown inert.
        style = "" if info.sandbox.confined else "bold yellow"
        for label, text in info.sandbox.rows():
            grid.add_row(label, agent_line(text, style))
    keys = Text()
    for i, (key, what) in enumerate(KEY_HINTS):
        if i:
            keys.append(" · ", style="dim")
        keys.append(key, style="bold")
        keys.append(f" {what}")
    grid.add_row("keys", keys)
    if info.hint:
        grid.add_row("try", Text(info.hint, style="italic"))
    return grid


class StartPanel(Vertical):
    """The start screen (see the module docstring); posts :class:`Picked` for a choice."""

    DEFAULT_CSS = """
    StartPanel {
        height: auto;
        padding: 0 1;
        margin: 0;
        border-left: wide $accent;
        background: $boost;
    }
    StartPanel .start-head { text-style: bold; color: $accent; }
    StartPanel #picker-box { height: auto; }
    StartPanel OptionList { height: auto; max-height: 10; margin-top: 1; }
    """

    class Picked(Message):
        """The user picked one of the configured agents."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, info: StartInfo, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.info = info

    def compose(self) -> ComposeResult:
        """Heading, body, and the agent picker when there is a choice to make."""
        yield Static(Text("acphost · Agent Client Protocol"), classes="start-head")
        yield Static(start_text(self.info), classes="start-body")
        if self.info.choices:
            with Vertical(id="picker-box"):
                yield Static(Text("Pick an agent (↑↓ Enter):", style="bold"))
                yield OptionList(
                    *[
                        Option(
                            Text.assemble(agent_line(name, "bold"), "  ", agent_line(desc, "dim"))
                        )
                        for name, desc in self.info.choices
                    ],
                    id="agent-picker",
                )

    def show(self, info: StartInfo) -> None:
        """Show new information (the connection progressed, the agent introduced itself)."""
        self.info = info
        if self.is_mounted:
            self.query_one(".start-body", Static).update(start_text(info))

    @on(OptionList.OptionSelected, "#agent-picker")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        name = self.info.choices[event.option_index][0]
        self.info.choices = []
        self.query_one("#picker-box").remove()
        self.post_message(self.Picked(name))
