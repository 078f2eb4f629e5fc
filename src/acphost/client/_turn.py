"""A prompt turn: an ordered stream of typed updates plus an awaitable result.

Updates reach a :class:`Turn` through an :class:`UpdateQueue`. The queue is
bounded for backpressure, not for loss: when it is full, ``put`` returns a
future that the connection's reader awaits before reading on: delivery is
ordered and lossless. Nothing is dropped or reordered, and a host that never
iterates (it only awaits the result) never blocks the reader, because the
turn then stops queueing at all.
"""

from __future__ import annotations

import asyncio
import enum
import sys
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..errors import UsageError
from ._lifecycle import StateMachine

if TYPE_CHECKING:
    from ._budget import BudgetExceeded
    from ._state import ToolCallState

    #: Cancels a turn (the session's part): ``(turn, timeout, reason)``.
    Canceller = Callable[["Turn", float, "str | None"], Awaitable["TurnResult | None"]]

__all__ = ["Turn", "TurnResult", "TurnState", "UpdateQueue"]

DEFAULT_QUEUE_LIMIT = 1024

#: What the queue notes of an update, by its class: a tool call's id, or that
#: usage was reported (see UpdateQueue.put). Chunks, the flood, note nothing.
_NOTED: dict[type, str] = {
    s.ToolCallStart: "tool_call",
    s.ToolCallProgress: "tool_call",
    s.UsageUpdate: "usage",
}


def _noted(cls: type) -> str:
    """What a class not in the table notes: that of its nearest listed base, else nothing."""
    for base in cls.__mro__:
        found = _NOTED.get(base)
        if found is not None:
            return found
    return ""


class UpdateQueue:
    """A single-consumer FIFO of one turn's updates with lossless backpressure.

    It also notes what passed through it, consumed or not: the ids of the
    tool calls (``tool_call_ids``, in first-seen order) and whether usage
    was reported (``usage_seen``).

    Args:
        limit: the length at which :meth:`put` asks the producer to wait.

    """

    __slots__ = (
        "_getter",
        "_items",
        "_limit",
        "_space",
        "closed",
        "detached",
        "tool_call_ids",
        "usage_seen",
    )

    def __init__(self, limit: int = DEFAULT_QUEUE_LIMIT) -> None:
        self._items: deque[s.SessionUpdate] = deque()
        self._limit = limit
        self._getter: asyncio.Future[None] | None = None
        self._space: asyncio.Future[None] | None = None
        self.closed = False
        self.detached = False
        self.tool_call_ids: dict[str, None] = {}
        self.usage_seen = False

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: s.SessionUpdate) -> asyncio.Future[None] | None:
        """Note and append an update; return a future to await when the queue is full."""
        # Once per streamed update: one table lookup, no isinstance chain.
        cls = type(item)
        noted = _NOTED.get(cls)
        if noted is None:
            noted = _NOTED[cls] = _noted(cls)
        if noted:
            if noted == "usage":
                self.usage_seen = True
            else:
                self.tool_call_ids[item.tool_call_id] = None  # type: ignore[union-attr]
        if self.detached:
            return None
        items = self._items
        items.append(item)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)
        if len(items) >= self._limit:
            space = self._space
            if space is None or space.done():
                space = self._space = asyncio.get_running_loop().create_future()
            return space
        return None

    def close(self) -> None:
        """No more items will come; the consumer ends after the queued ones."""
        self.closed = True
        self._wake_getter()
        self._release()

    def detach(self) -> None:
        """The consumer is gone: drop what is queued and never block the producer."""
        self.detached = True
        self._items.clear()
        self._wake_getter()
        self._release()

    def unbound(self) -> None:
        """Stop asking the producer to wait, keeping every item (used by cancel).

        While the host awaits the agent's answer to ``session/cancel``, it may
        not be consuming; a full queue would then hold the reader and the
        answer could never be read.
        """
        self._limit = sys.maxsize
        self._release()

    def _wake_getter(self) -> None:
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    def _release(self) -> None:
        space = self._space
        if space is not None and not space.done():
            space.set_result(None)
        self._space = None

    async def get(self) -> s.SessionUpdate:
        """Return the next update.

        Raises:
            StopAsyncIteration: the queue is closed and empty.

        """
        items = self._items
        while not items:
            if self.closed or self.detached:
                raise StopAsyncIteration
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        item = items.popleft()
        if self._space is not None and len(items) <= self._limit // 2:
            self._release()
        return item


