"""Links the agent wrote: opened only over http(s), and only once the user has seen them.

A link in a message is the agent's: its text can say one thing and its
target another (``[docs](file:///home/me/.ssh/id_rsa)``,
``javascript:``, a custom scheme that launches a program, or
``https://docs.example.com@evil.example/``). So every URL the app opens
passes :meth:`AcpApp.open_url <acphost.tui.AcpApp.open_url>`, the one path
(Markdown link clicks, the URL card, a URL elicitation's "open"):

- :func:`link_problem` refuses anything but an ``http``/``https`` URL with
  a host and without control or space characters; the user gets a notice
  saying why;
- :class:`LinkScreen` shows the whole URL (sanitised; it scrolls if long)
  and the host it really goes to, and opens it only on the user's word.
  It is guarded like the agent's own dialogs (:class:`OnceModal`).
"""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import urlsplit

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.events import Key
from textual.widgets import Static

from ._modal import OnceModal
from ._safe import agent_line, clip, sanitize_line

__all__ = ["LinkScreen", "link_problem"]

_SCHEMES = frozenset({"http", "https"})


def link_problem(url: str) -> str:
    """Why ``url`` must not be opened, or ``""`` when it may be offered to the user.

    Args:
        url: the URL, as the agent wrote it.

    Returns:
        A short reason (safe to show), or ``""``.

    """
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "it is not a valid URL"
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        shown = sanitize_line(clip(scheme, 20)) if scheme else "no scheme"
        return f"only http and https links are opened, this one has {shown}"
    if not host:
        return "it names no host"
    if sanitize_line(url) != url or any(char.isspace() for char in url):
        return "it contains control or space characters"
    return ""


class LinkScreen(OnceModal[bool]):
    """Open this link? The whole URL and its real host; answered True to open it.

    Args:
        url: a URL :func:`link_problem` accepts.
        guard: seconds during which keys are ignored (see :class:`OnceModal`).

    """

    DEFAULT_CSS = """
    LinkScreen { align: center middle; }
    LinkScreen > #link-box {
        width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    LinkScreen .link-title { dock: top; text-style: bold; color: $accent; }
    LinkScreen .link-url { background: $boost; }
    LinkScreen .link-host { margin-top: 1; }
    LinkScreen .link-hint { dock: bottom; color: $text-muted; margin-top: 1; }
    """
    AUTO_FOCUS: ClassVar[str | None] = ""  # keys go to the screen, which guards them

    def __init__(self, url: str, *, guard: float | None = 0.5) -> None:
        super().__init__(guard=guard)
        self.url = url

    def compose(self) -> ComposeResult:
        """Title, the URL in full, its host, keys (title and keys stay put)."""
        box = VerticalScroll(id="link-box")
        box.can_focus = False
        with box:
            yield Static(Text("Open this link in your browser?"), classes="link-title")
            yield Static(agent_line(self.url), classes="link-url")
            yield Static(self._host_text(), classes="link-host")
            yield Static(Text("o open it · Esc or n do not"), classes="link-hint")

    def _host_text(self) -> Text:
        parts = urlsplit(self.url)
        text = Text("goes to ", style="dim")
        text.append_text(agent_line(parts.hostname or "", "bold"))
        if "@" in parts.netloc:
            text.append("  (the part before @ is not the host)", style="bold yellow")
        return text

    def on_key(self, event: Key) -> None:
        """``o`` opens, ``n`` or Esc does not; guarded."""
        key = event.key
        opens = event.character == "o"
        if not opens and event.character != "n" and key != "escape":
            self.note_key(event)
            return
        if self.accepts_key(event):
            event.stop()
            self.answer(opens)
