"""The agent's three pipes as one asyncio subprocess protocol.

- stdout: each chunk the event loop reads is handed to :meth:`receive` as it
  is, never copied into a stream buffer; past a high-water mark of unread
  bytes, reading the pipe pauses (the agent blocks on a full pipe) and
  resumes below a low-water mark;
- stdin: written straight to the pipe, with :meth:`drain` for flow control;
- stderr: split into lines as it arrives, kept in a bounded ring and logged
  on ``acphost.agent.stderr`` (an agent that fills its stderr pipe would
  otherwise block forever); a line longer than 4 KiB is cut there and
  marked :data:`~acphost.safetext.CUT`, the rest of it dropped;
- the process's own exit (``process_exited``), which asyncio reports as
  soon as the process is reaped, whoever still holds its pipes.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable

from ..safetext import cut_utf8

__all__ = ["AgentPipes"]

logger = logging.getLogger("acphost.transport")
stderr_logger = logging.getLogger("acphost.agent.stderr")

_HIGH_WATER = 1024 * 1024
_LOW_WATER = 256 * 1024
_STDERR_LINES = 200
_STDERR_LINE_MAX = 4096


class AgentPipes(asyncio.SubprocessProtocol):
    """The protocol of one agent process; :class:`StdioTransport` owns it.

    Attributes:
        exited: resolves when the process has exited (not when its pipes close).
        open_pipes: the output pipes (1, 2) not yet at end of stream.
        stderr_lines: the last lines the agent wrote to stderr.
        stderr_count: how many lines it wrote.
        on_stderr: called with each stderr line (errors are logged, not raised).

    """

    def __init__(self, loop: asyncio.AbstractEventLoop, *, stderr: bool = True) -> None:
        self.transport: asyncio.SubprocessTransport | None = None
        self.exited: asyncio.Future[None] = loop.create_future()
        self.stderr_done: asyncio.Future[None] = loop.create_future()
        self.open_pipes = {1, 2} if stderr else {1}
        if not stderr:
            self.stderr_done.set_result(None)
        self.stderr_lines: deque[str] = deque(maxlen=_STDERR_LINES)
        self.stderr_count = 0
        self.on_stderr: Callable[[str], None] | None = None
        self._loop = loop
        self._chunks: deque[bytes] = deque()
        self._unread = 0
        self._eof = False
        self._reader: asyncio.Future[None] | None = None
        self._reading_paused = False
        self._stdin_lost = False
        self._write_paused = False
        self._drainers: list[asyncio.Future[None]] = []
        self._stderr_partial = bytearray()  # the line being read
        self._stderr_cut = False  # it was too long: the rest up to its end is dropped

    # -- asyncio callbacks --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.transport = transport

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._chunks.append(data)
            self._unread += len(data)
            self._wake_reader()
            if self._unread > _HIGH_WATER and not self._reading_paused:
                self._set_reading(False)
        elif fd == 2:
            self._stderr(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.open_pipes.discard(fd)
        if fd == 0:
            self._stdin_lost = True
            self._wake_drainers()
        elif fd == 1:
            self._eof = True
            self._wake_reader()
        elif fd == 2:
            if self._stderr_partial:
                self._stderr_line(bytes(self._stderr_partial))
                self._stderr_partial.clear()
            self._stderr_cut = False
            if not self.stderr_done.done():
                self.stderr_done.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        self._wake_drainers()

    # -- stdout ---------------------------------------------------------------------------

    async def receive(self) -> bytes:
        """Return the next chunk of stdout as read, ``b""`` at end of stream."""
        while not self._chunks:
            if self._eof:
                return b""
            self._reader = self._loop.create_future()
            try:
                await self._reader
            finally:
                self._reader = None
        data = self._chunks.popleft()
        self._unread -= len(data)
        if self._reading_paused and self._unread <= _LOW_WATER:
            self._set_reading(True)
        return data

    def _wake_reader(self) -> None:
        reader = self._reader
        if reader is not None and not reader.done():
            reader.set_result(None)

    def _set_reading(self, on: bool) -> None:
        pipe = self.transport.get_pipe_transport(1) if self.transport is not None else None
        if not isinstance(pipe, asyncio.ReadTransport) or pipe.is_closing():
            return
        self._reading_paused = not on
        if on:
            pipe.resume_reading()
        else:
            pipe.pause_reading()

    # -- stdin -----------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Queue bytes on stdin.

        Raises:
            ConnectionError: stdin is closed (the agent exited, or we closed it).

        """
        pipe = self.transport.get_pipe_transport(0) if self.transport is not None else None
        if self._stdin_lost or not isinstance(pipe, asyncio.WriteTransport) or pipe.is_closing():
            raise ConnectionError("the agent's stdin is closed")
        pipe.write(data)

    async def drain(self) -> None:
        """Wait until stdin accepts more (flow control).

        Raises:
            ConnectionError: stdin is closed.

        """
        while self._write_paused and not self._stdin_lost:
            waiter = self._loop.create_future()
            self._drainers.append(waiter)
            await waiter
        if self._stdin_lost:
            raise ConnectionError("the agent's stdin is closed")

    def close_stdin(self) -> None:
        """Send end of stream on stdin (idempotent)."""
        pipe = self.transport.get_pipe_transport(0) if self.transport is not None else None
        if pipe is not None and not pipe.is_closing():
            pipe.close()

    def _wake_drainers(self) -> None:
        drainers, self._drainers = self._drainers, []
        for waiter in drainers:
            if not waiter.done():
                waiter.set_result(None)

    # -- stderr ------------------------------------------------------------------------------

    def _stderr(self, data: bytes) -> None:
        *ended, rest = data.split(b"\n")
        for piece in ended:
            self._stderr_take(piece)
            if self._stderr_cut:
                self._stderr_cut = False  # shown when it was cut; the next line starts
            else:
                self._stderr_line(bytes(self._stderr_partial))
            self._stderr_partial.clear()
        self._stderr_take(rest)

    def _stderr_take(self, piece: bytes) -> None:
        """Add to the line being read; a line past the cap is shown now, cut, and the rest dropped.

        Shown now, since the agent may never end it; the rest is dropped up
        to its end (not shown as lines of its own: those would be pieces of
        the middle of whatever it held). The cut is marked (``CUT``) so that
        the redactor also masks the beginning of a configured value it cut.
        """
        if self._stderr_cut:
            return
        self._stderr_partial += piece[: _STDERR_LINE_MAX + 1 - len(self._stderr_partial)]
        if len(self._stderr_partial) > _STDERR_LINE_MAX:
            self._stderr_line(bytes(self._stderr_partial))
            self._stderr_partial.clear()
            self._stderr_cut = True

    def _stderr_line(self, raw: bytes) -> None:
        text = cut_utf8(raw, _STDERR_LINE_MAX)
        if len(raw) <= _STDERR_LINE_MAX:
            text = text.rstrip("\r")
        self.stderr_lines.append(text)
        self.stderr_count += 1
        stderr_logger.debug("%s", text)
        if self.on_stderr is not None:
            try:
                self.on_stderr(text)
            except Exception:  # the drain must go on, or the agent blocks
                logger.exception("the on_stderr callback failed")
