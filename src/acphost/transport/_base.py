"""The transport contract: bytes in, bytes out, close (httpx's ``BaseTransport``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["ExitInfo", "Transport"]


@dataclass(frozen=True, slots=True)
class ExitInfo:
    """How the peer ended: its exit status (if it is a process) and its stderr tail."""

    returncode: int | None
    stderr_tail: str


class Transport(Protocol):
    """A byte stream to one peer. The JSON-RPC driver is its only user.

    Framing (newlines) is the core's business, not the transport's.
    """

    async def receive(self) -> bytes:
        """Return the next chunk of bytes from the peer, ``b""`` at end of stream."""
        ...

    def send(self, data: bytes) -> None:
        """Queue bytes for the peer; follow with :meth:`drain` for flow control.

        Raises:
            ConnectionError: the peer is gone.

        """
        ...

    async def drain(self) -> None:
        """Wait until the queued bytes are handed to the peer (or raise ConnectionError)."""
        ...

    async def exit_info(self, timeout: float) -> ExitInfo:
        """After end of stream: wait up to ``timeout`` s for the peer's exit status."""
        ...

    def stderr_tail(self) -> str:
        """The last lines the peer wrote to its stderr, if it has one."""
        ...

    async def close(self) -> None:
        """End the peer: EOF, a grace period, then force. Idempotent."""
        ...
