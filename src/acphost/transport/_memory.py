"""An in-memory transport pair, for tests (as httpx's ``MockTransport``)."""

from __future__ import annotations

import asyncio
from collections import deque

from ._base import ExitInfo

__all__ = ["MemoryTransport", "memory_pair"]


class MemoryTransport:
    """One end of an in-memory byte pipe; see :func:`memory_pair`."""

    def __init__(self) -> None:
        self._chunks: deque[bytes] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._eof = False
        self.peer: MemoryTransport | None = None
        self.closed = False

    @property
    def unread(self) -> int:
        """Bytes the peer sent that :meth:`receive` has not returned yet.

        Grows while the reader is paused (backpressure); in memory nothing
        stops the sender, so this is where such a pause shows.
        """
        return sum(map(len, self._chunks))

    def _feed(self, data: bytes) -> None:
        if data:
            self._chunks.append(data)
        self._wake()

    def _feed_eof(self) -> None:
        self._eof = True
        self._wake()

    def _wake(self) -> None:
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    async def receive(self) -> bytes:
        """Return the next chunk the peer sent, ``b""`` once it closed."""
        while not self._chunks:
            if self._eof:
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._chunks.popleft()

    def send(self, data: bytes) -> None:
        """Hand bytes to the peer at once.

        Raises:
            ConnectionError: this end or the peer was closed.

        """
        if self.closed or self.peer is None or self.peer.closed:
            raise ConnectionError("the in-memory peer is closed")
        self.peer._feed(data)

    async def drain(self) -> None:
        """Nothing to wait for in memory; yields once for fairness."""
        await asyncio.sleep(0)

    async def exit_info(self, timeout: float) -> ExitInfo:
        """An in-memory peer has no exit status."""
        return ExitInfo(None, "")

    def stderr_tail(self) -> str:
        """An in-memory peer has no stderr."""
        return ""

    async def close(self) -> None:
        """Close this end: the peer reads end of stream."""
        if self.closed:
            return
        self.closed = True
        if self.peer is not None:
            self.peer._feed_eof()
        self._feed_eof()


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Return two connected transports: what one sends, the other receives."""
    a, b = MemoryTransport(), MemoryTransport()
    a.peer, b.peer = b, a
    return a, b
