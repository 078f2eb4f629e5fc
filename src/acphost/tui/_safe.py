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
helpers pass ``markup=False``. A widget that takes a *string* and parses it
as markup gets a ``Text`` instead (checkbox, radio and selection labels) or
has an inert variant here (:class:`InertCollapsible`).
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from rich.style import StyleType
from rich.text import Text
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown

from ..safetext import sanitize, sanitize_line

__all__ = [
    "AgentMarkdown",
    "InertCollapsible",
    "agent_line",
    "agent_markdown",
    "agent_text",
    "clip",
    "sanitize",
    "sanitize_line",
]


def agent_text(text: str, style: StyleType = "") -> Text:
    """Agent text, possibly several lines, as an inert :class:`Text`."""
    return Text(sanitize(text), style=style)


def agent_line(text: str, style: StyleType = "") -> Text:
    """Agent text that must stay on one line (a title, a tab name), as inert :class:`Text`."""
    return Text(sanitize_line(text), style=style)


def agent_markdown(text: str) -> str:
    """Message text for the ``Markdown`` widget (which never parses Textual markup)."""
    return sanitize(text)


def markdown_parser() -> MarkdownIt:
    """The Markdown parser of every transcript widget: Textual's own, without HTML.

    Markdown allows inline and block HTML, which the ``Markdown`` widget does not
    draw: ``List<String>`` would show as ``List`` and ``<div>hi</div>`` as ``hi``.
    Message text is never HTML to us, so with ``html`` off the parser keeps those
    characters as text.
    """
    return MarkdownIt("gfm-like", {"html": False})


class AgentMarkdown(Markdown):
    """A ``Markdown`` widget for message text: no Textual markup, and no HTML (shown as text)."""

    def __init__(self, markdown: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("parser_factory", markdown_parser)
        super().__init__(markdown, **kwargs)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


class InertCollapsible(Collapsible):
    """A ``Collapsible`` whose title is shown as written: one safe line, never markup.

    Textual parses a ``Collapsible`` title string as markup (its title widget
    makes ``Content`` from it with ``Content.from_text``): an agent's
    ``[@click=app.quit]`` in a thought or a compaction error would be a live
    action, and a stray ``[/]`` an exception. Every title set here, at
    construction or later, is made safe on one line and handed over as plain
    ``Content``.
    """

    def __init__(self, *children: Widget, title: str = "", **kwargs: Any) -> None:
        super().__init__(*children, title="", **kwargs)  # "" is no markup
        self.title = title

    def validate_title(self, title: str) -> str:
        """One safe line (controls visible, no newlines)."""
        return sanitize_line(title)

    def _watch_title(self, title: str) -> None:
        # Replaces Collapsible's watcher, which hands the string over as markup.
        self._title.label = Content(title)
