"""The transcript card of a URL elicitation the user accepted: it waits for the agent.

ACP URL elicitation: the user agrees to visit a page (to log in, to authorise);
the flow goes on outside the client, and the agent sends
``elicitation/complete`` when it is done. Until then the card shows the URL
and that it waits; ``o`` on the focused card opens the URL again.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from ._safe import agent_line, agent_text

__all__ = ["UrlCard"]


class UrlCard(Static, can_focus=True):
    """A URL the agent sent the user to, waiting for (or past) ``elicitation/complete``."""

    DEFAULT_CSS = """
    UrlCard { height: auto; padding: 0 1; margin: 0; border-left: wide $warning; }
    UrlCard.-done { border-left: wide $success; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "open", "Open the page")]

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        self.message = message
        self.done = False
        super().__init__(self._text())

    def _text(self) -> Text:
        head = Text("✓ done: " if self.done else "⧗ waiting for the agent: ", style="bold")
        head.append_text(agent_line(self.url))
        if self.message:
            head.append("\n")
            head.append_text(agent_text(self.message, "dim"))
        return head

    def complete(self) -> None:
        """The agent sent ``elicitation/complete`` for this page."""
        self.done = True
        self.add_class("-done")
        self.update(self._text())

    def action_open(self) -> None:
        """Open the page in the browser."""
        self.app.open_url(self.url)
