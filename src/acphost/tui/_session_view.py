"""One session's pane: the plan panel over the transcript, its queued prompts, its turns."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from .. import schema as s
from ..client import Message as StateMessage
from ..client import Session, Subagent
from ..errors import AcpError, AgentExited, RequestError
from ..view import STREAMED
from ._model import StartInfo, first_words, reported_tokens
from ._notes import stop_note
from ._past import show_record
from ._plan import PlanPanel
from ._queue import PromptQueue
from ._queue_panel import QueuePanel
from ._safe import sanitize_line
from ._start import StartPanel
from ._terminals import TerminalBuffers
from ._transcript import Transcript

if TYPE_CHECKING:
    from ..client import BudgetExceeded, TurnResult
    from ..history import SessionRecord, SessionRecording

__all__ = ["SessionView"]

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
        past: the session's recorded turns, shown above a marker (a session
            resumed from the history: the agent does not replay it).

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
        past: SessionRecord | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.terminals = terminals
        self.start = start
        self.past = past
        self.plan = PlanPanel()
        self.transcript = Transcript(session.state, session.cwd, terminals)
        #: The prompts waiting for the running turn to end (this tab's own).
        self.queue = PromptQueue(on_change=self._queue_changed)
        self.queue_panel = QueuePanel(self.queue)
        self.stop_reason = ""
        self.busy = False
        self.cancelling = False
        #: The first prompt's text, for the tab label: a reopened session's
        #: is in its history (the replayed messages, or the recorded turns).
        self.first_prompt = _first_prompt(session.state.messages, past)
        #: The history's recording of this session, when recording is on.
        self.recording: SessionRecording | None = None
        #: Tokens the agent reported for this view's turns (``PromptResponse.usage``).
        self.tokens = 0
        #: Set once a turn was stopped by the session's budget.
        self.budget_spent: BudgetExceeded | None = None
        self._no_usage = False
        self._budget_warning: str | None = None
        self._remove_listener: Callable[[], None] | None = None
        #: The subagents a cancel was sent to (Esc while only they ran).
        self.cancelled_subagents: set[str] = set()

    def compose(self) -> ComposeResult:
        """Plan above, transcript below, the queued prompts under it."""
        yield self.plan
        yield self.transcript
        yield self.queue_panel

    def _queue_changed(self) -> None:
        if self.queue_panel.is_mounted:
            self.queue_panel.show()

    def on_mount(self) -> None:
        """Show what the state already holds (a loaded session's history), then follow it."""
        if self.start is not None:
            self.transcript.mount(StartPanel(self.start))
        if self.past is not None:
            show_record(self.transcript, self.past)
            self.transcript.add_marker("resumed from the local history")
        self.transcript.show_state()
        self.plan.show_plan(self.session.state.plan)
        self._follow()

    def _follow(self) -> None:
        self.transcript.owner_id = self.session.id
        self._remove_listener = self.session.add_listener(self._on_update, subagents=True)

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
        self.cancelled_subagents.clear()
        self.transcript.rebind(session.state)
        self.transcript.add_marker(marker)
        self.plan.show_plan(session.state.plan)
        self._follow()
        self.post_message(self.Changed(self))

    def _on_update(self, owner: Session | Subagent, update: s.SessionUpdate) -> None:
        # Inline in the connection's reader, in wire order: quick, no awaits.
        if owner is not self.session:
            # A subagent's own update: its card's transcript shows it (one
            # that is not on screen yet shows the child's state when it is).
            feed = self.transcript.routes.get(owner.id)
            if feed is not None:
                feed.on_update(update)
            if getattr(update, "session_update", None) == "subagent_update":
                self.post_message(self.Changed(self))  # a grandchild's activity
            return
        self.transcript.on_update(update)
        if type(update) is STREAMED:  # the flood of message chunks: nothing more to do
            return
        if isinstance(update, s.PlanUpdate):
            self.plan.show_plan(self.session.state.plan)
        elif isinstance(update, _META_UPDATES) or (
            getattr(update, "session_update", None) == "subagent_update"
        ):
            self.post_message(self.Changed(self))  # the status bar counts running subagents

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
        the app's watcher). The turn is recorded in the history when the view
        has a :attr:`recording`; a turn stopped by the session's budget says
        so inline, and the session takes no more prompts. A turn cancelled
        or failed leaves the :attr:`queue` waiting, and says so.
        """
        if self.budget_spent is not None:
            self.transcript.add_notice(
                f"⊘ not sent: this session's budget is spent ({self.budget_spent}); "
                "Ctrl+N opens a new session",
                "warning",
            )
            self.queue.turn_ended("budget", cancelled=False)
            self.busy = False
            return ""
        self.transcript.add_user(blocks)
        if not self.first_prompt:
            self.first_prompt = " ".join(
                b.text for b in blocks if isinstance(b, s.TextContentBlock)
            )
        try:
            turn = self.session.prompt(blocks)
        except AcpError as exc:
            self.transcript.add_notice(f"✗ {exc}", "error")
            self.queue.turn_ended("error", cancelled=False)
            self.busy = False
            return ""
        self.busy = True
        self.cancelling = False
        self.post_message(self.Changed(self))
        stop = ""
        try:
            result = await turn
            stop = result.stop_reason
            self._show_end(result)
            if result.budget_exceeded is not None:
                stop = "budget"
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
            held = self.queue.turn_ended(stop, cancelled=self.cancelling)
            if held:
                count = len(self.queue)
                self.transcript.add_notice(
                    f"⏸ {count} queued prompt{'s' if count != 1 else ''} wait ({held}): "
                    "Enter on an empty prompt sends the next; Shift+Tab, then Del removes one",
                    "warning",
                )
            self.busy = False
            self.cancelling = False
            self.stop_reason = stop
            self.transcript.end_turn()
            self.transcript.refresh_cards()
            self.post_message(self.Changed(self))
        return stop

    def _show_end(self, result: TurnResult) -> None:
        """Say how the turn ended in the transcript.

        Why the host stopped it reaches the history as the cancel's reason,
        through the client's events, not from here.
        """
        tokens = reported_tokens(result.usage)
        if tokens is not None:
            self.tokens += tokens
        exceeded = result.budget_exceeded
        if exceeded is not None:
            self.budget_spent = exceeded
            self.transcript.add_notice(f"⊘ turn stopped by the budget: {exceeded}", "warning")
            return
        note, level = stop_note(result.stop_reason)
        if note:
            self.transcript.add_notice(note, level)
        if self.session.budget is not None and not result.usage_reported and not self._no_usage:
            self._no_usage = True
            self.transcript.add_notice(
                "⚠ the agent reported no usage during this turn: "
                "the budget cannot be enforced while it does not",
                "warning",
            )
        warning = result.budget_warning
        if warning is not None and warning != self._budget_warning:
            self._budget_warning = warning  # said once, as long as it stays the same
            self.transcript.add_notice(f"⚠ {warning}", "warning")


def _first_prompt(messages: list[StateMessage], past: SessionRecord | None) -> str:
    """The text of a session's first prompt: the recorded turns', else the replayed messages'."""
    if past is not None:
        recorded = next((t.prompt for t in past.turns if t.prompt), "")
        if recorded:
            return recorded
    return next((m.text for m in messages if m.role == "user" and m.text), "")
