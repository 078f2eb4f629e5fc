"""A subagent in full: its whole transcript on a screen of its own, read-only.

The card in the parent's transcript shows a child as it goes; this screen
shows one child alone, from its first update, and goes on following it (and
its own children, as cards) while it is open. Nothing here is sent: a child
session takes no prompts from the host. Esc goes back; a card inside opens
its child on a further screen, Esc again comes back here.

:class:`SubagentActions`, a part of :class:`~acphost.tui.AcpApp` (see
:mod:`acphost.tui._base`), opens these screens: from a card (``o`` or its
"open in full" line) and with F5 from anywhere (the active session's
subagents, picked from a list when there are several).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.widgets import Static

from .. import schema as s
from .. import view as v
from ..client import Session, Subagent
from ._base import AppBase
from ._dialogs import PickerScreen, PickItem
from ._modal import OnceModal
from ._model import format_usage
from ._safe import agent_line
from ._subagents import OpenChild, card_title, find_subagent, subagent_tree
from ._terminals import TerminalBuffers
from ._transcript import Transcript

__all__ = ["SubagentActions", "SubagentScreen"]


class SubagentScreen(OnceModal[None]):
    """One subagent's transcript, live and read-only; Esc goes back.

    Args:
        root: the session at the root of the child's tree (its updates carry the child's).
        child: the subagent.
        terminals: live terminal output.

    """

    DEFAULT_CSS = """
    SubagentScreen { align: center middle; }
    SubagentScreen > Vertical {
        width: 100%; height: 100%; border: thick $secondary; background: $surface;
    }
    SubagentScreen .child-heading {
        padding: 0 1; text-style: bold; text-wrap: nowrap; text-overflow: ellipsis;
    }
    SubagentScreen .child-mark { padding: 0 1; color: $text-muted; }
    SubagentScreen .child-hint { padding: 0 1; color: $text-muted; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
    ]

    def __init__(self, root: Session, child: Subagent, terminals: TerminalBuffers) -> None:
        super().__init__()
        self.root = root
        self.child = child
        self.transcript = Transcript(child.state, str(root.cwd), terminals)
        self.transcript.owner_id = child.id
        self.transcript.parent_id = child.parent.id
        self._heading = Static(classes="child-heading")
        self._remove_listener: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        """Heading (label, description, status, usage), the read-only mark, transcript, keys."""
        with Vertical():
            yield self._heading
            parent = self.child.parent
            of = "the session" if parent is self.root else f"the subagent {parent.label}"
            mark = agent_line(f"read-only: a subagent of {of}; nothing here is sent to it")
            yield Static(mark, classes="child-mark")
            yield self.transcript
            hint = "Esc back · ↑↓ PgUp PgDn scroll · Tab to a card, o opens it"
            yield Static(Text(hint), classes="child-hint")

    def on_mount(self) -> None:
        """Show the child so far, then follow it."""
        self.show_heading()
        self.transcript.show_state(live=True)
        self._remove_listener = self.root.add_listener(self._followed, subagents=True)
        self.transcript.focus()

    def on_unmount(self) -> None:
        """Stop following."""
        if self._remove_listener is not None:
            self._remove_listener()
            self._remove_listener = None

    def show_heading(self) -> None:
        """The child's card title, as its parent describes it now."""
        piece = v.subagent_card(self.child.parent.state, self.child.id, {})
        if piece is not None:
            usage = self.child.state.usage
            title = card_title(piece, format_usage(usage) if usage is not None else "")
            self._heading.update(agent_line(title))

    def _followed(self, owner: Any, update: s.SessionUpdate) -> None:
        # Inline in the reader, as the session view's listener.
        if owner is self.child:
            self.transcript.on_update(update)
            if isinstance(update, s.UsageUpdate):
                self.show_heading()
            return
        feed = self.transcript.routes.get(owner.id)
        if feed is not None:
            feed.on_update(update)
        elif getattr(update, "session_update", None) == "subagent_update":
            self.show_heading()  # its parent said something of it (its activity)

    def action_page(self, step: int) -> None:
        """Scroll the transcript by a page."""
        if step > 0:
            self.transcript.scroll_page_down()
        else:
            self.transcript.scroll_page_up()

    def on_key(self, event: Key) -> None:
        """Esc goes back."""
        if event.key == "escape":
            event.stop()
            self.answer(None)


class SubagentActions(AppBase):
    """F5 and the cards' open requests: a subagent in full."""

    @on(OpenChild)
    def _open_child(self, event: OpenChild) -> None:
        event.stop()
        self.open_subagent(event.session_id)

    def open_subagent(self, session_id: str) -> bool:
        """Show the subagent ``session_id`` in full; False when no open session has it."""
        roots = [view.session for view in self.views()]
        child = find_subagent(roots, session_id)
        if child is None:
            self.say("that subagent is gone (its session closed)", "warning")
            return False
        self.push_screen(SubagentScreen(child.root, child, self.terminals))
        return True

    def action_subagents(self) -> None:
        """F5: the active session's subagents: open the one there is, or pick one."""
        view = self.active_view
        if view is None:
            self.say(self.no_session_note(), "warning")
            return
        children = list(subagent_tree(view.session.subagents))
        if not children:
            self.say("this session has no subagents (yet)")
            return
        if len(children) == 1:
            self.open_subagent(children[0].id)
            return
        items = [
            PickItem(
                child.id,
                "  " * (child.depth - 1) + child.label,
                (v.subagent_card(child.parent.state, child.id, {}) or _UNKNOWN).status,
            )
            for child in children
        ]

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.open_subagent(session_id)

        self.push_screen(PickerScreen("Subagents: open one in full", items), chosen)


_UNKNOWN = v.SubagentCard("", "")
