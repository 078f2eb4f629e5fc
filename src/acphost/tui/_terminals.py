"""Live output of the terminals the agent created, by terminal id (no Textual here).

Fed by ``TerminalManager(on_event=...)``; the terminal card replays a buffer
and follows it. Output arrives before the tool call that shows the terminal
(the agent creates the terminal first), so it is kept here until a card asks.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from ..host import (
    TerminalCreated,
    TerminalEvent,
    TerminalExited,
    TerminalOutputReceived,
)

__all__ = ["TerminalBuffer", "TerminalBuffers"]


@dataclass(slots=True)
class TerminalBuffer:
    """The output of one terminal so far, and how it ended."""

    command: str = ""
    chunks: list[str] = field(default_factory=list)
    exit_text: str | None = None
    size: int = 0

    @property
    def text(self) -> str:
        """All output so far."""
        return "".join(self.chunks)


class TerminalBuffers:
    """Live terminal output by terminal id, fed from ``TerminalManager(on_event=...)``.

    Output arrives before the tool call that shows the terminal (the agent
    creates the terminal first), so it is buffered here and widgets replay it.

    Args:
        limit: bytes kept per terminal (the oldest chunks are dropped).

    """

    def __init__(self, limit: int = 256 * 1024) -> None:
        self.buffers: dict[str, TerminalBuffer] = {}
        self.limit = limit
        self._listeners: dict[str, list[Callable[[str], None]]] = {}

    def get(self, terminal_id: str) -> TerminalBuffer:
        """The buffer of a terminal (created empty when unknown)."""
        buf = self.buffers.get(terminal_id)
        if buf is None:
            buf = self.buffers[terminal_id] = TerminalBuffer()
        return buf

    def watch(self, terminal_id: str, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(text)`` with new output (and ``""`` on exit); returns the remover."""
        self._listeners.setdefault(terminal_id, []).append(listener)
        return lambda: self._listeners.get(terminal_id, []).remove(listener)

    def on_event(self, event: TerminalEvent) -> None:
        """The ``TerminalManager`` event hook."""
        if isinstance(event, TerminalCreated):
            self.get(event.terminal_id).command = (
                shlex.join([event.command, *event.args]) if event.args else event.command
            )
            return
        buf = self.get(event.terminal_id)
        if isinstance(event, TerminalOutputReceived):
            buf.chunks.append(event.text)
            buf.size += len(event.text)
            while buf.size > self.limit and len(buf.chunks) > 1:
                buf.size -= len(buf.chunks.pop(0))
            text = event.text
        elif isinstance(event, TerminalExited):
            status = event.exit_status
            buf.exit_text = (
                f"exit code {status.exit_code}"
                if status.exit_code is not None
                else f"killed by {status.signal}"
            )
            text = ""
        for listener in list(self._listeners.get(event.terminal_id, ())):
            listener(text)
