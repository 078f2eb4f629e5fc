"""What the agent asks the user, waiting in line: permission requests and elicitations.

Nothing here imports Textual. The interactive policy and the elicitation
handler :meth:`AskQueue.ask` and await; the app shows :attr:`AskQueue.current`
(one dialog at a time, in arrival order) and calls :meth:`AskQueue.answer`.
A question whose turn is cancelled leaves the line by itself (its waiter is
cancelled), and the dialog showing it is withdrawn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .. import schema as s
from ..host import PermissionRequest, Verdict

__all__ = [
    "AskQueue",
    "Choice",
    "PendingAsk",
    "choices_for",
]

RequestT = TypeVar("RequestT")
AnswerT = TypeVar("AnswerT")


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer the permission dialog offers.

    The label is the host's, from the kind: the agent's option name is
    its own text (an option of kind ``allow_always`` may be named
    "Reject"), so it is only shown beside the label, attributed to the
    agent, never in its place.

    Attributes:
        key: the key that picks it.
        label: what the choice does, in the host's words ("Always allow").
        kind: the ``PermissionOptionKind`` it stands for.
        verdict: what the broker gets; it maps the verdict back to the
            agent's option *by kind*.
        agent_name: the agent's name for the option (``""`` when it sent none).

    """

    key: str
    label: str
    kind: str
    verdict: Verdict
    agent_name: str = ""


_KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}
_KIND_LABELS = {
    "allow_once": "Allow once",
    "allow_always": "Always allow",
    "reject_once": "Reject",
    "reject_always": "Always reject",
}
_KIND_ORDER = ("allow_once", "allow_always", "reject_once", "reject_always")
_VERDICTS = {
    "allow_once": Verdict.allow("allowed by the user"),
    "allow_always": Verdict.allow("always allowed by the user", always=True),
    "reject_once": Verdict.reject("rejected by the user"),
    "reject_always": Verdict.reject("always rejected by the user", always=True),
}


def choices_for(request: PermissionRequest) -> list[Choice]:
    """The dialog's choices: the agent's options by kind, or the four standard ones.

    Host-mediated operations (a write or terminal the agent did not ask
    about) carry no options; they get allow/reject, once or always. Options
    of a kind this version does not know are left out: the broker can only
    answer by kind (ACP "Requesting Permission": option ids are opaque).
    """
    kinds: list[tuple[str, str]] = []
    if request.options:
        seen: set[str] = set()
        for option in request.options:
            if option.kind in _KIND_KEYS and option.kind not in seen:
                seen.add(option.kind)
                kinds.append((option.kind, option.name or ""))
        kinds.sort(key=lambda kn: _KIND_ORDER.index(kn[0]))
    if not kinds:
        kinds = [(k, "") for k in _KIND_ORDER]
    return [
        Choice(_KIND_KEYS[kind], _KIND_LABELS[kind], kind, _VERDICTS[kind], name)
        for kind, name in kinds
    ]


@dataclass(eq=False, slots=True)
class PendingAsk(Generic[RequestT, AnswerT]):
    """A question waiting for the user, and the future its answer resolves."""

    request: RequestT
    future: asyncio.Future[AnswerT]

    @property
    def session_id(self) -> str | None:
        """The session that asks (elicitations may be tied to a request instead)."""
        sid = getattr(self.request, "session_id", None)
        return sid if isinstance(sid, str) else None


class AskQueue:
    """The agent's questions waiting for the user, oldest first.

    Args:
        on_change: called after a question joins or leaves the line.

    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.items: list[PendingAsk[Any, Any]] = []
        self.on_change = on_change

    def __len__(self) -> int:
        return len(self.items)

    @property
    def current(self) -> PendingAsk[Any, Any] | None:
        """The question to show now."""
        return self.items[0] if self.items else None

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    async def _ask(self, request: RequestT) -> Any:
        loop = asyncio.get_running_loop()
        item: PendingAsk[RequestT, Any] = PendingAsk(request, loop.create_future())
        self.items.append(item)
        self._changed()
        try:
            return await item.future
        finally:
            if item in self.items:
                self.items.remove(item)
                self._changed()

    async def ask(self, request: PermissionRequest) -> Verdict:
        """Queue a permission request and wait for the user's verdict (the policy's asker)."""
        verdict: Verdict = await self._ask(request)
        return verdict

    async def elicit(self, request: s.CreateElicitationRequest) -> dict[str, Any]:
        """Queue an elicitation and wait for the wire response object."""
        response: dict[str, Any] = await self._ask(request)
        return response

    def answer(self, item: PendingAsk[Any, Any], answer: object) -> None:
        """Resolve a queued question with the user's answer."""
        if not item.future.done():
            item.future.set_result(answer)
        if item in self.items:
            self.items.remove(item)
            self._changed()

    def count(self, kind: type | None = None) -> int:
        """How many questions wait (of one request type, or all)."""
        if kind is None:
            return len(self.items)
        return sum(1 for i in self.items if isinstance(i.request, kind))

    def cancel_all(self) -> None:
        """Drop every question (the agent is gone): their waiters are cancelled."""
        for item in list(self.items):
            if not item.future.done():
                item.future.cancel()
        self.items.clear()
        self._changed()
