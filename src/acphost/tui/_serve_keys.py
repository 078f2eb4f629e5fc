"""The keys of ``acphost tui --serve``: a printed token that works once, a session, tickets.

No key is ever a cookie: browsers send the cookies of 127.0.0.1 to every
port of it, so any other local server would receive them. Instead:

* the **token** is printed once, in the address to open; the first request
  that carries it exchanges it for the session and it opens nothing after
  that (the address stays in the browser's history: what it holds is spent);
* the **session** key is handed to that one page, which keeps it in the
  browser's ``localStorage``: that storage belongs to the page's origin,
  port included, and the browser sends it nowhere by itself; the page
  presents it in a request header to get a ticket;
* a **ticket** opens one websocket (the app, the agent), once, within
  :data:`TICKET_SECONDS` of being made.

Every comparison takes the same time wherever the strings differ.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable

__all__ = ["MAX_TICKETS", "TICKET_SECONDS", "Keys"]

#: How long a ticket stays good: the page asks for one just before it connects.
TICKET_SECONDS = 60.0

#: Tickets waiting at once; beyond, the oldest is dropped (a page left loading).
MAX_TICKETS = 32


def _same(given: str | None, key: str | None) -> bool:
    """Whether ``given`` is ``key``, in time that does not depend on where they differ."""
    if given is None or key is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), key.encode())


class Keys:
    """The token, the session it becomes, and the tickets the session asks for.

    Args:
        clock: seconds, monotonic (tests pass their own).

    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.token = secrets.token_urlsafe(32)
        self._spent = False
        self._session: str | None = None
        self._tickets: list[tuple[str, float]] = []

    def exchange(self, given: str | None) -> str | None:
        """The session key for the printed token, the first time only; else None."""
        if self._spent or not _same(given, self.token):
            return None
        self._spent = True
        self._session = secrets.token_urlsafe(32)
        return self._session

    def is_spent_token(self, given: str | None) -> bool:
        """Whether ``given`` is the printed token, already exchanged."""
        return self._spent and _same(given, self.token)

    def ticket(self, session: str | None) -> str | None:
        """A new ticket for whoever shows the session key; else None."""
        if not _same(session, self._session):
            return None
        self._drop_expired()
        made = secrets.token_urlsafe(32)
        self._tickets = [*self._tickets[-(MAX_TICKETS - 1) :], (made, self._clock())]
        return made

    def take(self, given: str | None) -> bool:
        """Whether ``given`` is a live ticket; it is used up either way it matched."""
        self._drop_expired()
        found = None
        for entry in self._tickets:  # every one compared: no early exit to time
            if _same(given, entry[0]):
                found = entry
        if found is None:
            return False
        self._tickets.remove(found)
        return True

    def _drop_expired(self) -> None:
        now = self._clock()
        self._tickets = [(t, made) for t, made in self._tickets if now - made < TICKET_SECONDS]
