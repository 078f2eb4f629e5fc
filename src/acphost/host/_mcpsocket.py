"""The stdio bridge's end in the host: a private Unix socket, its handshake, its JSON lines.

The socket lives in a folder made for it (``0700``, random name, by
:func:`tempfile.mkdtemp`) in the host's temporary folder; the socket is
``0600`` with a random name. A connection first sends the session's token on
one line (compared in constant time), within a short deadline, and is
answered ``ok`` or ``refused`` (or closed unanswered when the owner admits no
more connections); then it carries MCP messages, one JSON text a line, both ways
(:class:`StreamPeer`). Only what :class:`SocketPlace` made is removed, found
by the path it chose and checked by identity.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import secrets
import stat
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from . import _mcp_bridge as bridge
from ._mcp import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    CallTool,
    CancelCall,
    McpConnection,
    McpTool,
    Reply,
    error_frame,
)
from ._sandbox import in_runtime_folder

__all__ = ["CLOSED_TEXT", "SocketPlace", "StreamPeer", "hello"]

logger = logging.getLogger("acphost.host.mcp")

#: Tool calls one connection may have running at once; past it, reading pauses.
_MAX_CALLS = 16
_HELLO_MAX = 256
# AF_UNIX socket paths are limited to 108 bytes on Linux (``sun_path``), 104 on macOS.
_SUN_PATH_MAX = 100
#: What a call stopped by the host's close is answered.
CLOSED_TEXT = "the host closed this session; the call may not have completed"

StartCall = Callable[[CallTool, Callable[[], Awaitable[None]]], "asyncio.Task[Any]"]
"""Starts a tool call as a task; the second argument tells the client if the host closes."""


class SocketPlace:
    """A private folder for one session's socket, made now; the socket's path in it.

    Call :meth:`made` once the socket is bound there, :meth:`remove` at the end.
    """

    def __init__(self) -> None:
        self.folder, folder_id = _private_folder()
        self._folder_id: tuple[int, int] | None = folder_id
        self.socket = os.path.join(self.folder, secrets.token_hex(11))
        self._socket_id: tuple[int, int] | None = None

    def made(self) -> None:
        """The socket is bound: make it ``0600`` and remember it."""
        # The folder (0700) already keeps everyone else out; this is a second line.
        os.chmod(self.socket, 0o600)
        self._socket_id = _identity(self.socket)

    def remove(self) -> None:
        """Remove the socket and the folder, if they are still the ones made; log failures."""
        if self._socket_id is not None:
            ident, self._socket_id = self._socket_id, None
            try:
                st = os.lstat(self.socket)
                if stat.S_ISSOCK(st.st_mode) and (st.st_dev, st.st_ino) == ident:
                    os.unlink(self.socket)
            except OSError as exc:
                logger.warning("MCP: could not remove the socket %s: %s", self.socket, exc)
        if self._folder_id is not None:
            ident, self._folder_id = self._folder_id, None
            try:
                if _identity(self.folder) == ident:
                    os.rmdir(self.folder)  # only once empty: nothing else is removed
            except OSError as exc:
                logger.warning("MCP: could not remove the folder %s: %s", self.folder, exc)


async def hello(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    token: str,
    admit: Callable[[], bool],
    timeout: float,
) -> bool:
    """Take the bridge's token line; answer ``ok`` only to the right one, once admitted.

    Args:
        reader: the new connection's reader.
        writer: its writer.
        token: the session's token.
        admit: called once the token is right; ``False`` (the owner serves
            as many authenticated connections as it takes) closes the
            connection unanswered.
        timeout: how long the connection has to send its token: until then
            it holds a slot any local process could take.

    Returns:
        Whether the connection is authenticated and admitted (``ok`` was sent).

    """
    try:
        line = await asyncio.wait_for(_read_line(reader, _HELLO_MAX), timeout)
    except asyncio.TimeoutError:
        logger.warning("MCP: a connection sent no token in time; closed")
        return False
    if not line or not hmac.compare_digest(line, token.encode()):
        logger.warning("MCP: a connection to the session's socket gave a wrong token; refused")
        writer.write(bridge.REFUSED)
        return False
    if not admit():
        return False
    writer.write(bridge.ACCEPTED)
    await writer.drain()
    return True


class StreamPeer:
    """One bridge connection after its handshake: JSON lines in, replies out, tool calls as tasks.

    Args:
        reader: the connection's reader (its limit is the largest line taken).
        writer: the connection's writer.
        tools: the tools offered.
        start_call: starts a tool call (the owner tracks it for its close).
        max_message: the reader's limit, for the error a longer line gets.

    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        tools: Sequence[McpTool],
        start_call: StartCall,
        max_message: int,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.connection = McpConnection(tools)
        self._start_call = start_call
        self._max_message = max_message
        self.calls: dict[Any, asyncio.Task[Any]] = {}

    def send(self, frame: bytes) -> None:
        # One write per frame: a whole line, never interleaved with another.
        if not self.writer.is_closing():
            self.writer.write(frame + b"\n")

    async def serve(self) -> None:
        try:
            while True:
                try:
                    line = await self.reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    line = exc.partial
                    if not line.strip():
                        return  # the bridge's stdin closed: the agent is done
                except asyncio.LimitOverrunError:
                    text = f"Invalid Request: a message is larger than {self._max_message} bytes"
                    self.send(error_frame(None, INVALID_REQUEST, text))
                    logger.warning(
                        "MCP: a message over %d bytes; connection closed", self._max_message
                    )
                    return
                if line.strip():
                    self._receive(line)
                await self.writer.drain()
                if len(self.calls) >= _MAX_CALLS:
                    await asyncio.wait(
                        set(self.calls.values()), return_when=asyncio.FIRST_COMPLETED
                    )
        finally:
            # The client is gone (or the host closing): its calls are stopped.
            for task in self.calls.values():
                task.cancel()
            if self.calls:
                await asyncio.wait(set(self.calls.values()))
            await self._drain_quietly()

    def _receive(self, line: bytes) -> None:
        for event in self.connection.receive_data(line):
            if isinstance(event, Reply):
                self.send(event.frame)
            elif isinstance(event, CancelCall):
                task = self.calls.get(event.request_id)
                if task is not None:
                    task.cancel()
            elif event.request_id in self.calls:
                text = "Invalid Request: this id is already in use by a call in flight"
                self.send(error_frame(event.request_id, INVALID_REQUEST, text))
            else:
                self._start(event)

    def _start(self, event: CallTool) -> None:
        request_id = event.request_id

        async def tell_closed() -> None:
            self.send(error_frame(request_id, INTERNAL_ERROR, CLOSED_TEXT))
            await self.writer.drain()

        task = self._start_call(event, tell_closed)
        self.calls[request_id] = task

        def done(t: asyncio.Task[Any]) -> None:
            self.calls.pop(request_id, None)
            if not t.cancelled():
                # A cancelled call gets no reply (MCP "Cancellation").
                self.send(self.connection.tool_result(request_id, t.result()).frame)

        task.add_done_callback(done)

    async def _drain_quietly(self) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.drain()


