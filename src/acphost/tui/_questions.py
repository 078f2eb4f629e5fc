"""The agent's questions, one dialog at a time: permission requests and elicitations.

A part of :class:`~acphost.tui.AcpApp` (see :mod:`acphost.tui._base`). The
policy's asker and the elicitation handler put questions in one
:class:`~acphost.tui._asks.AskQueue`; this part shows the oldest in a guarded
dialog, keeps the count of those waiting up to date, withdraws a dialog whose
question went away (its turn was cancelled), names the subagent that asks
(a child session asks on its own id), and after a URL the user accepted,
keeps a card in the transcript until the agent says ``elicitation/complete``.
"""

from __future__ import annotations

from typing import Any

from .. import schema as s
from ..client import Subagent
from ..host import PermissionRequest, Verdict
from ._asks import PendingAsk
from ._base import AppBase
from ._elicit import CANCEL, FormScreen, UrlScreen, response
from ._modal import OnceModal
from ._permission import PermissionScreen
from ._session_view import SessionView
from ._subagents import find_subagent
from ._urlcard import UrlCard

__all__ = ["AgentQuestions"]


class AgentQuestions(AppBase):
    """Shows the agent's questions (see the module docstring)."""

    _shown: tuple[PendingAsk[Any, Any], OnceModal[Any]] | None
    _url_cards: dict[str, UrlCard]

    def _asks_changed(self) -> None:
        self.refresh_status()
        self.call_later(self._pump_asks)

    def _pump_asks(self) -> None:
        shown = self._shown
        if shown is not None:
            item, screen = shown
            if item in self.asks.items and not screen.answered:
                if isinstance(screen, PermissionScreen):
                    screen.set_waiting(len(self.asks) - 1)
                return  # still waiting for the user
            # The question went away unanswered (its turn was cancelled).
            self._shown = None
            screen.answer(_withdrawn(item))
        current = self.asks.current
        if current is None or self._shown is not None:
            return
        screen = self._dialog_for(current)
        self._shown = (current, screen)

        def answered(answer: Any) -> None:
            if self._shown is not None and self._shown[0] is current:
                self._shown = None
            self.asks.answer(current, answer if answer is not None else _withdrawn(current))
            if isinstance(screen, UrlScreen) and isinstance(answer, dict):
                self._url_answered(current.request, answer)
            self.call_later(self._pump_asks)

        self.push_screen(screen, answered)

    def _dialog_for(self, item: PendingAsk[Any, Any]) -> OnceModal[Any]:
        request = item.request
        guard = self.key_guard
        if isinstance(request, PermissionRequest):
            client = self.client
            session = client.sessions.get(request.session_id) if client else None
            # A subagent asks on its own session id, which names no session of
            # the client: its tool call is in the child's state.
            child = None if session is not None else self._subagent(request.session_id)
            state = session.state if session is not None else child.state if child else None
            call = (
                state.tool_calls.get(request.tool_call_id)
                if state is not None and request.tool_call_id
                else None
            )
            return PermissionScreen(
                request,
                call,
                waiting=len(self.asks) - 1,
                session_label=self._label_of(request.session_id),
                guard=guard,
            )
        if request.mode == "url":
            return UrlScreen(request, self.open_url, guard=guard)
        return FormScreen(request, guard=guard)

    def _subagent(self, session_id: str | None) -> Subagent | None:
        return find_subagent((view.session for view in self.views()), session_id)

    def _label_of(self, session_id: str | None) -> str:
        """Which session asks: its tab's label (with several tabs), or the subagent's."""
        views = self.views()
        child = self._subagent(session_id)
        if child is not None:
            root = child.root
            of = next((f" of {v.label}" for v in views if v.session is root), "")
            return f"subagent {child.label}" + (of if len(views) > 1 else "")
        if len(views) < 2:
            return ""
        return next((v.label for v in views if v.session.id == session_id), "")

    def _view_of(self, session_id: str | None) -> SessionView | None:
        child = self._subagent(session_id)
        root_id = child.root.id if child is not None else session_id
        return next((v for v in self.views() if v.session.id == root_id), None)

    def _url_answered(self, request: s.CreateElicitationRequest, answer: dict[str, Any]) -> None:
        if answer.get("action") != "accept" or not request.elicitation_id:
            return
        card = UrlCard(request.url or "", request.message)
        view = self._view_of(request.session_id) or self.active_view
        if view is not None:
            view.transcript.mount(card)
            self._url_cards[request.elicitation_id] = card

    def _elicitation_complete(self, elicitation_id: str) -> None:
        card = self._url_cards.pop(elicitation_id, None)
        if card is not None:
            card.complete()
        else:
            self.say("the agent says the page you were sent to is done")


def _withdrawn(item: PendingAsk[Any, Any]) -> Any:
    """The answer for a question that went away, or whose dialog closed without one."""
    if isinstance(item.request, PermissionRequest):
        return Verdict.reject("cancelled")
    return response(CANCEL)
