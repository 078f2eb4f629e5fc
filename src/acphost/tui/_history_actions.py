"""Ctrl+O: go back to a conversation of this workspace, or any session.

A part of :class:`~acphost.tui.AcpApp` (see :mod:`acphost.tui._base`). The
list shows this workspace's conversations from the local history first
(titled, newest first), then the agent's own sessions (``session/list``,
newest first), then the rest of the local history. The agent's sessions
are loaded or resumed in a new tab; a recorded one opens read-only first
(:class:`~acphost.tui._past.PastSessionScreen`) and is resumed from there
when the agent can: ``session/load`` (the agent replays it) or
``session/resume`` (it does not: the recorded turns are shown above a
marker), with the agent session id the history kept.
"""

from __future__ import annotations

from collections.abc import Awaitable

from textual import work
from textual.widgets import TabbedContent, TabPane

from .. import schema as s
from ..client import Session
from ..errors import AcpError
from ..history import HistoryError, SessionRecord
from ._base import AppBase
from ._history import HistoryRow, HistorySection, agent_rows, conversation_rows, local_rows
from ._history_screen import HistoryScreen
from ._past import RESUME, PastSessionScreen

__all__ = ["HistoryActions"]

_HINTS = {
    s.SESSION_LOAD: "resume in a new tab (session/load)",
    s.SESSION_RESUME: "resume in a new tab (session/resume)",
    "tab": "go to its tab (it is open)",
}


class HistoryActions(AppBase):
    """Ctrl+O and what it opens."""

    #: Set while Ctrl+O gathers the lists (a second Ctrl+O then does nothing).
    _gathering = False

    @work(group="sessions", exit_on_error=False)
    async def action_list_sessions(self) -> None:
        """Ctrl+O: this workspace's conversations, the agent's sessions, the rest; again closes."""
        if isinstance(self.screen, (HistoryScreen, PastSessionScreen)):
            self.screen.answer(None)
            return
        if self._gathering:
            return
        self._gathering = True
        try:
            open_ids = [v.session.id for v in self.views()]
            theirs, their_note = await self._agent_sessions(open_ids)
            sections = await self._recorded_sessions(open_ids)
        finally:
            self._gathering = False
        sections.insert(
            1,
            HistorySection("The agent's sessions (session/list, newest first)", theirs, their_note),
        )
        row = await self.push_screen_wait(
            HistoryScreen(self.spec.name, [x for x in sections if x.rows or x.note])
        )
        if row is None:
            return
        if row.source == "agent":
            await self._open_agent_session(row.value)
        else:
            await self._open_recorded(row.value)

    async def _agent_sessions(self, open_ids: list[str]) -> tuple[list[HistoryRow] | None, str]:
        client = self.client
        if client is None:
            return None, "the agent is not running"
        caps = client.agent_capabilities.session_capabilities
        if caps is None or caps.list is None:
            return None, "this agent does not list its sessions (no session/list)"
        try:
            infos = [i async for i in client.iter_sessions(cwd=self.cwd)]
        except AcpError as exc:
            return None, f"session/list failed: {exc}"
        return agent_rows(infos, open_ids=open_ids), "the agent has no sessions for this directory"

    async def _recorded_sessions(self, open_ids: list[str]) -> list[HistorySection]:
        """The workspace's conversations, then the rest of the local history (hidden if empty)."""
        here_title = "This workspace's conversations (local history, newest first)"
        try:
            here, rest = await self.history.by_workspace(self.cwd)
        except HistoryError as exc:
            return [HistorySection(here_title, [], f"the local history cannot be read: {exc}")]
        note = "nothing recorded in this workspace yet"
        if not self.history.enabled:
            note += " (recording is off: --no-history or ACPHOST_NO_HISTORY)"
        return [
            HistorySection(here_title, conversation_rows(here, open_ids=open_ids), note),
            HistorySection(
                f"Elsewhere in the local history ({self.spec.name}'s first, newest first)",
                local_rows(rest, self.spec.name, open_ids=open_ids),
            ),
        ]

    def _show_tab(self, session_id: str) -> bool:
        """Activate the tab of an open session; False when none shows it."""
        for view in self.views():
            pane = view.parent
            if view.session.id == session_id and isinstance(pane, TabPane) and pane.id:
                self.query_one(TabbedContent).active = pane.id
                return True
        return False

    async def _open_agent_session(self, session_id: str) -> None:
        client = self.client
        if client is None or self._show_tab(session_id):
            return
        options = self.session_options()
        if client.agent_capabilities.load_session:
            await self.open_session(lambda: client.load_session(session_id, self.cwd, **options))
        else:
            await self.open_session(lambda: client.resume_session(session_id, self.cwd, **options))

    async def _open_recorded(self, history_id: str) -> None:
        try:
            record = await self.history.get(history_id)
        except HistoryError as exc:
            self.say(f"could not read the session: {exc}", "error", 8)
            return
        if record is None:
            return
        how, why_not = self.resume_plan(record)
        hint = _HINTS.get(how, "")
        answer = await self.push_screen_wait(
            PastSessionScreen(record, resume=hint, why_not=why_not)
        )
        if answer != RESUME:
            return
        client, sid = self.client, record.agent_session_id
        if client is None or sid is None or self._show_tab(sid):
            return
        options = self.session_options()
        method = client.resume_session if how == s.SESSION_RESUME else client.load_session

        def reopen() -> Awaitable[Session]:
            return method(sid, record.cwd, **options)

        # After session/resume the agent does not replay the conversation: the
        # tab shows the recorded turns instead.
        await self.open_session(reopen, past=record if how == s.SESSION_RESUME else None)

    def resume_plan(self, record: SessionRecord) -> tuple[str, str]:
        """How a recorded session would be resumed (``session/load``...), or why it cannot be.

        Returns:
            ``(how, "")`` where ``how`` is ``session/load``, ``session/resume`` or
            ``tab`` (it is open already), or ``("", why_not)``.

        """
        sid = record.agent_session_id
        if record.agent != self.spec.name:
            return "", f"it was recorded with {record.agent}; this app runs {self.spec.name}"
        if sid is None:
            return "", "the agent never gave it a session id"
        if any(v.session.id == sid for v in self.views()):
            return "tab", ""
        client = self.client
        if client is None:
            return "", "the agent is not running (Ctrl+R restarts it)"
        caps = client.agent_capabilities
        if caps.load_session:
            return s.SESSION_LOAD, ""
        if caps.session_capabilities is not None and caps.session_capabilities.resume is not None:
            return s.SESSION_RESUME, ""
        return "", "this agent can neither load nor resume sessions"
