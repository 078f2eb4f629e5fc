"""The errors of the history store (both derive from :class:`~acphost.AcpError`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import AcpError

__all__ = ["HistoryError", "HistoryIdError", "SessionRemovedError"]


class HistoryError(AcpError):
    """The history store cannot be used: not a database, locked, unwritable, newer.

    The message names the store's path and says what to do.
    """


class HistoryIdError(HistoryError, LookupError):
    """A session id (or prefix) matches no session, or more than one.

    Attributes:
        candidates: the full ids an ambiguous prefix matches (empty: none matched).

    """

    def __init__(self, message: str, candidates: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


class SessionRemovedError(HistoryError):
    """A run wrote to a session that ``history delete`` or ``prune`` removed meanwhile.

    The store is healthy: the message says what happened, and that the rest of
    the run is not recorded (recreating the session would undo the removal).
    """

    def __init__(self, session_id: str) -> None:
        super().__init__(
            f"session {session_id[:12]} was removed from the history (acphost history "
            "delete or prune) while this run was recording it; the history store is fine, "
            "the rest of this run is not recorded"
        )
        self.session_id = session_id
