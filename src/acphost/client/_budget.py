"""Budgets: stop a turn cleanly once the agent reports it has used too much.

ACP has no budget of its own; agents report what they use, and the host
enforces. Two figures are reported (schema ``UsageUpdate``):

- ``used``: the tokens currently in the context window. A token budget is a
  bound on it: the turn is cancelled once the agent reports more in use.
- ``cost``: the session's *cumulative* cost (``amount`` in ``currency``). A
  cost budget bounds what is spent from when the budget started watching
  (the start of the turn, or of the first turn of a session budget): the
  reported cost minus the session's cost at that start.

The cost at a turn's start (:class:`CostStart`) comes, in order, from:

1. the agent's last report before the turn;
2. a record of the session's cost that the host holds, such as the history
   (:meth:`Session.set_recorded_cost`): for a session reopened with
   ``session/load`` or ``session/resume``, which report no cost (schema
   ``UsageUpdate`` is sent when the agent chooses, typically after work);
3. zero, for a session this client opened and has not prompted yet;
4. the turn's first cost report, *if* it comes before any of the turn's
   work (a message or thought chunk, a tool call, a plan): an agent reports
   what it spent after spending it, so a report that precedes all work is
   the cost before the turn.

Failing all four, the cost before the turn is unknown: the budget counts
from the turn's first report, which leaves out what the turn spent before
it, and :attr:`Meter.warning` says so. The first report must not silently be
taken as the start: a continued session would then never count the turn's
first step (nor, with one report per turn, anything).

A cumulative cost never falls; a report below the start means the agent's
count began anew (say, a new agent process that counts only its own
spending), so everything it reports then was spent since the start. (Such a
count that has not yet fallen below the start cannot be told apart from a
continuing one: a recorded start then makes the turn look cheaper.)

A budget can only be enforced if the agent reports usage in the budget's
units: :class:`Meter` says whether it ever reported, and
:attr:`Meter.warning` why a cost limit could not be held (a cost in another
currency), so a face can warn instead of pretending.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import schema as s

if TYPE_CHECKING:
    from ._peer import Emitter
    from ._state import SessionState

__all__ = ["Budget", "BudgetExceeded", "CostStart", "Meter", "SessionBudget", "spent_since"]


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on what a turn (or a session) may use; ``None`` is no limit.

    Attributes:
        max_tokens: the most tokens the agent may report in use
            (``usage_update.used``).
        max_cost: the most the turn (or session) may cost, in the agent's
            currency, from the cumulative cost it reports.
        currency: count only costs reported in this currency (``"USD"``);
            None counts any.

    Raises:
        ValueError: a negative limit.

    """

    max_tokens: int | None = None
    max_cost: float | None = None
    currency: str | None = None

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 0:
            raise ValueError(f"max_tokens must be >= 0, got {self.max_tokens}")
        if self.max_cost is not None and not self.max_cost >= 0:
            raise ValueError(f"max_cost must be >= 0, got {self.max_cost}")

    @property
    def empty(self) -> bool:
        """True when the budget limits nothing."""
        return self.max_tokens is None and self.max_cost is None


@dataclass(frozen=True, slots=True)
class BudgetExceeded:
    """Why a turn was stopped by its budget.

    Attributes:
        limit: ``"tokens"`` or ``"cost"``.
        maximum: the limit that was crossed.
        value: what the agent had reported when it was crossed.
        currency: the currency of a cost limit.

    """

    limit: str
    maximum: float
    value: float
    currency: str | None = None

    def __str__(self) -> str:
        if self.limit == "tokens":
            return f"token budget exceeded: {self.value:g} tokens in use > {self.maximum:g}"
        unit = f" {self.currency}" if self.currency else ""
        return f"cost budget exceeded: {self.value:g}{unit} spent > {self.maximum:g}{unit}"


@dataclass(frozen=True, slots=True)
class CostStart:
    """The session's cumulative cost when a turn started (see the module's notes).

    Attributes:
        amount: the cost then.
        currency: its unit; None for a new session's zero, which fits any.
        source: where it came from: ``reported`` (the agent's report before
            the turn), ``recorded`` (the host's record, such as the history),
            ``new`` (a session not prompted yet), ``first report`` (the
            turn's first report, which came before any of its work) or
            ``unknown`` (the turn's first report came after work: a lower
            bound of what the turn spent is counted from it).

    """

    amount: float
    currency: str | None
    source: str

    @property
    def exact(self) -> bool:
        """False when the cost before the turn is unknown and counting began late."""
        return self.source != "unknown"


def spent_since(start: CostStart, cost: s.Cost) -> float | None:
    """What was spent from ``start`` to the cumulative ``cost``; None in another currency.

    A report below the start means the agent's count began anew: all of it
    was spent since (a cumulative cost never falls).
    """
    if start.currency is not None and start.currency != cost.currency:
        return None
    spent = cost.amount - start.amount
    return cost.amount if spent < 0 else spent


