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

from dataclasses import dataclass

from .. import schema as s

__all__ = ["Budget", "BudgetExceeded", "CostStart", "Meter", "spent_since"]


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
