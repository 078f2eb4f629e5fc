"""Lifecycles as explicit states: one enum, one table of allowed moves, one mover.

In the manner of h11's ``_state.py``: a client and a session each keep a
:class:`Lifecycle`, and every change goes through :meth:`Lifecycle.move`,
which refuses a move the table does not allow. Asking a closed object to do
anything raises :class:`~acphost.UsageError` with the fix.
"""

from __future__ import annotations

import enum

from ..errors import UsageError

__all__ = ["Lifecycle", "LifecycleState"]


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


class Lifecycle:
    """The current :class:`LifecycleState` of one object, moved only along the table.

    Args:
        what: how error messages name the object (``"the client"``).

    """

    __slots__ = ("state", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self.state = LifecycleState.OPENING

    def move(self, new: LifecycleState) -> None:
        """Move to ``new``.

        Raises:
            UsageError: the move is not allowed from the current state (a bug
                in acphost: the state machine is internal).

        """
        if new is self.state:
            return
        if new not in _MOVES[self.state]:
            raise UsageError(f"{self.what} cannot go from {self.state.value} to {new.value}")
        self.state = new

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