def unknown_start_warning(start: CostStart | None) -> str | None:
    """The warning for a cost counted from a late first report, else None."""
    if start is None or start.exact:
        return None
    return (
        "the session's cost before the turn is unknown (the agent reported it only after "
        "the turn's first output): the cost budget counted from that report, "
        "so the turn's first step was not counted"
    )


class Meter:
    """Follows a session's reported usage against one :class:`Budget`.

    Args:
        budget: the limits.
        start: the session's cost when counting starts, or None until the
            session learns it from the turn's first report (:meth:`begin`).

    Attributes:
        budget: the limits.
        start: the cost counting started from, once known.
        exceeded: the crossing, once a limit was crossed.
        reported: whether the agent reported any usage.
        foreign_currency: the currency of a reported cost the budget could
            not count (another currency than the budget's, or than the
            start's); None while every cost could be counted.

    """

    __slots__ = ("budget", "exceeded", "foreign_currency", "reported", "start")

    def __init__(self, budget: Budget, start: CostStart | None) -> None:
        self.budget = budget
        self.start = start
        self.exceeded: BudgetExceeded | None = None
        self.reported = False
        self.foreign_currency: str | None = None

    def begin(self, start: CostStart) -> None:
        """Set the start the session learnt from the turn's first report, if none is set."""
        if self.start is None:
            self.start = start

    @property
    def warning(self) -> str | None:
        """Why the cost limit was not held, or held only in part; None when it was.

        Not a crossing: the turn ran on. A face shows it once, at the end of
        the turn.
        """
        if self.budget.max_cost is None:
            return None
        if self.foreign_currency is not None:
            wanted = self.budget.currency or (self.start.currency if self.start else None)
            return (
                f"the agent reports its cost in {self.foreign_currency}, not in {wanted}: "
                "the cost budget cannot be enforced"
            )
        return unknown_start_warning(self.start)

    def observe(self, update: s.UsageUpdate) -> BudgetExceeded | None:
        """Take one usage report; return the crossing the first time a limit is crossed."""
        self.reported = True
        if self.exceeded is not None:
            return None
        budget = self.budget
        if budget.max_tokens is not None and update.used > budget.max_tokens:
            self.exceeded = BudgetExceeded("tokens", budget.max_tokens, update.used)
            return self.exceeded
        cost = update.cost
        if budget.max_cost is None or cost is None or self.start is None:
            return None
        spent = None
        if budget.currency is None or cost.currency == budget.currency:
            spent = spent_since(self.start, cost)
        if spent is None:
            # Amounts in two units cannot be compared: say so, never guess a rate.
            self.foreign_currency = self.foreign_currency or cost.currency
            return None
        if spent > budget.max_cost:
            self.exceeded = BudgetExceeded("cost", budget.max_cost, spent, cost.currency)
            return self.exceeded
        return None


#: Updates that are not the agent's work: a cost reported before any other
#: update of a turn is the cost before the turn (see the module's notes).
_NOT_WORK = (
    s.UsageUpdate,
    s.AvailableCommandsUpdate,
    s.CurrentModeUpdate,
    s.ConfigOptionUpdate,
    s.SessionInfoUpdate,
    s.UserMessageChunk,
)

#: ``stop(crossed)``: the session's way to cancel its running turn for a
#: budget; a coroutine to run, or None when there is no turn to stop.
BudgetStop = Callable[[BudgetExceeded], Coroutine[Any, Any, None] | None]


