"""A session with an agent: prompt turns, cancellation, modes, config options."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from .. import schema as s
from ..content import PromptInput, to_blocks
from ..errors import (
    AcpError,
    AcpTimeout,
    AgentExited,
    CapabilityNotSupported,
    LocalProtocolError,
    MethodNotFound,
    RequestError,
    ResourceNotFound,
    UsageError,
)
from ._budget import Budget, BudgetExceeded, CostStart, Meter, SessionBudget
from ._lifecycle import Lifecycle, LifecycleState
from ._options import option_id, option_values
from ._peer import Peer
from ._state import SessionState
from ._subagents import Subagent, SubagentTree
from ._turn import DEFAULT_QUEUE_LIMIT, Turn, TurnResult, TurnState, UpdateQueue
from ._v2 import SessionWire

__all__ = ["Session", "UpdateListener"]

logger = logging.getLogger("acphost.session")

#: A listener of :meth:`Session.add_listener`: ``(session, update)``; with
#: ``subagents=True`` the first argument is a :class:`Subagent` for a child's updates.
UpdateListener = Callable[[Any, s.SessionUpdate], None]

#: A queued prompt (:meth:`Session.enqueue`): its turn, blocks, ``_meta`` and budget.
_Waiting = tuple[Turn, list[s.ContentBlock], "dict[str, Any] | None", "Budget | None"]

#: How long :meth:`Session.cancel` waits for the agent to end the turn.
DEFAULT_CANCEL_TIMEOUT = 10.0

#: ``_meta.quota.token_count`` of codex-acp and claude-agent-acp, by the names of
#: ``PromptResponse.usage`` (schema.unstable.json ``Usage``). Codex calls the
#: cache writes ``cacheWriteInputTokens``, claude ``cachedWriteTokens``.
_QUOTA_TOKENS = {
    "totalTokens": "totalTokens",
    "inputTokens": "inputTokens",
    "outputTokens": "outputTokens",
    "reasoningOutputTokens": "thoughtTokens",
    "cachedInputTokens": "cachedReadTokens",
    "cacheWriteInputTokens": "cachedWriteTokens",
    "cachedWriteTokens": "cachedWriteTokens",
    # Gemini CLI 0.61.0 (its only usage): the same counts in snake_case.
    "total_tokens": "totalTokens",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "reasoning_output_tokens": "thoughtTokens",
    "cached_input_tokens": "cachedReadTokens",
    "cache_write_input_tokens": "cachedWriteTokens",
}


def _turn_usage(usage: Any, meta: dict[str, Any] | None) -> Any:
    """The turn's token counts: ``PromptResponse.usage``, else those of ``_meta.quota``.

    ``_meta`` is the agent's own (ACP "Extensibility": no assumption may be
    made about its values), so its counts are read only when the response has
    no ``usage``, and only whole numbers under the names above; the faces
    then read them as they read ``usage``. None when there are neither.
    """
    if usage is not None or meta is None:
        return usage
    quota = meta.get("quota")
    counts = quota.get("token_count") if isinstance(quota, dict) else None
    if not isinstance(counts, dict):
        return None
    found = {
        _QUOTA_TOKENS[key]: value
        for key, value in counts.items()
        if key in _QUOTA_TOKENS
        and isinstance(value, int)
        and not isinstance(value, bool)
        and value >= 0
    }
    return found or None


class Session:
    """One ACP session; create it with :meth:`AcpClient.new_session` (or load/resume).

    Attributes:
        id: the agent's session id.
        cwd: the absolute working directory of the session.
        additional_directories: further workspace roots.
        state: everything the host knows about the session (messages, tool
            calls, plan, modes, config options, commands, usage, title).

    The session is the root of a tree: the child sessions the agent runs for
    its subagents are :attr:`subagents`.
    """

    def __init__(
        self,
        peer: Peer,
        session_id: str,
        cwd: str,
        additional_directories: Sequence[str] = (),
        *,
        keep_history: bool = True,
        queue_limit: int = DEFAULT_QUEUE_LIMIT,
        setup_timeout: float | None = None,
        fresh: bool = False,
    ) -> None:
        self._peer = peer
        self.id = session_id
        self.cwd = cwd
        self.additional_directories = tuple(additional_directories)
        self.state = SessionState(keep_history=keep_history)
        self._turn: Turn | None = None
        # Prompts waiting for the running turn to end (enqueue), in order.
        self._waiting: deque[
            tuple[Turn, list[s.ContentBlock], dict[str, Any] | None, Budget | None]
        ]
        self._waiting = deque()
        self._queue_limit = queue_limit
        self._setup_timeout = setup_timeout
        self._events = peer.events
        self._listeners: list[UpdateListener] = []  # those of add_listener, each an observer
        self._life = Lifecycle(f"session {session_id}")
        #: How the agent opened it (``new``, ``load``, ``resume``, ``fork``;
        #: None until it answered): a reopened session is one recorded before.
        self.opened_how: str | None = None
        self._announced = False  # SessionOpened was told: SessionClosed will be
        # What the turns cost and the budgets on them: an observer of the updates.
        self._spending = SessionBudget(
            self._events, self, self.state, fresh=fresh, stop=self._stop_for_budget
        )
        self._tree = SubagentTree(peer, self)
        self._tree.watch(self.state, None)

    def __repr__(self) -> str:
        return f"<Session {self.id} cwd={self.cwd!r} {self._life.state.value}>"

    @property
    def lifecycle(self) -> LifecycleState:
        """Where the session is in its life (opening, open, closing, closed)."""
        return self._life.state

    @property
    def closed(self) -> bool:
        """True once :meth:`close` began, or the client closed."""
        return self._life.closed

    @property
    def protocol_version(self) -> int:
        """The ACP protocol version its connection agreed on (1 or 2).

        The session, its turns and its updates are the same objects on both:
        on v2 the client maps the wire onto them.
        """
        return self._peer.protocol_version

    # -- updates ---------------------------------------------------------------

    def add_listener(
        self, listener: UpdateListener, *, subagents: bool = False
    ) -> Callable[[], None]:
        """Call ``listener(session, update)`` for every update, in wire order.

        An observer of the client's event stream (:attr:`AcpClient.events
        <acphost.AcpClient.events>`) that takes this session's
        :class:`~acphost.client.UpdatesReceived` blocks one update at a time:
        the listener runs inline in the connection's reader, after the
        block's updates were applied to :attr:`state`; keep it quick. One
        that raises is logged and the stream goes on.

        Args:
            listener: the callable.
            subagents: also call it for the updates of the session's
                subagents, with the :class:`~acphost.client.Subagent` as
                its first argument (in wire order with the session's own).

        Returns:
            A function that removes the listener.

        """

        def on_tree(owner: Any, updates: Sequence[s.SessionUpdate]) -> None:
            for update in updates:
                try:
                    listener(owner, update)
                except Exception:
                    logger.exception("an update listener of session %s failed", self.id)

        def on_updates(updates: Sequence[s.SessionUpdate]) -> None:
            on_tree(self, updates)

        if subagents:
            unsubscribe = self._events._follow_tree(self, on_tree)
        else:
            unsubscribe = self._events._follow(self, on_updates)
        self._listeners.append(listener)

        def remove() -> None:
            unsubscribe()
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def _receive_update(self, update: s.SessionUpdate) -> asyncio.Future[None] | None:
        state = self.state
        if type(update) not in state.inert:  # a chunk, when no history is kept: no call
            state.apply(update)
        turn = self._turn
        if turn is not None and not turn._result.done():
            return turn._deliver(update)
        return None

    def _apply_setup(
        self,
        modes: s.SessionModeState | None,
        config_options: Sequence[s.SessionConfigOption] | None,
    ) -> None:
        if modes is not None:
            self.state.modes = modes
        if config_options is not None:
            self.state.config_options = list(config_options)

    # -- subagents -----------------------------------------------------------------

    @property
    def subagents(self) -> tuple[Subagent, ...]:
        """The child sessions of the agent's subagents, in the order announced.

        Each is a :class:`~acphost.client.Subagent` with its own state and its
        own children. An agent runs them only when the client advertised
        ``subagents`` (the default; ``subagents=False`` does not).
        """
        return tuple(self._tree.children.values())

    def running_subagents(self) -> list[Subagent]:
        """The subagents, at every depth, that work in the foreground now."""
        return self._tree.running()

    async def wait_subagents(self, timeout: float | None = None) -> None:
        """Wait until no subagent of the session runs.

        Children may go on after the parent's turn ended (its result's
        :attr:`~acphost.TurnResult.subagents_running` names them); their
        updates keep arriving meanwhile. Returns at once when none runs, and
        when the session closes.

        Args:
            timeout: seconds to wait at most (None: no bound).

        Raises:
            AcpTimeout: some still ran after ``timeout`` (the message names them).
            AgentExited: the agent went away while they ran.

        """
        await self._tree.wait(timeout)

    # -- prompt turns ------------------------------------------------------------

    @property
    def turn(self) -> Turn | None:
        """The turn in progress, if any."""
        turn = self._turn
        return turn if turn is not None and not turn.done else None

    def prompt(
        self,
        content: PromptInput,
        *,
        meta: dict[str, Any] | None = None,
        budget: Budget | None = None,
    ) -> Turn:
        """Send a prompt and return its :class:`Turn` at once.

        Args:
            content: a string, a content block, or a sequence of them (see
                :mod:`acphost.content` helpers).
            meta: ``_meta`` for the request.
            budget: limits for this turn; when the agent reports crossing
                one, the turn is cancelled (``session/cancel``) and its
                result says why (``budget_exceeded``). The session's own
                :attr:`budget` applies as well.

        Returns:
            The turn: iterate it for updates, await it for the result.

        Raises:
            UsageError: a turn is already running in this session, the
                session is closed, or its own budget is spent.
            CapabilityNotSupported: a block needs a prompt capability the agent
                did not advertise (image, audio, embedded context). Nothing is sent.

        """
        self._check_can_prompt()
        if self.turn is not None:
            raise UsageError(
                "a turn is already running in this session: await it, cancel it, "
                "or queue the prompt with session.enqueue()"
            )
        blocks = to_blocks(content)
        self._peer.check_prompt_blocks(blocks)
        turn = Turn(UpdateQueue(self._queue_limit))
        self._begin(turn, blocks, meta, budget)
        return turn

    def enqueue(
        self,
        content: PromptInput,
        *,
        meta: dict[str, Any] | None = None,
        budget: Budget | None = None,
    ) -> Turn:
        """Queue a prompt: its turn starts when the turns before it have ended.

        With no turn running and none queued, this is :meth:`prompt`. Otherwise
        the prompt waits, first in first out, in this session; the returned
        :class:`Turn` is the same object a prompt gives (iterate it, await it,
        :meth:`Turn.cancel <acphost.Turn.cancel>` it), in the ``queued``
        state until its prompt is sent. Cancelling a queued turn takes it out
        of the queue unsent; the queue goes on. Closing the session (or losing
        the agent) ends the queued turns with an error, unsent.

        Args:
            content: as for :meth:`prompt`.
            meta: ``_meta`` for the request.
            budget: limits for this turn (see :meth:`prompt`).

        Returns:
            The turn.

        Raises:
            UsageError: the session is closed, or its own budget is spent.
            CapabilityNotSupported: a block needs a prompt capability the agent
                did not advertise. Nothing is queued.

        """
        self._check_can_prompt()
        blocks = to_blocks(content)
        self._peer.check_prompt_blocks(blocks)
        if self.turn is None and not self._waiting:
            turn = Turn(UpdateQueue(self._queue_limit))
            self._begin(turn, blocks, meta, budget)
            return turn
        turn = Turn(UpdateQueue(self._queue_limit), queued=True)
        turn._canceller = self._cancel_turn
        self._waiting.append((turn, blocks, meta, budget))
        return turn

    @property
    def queued(self) -> tuple[Turn, ...]:
        """The turns waiting in the queue (:meth:`enqueue`), first to start first."""
        return tuple(entry[0] for entry in self._waiting)

    def _check_can_prompt(self) -> None:
        self._life.require_open("open a new session")
        spent = self._spending.spent
        if spent is not None:
            raise UsageError(
                f"the session's budget is spent ({spent}): raise session.budget, "
                "or open a new session"
            )

    def _begin(
        self,
        turn: Turn,
        blocks: list[s.ContentBlock],
        meta: dict[str, Any] | None,
        budget: Budget | None,
    ) -> None:
        """Send the turn's prompt: the turn runs from now on."""
        turn._on_end = lambda result: self._turn_ended(turn, blocks, result)
        turn._canceller = self._cancel_turn
        turn._start()
        self._turn = turn
        self._spending.begin_turn(budget)
        self._peer.host.begin_turn(self.id)
        self._tree.begin_turn()
        self.state.add_user_prompt(blocks)
        events = self._events
        if events.observed:  # before the request: before any of the turn's updates
            events._turn_started(self, turn, blocks)
        request = s.PromptRequest(session_id=self.id, prompt=blocks, meta=meta)
        task = asyncio.get_running_loop().create_task(
            self._run_turn(turn, request), name="acphost.session.prompt"
        )
        turn._task = task

    def _start_waiting(self) -> None:
        """The running turn ended: send the next queued prompt (those that cannot start end)."""
        peer = self._peer
        if peer.closed:  # the agent went away (or the client closes): nothing more is sent
            error = peer.connection.closed_error
            if not isinstance(error, AgentExited):
                error = AgentExited(None, "", "the client was closed before the turn started")
            self._drop_waiting(error)
            return
        while self._waiting and self.turn is None:
            turn, blocks, meta, budget = self._waiting.popleft()
            try:
                self._check_can_prompt()
                self._begin(turn, blocks, meta, budget)
            except AcpError as exc:  # closed, or the session's budget is spent
                turn._finish(exc)

    def _drop_waiting(self, error: BaseException) -> None:
        """End every queued turn with ``error``, unsent."""
        waiting, self._waiting = self._waiting, deque()
        for turn, *_ in waiting:
            turn._finish(error)

    async def _cancel_turn(
        self, turn: Turn, timeout: float, reason: str | None
    ) -> TurnResult | None:
        """:meth:`Turn.cancel`: a queued turn leaves the queue; a running one is cancelled."""
        for entry in self._waiting:
            if entry[0] is turn:
                self._waiting.remove(entry)
                if turn.host_stop is None:
                    turn.host_stop = reason
                result = TurnResult(stop_reason="cancelled", text="")
                turn._finish(result)
                return result
        if self.turn is turn:
            return await self.cancel(timeout=timeout, reason=reason)
        return await turn.cancel()  # done meanwhile: its result

    async def _run_turn(self, turn: Turn, request: s.PromptRequest) -> None:
        def on_response(result: Any) -> None:
            # Runs in the reader, in wire order: later updates are not this turn's.
            self._finish_turn(turn, result)

        v2 = self._peer.v2
        wire = v2.session(self.id) if v2 is not None else None
        turn._sent = True  # written below, before this task first waits
        try:
            if wire is None:
                await self._peer.request_raw(
                    s.SESSION_PROMPT, request.to_wire(), on_response=on_response
                )
            else:
                await self._prompt_v2(turn, request, wire)
        except asyncio.CancelledError:
            turn._finish(UsageError("the prompt was abandoned by the host"))
            raise
        except RequestError as exc:
            if turn.state is not TurnState.CANCELLING:
                turn._finish(exc)
                return
            # Some agents (Qwen Code) answer a cancelled prompt with an error
            # instead of stopReason "cancelled" (ACP "Cancellation"): the host
            # asked to cancel, so the turn ended as cancelled.
            logger.info(
                "session %s: the cancelled prompt was answered with an error: %s", self.id, exc
            )
            self.state.cancel_pending_tool_calls()
            calls = tuple(
                self.state.tool_calls[i] for i in turn.tool_call_ids if i in self.state.tool_calls
            )
            turn._finish(
                TurnResult(
                    stop_reason="cancelled",
                    text=self.state.last_agent_text(),
                    tool_calls=calls,
                    subagents_running=self._running_ids(),
                    **self._spending.outcome(turn._usage_seen),
                )
            )
        except BaseException as exc:
            turn._finish(exc)
            if self._turn is turn:
                self._turn = None

    async def _prompt_v2(self, turn: Turn, request: s.PromptRequest, wire: SessionWire) -> None:
        # v2 "Prompt Lifecycle": session/prompt answers {messageId} once the
        # prompt is in the conversation; the turn ends with the idle
        # state_update, read in wire order (the mapping calls back from the
        # reader), or with the connection.
        idle: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def on_idle(result: Any) -> None:
            failure = result.pop("error", None)
            if failure is not None and turn.state is not TurnState.CANCELLING:
                # A failed turn ends with idle, stopReason "error" and the error
                # (schema ErrorStopReason): it fails as on v1, where the agent
                # answers session/prompt with that JSON-RPC error.
                turn._finish(RequestError.from_wire(failure))
            else:
                self._finish_turn(turn, result)
            if not idle.done():
                idle.set_result(None)

        wire.expect_idle(on_idle)
        try:
            answer = await self._peer.request_raw(s.SESSION_PROMPT, request.to_wire())
            if isinstance(answer, dict) and "messageId" not in answer and "stopReason" in answer:
                # A v1 answer on a v2 connection (v2 PromptResponse requires
                # messageId): the turn ended with it; no idle will come.
                logger.warning(
                    "session %s: the agent answered session/prompt in the v1 shape on ACP v2",
                    self.id,
                )
                wire.forget_idle()
                self._finish_turn(turn, answer)
                return
            closed = self._peer.connection.closed
            await asyncio.wait((idle, closed), return_when=asyncio.FIRST_COMPLETED)
            if not idle.done():
                raise self._peer.connection.closed_error or UsageError(
                    "the client closed while the turn ran"
                )
        finally:
            if not idle.done():
                wire.forget_idle()

    def _turn_ended(
        self, turn: Turn, blocks: Sequence[s.ContentBlock], result: TurnResult | BaseException
    ) -> None:
        # Turn._finish calls it once, when the result or the error is settled.
        try:
            self._tell_turn_ended(turn, blocks, result)
        finally:
            if self._waiting:
                self._start_waiting()

    def _tell_turn_ended(
        self, turn: Turn, blocks: Sequence[s.ContentBlock], result: TurnResult | BaseException
    ) -> None:
        events = self._events
        if not events.observed:
            return
        host_stop = turn.host_stop
        if host_stop is None:
            exceeded = (
                result.budget_exceeded
                if isinstance(result, TurnResult)
                else self._spending.exceeded
            )
            if exceeded is not None:
                host_stop = f"budget: {exceeded}"
        events._turn_ended(self, turn, blocks, result, host_stop)

    def _finish_turn(self, turn: Turn, result: Any) -> None:
        try:
            response = s.PromptResponse.from_wire(result)
        except s.SchemaError as exc:
            turn._finish(exc)
            return
        extra = response.extra or {}
        calls = tuple(
            self.state.tool_calls[i] for i in turn.tool_call_ids if i in self.state.tool_calls
        )
        stop = response.stop_reason
        if stop == "cancelled" or turn.state is TurnState.CANCELLING:
            self.state.cancel_pending_tool_calls()
        turn._finish(
            TurnResult(
                stop_reason=stop,
                text=self.state.last_agent_text(),
                tool_calls=calls,
                usage=_turn_usage(extra.get("usage"), response.meta),
                meta=response.meta,
                response=response,
                subagents_running=self._running_ids(),
                **self._spending.outcome(turn._usage_seen),
            )
        )

    def _running_ids(self) -> tuple[str, ...]:
        return tuple(agent.id for agent in self._tree.running())

    # -- budgets (kept by the session's SessionBudget) -------------------------------

    @property
    def budget(self) -> Budget | None:
        """The session's own budget, counted over every turn from the next one on."""
        return self._spending.budget

    @budget.setter
    def budget(self, budget: Budget | None) -> None:
        self._spending.budget = budget

    def set_recorded_cost(self, cost: s.Cost | None) -> None:
        """Tell the session its cumulative cost as a record of it (the history) last saw it.

        For a session reopened with ``session/load`` or ``session/resume``,
        which report no cost: budgets and :attr:`turn_cost` count the next
        turn from it, unless the agent reports its cost before the turn. A
        session this client opened new ignores it (an agent may reuse ids).
        A record older than the truth (someone spent since) makes the turn
        look dearer, never cheaper: a budget errs on the safe side.

        Args:
            cost: the agent's last reported cumulative cost, or None to forget it.

        """
        self._spending.set_recorded_cost(cost)

    @property
    def cost_start(self) -> CostStart | None:
        """The session's cost when the running (or last) turn started; None while unknown."""
        return self._spending.cost_start

    @property
    def turn_cost(self) -> s.Cost | None:
        """What the running (or last) turn has cost, from the agent's cumulative reports.

        The last reported cost minus :attr:`cost_start`. None when either is
        unknown or they are in different currencies. When ``cost_start`` is
        not ``exact``, this is a lower bound.
        """
        return self._spending.turn_cost

    @property
    def _session_meter(self) -> Meter | None:
        return self._spending.session_meter

    def _stop_for_budget(self, crossed: BudgetExceeded) -> Coroutine[Any, Any, None] | None:
        # The budget's observer saw a crossing: cancel the running turn, once.
        turn = self.turn
        if turn is None or turn.state is not TurnState.RUNNING:
            return None
        logger.info("session %s: %s; cancelling the turn", self.id, crossed)
        return self._cancel_for_budget(crossed)

    async def _cancel_for_budget(self, crossed: BudgetExceeded) -> None:
        try:
            await self.cancel(reason=f"budget: {crossed}")
        except AcpTimeout:
            logger.warning("session %s: the agent ignored session/cancel after a budget", self.id)
        except AcpError as exc:  # the agent went away meanwhile: the turn says so
            logger.debug("session %s: cancel after a budget failed: %s", self.id, exc)

    async def cancel(
        self, *, timeout: float = DEFAULT_CANCEL_TIMEOUT, reason: str | None = None
    ) -> TurnResult | None:
        """Cancel the running turn and wait for the agent to end it.

        Sends ``session/cancel``, answers every pending permission request of
        the session ``cancelled`` (ACP "Cancellation": the client MUST), marks
        unfinished tool calls cancelled, and waits for the prompt's response
        (``stopReason: cancelled``). Idempotent. Running subagents that the
        agent allows cancelling get their own ``session/cancel`` (also after
        the turn ended, when they go on: then nothing is awaited).

        Args:
            timeout: seconds to wait for the agent's answer.
            reason: why the host stops the turn (``"interrupted"``, a face's
                own words), told as :attr:`TurnEnded.host_stop
                <acphost.client.TurnEnded.host_stop>` and
                :attr:`Turn.host_stop <acphost.Turn.host_stop>`; the first
                reason given for a turn is kept.

        Returns:
            The turn's result, or None when no turn was running.

        Raises:
            AcpTimeout: the agent did not end the turn in time; the turn then
                fails with the same error and its request is abandoned.

        """
        turn = self.turn
        if turn is None:
            self._tree.cancel_running()
            return None
        turn._queue.unbound()
        if not turn._sent:
            # The prompt's task has not run yet: let it write session/prompt
            # first, or the agent would get the cancel before the prompt it
            # cancels, ignore it, and run the prompt to its end.
            await asyncio.sleep(0)
        if turn._cancel(reason):  # the first cancel of the turn tells the agent
            self._peer.notify(s.SESSION_CANCEL, s.CancelNotification(session_id=self.id).to_wire())
            self._peer.host.cancel_session(self.id)
            self.state.cancel_pending_tool_calls()
            self._tree.cancel_running()
        try:
            return await asyncio.wait_for(asyncio.shield(turn._result), timeout)
        except asyncio.TimeoutError:
            err = AcpTimeout(
                f"the agent did not end the turn within {timeout:g} s of session/cancel",
                self._peer.stderr_tail(),
            )
            turn._finish(err)
            task = turn._task
            if task is not None:
                task.cancel()
            raise err from None

    # -- modes and configuration ---------------------------------------------------

    def _unblock_turn(self) -> None:
        # The host now awaits an answer instead of consuming the running turn's
        # updates: a full queue must not hold the reader (and the answer) back.
        turn = self.turn
        if turn is not None:
            turn._queue.unbound()

    async def set_mode(self, mode_id: str) -> None:
        """Switch the session's mode (``session/set_mode``).

        An agent without session modes whose config options hold one of
        category ``mode`` (ACP v2 has no ``session/set_mode``: modes are a
        config option there) has its mode set through that option.

        Raises:
            LocalProtocolError: the agent offers no modes, or not this one;
                the message lists the valid ids.

        """
        modes = self.state.modes
        if modes is None:
            option = next(
                (o for o in self.state.config_options if getattr(o, "category", None) == "mode"),
                None,
            )
            if option is not None:
                await self.set_config_option(option_id(option), mode_id)
                return
            raise CapabilityNotSupported("modes", "this agent offers no session modes")
        valid = [m.id for m in modes.available_modes]
        if valid and mode_id not in valid:
            raise LocalProtocolError(f"unknown mode {mode_id!r}; valid modes: {', '.join(valid)}")
        self._unblock_turn()
        req = s.SetSessionModeRequest(session_id=self.id, mode_id=mode_id)
        await self._peer.request(s.SESSION_SET_MODE, req, s.SetSessionModeResponse)
        self.state.set_current_mode(mode_id)

    async def set_config_option(self, config_id: str, value: str | bool) -> None:
        """Set a configuration option (``session/set_config_option``).

        Model selection is the option whose ``category`` is ``model``.

        Args:
            config_id: the option's id.
            value: a value id for ``select`` options, a bool for ``boolean`` ones.

        Raises:
            LocalProtocolError: unknown option or value; the message lists the
                valid ones.

        """
        option = self._find_option(config_id)
        wire: dict[str, Any] = {"sessionId": self.id, "configId": config_id}
        if isinstance(option, s.SessionConfigBoolean):
            if not isinstance(value, bool):
                raise LocalProtocolError(f"option {config_id!r} is a boolean: pass True or False")
            wire.update(type="boolean", value=value)
        else:
            if isinstance(value, bool):
                raise LocalProtocolError(f"option {config_id!r} takes a value id, not a bool")
            valid = option_values(option)
            if valid and value not in valid:
                raise LocalProtocolError(
                    f"unknown value {value!r} for {config_id!r}; valid values: {', '.join(valid)}"
                )
            wire["value"] = value
        self._unblock_turn()
        result = await self._peer.request_raw(s.SESSION_SET_CONFIG_OPTION, wire)
        response = s.SetSessionConfigOptionResponse.from_wire(result)
        self.state.config_options = list(response.config_options)

    def _find_option(self, config_id: str) -> s.SessionConfigOption:
        for option in self.state.config_options:
            if option_id(option) == config_id:
                return option
        valid = [option_id(o) for o in self.state.config_options]
        raise LocalProtocolError(
            f"unknown config option {config_id!r}; "
            + (f"valid options: {', '.join(valid)}" if valid else "the agent offers none")
        )

    def model_option(self) -> s.SessionConfigOption | None:
        """The config option of category ``model``, if the agent has one."""
        for option in self.state.config_options:
            if getattr(option, "category", None) == "model":
                return option
        return None

    async def set_model(self, model_id: str) -> None:
        """Choose the model through the ``model`` config option.

        Raises:
            LocalProtocolError: the agent has no model option, or not this value.

        """
        option = self.model_option()
        if option is None:
            raise LocalProtocolError(
                "this agent offers no model choice (no config option of category 'model')"
            )
        await self.set_config_option(option_id(option), model_id)

    async def close(self) -> None:
        """Close the session on the agent side (``session/close``), if supported.

        Cancels a running turn first. Idempotent. Agents that do not
        advertise ``sessionCapabilities.close`` are not asked; the session is
        then only forgotten locally.
        """
        if self.closed:
            return
        self._drop_waiting(UsageError("the session was closed before this queued prompt was sent"))
        if self.turn is not None:
            try:
                await self.cancel(timeout=5.0)
            except AcpTimeout:
                logger.warning("session %s: the agent ignored session/cancel before close", self.id)
        self._life.move(LifecycleState.CLOSING)
        peer = self._peer
        try:
            peer.unregister(self.id)
            for sid in self._tree.release():
                await peer.host.release_session(sid)
            await peer.host.release_session(self.id)
            if peer.session_cap("close") is not None and not peer.closed:
                try:
                    await peer.request(
                        s.SESSION_CLOSE,
                        s.CloseSessionRequest(session_id=self.id),
                        s.CloseSessionResponse,
                        timeout=self._setup_timeout,
                    )
                except (ResourceNotFound, MethodNotFound) as exc:
                    # v2 CloseSessionRequest: a session the agent no longer
                    # has is closed (-32002); one that cannot close (no
                    # method) is closed here all the same.
                    logger.info("session %s: session/close answered %s", self.id, exc)
        finally:
            self._end_life()

    def _opened(self, how: str) -> None:
        """The agent answered the open (``session/new``, load, resume, fork)."""
        self.opened_how = how
        self._life.move(LifecycleState.OPEN)
        self._announced = True
        events = self._events
        if events.observed:
            events._session_opened(self, how)

    def _end_life(self) -> None:
        was = self._life.state
        self._life.move(LifecycleState.CLOSED)
        self._spending.close()
        events = self._events
        if self._announced and was is not LifecycleState.CLOSED and events.observed:
            events._session_closed(self)

    def _abandoned(self) -> None:
        """The client closed (or the open failed): the session can do nothing more."""
        turn = self._turn
        gone = AgentExited(None, "", "the client was closed during the turn")
        self._drop_waiting(gone)
        if turn is not None:
            turn._finish(gone)
        self._tree.release(gone)
        self._end_life()
