"""The errors of the history store (both derive from :class:`~acphost.AcpError`)."""

from __future__ import annotations

from collections.abc import Sequence

from .._errors import AcpError

__all__ = ["HistoryError", "HistoryIdError"]


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
