"""The usage ledger: tokens by kind, turns and cost, summed by agent, day or directory.

Costs of different units are never added together: each row keeps one sum
per currency (``{"USD": 1.25, "credits": 40}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._model import TOKEN_KINDS
from ._store import HistoryStore

__all__ = ["GROUPINGS", "UsageRow", "usage_summary"]

#: What ``acphost usage --by`` accepts.
GROUPINGS = ("agent", "day", "cwd")


@dataclass(slots=True)
class UsageRow:
    """The usage of one agent, day or directory (or the total).

    Attributes:
        key: the agent's name, the local day (``YYYY-MM-DD``) or the directory.
        sessions: sessions with turns in it.
        turns: turns.
        tokens: token sums by kind (``input``, ``output``...), kinds nobody reported left out.
        cost: cost sums by currency.

    """

    key: str
    sessions: int = 0
    turns: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The row as JSON: ``{"key", "sessions", "turns", "tokens", "cost"}``."""
        return {
            "key": self.key,
            "sessions": self.sessions,
            "turns": self.turns,
            "tokens": {k: self.tokens[k] for k in TOKEN_KINDS if k in self.tokens},
            "cost": {c: round(a, 10) for c, a in sorted(self.cost.items())},
        }


def usage_summary(
    store: HistoryStore,
    by: str,
    *,
    agent: str | None = None,
    cwd: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> tuple[list[UsageRow], UsageRow]:
    """The ledger grouped by ``agent``, ``day`` or ``cwd``, with the total.

    Args:
        store: the store.
        by: one of :data:`GROUPINGS`.
        agent: only this agent's sessions.
        cwd: only sessions in this directory or below.
        since: only turns started at or after this time (store form).
        until: only turns started before this time.

    Returns:
        The rows sorted by key, and the total row (key ``total``). A session
        whose turns span two days counts on each day, and once in the total.

    Raises:
        HistoryError: the store cannot be read.
        ValueError: ``by`` is not one of :data:`GROUPINGS`.

    """
    rows = _rows(store, by, agent=agent, cwd=cwd, since=since, until=until)
    totals = _rows(store, None, agent=agent, cwd=cwd, since=since, until=until)
    return rows, totals[0] if totals else UsageRow("total")


def _rows(store: HistoryStore, by: str | None, **filters: str | None) -> list[UsageRow]:
    counts, costs = store.usage_rows(by, **filters)
    rows = {
        str(key): UsageRow(
            str(key),
            sessions,
            turns,
            {k: int(v) for k, v in zip(TOKEN_KINDS, sums, strict=True) if v is not None},
        )
        for key, sessions, turns, *sums in counts
    }
    for key, currency, amount in costs:
        rows[str(key)].cost[str(currency)] = float(amount)
    return list(rows.values())
