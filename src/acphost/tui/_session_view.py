"""One session's pane: the plan panel over the transcript, and its prompt turns."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from .. import schema as s
from .._errors import AcpError, AgentExited, RequestError
from ..client import Session
from ._model import TerminalBuffers
from ._plan import PlanPanel
from ._transcript import StreamingMarkdown, ThoughtBlock, Transcript, block_markdown

__all__ = ["SessionView"]

_STOP_NOTES = {
    "end_turn": ("", ""),
    "cancelled": ("⊘ turn cancelled", "warning"),
    "refusal": ("⚠ the agent refused to continue (refusal)", "warning"),
    "max_tokens": ("⚠ the agent hit its token limit (max_tokens)", "warning"),
    "max_turn_requests": ("⚠ the turn hit its request limit (max_turn_requests)", "warning"),
}

# Updates that change what the status bar or the composer show.
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

    """

    DEFAULT_CSS = """
    SessionView { height: 1fr; }
    """

    class Changed(Message):
        """The session's status (mode, title, usage, commands, turn) changed."""

        def __init__(self, view: SessionView) -> None:
            super().__init__()
            self.view = view

    def __init__(self, session: Session, terminals: TerminalBuffers, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.terminals = terminals
        self.plan = PlanPanel()
        self.transcript = Transcript(session.state, session.cwd, terminals)
        self.stop_reason = ""
        self.busy = False
        self._remove_listener: Any = None

    def compose(self) -> ComposeResult:
        """Plan above, transcript below."""
        yield self.plan
        yield self.transcript

    def on_mount(self) -> None:
        """Show what the state already holds (a loaded session's history), then follow it."""
        state = self.session.state
        for msg in state.messages:
            if msg.role == "user":
                self.transcript.add_user(list(msg.content))
            else:
                text = "".join(block_markdown(b) for b in msg.content)
                widget = ThoughtBlock(text) if msg.role == "thought" else StreamingMarkdown(text)
                self.transcript.mount(widget)
                if isinstance(widget, ThoughtBlock):
                    widget.collapsed = True
        for call_id in state.tool_calls:
            self.transcript.on_update(s.ToolCallProgress(tool_call_id=call_id))
        self.plan.show_plan(state.plan)
        self._remove_listener = self.session.add_listener(self._on_update)

    def on_unmount(self) -> None:
        """Stop following the session."""
        if self._remove_listener is not None:
            self._remove_listener()
            self._remove_listener = None

    def _on_update(self, session: Session, update: s.SessionUpdate) -> None:
        # Inline in the connection's reader, in wire order: quick, no awaits.
        self.transcript.on_update(update)
        if isinstance(update, s.PlanUpdate):
            self.plan.show_plan(self.session.state.plan)
        elif isinstance(update, _META_UPDATES):
            self.post_message(self.Changed(self))

    @property
    def label(self) -> str:
        """The tab label: the session title, else the short id."""
        title = self.session.state.title
        return title[:24] if title else self.session.id[:8]

    async def run_turn(self, blocks: list[s.ContentBlock]) -> str:
        """Send one prompt and show it until the turn ends; return the stop reason.

        Errors are shown in the transcript, not raised (a crash is handled by
        the app's watcher).
        """
        self.transcript.add_user(blocks)
        try:
            turn = self.session.prompt(blocks)
        except AcpError as exc:
            self.transcript.add_notice(f"✗ {exc}", "error")
            return ""
        self.busy = True
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
            self.stop_reason = stop
            self.transcript.end_turn()
            self.transcript.refresh_cards()
            self.post_message(self.Changed(self))
        return stop