class TurnState(enum.Enum):
    """Where a prompt turn is in its life (``Turn.state``)."""

    #: Waiting in the session's queue (:meth:`Session.enqueue
    #: <acphost.Session.enqueue>`): nothing was sent yet.
    QUEUED = "queued"
    #: The prompt was sent (``session/prompt``); the agent is working on it.
    RUNNING = "running"
    #: The host sent ``session/cancel`` and waits for the agent to end the turn.
    CANCELLING = "cancelling"
    #: The result or the error is settled. Final.
    DONE = "done"


#: The allowed moves of a turn (see ``_lifecycle``): a turn is cancelled at
#: most once, and nothing follows its end.
_TURN_MOVES: dict[TurnState, frozenset[TurnState]] = {
    # A queued turn starts, or leaves the queue unsent (cancelled, the session closed).
    TurnState.QUEUED: frozenset({TurnState.RUNNING, TurnState.DONE}),
    TurnState.RUNNING: frozenset({TurnState.CANCELLING, TurnState.DONE}),
    TurnState.CANCELLING: frozenset({TurnState.DONE}),
    TurnState.DONE: frozenset(),
}


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How a prompt turn ended.

    Attributes:
        stop_reason: the agent's ``stopReason`` (``end_turn``, ``cancelled``...).
        text: the agent's message text of this turn (empty when the client
            keeps no history: ``keep_history=False``).
        tool_calls: the tool calls that this turn created or updated.
        usage: the ``usage`` field some agents add to the response (a dict
            of token counts, schema.unstable.json ``Usage``); without it, the
            counts of the response's ``_meta.quota.token_count`` (codex-acp,
            claude-agent-acp) under the same names; None when there are neither.
        meta: the response's ``_meta``, if any.
        response: the decoded ``PromptResponse``.
        budget_exceeded: set when the host cancelled the turn because a
            :class:`~acphost.client.Budget` was crossed (``stop_reason`` is
            then ``cancelled``).
        usage_reported: whether the agent reported any usage during the
            turn; without it, a budget cannot be enforced.
        budget_warning: why a cost budget was not enforced, or only in
            part, though usage was reported: the agent's cost is in another
            currency, or the cost before the turn was unknown (see
            :mod:`acphost.client._budget`). None when it was held.
        subagents_running: the ids of the session's subagents still running
            when the agent answered the prompt: they go on streaming (await
            :meth:`Session.wait_subagents <acphost.Session.wait_subagents>`).

    """

    stop_reason: str
    text: str
    tool_calls: tuple[ToolCallState, ...] = ()
    usage: Any = None
    meta: dict[str, Any] | None = None
    response: s.PromptResponse | None = field(default=None, repr=False)
    budget_exceeded: BudgetExceeded | None = None
    usage_reported: bool = False
    budget_warning: str | None = None
    subagents_running: tuple[str, ...] = ()


class Turn:
    """One prompt turn, from :meth:`Session.prompt` or :meth:`Session.enqueue`.

    Iterate it (``async for update in turn``) for the typed updates in wire
    order, and await it (``result = await turn``) for the :class:`TurnResult`.
    Iterating is optional: awaiting without iterating discards the stream
    (the session state still records it). A loop left early with ``break``
    must be followed by :meth:`aclose`, or the full queue would hold the
    connection's reader (backpressure never drops updates on its own).

    A turn from :meth:`Session.enqueue <acphost.Session.enqueue>` may start
    :attr:`TurnState.QUEUED`: its updates and result come once the turns
    before it have ended; :meth:`cancel` takes it out of the queue unsent.

    Attributes:
        host_stop: why the host stopped the turn, when it did: the reason
            given to :meth:`Session.cancel <acphost.Session.cancel>` (a
            budget's crossing when it stopped the turn); None otherwise.

    """

    def __init__(
        self,
        queue: UpdateQueue,
        *,
        on_end: Callable[[TurnResult | BaseException], None] | None = None,
        queued: bool = False,
    ) -> None:
        self._queue = queue
        initial = TurnState.QUEUED if queued else TurnState.RUNNING
        self._life = StateMachine("the turn", initial, _TURN_MOVES)
        #: Why the host stopped the turn, if it did (the first reason given).
        self.host_stop: str | None = None
        # Told once, when the result or the error is settled (the session's TurnEnded).
        self._on_end = on_end
        # The producer side (the session): the queue's put itself, no wrapper
        # call per streamed update.
        self._deliver = queue.put
        self._result: asyncio.Future[TurnResult] = asyncio.get_running_loop().create_future()
        self._iterating = False
        self._task: asyncio.Task[None] | None = None
        # The session's part of cancel (set by the session that owns the turn).
        self._canceller: Canceller | None = None
        # session/prompt was written (the session's task sets it).
        self._sent = False

    @property
    def tool_call_ids(self) -> dict[str, None]:
        """The ids of the tool calls this turn created or updated, in first-seen order."""
        return self._queue.tool_call_ids

    @property
    def _usage_seen(self) -> bool:
        return self._queue.usage_seen

    @property
    def state(self) -> TurnState:
        """Where the turn is: running, cancelling, done."""
        return self._life.state

    def _cancel(self, reason: str | None) -> bool:
        """Note a cancel; True for the first one (the one that sends ``session/cancel``).

        Raises:
            UsageError: the turn is done (a bug in acphost: the session checks first).

        """
        if self.host_stop is None:
            self.host_stop = reason
        if self._life.state is TurnState.CANCELLING:
            return False
        self._life.move(TurnState.CANCELLING)
        return True

    def _start(self) -> None:
        """A queued turn's prompt is being sent (the session calls it)."""
        self._life.move(TurnState.RUNNING)

    async def cancel(
        self, *, timeout: float = 10.0, reason: str | None = None
    ) -> TurnResult | None:
        """Cancel this turn.

        A queued turn leaves the queue: it is never sent, and its result is
        ``stop_reason`` ``cancelled`` with no text. A running turn is
        cancelled as :meth:`Session.cancel <acphost.Session.cancel>` does
        (``session/cancel``, then its answer). A turn that is done is left
        as it is.

        Args:
            timeout: seconds to wait for the agent to end a running turn.
            reason: why the host stops the turn (see :attr:`host_stop`).

        Returns:
            The turn's result; None when it ended with an error.

        Raises:
            AcpTimeout: the agent did not end a running turn in time.

        """
        if not self.done and self._canceller is not None:
            return await self._canceller(self, timeout, reason)
        if not self.done:
            return None
        error = self._result.exception()
        return None if error is not None else self._result.result()

    def _finish(self, result: TurnResult | BaseException) -> None:
        if self._life.state is TurnState.DONE:
            return
        self._life.move(TurnState.DONE)
        if isinstance(result, BaseException):
            self._result.set_exception(result)
            # A turn nobody awaits (the host stopped caring) must not log
            # "exception was never retrieved"; awaiting it still raises.
            self._result.exception()
        else:
            self._result.set_result(result)
        self._queue.close()
        if self._on_end is not None:
            self._on_end(result)

    @property
    def done(self) -> bool:
        """True once the agent answered the prompt (or the turn failed)."""
        return self._result.done()

    # -- consumer side -------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[s.SessionUpdate]:
        if self._iterating:
            raise UsageError("a Turn can be iterated only once")
        self._iterating = True
        return self

    async def __anext__(self) -> s.SessionUpdate:
        # A queued item is taken here, without a call to a second coroutine.
        queue = self._queue
        items = queue._items
        if items:
            item = items.popleft()
            if queue._space is not None and len(items) <= queue._limit // 2:
                queue._release()
            return item
        return await queue.get()

    async def result(self) -> TurnResult:
        """Wait for the end of the turn and return how it ended.

        Raises:
            AgentExited: the agent died during the turn.
            RequestError: the agent answered the prompt with an error.
            AcpTimeout: a cancel was not acknowledged in time.

        """
        if not self._iterating:
            self._queue.detach()
        return await asyncio.shield(self._result)

    def __await__(self) -> Generator[Any, None, TurnResult]:
        return self.result().__await__()

    async def aclose(self) -> None:
        """Stop consuming updates (they are still recorded in the session state)."""
        self._queue.detach()
