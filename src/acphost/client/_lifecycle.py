"""Lifecycles as explicit states: one enum, one table of allowed moves, one mover.

In the manner of h11's ``_state.py``: a client and a session each keep a
:class:`Lifecycle`, a turn its :class:`~acphost.client.TurnState` (see
``_turn``), and every change goes through :meth:`StateMachine.move`, which
refuses a move the table does not allow. Asking a closed object to do
anything raises :class:`~acphost.UsageError` with the fix.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Generic, TypeVar

from ..errors import UsageError

__all__ = ["Lifecycle", "LifecycleState", "StateMachine"]

S = TypeVar("S", bound=enum.Enum)


class StateMachine(Generic[S]):
    """The current state of one object, moved only along a table of allowed moves.

    Args:
        what: how error messages name the object (``"the client"``).
        initial: the state it starts in.
        moves: for each state, the states it may move to.

    """

    __slots__ = ("_moves", "state", "what")

    def __init__(self, what: str, initial: S, moves: Mapping[S, frozenset[S]]) -> None:
        self.what = what
        self.state: S = initial
        self._moves = moves

    def move(self, new: S) -> None:
        """Move to ``new`` (staying put is always allowed).

        Raises:
            UsageError: the move is not allowed from the current state (a bug
                in acphost: the state machines are internal).

        """
        if new is self.state:
            return
        if new not in self._moves[self.state]:
            raise UsageError(f"{self.what} cannot go from {self.state.value} to {new.value}")
        self.state = new


class LifecycleState(enum.Enum):
    """Where a client or a session is in its life."""

    #: Being set up: the agent is starting and ``initialize`` (or the
    #: session's ``session/new``, load or resume) has not answered yet.
    OPENING = "opening"
    #: Ready for use.
    OPEN = "open"
    #: :meth:`close` is running.
    CLOSING = "closing"
    #: Closed by the host, or the agent went away. Final.
    CLOSED = "closed"


_MOVES: dict[LifecycleState, frozenset[LifecycleState]] = {
    LifecycleState.OPENING: frozenset(
        {LifecycleState.OPEN, LifecycleState.CLOSING, LifecycleState.CLOSED}
    ),
    LifecycleState.OPEN: frozenset({LifecycleState.CLOSING, LifecycleState.CLOSED}),
    LifecycleState.CLOSING: frozenset({LifecycleState.CLOSED}),
    LifecycleState.CLOSED: frozenset(),
}


class Lifecycle(StateMachine[LifecycleState]):
    """The current :class:`LifecycleState` of a client or a session, moved only along the table.

    Args:
        what: how error messages name the object (``"the client"``).

    """

    __slots__ = ()

    def __init__(self, what: str) -> None:
        super().__init__(what, LifecycleState.OPENING, _MOVES)

    def require_open(self, fix: str) -> None:
        """Raise unless the object is open.

        Args:
            fix: what the caller should do instead, for the message.

        Raises:
            UsageError: the object is opening, closing or closed.

        """
        if self.state is not LifecycleState.OPEN:
            raise UsageError(f"{self.what} is {self.state.value}; {fix}")

    @property
    def closed(self) -> bool:
        """True once closing began or finished."""
        return self.state is LifecycleState.CLOSING or self.state is LifecycleState.CLOSED
