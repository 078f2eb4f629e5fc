"""The status bar: agent, connection, questions waiting, turn, mode, model, usage, sandbox, title.

It fits the line to the terminal's width by dropping the least important
parts whole (:func:`~acphost.tui._model.fit_parts`), never by cutting the
agent's name and state off the end; names and titles are the agent's, so
they are made inert here.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ._model import SEPARATOR, StatusInfo, fit_parts
from ._safe import sanitize_line

__all__ = ["StatusBar", "status_text"]

_STYLES = {
    "agent": "bold",
    "not started": "",
    "connecting": "yellow",
    "authenticating": "yellow",
    "connected": "green",
    "crashed": "bold red",
    "closed": "dim",
    "warn": "bold black on yellow",
    "unconfined": "bold yellow",
    "busy": "cyan",
    "stop": "",
    "plain": "",
    "title": "italic",
}


def status_text(info: StatusInfo, width: int = 78) -> Text:
    """The status line for ``width`` columns (the most important parts that fit)."""
    parts = [(sanitize_line(text), style) for text, style in info.parts()]
    text = Text(no_wrap=True, overflow="ellipsis")
    for i, (part, style) in enumerate(fit_parts(parts, width)):
        if i:
            text.append(SEPARATOR, style="dim")
        if i == 0:
            mark, _, rest = part.partition(" ")
            text.append(mark + " ", style=_STYLES.get(style, ""))
            text.append(rest, style="bold")
        else:
            text.append(part, style=_STYLES.get(style, ""))
    return text


class StatusBar(Static):
    """One line above the key hints, refitted when the terminal is resized."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.info = StatusInfo()

    def show(self, info: StatusInfo) -> None:
        """Show the given status."""
        self.info = info
        self.refresh()

    def render(self) -> Text:
        """The status fitted to the bar's current width."""
        return status_text(self.info, max(self.content_region.width, 20))
