"""Prompts and their cancellation: Enter sends, Esc cancels, Ctrl+C cancels or quits.

A part of :class:`~acphost.tui.AcpApp` (see :mod:`acphost.tui._base`). Each
prompt runs as a worker that awaits its turn in the session's view; a prompt
sent while a turn runs waits in that view's queue and the same worker sends
it when the turn ends (see :mod:`acphost.tui._queue`); a cancel
answers the session's waiting questions first (its subagents' too), then
sends ``session/cancel``, which also reaches the running subagents the agent
allows cancelling: with no turn running, Esc cancels those alone.
"""

from __future__ import annotations

import time

from textual import on, work

from .. import schema as s
from ..content import prompt_with_mentions
from ..errors import AcpError
from ._base import AppBase
from ._composer import PromptArea
from ._elicit import CANCEL, response
from ._queue_panel import QueueList
from ._session_view import SessionView
from ._subagents import subagent_tree

__all__ = ["INTERRUPT_WINDOW", "TurnActions"]

#: A second Ctrl+C within this many seconds, with no turn running, quits.
INTERRUPT_WINDOW = 3.0


class TurnActions(AppBase):
    """Enter, Esc and Ctrl+C."""

    _interrupted_at: float | None = None

    @on(PromptArea.Submitted)
    def _submitted(self, event: PromptArea.Submitted) -> None:
        view = self.active_view
        if view is None or self.client is None:
            self.say(self.no_session_note(), "warning")
            return
        if view.queue.takes(view.busy):
            view.queue.add(event.text)
            return
        self._start(view, event.text)

    def _start(self, view: SessionView, text: str | None) -> None:
        # Busy from now, not from when the worker runs: a prompt sent before
        # then (two typed at once) is queued behind this one, not refused.
        view.busy = True
        self.run_turn(view, text)

    @on(PromptArea.SendNext)
    def _send_next(self) -> None:
        """Enter on an empty prompt: a queue left waiting goes on with its next prompt."""
        view = self.active_view
        if view is None or self.client is None or view.busy or not view.queue:
            return
        if view.budget_spent is not None:
            # Sending would be refused: the prompts stay, to copy or remove.
            self.say("this session's budget is spent: Ctrl+N opens a new session", "warning")
            return
        view.queue.release()
        self._start(view, None)

    @on(QueueList.Edit)
    def _edit_queued(self, event: QueueList.Edit) -> None:
        """Take a queued prompt back into the prompt box (it goes back in its place)."""
        area = self.query_one(PromptArea)
        if area.text.strip():
            self.say("the prompt box has text: send or clear it first", "warning")
            return
        text = event.queue.edit(event.item_id)
        if text is None:
            return
        area.load_text(text)
        area.move_cursor(area.document.end)
        area.focus()

    @work(group="turns", exit_on_error=False)
    async def run_turn(self, view: SessionView, text: str | None) -> None:
        """Run a prompt in a session view, then its queued prompts, in order, one at a time.

        ``text`` ``None``: start with the next queued prompt. The loop sends
        the next queued prompt as soon as a turn ends, with no await in
        between, so a prompt the user sends meanwhile is queued behind it; a
        turn cancelled or failed leaves the queue waiting (see
        :class:`~acphost.tui._queue.PromptQueue`).
        """
        while True:
            if text is None:
                item = view.queue.next() if view.is_attached else None
                if item is None:
                    view.busy = False
                    return
                text = item.text
            first = not view.first_prompt
            task = view.run_turn(prompt_with_mentions(text, view.session.cwd))
            if first:
                self._relabel(view)
            await task
            text = None

    def action_cancel_turn(self) -> bool:
        """Esc: cancel the active session's turn, else its running subagents; True if sent.

        Subagents may go on after their parent's turn ended: with no turn
        running, ``session/cancel`` goes to each running child the agent
        allows cancelling (once per child until it stops).
        """
        view = self.active_view
        if view is None:
            return False
        if view.session.turn is None or not view.busy:
            return self._cancel_subagents(view)
        if not view.cancelling:
            view.cancelling = True
            self.refresh_status()
            self._cancel(view)
        return True

    def _cancel_subagents(self, view: SessionView) -> bool:
        running = view.session.running_subagents()
        ids = {child.id for child in running}
        view.cancelled_subagents &= ids  # those that stopped may run again later
        fresh = [c for c in running if c.can_cancel and c.id not in view.cancelled_subagents]
        if not fresh:
            if running and not any(c.can_cancel for c in running):
                self.say("the agent does not allow cancelling its running subagents", "warning")
            return False
        view.cancelled_subagents.update(c.id for c in fresh)
        names = ", ".join(c.label for c in fresh)
        self.say(f"cancelling the subagent{'s' if len(fresh) > 1 else ''} {names}")
        self._cancel(view)
        return True

    def action_interrupt(self) -> None:
        """Ctrl+C: cancel the running turn (or subagents); with none running, twice quits."""
        view = self.active_view
        if view is not None and view.busy and not view.cancelling:
            self.action_cancel_turn()
            self._interrupted_at = None
            return
        if view is not None and not view.busy and self._cancel_subagents(view):
            self._interrupted_at = None
            return
        now = time.monotonic()
        if self._interrupted_at is not None and now - self._interrupted_at <= INTERRUPT_WINDOW:
            self.action_quit()
            return
        self._interrupted_at = now
        self.say("press Ctrl+C again to quit (or Ctrl+Q)", timeout=INTERRUPT_WINDOW)

    @work(group="cancel", exit_on_error=False)
    async def _cancel(self, view: SessionView) -> None:
        # Questions of this session still waiting for the user are answered
        # "cancelled" (permissions by the broker, elicitations here).
        tree = {view.session.id, *(c.id for c in subagent_tree(view.session.subagents))}
        for item in list(self.asks.items):
            if item.session_id in tree and isinstance(item.request, s.CreateElicitationRequest):
                self.asks.answer(item, response(CANCEL))
        try:
            await view.session.cancel(reason="cancelled by the user")
        except AcpError as exc:
            self.say(f"cancel: {exc}", "error")
        view.transcript.refresh_cards()
