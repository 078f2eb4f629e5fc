"""The status bar: agent, connection, turn, permissions, mode, model, usage, title."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ._model import StatusInfo

__all__ = ["StatusBar", "status_text"]

_STYLES = {
    "agent": "bold",
    "connecting": "yellow",
    "authenticating": "yellow",
    "connected": "green",
    "crashed": "bold red",
    "closed": "dim",
    "warn": "bold black on yellow",
    "busy": "cyan",
    "stop": "",
    "plain": "",
    "title": "italic",
}


def status_text(info: StatusInfo) -> Text:
    """The status line; the bar crops it at the terminal width (least important last)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for i, (part, style) in enumerate(info.parts()):
        if i:
            text.append(" │ ", style="dim")
        if i == 0:
            mark, _, rest = part.partition(" ")
            text.append(mark + " ", style=_STYLES.get(style, ""))
            text.append(rest, style="bold")
        else:
            text.append(part, style=_STYLES.get(style, ""))
    return text


class StatusBar(Static):
    """One line above the key hints."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; padding: 0 1; }
    """

    def show(self, info: StatusInfo) -> None:
        """Show the given status."""
        self.update(status_text(info))
