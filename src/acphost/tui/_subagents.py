"""The session tree in the transcript: a subagent's card, and the messages between sessions.

A subagent is a child session the agent runs (:class:`acphost.Subagent`).
Its card sits in the parent's transcript where the agent announced it: a
collapsible block titled with the child's label, description, status and
usage, holding the child's own transcript as it streams (the same widgets
as the parent's, built by the transcript that mounts the card). A card is
expanded while its child runs, as a streaming thought is: the user watches
work in progress and reads a finished one on demand; it collapses when the
child goes idle, unless the user toggled it (their choice stands). Enter or
a click on the title toggles it; ``o`` (with the title focused) or a click
on its "open in full" line opens the child on a screen of its own.

What the sessions say to one another (``session_message``) shows as
``→ helper 1: task`` / ``← helper 1: answer`` lines. Every string here is
the agent's: titles are one safe line, text is an inert ``Text``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from .. import view as v
from ..client import Subagent
from ._safe import InertCollapsible, agent_text

__all__ = [
    "InterMessageLine",
    "OpenChild",
    "OpenLine",
    "SubagentCard",
    "card_title",
    "find_subagent",
    "subagent_tree",
]

_ICONS = {
    "running": "◐",
    "requires_action": "⚠",
    "idle": "✓",
    "unknown": "?",
}


def card_title(piece: v.SubagentCard, usage: str = "") -> str:
    """``🤖 helper 1 · answers one question · ◐ running · ctx 120/200k`` (the agent's words, raw).

    A child that went idle on a cancel or an error shows ``⊘`` or ``✗``
    rather than the tick of a finished one.
    """
    icon = _ICONS.get(piece.activity, "·")
    if piece.activity == "idle" and piece.stop_reason not in ("", "end_turn"):
        icon = "⊘" if piece.stop_reason == "cancelled" else "✗"
    parts = [f"🤖 {piece.label}"]
    if piece.description and piece.description != piece.label:
        parts.append(piece.description)
    parts.append(f"{icon} {piece.status}")
    if usage:
        parts.append(usage)
    return " · ".join(parts)


class OpenChild(Message):
    """The user asked to see a subagent in full (its card's ``o`` or its open line)."""

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id


class OpenLine(Static):
    """The card's first line: a click opens the child in full."""

    DEFAULT_CSS = """
    OpenLine { color: $text-muted; padding: 0 1; width: auto; }
    OpenLine:hover { color: $accent; text-style: underline; }
    """

    def __init__(self, session_id: str) -> None:
        super().__init__(Text("⤢ open in full (o)"))
        self.session_id = session_id

    def on_click(self, event: events.Click) -> None:
        """Open the child on a screen of its own."""
        event.stop()
        self.post_message(OpenChild(self.session_id))


class SubagentCard(InertCollapsible):
    """A subagent in its parent's transcript: title line, then the child's own transcript.

    Args:
        piece: the card as the view model gives it (label, description, status).
        body: the child's transcript (a widget the parent's transcript built),
            or its recorded answer.
        running: the child works now (the card starts expanded).
        live: a child of an open session (else a recorded one: no open line).

    """

    DEFAULT_CSS = """
    SubagentCard {
        padding: 0; margin: 0 0 0 1; background: transparent;
        border: none; border-left: thick $secondary;
    }
    SubagentCard CollapsibleTitle { padding: 0 1; text-style: bold; }
    SubagentCard > Contents { padding: 0 0 0 1; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("o", "open_child", "Open in full", show=False),
    ]

    def __init__(
        self, piece: v.SubagentCard, body: Widget, *, running: bool, live: bool = True
    ) -> None:
        self.piece = piece
        self.body = body
        self.usage = ""
        #: The user toggled the card: it no longer follows the child's activity.
        self.toggled_by_user = False
        #: A live child (else one from the history: no session to open).
        self.live = live
        parts = (OpenLine(piece.session_id), body) if live else (body,)
        super().__init__(*parts, title=card_title(piece), collapsed=not running)

    @property
    def session_id(self) -> str:
        """The child's session id."""
        return self.piece.session_id

    def show(self, piece: v.SubagentCard) -> None:
        """The parent described the child anew: retitle; collapse once idle, expand on work."""
        before = self.piece.activity
        self.piece = piece
        self.title = card_title(piece, self.usage)
        if piece.activity != before and not self.toggled_by_user:
            if piece.activity in ("running", "requires_action"):
                self.collapsed = False
            elif piece.activity == "idle":
                self.collapsed = True

    def show_usage(self, usage: str) -> None:
        """The child reported its usage (``ctx 120/200k``): shown in the title."""
        if usage != self.usage:
            self.usage = usage
            self.title = card_title(self.piece, usage)

    def action_open_child(self) -> None:
        """``o``: open the child in full (a live one)."""
        if self.live:
            self.post_message(OpenChild(self.session_id))

    def _on_collapsible_title_toggle(self, event: Any) -> None:
        # Enter or a click on the title: the user's choice, kept from now on.
        # Textual then calls Collapsible's own handler (each class's in the
        # MRO), which toggles.
        self.toggled_by_user = True

    def _watch_collapsed(self, collapsed: bool) -> None:
        # As Collapsible's watcher, but a card that folds or unfolds because
        # its child's activity changed does not scroll the transcript to it
        # (a background child finishing would pull the reader away).
        self._update_collapsed(collapsed)
        self.post_message(self.Collapsed(self) if collapsed else self.Expanded(self))
        if self.is_mounted and self.toggled_by_user:
            self.call_after_refresh(self.scroll_visible)


class InterMessageLine(Static):
    """A message between sessions: ``→ helper 1: task`` or ``← helper 1: answer``."""

    DEFAULT_CSS = """
    InterMessageLine { color: $text-muted; padding: 0 1; margin: 0; }
    """

    def __init__(self, piece: v.InterMessage, peer: str) -> None:
        super().__init__(self._text(piece, peer))
        self.piece = piece
        self.peer = peer

    @staticmethod
    def _text(piece: v.InterMessage, peer: str) -> Text:
        arrow = "→" if piece.outgoing else "←"
        line = Text(f"{arrow} ", style="bold")
        line.append_text(agent_text(f"{peer}: ", "bold"))
        line.append_text(agent_text(piece.text))
        return line

    def show(self, piece: v.InterMessage, peer: str) -> None:
        """The message grew (a chunk) or was rewritten."""
        self.piece, self.peer = piece, peer
        self.update(self._text(piece, peer))


def subagent_tree(subagents: Iterable[Subagent]) -> Iterator[Subagent]:
    """Every subagent under ``subagents``, depth first, each before its own children."""
    for child in subagents:
        yield child
        yield from subagent_tree(child.subagents)


def find_subagent(sessions: Iterable[Any], session_id: str | None) -> Subagent | None:
    """The subagent with ``session_id`` among the trees of ``sessions`` (None: not a child)."""
    if not session_id:
        return None
    for session in sessions:
        for child in subagent_tree(session.subagents):
            if child.id == session_id:
                return child
    return None
