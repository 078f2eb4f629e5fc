"""Budgets: stop a turn cleanly once the agent reports it has used too much.

ACP has no budget of its own; agents report what they use, and the host
enforces. Two figures are reported (schema ``UsageUpdate``):

- ``used``: the tokens currently in the context window. A token budget is a
  bound on it: the turn is cancelled once the agent reports more in use.
- ``cost``: the session's *cumulative* cost (``amount`` in ``currency``). A
  cost budget bounds what is spent from when the budget started watching:
  the amount reported then (or 0 for a session this client opened and has
  not prompted yet) is the baseline.

A budget can only be enforced if the agent reports usage: :class:`Meter`
says whether it ever did, so a face can warn instead of pretending.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import schema as s

__all__ = ["Budget", "BudgetExceeded", "Meter"]


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


class Meter:
    """Follows a session's reported usage against one :class:`Budget`.

    Args:
        budget: the limits.
        baseline: the cumulative cost already reported when watching starts,
            or None when unknown (the first cost reported then becomes the
            baseline).

    """

    __slots__ = ("_baseline", "budget", "exceeded", "reported")

    def __init__(self, budget: Budget, baseline: float | None) -> None:
        self.budget = budget
        self._baseline = baseline
        self.exceeded: BudgetExceeded | None = None
        self.reported = False

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
        if budget.max_cost is None or cost is None:
            return None
        if budget.currency is not None and cost.currency != budget.currency:
            return None
        if self._baseline is None:
            self._baseline = cost.amount
        spent = cost.amount - self._baseline
        if spent > budget.max_cost:
            self.exceeded = BudgetExceeded("cost", budget.max_cost, spent, cost.currency)
            return self.exceeded
        return None
