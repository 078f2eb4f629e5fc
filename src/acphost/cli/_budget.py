"""Budgets and usage on the command line: ``--max-tokens``, ``--max-cost``, the usage line.

A budget comes from the flags, else from the agent's settings entry
(``max_tokens``, ``max_cost``). The library cancels the turn once the agent
reports crossing it (:class:`acphost.client.Budget`); the run then exits
with :data:`~acphost.launch.EXIT_BUDGET`. ACP has no way to require usage
reports, so an agent that sends none makes a budget unenforceable: the run
says so at the start and, if none came, at the end.

The usage line of ``-o text`` shows what the agent reported for the turn:
the tokens of ``PromptResponse.usage`` (schema.unstable.json ``Usage``), the
context window and the cost from the last ``usage_update`` (schema
``UsageUpdate``), the cost as spent during this turn when the session knows
the amount before it (:attr:`acphost.client.Session.cost_start`; for a
continued session, from the history), else the session's total, said so.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .. import schema as s
    from ..client import Budget, CostStart, TurnResult
    from ..config import AgentSpec

__all__ = [
    "NO_USAGE_AT_END",
    "NO_USAGE_YET",
    "cost_flag",
    "run_budget",
    "tokens_flag",
    "usage_line",
]

NO_USAGE_YET = (
    "budget set; the agent has not reported usage yet: "
    "if it never does, the budget cannot be enforced"
)
NO_USAGE_AT_END = "the agent reported no usage during the turn: the budget was not enforced"

# PromptResponse.usage (schema.unstable.json ``Usage``): the wire names, by kind.
_TOKENS = (
    ("input", "inputTokens"),
    ("output", "outputTokens"),
    ("thought", "thoughtTokens"),
    ("cached_read", "cachedReadTokens"),
    ("cached_write", "cachedWriteTokens"),
    ("total", "totalTokens"),
)


def tokens_flag(value: str) -> int:
    """``--max-tokens N`` (an argparse type)."""
    from ..config import parse_tokens  # noqa: PLC0415 - only when the flag is given

    try:
        return parse_tokens(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cost_flag(value: str) -> tuple[float, str | None]:
    """``--max-cost AMOUNT[CURRENCY]`` (an argparse type)."""
    from ..config import parse_cost  # noqa: PLC0415 - only when the flag is given

    try:
        return parse_cost(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_budget(args: argparse.Namespace, spec: AgentSpec) -> Budget | None:
    """The run's budget: each limit from its flag, else from the agent's settings.

    Returns:
        The budget, or None when nothing is limited.

    """
    from ..client import Budget  # noqa: PLC0415

    max_tokens = args.max_tokens if args.max_tokens is not None else spec.max_tokens
    if args.max_cost is not None:
        max_cost, currency = args.max_cost
    else:
        max_cost, currency = spec.max_cost, spec.cost_currency
    budget = Budget(max_tokens=max_tokens, max_cost=max_cost, currency=currency)
    return None if budget.empty else budget


def _count(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def usage_line(
    result: TurnResult,
    usage: s.UsageUpdate | None,
    turn_cost: s.Cost | None,
    start: CostStart | None,
) -> str:
    """``tokens 3,000 (input 2,400, output 600) · context 3,000/200,000 · cost 0.0300 USD``.

    Args:
        result: the turn's result (its ``usage``, as the agent answered it).
        usage: the session's last ``usage_update``, if any.
        turn_cost: what the turn cost (``Session.turn_cost``), when known.
        start: the session's cost at the turn's start (``Session.cost_start``).

    Returns:
        The line without a tag, or ``""`` when the agent reported nothing.
        The currency is the agent's text: clean it for a terminal.

    """
    from ..history import Usage, usage_text  # noqa: PLC0415

    raw = result.usage if isinstance(result.usage, dict) else {}
    tokens = {kind: _count(raw.get(wire)) for kind, wire in _TOKENS}
    amount = currency = None
    note = ""
    cost = usage.cost if usage is not None else None
    if turn_cost is not None and start is not None and start.exact:
        amount, currency = turn_cost.amount, turn_cost.currency
    elif cost is not None:
        # What came before the turn is unknown: the session's total is exact, a
        # count from the turn's first report would be only a lower bound.
        amount, currency = cost.amount, cost.currency
        note = " (session total)"
    line: str = usage_text(
        Usage(
            **tokens,
            context_used=usage.used if usage is not None else None,
            context_size=usage.size if usage is not None else None,
            cost_amount=amount,
            cost_currency=currency,
        )
    )
    # The cost is the line's last part: say when it is the session's, not the turn's.
    return f"{line}{note}" if amount is not None else line