def _private_folder() -> tuple[str, tuple[int, int]]:
    """Make the folder for a session's socket; return its real path and identity.

    In the host's temporary folder, which the agent's sandbox leaves
    readable (it denies secrets and acphost's own folders, never the
    temporary folder), so that the confined bridge can connect.
    """
    base = os.path.realpath(tempfile.gettempdir())
    # A long TMPDIR would not fit sun_path: /tmp is short and there on every
    # POSIX system. A TMPDIR in the user's runtime folder would be hidden
    # from a confined agent (its private view covers that folder).
    hidden = in_runtime_folder(base, os.environ)
    if hidden or len(os.path.join(base, "acphost-mcp-xxxxxxxx", "x" * 22)) > _SUN_PATH_MAX:
        base = "/tmp"
    # mkdtemp makes the folder 0700 with a random name: no one else can
    # reach (or plant) anything inside it.
    folder = os.path.realpath(tempfile.mkdtemp(prefix="acphost-mcp-", dir=base))
    return folder, _identity(folder)


def _identity(path: str) -> tuple[int, int]:
    st = os.lstat(path)
    return st.st_dev, st.st_ino


async def _read_line(reader: asyncio.StreamReader, most: int) -> bytes:
    """A line of at most ``most`` bytes, without its newline; ``b""`` if longer or cut off.

    Read a byte at a time: nothing past the line is taken from the reader.
    """
    line = b""
    while len(line) <= most:
        piece = await reader.read(1)
        if not piece:
            return b""
        if piece == b"\n":
            return line
        line += piece
    return b""