class SessionBudget:
    """What a session's turns cost and the budgets on them: an observer of its updates.

    The session owns one and keeps its public budget API on top of it
    (``Session.budget``, ``set_recorded_cost``, ``cost_start``,
    ``turn_cost``, ``prompt(budget=...)`` and the budget fields of
    ``TurnResult``). It follows the session's
    :class:`~acphost.client.UpdatesReceived` blocks on the client's event
    stream only while it has something to watch (a budget's meter, or a
    turn whose starting cost is still unknown), so a session without
    budgets adds nothing to the stream of updates.

    Args:
        events: the client's event stream.
        session: the session whose updates it follows.
        state: the session's state (its last usage report).
        fresh: the session was opened new by this client and not prompted.
        stop: how a crossing cancels the running turn.

    """

    __slots__ = (
        "_budget",
        "_cost_start",
        "_events",
        "_fresh",
        "_meters",
        "_opened_new",
        "_recorded_cost",
        "_session",
        "_session_meter",
        "_start_pending",
        "_state",
        "_stop",
        "_stopping",
        "_turn_worked",
        "_unfollow",
    )

    def __init__(
        self,
        events: Emitter,
        session: object,
        state: SessionState,
        *,
        fresh: bool,
        stop: BudgetStop,
    ) -> None:
        self._events = events
        self._session = session
        self._state = state
        self._stop = stop
        # A session this client opened and has not prompted yet has cost nothing.
        self._fresh = fresh
        self._opened_new = fresh  # its cost is this client's to know: no record applies
        self._budget: Budget | None = None
        self._session_meter: Meter | None = None
        self._meters: tuple[Meter, ...] = ()  # the running (or last) turn's, and the session's
        self._stopping: asyncio.Task[None] | None = None
        # The session's cost at the start of the running (or last) turn; while
        # _start_pending, the turn's first report may still tell it.
        self._recorded_cost: s.Cost | None = None
        self._cost_start: CostStart | None = None
        self._start_pending = False
        self._turn_worked = False
        self._unfollow: Callable[[], None] | None = None

    # -- the session's budget API ------------------------------------------------------

    @property
    def budget(self) -> Budget | None:
        """The session's own budget (None: none, or an empty one)."""
        return self._budget

    @budget.setter
    def budget(self, budget: Budget | None) -> None:
        self._budget = budget if budget is not None and not budget.empty else None
        self._session_meter = None

    @property
    def session_meter(self) -> Meter | None:
        """The meter of the session's budget, from the first turn it counted on."""
        return self._session_meter

    def set_recorded_cost(self, cost: s.Cost | None) -> None:
        """Take a record's last known cumulative cost (see ``Session.set_recorded_cost``)."""
        self._recorded_cost = cost

    @property
    def cost_start(self) -> CostStart | None:
        """The session's cost when the running (or last) turn started; None while unknown."""
        return self._cost_start

    @property
    def turn_cost(self) -> s.Cost | None:
        """The last reported cost minus :attr:`cost_start` (see ``Session.turn_cost``)."""
        start = self._cost_start
        usage = self._state.usage
        cost = usage.cost if usage is not None else None
        if start is None or cost is None:
            return None
        spent = spent_since(start, cost)
        return None if spent is None else s.Cost(amount=spent, currency=cost.currency)

    @property
    def spent(self) -> BudgetExceeded | None:
        """The crossing of the session's own budget, once it is spent."""
        meter = self._session_meter
        return meter.exceeded if meter is not None else None

    @property
    def exceeded(self) -> BudgetExceeded | None:
        """The first crossing of the running (or last) turn's budgets, if any."""
        return next((m.exceeded for m in self._meters if m.exceeded is not None), None)

    def outcome(self, usage_seen: bool) -> dict[str, Any]:
        """The budget fields of the turn's ``TurnResult``.

        Args:
            usage_seen: the turn's update queue saw a usage report.

        """
        meters = self._meters
        return {
            "budget_exceeded": self.exceeded,
            "usage_reported": any(m.reported for m in meters) or usage_seen,
            "budget_warning": next((m.warning for m in meters if m.warning is not None), None),
        }

    # -- a turn --------------------------------------------------------------------

    def begin_turn(self, budget: Budget | None) -> None:
        """A prompt is sent: the cost before it, and the meters that count it."""
        start = self._cost_before()
        self._cost_start = start
        self._start_pending = start is None
        self._turn_worked = False
        turn_meter = None if budget is None or budget.empty else Meter(budget, start)
        if self._budget is not None and self._session_meter is None:
            self._session_meter = Meter(self._budget, start)
        self._meters = tuple(m for m in (turn_meter, self._session_meter) if m is not None)
        self._fresh = False
        self._follow()

    def close(self) -> None:
        """The session closed: stop following its updates."""
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None

    def _cost_before(self) -> CostStart | None:
        usage = self._state.usage
        if usage is not None and usage.cost is not None:
            return CostStart(usage.cost.amount, usage.cost.currency, "reported")
        if self._fresh:
            return CostStart(0.0, None, "new")
        recorded = self._recorded_cost
        if recorded is not None and not self._opened_new:
            return CostStart(recorded.amount, recorded.currency, "recorded")
        return None

    def _follow(self) -> None:
        # Subscribed only while there is something to watch: meters count
        # every report (between turns too: a late report can spend the
        # session's budget), a pending start waits for the first report.
        watching = bool(self._meters) or self._start_pending
        if watching and self._unfollow is None:
            self._unfollow = self._events._follow(self._session, self._on_updates)
        elif not watching:
            self.close()

    def _on_updates(self, updates: Sequence[s.SessionUpdate]) -> None:
        # Inline in the reader, once per block of the session's updates.
        for update in updates:
            if self._start_pending:
                self._learn_start(update)
            if self._meters and isinstance(update, s.UsageUpdate):
                self._observe_usage(update)
        if not self._start_pending and not self._meters:
            self.close()

    def _learn_start(self, update: s.SessionUpdate) -> None:
        if isinstance(update, s.UsageUpdate):
            cost = update.cost
            if cost is None:
                return
            # Before any work, the first report is the cost before the turn;
            # after it, that is unknown and counting starts late.
            source = "unknown" if self._turn_worked else "first report"
            start = CostStart(cost.amount, cost.currency, source)
            self._cost_start = start
            self._start_pending = False
            for meter in self._meters:
                meter.begin(start)
        elif not isinstance(update, _NOT_WORK):
            self._turn_worked = True

    def _observe_usage(self, update: s.UsageUpdate) -> None:
        for meter in self._meters:
            crossed = meter.observe(update)
            if crossed is not None:
                stopping = self._stop(crossed)
                if stopping is not None:
                    self._stopping = asyncio.get_running_loop().create_task(
                        stopping, name="acphost.session.budget"
                    )
