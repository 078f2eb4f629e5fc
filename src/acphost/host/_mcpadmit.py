"""Who holds a connection slot of the MCP server, and what makes room: :class:`Admission`.

Any local process can connect to the server (a loopback port; the socket's
folder keeps other users out, not the user's other processes, and a sandbox
does not confine ``connect``). So connections live in two pools:

- **unauthenticated**, small: every new connection, until it shows the
  token. When this pool overflows, its oldest connections are closed to make
  room, not the newcomer refused: connections that came first cannot keep
  the agent out. Those whose peer has sent nothing are closed first, a turn
  of the event loop after the overflow: connections are accepted in bursts,
  each before any is read from, and a client that sent its token as soon as
  it connected (the bridge, the agent's HTTP client) has been heard by then.
- **authenticated**, larger: the connections that showed the token, which
  only the agent has. Unauthenticated ones neither count against it nor push
  anything out of it; past its cap a connection with the token is refused.

How long a connection may stay unauthenticated is the transport's deadline
(``hello``, ``serve_http``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, SupportsIndex

__all__ = ["Admission", "HeardReader", "stream_protocols"]

logger = logging.getLogger("acphost.host.mcp")

Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class HeardReader(asyncio.StreamReader):
    """A stream reader that knows whether its peer has sent anything yet."""

    heard = False

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        """Take bytes the peer sent (called by the protocol)."""
        if data:
            self.heard = True
        super().feed_data(data)


def stream_protocols(serve: Serve, limit: int) -> Callable[[], asyncio.Protocol]:
    """The protocol factory ``asyncio.start_server`` makes, reading with a :class:`HeardReader`.

    Args:
        serve: called with each connection's reader and writer, as a task.
        limit: the reader's limit (the longest line or head it buffers).

    """
    loop = asyncio.get_running_loop()

    def factory() -> asyncio.Protocol:
        reader = HeardReader(limit=limit, loop=loop)
        return asyncio.StreamReaderProtocol(reader, serve, loop=loop)

    return factory


class Admission:
    """The two pools of one server's connections (see the module's docstring).

    Args:
        authenticated: the most connections with the token served at once.
        unauthenticated: the most connections without it kept at once.

    """

    def __init__(self, authenticated: int, unauthenticated: int) -> None:
        self._max_authenticated = authenticated
        self._max_unauthenticated = unauthenticated
        # Oldest first.
        self._unauthenticated: dict[asyncio.Task[Any], asyncio.StreamReader] = {}
        self._authenticated: set[asyncio.Task[Any]] = set()
        self._evicted: set[asyncio.Task[Any]] = set()
        self._trimming = False
        self._warned = False

    def enter(self, task: asyncio.Task[Any], reader: asyncio.StreamReader) -> Callable[[], bool]:
        """Put a new connection (served by ``task``) in the unauthenticated pool.

        Returns:
            ``admit``: call it once the connection has shown the token. It
            moves the connection to the authenticated pool and answers
            ``True``, or ``False`` when that pool is full (refuse the
            connection).

        """
        self._unauthenticated[task] = reader
        if len(self._unauthenticated) > self._max_unauthenticated and not self._trimming:
            self._trimming = True
            asyncio.get_running_loop().call_soon(self._trim)

        def admit() -> bool:
            self._unauthenticated.pop(task, None)
            if task in self._evicted:
                return False
            if len(self._authenticated) >= self._max_authenticated:
                logger.warning(
                    "MCP: %d authenticated connections already; one more refused",
                    len(self._authenticated),
                )
                return False
            self._authenticated.add(task)
            return True

        return admit

    def evicted(self, task: asyncio.Task[Any]) -> bool:
        """Whether ``task`` was cancelled to make room (its cancellation is no error)."""
        return task in self._evicted

    def leave(self, task: asyncio.Task[Any]) -> None:
        """The connection served by ``task`` has ended."""
        self._unauthenticated.pop(task, None)
        self._authenticated.discard(task)
        self._evicted.discard(task)

    def _trim(self) -> None:
        """Close unauthenticated connections past the cap: silent ones first, oldest first."""
        self._trimming = False
        over = len(self._unauthenticated) - self._max_unauthenticated
        if over <= 0:
            return
        silent = [t for t, r in self._unauthenticated.items() if not _heard(r)]
        spoken = [t for t, r in self._unauthenticated.items() if _heard(r)]
        # Said once: a flood would make it a line a loop turn.
        log = logger.debug if self._warned else logger.warning
        self._warned = True
        log(
            "MCP: %d connections have not shown the token; %d closed to make room",
            len(self._unauthenticated),
            over,
        )
        for task in (silent + spoken)[:over]:
            del self._unauthenticated[task]
            self._evicted.add(task)
            task.cancel()


def _heard(reader: asyncio.StreamReader) -> bool:
    return isinstance(reader, HeardReader) and reader.heard
