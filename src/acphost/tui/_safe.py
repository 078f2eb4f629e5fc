"""The TUI's edge for untrusted text: everything the agent sends passes here once.

Two rules meet at this edge. Terminal controls (escape sequences, carriage
returns, bidi overrides) are made visible by :mod:`acphost.safetext`, the one
sanitiser every face uses. And agent text is never parsed as Rich or Textual
markup: it becomes a :class:`rich.text.Text` (or is handed to a widget that
does not parse markup, such as ``Markdown`` or ``Log``), so ``[bold]`` or
``[@click=app.quit]`` in a message shows as those characters.

Widgets call :func:`agent_text` / :func:`agent_line` for anything that came
from the agent (names, titles, paths, output, error messages) and
:func:`agent_markdown` for message text; the app's :meth:`notify_agent`
helpers pass ``markup=False``.
"""

from __future__ import annotations

from rich.style import StyleType
from rich.text import Text

from ..safetext import sanitize, sanitize_line

__all__ = ["agent_line", "agent_markdown", "agent_text", "clip", "sanitize", "sanitize_line"]


def agent_text(text: str, style: StyleType = "") -> Text:
    """Agent text, possibly several lines, as an inert :class:`Text`."""
    return Text(sanitize(text), style=style)


def agent_line(text: str, style: StyleType = "") -> Text:
    """Agent text that must stay on one line (a title, a tab name), as inert :class:`Text`."""
    return Text(sanitize_line(text), style=style)


def agent_markdown(text: str) -> str:
    """Message text for the ``Markdown`` widget (which never parses Textual markup)."""
    return sanitize(text)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"
