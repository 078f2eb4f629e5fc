"""One session's pane: the plan panel over the transcript, and its prompt turns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from .. import schema as s
from .._errors import AcpError, AgentExited, RequestError
from ..client import Message as StateMessage
from ..client import Session
from ._blocks import MediaCard, block_markdown, is_card
from ._model import StartInfo, first_words
from ._plan import PlanPanel
from ._safe import agent_markdown, sanitize_line
from ._start import StartPanel
from ._terminals import TerminalBuffers
from ._transcript import StreamingMarkdown, ThoughtBlock, Transcript

__all__ = ["SessionView"]

_STOP_NOTES = {
    "end_turn": ("", ""),
    "cancelled": ("⊘ turn cancelled", "warning"),
    "refusal": ("⚠ the agent refused to continue (refusal)", "warning"),
    "max_tokens": ("⚠ the agent hit its token limit (max_tokens)", "warning"),
    "max_turn_requests": ("⚠ the turn hit its request limit (max_turn_requests)", "warning"),
}

# Updates that change what the status bar, the tab or the composer show.
_META_UPDATES = (
    s.AvailableCommandsUpdate,
    s.CurrentModeUpdate,
    s.ConfigOptionUpdate,
    s.SessionInfoUpdate,
    s.UsageUpdate,
)


class SessionView(Vertical):
    """A session's conversation; reads the :class:`~acphost.Session` and its state.

    Args:
        session: the open session.
        terminals: live terminal output shared by all sessions.
        start: what the start panel at the top of the transcript shows
            (``None``: no start panel, e.g. for a session loaded from the list).

    """

    DEFAULT_CSS = """
    SessionView { height: 1fr; }
    """

    class Changed(Message):
        """The session's status (mode, title, usage, commands, turn) changed."""

        def __init__(self, view: SessionView) -> None:
            super().__init__()
            self.view = view

    def __init__(
        self,
        session: Session,
        terminals: TerminalBuffers,
        start: StartInfo | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.terminals = terminals
        self.start = start
        self.plan = PlanPanel()
        self.transcript = Transcript(session.state, session.cwd, terminals)
        self.stop_reason = ""
        self.busy = False
        self.cancelling = False
        self.first_prompt = ""
        self._remove_listener: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        """Plan above, transcript below."""
        yield self.plan
        yield self.transcript

    def on_mount(self) -> None:
        """Show what the state already holds (a loaded session's history), then follow it."""
        if self.start is not None:
            self.transcript.mount(StartPanel(self.start))
        self._show_history(self.session.state.messages)
        for call_id in self.session.state.tool_calls:
            self.transcript.on_update(s.ToolCallProgress(tool_call_id=call_id))
        self.plan.show_plan(self.session.state.plan)
        self._follow()

    def _show_history(self, messages: list[StateMessage]) -> None:
        transcript = self.transcript
        for msg in messages:
            if msg.role == "user":
                transcript.add_user(list(msg.content))
                if not self.first_prompt:
                    self.first_prompt = msg.text
                continue
            text = agent_markdown("".join(block_markdown(b) for b in msg.content))
            if text:
                widget = ThoughtBlock(text) if msg.role == "thought" else StreamingMarkdown(text)
                transcript.mount(widget)
                if isinstance(widget, ThoughtBlock):
                    widget.collapsed = True
            for block in msg.content:
                if is_card(block):
                    transcript.mount(MediaCard(block))
        transcript.end_turn()

    def _follow(self) -> None:
        self._remove_listener = self.session.add_listener(self._on_update)

    def _unfollow(self) -> None:
        if self._remove_listener is not None:
            self._remove_listener()
            self._remove_listener = None

    def on_unmount(self) -> None:
        """Stop following the session."""
        self._unfollow()

    def rebind(self, session: Session, marker: str) -> None:
        """Go on with another session (after a restart), keeping the transcript above a marker.

        A reloaded session's replayed history is already on screen, so it is
        not shown twice; from here on the view follows ``session``.
        """
        self._unfollow()
        self.session = session
        self.busy = self.cancelling = False
        self.stop_reason = ""
        self.transcript.rebind(session.state)
        self.transcript.add_marker(marker)
        self.plan.show_plan(session.state.plan)
        self._follow()
        self.post_message(self.Changed(self))

    def _on_update(self, session: Session, update: s.SessionUpdate) -> None:
        # Inline in the connection's reader, in wire order: quick, no awaits.
        self.transcript.on_update(update)
        if isinstance(update, s.PlanUpdate):
            self.plan.show_plan(self.session.state.plan)
        elif isinstance(update, _META_UPDATES):
            self.post_message(self.Changed(self))

    @property
    def label(self) -> str:
        """The tab label: the session title, else the first words of the first prompt."""
        title = self.session.state.title
        if title:
            return sanitize_line(first_words(title, 28))
        if self.first_prompt:
            return sanitize_line(first_words(self.first_prompt, 24))
        return "new session"

    async def run_turn(self, blocks: list[s.ContentBlock]) -> str:
        """Send one prompt and show it until the turn ends; return the stop reason.

        Errors are shown in the transcript, not raised (a crash is handled by
        the app's watcher).
        """
        self.transcript.add_user(blocks)
        if not self.first_prompt:
            self.first_prompt = " ".join(
                b.text for b in blocks if isinstance(b, s.TextContentBlock)
            )
        try:
            turn = self.session.prompt(blocks)
        except AcpError as exc:
            self.transcript.add_notice(f"✗ {exc}", "error")
            return ""
        self.busy = True
        self.cancelling = False
        self.post_message(self.Changed(self))
        stop = ""
        try:
            result = await turn
            stop = result.stop_reason
            note, level = _STOP_NOTES.get(stop, (f"stop reason: {stop}", ""))
            if note:
                self.transcript.add_notice(note, level)
        except AgentExited as exc:
            stop = "agent exited"
            self.transcript.add_notice(f"✗ {exc.message}", "error")
        except RequestError as exc:
            stop = "error"
            self.transcript.add_notice(f"✗ the agent answered an error: {exc}", "error")
        except AcpError as exc:
            stop = "error"
            self.transcript.add_notice(f"✗ {exc}", "error")
        finally:
            self.busy = False
            self.cancelling = False
            self.stop_reason = stop
            self.transcript.end_turn()
            self.transcript.refresh_cards()
            self.post_message(self.Changed(self))
        return stop
