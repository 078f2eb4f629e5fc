"""The host's tools served to one session's agent as the MCP server ``acphost``: :class:`HostTools`.

Two transports, one per session, each reachable by this session's agent only:

- **stdio** (every agent takes it): :meth:`HostTools.servers` lists a tiny
  bridge process (:mod:`._mcp_bridge`) for the agent to spawn; it connects
  back over a Unix socket in a private folder (``0700``, made by
  :func:`tempfile.mkdtemp`, socket ``0600``, random names) and proves itself
  with the session's random token before a byte of MCP is read.
- **http** (agents advertising ``mcpCapabilities.http``): MCP "Streamable
  HTTP" on ``127.0.0.1``, a random port, the token as a bearer header
  (:mod:`._mcphttp`).

Every tool call goes through ``call``, the host's answer to ACP client
requests, so the jail, the policy, the permission prompt, the audit log and
the history see an MCP tool call exactly as they see an ACP v1 request.

Any local process can connect, so a connection that has not shown the
token yet holds only a slot of a small pool of its own, for a short while
(:mod:`._mcpadmit`): connections without the token can neither refuse nor
push out the agent's.

The token has a recognisable form (:data:`TOKEN_PREFIX` and 43 URL-safe
characters) that the one redactor knows, so it is masked in any text kept
or shown, not only in the fields named for it.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import os
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, ClassVar

from ..errors import UsageError
from ..rpc import DEFAULT_MAX_LINE_BYTES
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
    tool_error,
)
from ._mcpadmit import Admission, stream_protocols
from ._mcphttp import MAX_HEAD_BYTES, HttpEndpoint, serve_http
from ._mcpsocket import CLOSED_TEXT, SocketPlace, StreamPeer, hello
from ._mcptools import MCP_OUTPUT_BYTE_LIMIT, ClientCall, ToolRunner, host_tools

__all__ = ["MAX_MESSAGE_BYTES", "TOKEN_PREFIX", "HostTools"]

logger = logging.getLogger("acphost.host.mcp")

#: The largest MCP message taken (a line from the bridge, an HTTP body): as large as an ACP frame.
MAX_MESSAGE_BYTES = DEFAULT_MAX_LINE_BYTES
#: The name the agent knows the server by (``McpServer.name``).
SERVER_NAME = "acphost"
#: What every session's token starts with: the redactor's ``acphost_mcp`` format
#: (:data:`acphost.redact._patterns.TOKEN_FORMATS`) finds it in any text.
TOKEN_PREFIX = "acphost_mcp_"
#: Authenticated connections served at once (bridges, HTTP clients); more are refused.
_MAX_CONNECTIONS = 64
#: Connections that have not shown the token yet kept at once; past it, room is made
#: (the silent ones first, the oldest first: :class:`._mcpadmit.Admission`).
_MAX_UNAUTHENTICATED = 16
#: How long a new connection has to show the token (a bridge's token line, a
#: complete first HTTP request head): the agent's client sends it at once.
_AUTH_TIMEOUT = 2.0
#: How long closing waits for a client to take the error answering its call.
_CLOSE_GRACE = 5.0


class _State(enum.Enum):
    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"


class HostTools:
    """The MCP server ``acphost`` offering one session's agent the host's tools.

    :attr:`NAME` is the server's name in ``mcpServers``.

    Use it as an async context manager around the session; list
    :meth:`servers` in ``session/new`` (or ``session/load``/``resume``), then
    :meth:`bind` the session id the agent answered.

    Args:
        call: answers ACP client methods (``fs/read_text_file``,
            ``fs/write_text_file``, ``terminal/create``, ``terminal/output``,
            ``terminal/wait_for_exit``, ``terminal/kill``,
            ``terminal/release``) with their wire params and results, exactly
            as the agent's own requests are answered; it raises
            :class:`~acphost.errors.RequestError` to refuse.
        session_id: the ACP session, when known already (``None``: call
            :meth:`bind` once ``session/new`` answers).
        cwd: the session's working directory (absolute): relative paths start there.
        fs_read: offer ``read_text_file``.
        fs_write: offer ``write_text_file``.
        terminal: offer ``run_command``.
        http: serve MCP over HTTP on 127.0.0.1 instead of the stdio bridge
            (for agents advertising ``mcpCapabilities.http``).
        output_byte_limit: the most output ``run_command`` returns.

    Raises:
        ValueError: ``cwd`` is not absolute.

    """

    #: The server's name in the session's ``mcpServers``.
    NAME: ClassVar[str] = SERVER_NAME

    def __init__(
        self,
        call: ClientCall,
        session_id: str | None = None,
        *,
        cwd: str,
        fs_read: bool = True,
        fs_write: bool = True,
        terminal: bool = True,
        http: bool = False,
        output_byte_limit: int = MCP_OUTPUT_BYTE_LIMIT,
    ) -> None:
        if not os.path.isabs(cwd):
            raise ValueError(f"cwd must be an absolute path, got {cwd!r}")
        self._call = call
        self._cwd = cwd
        self._output_limit = output_byte_limit
        self._runner: ToolRunner | None = None
        self.tools: tuple[McpTool, ...] = host_tools(
            fs_read=fs_read, fs_write=fs_write, terminal=terminal
        )
        self.http = http
        self._token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self._state = _State.NEW
        self._server: asyncio.AbstractServer | None = None
        self._place: SocketPlace | None = None
        self._port: int | None = None
        self._handlers: set[asyncio.Task[Any]] = set()
        self._admission = Admission(_MAX_CONNECTIONS, _MAX_UNAUTHENTICATED)
        self._calls: dict[asyncio.Task[Any], Callable[[], Awaitable[None]]] = {}
        self._http_connection: McpConnection | None = None
        self._http_calls: dict[Any, asyncio.Task[Any]] = {}
        self._endpoint: HttpEndpoint | None = None
        if session_id is not None:
            self.bind(session_id)

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> HostTools:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Start listening (nothing listens when no tool is offered).

        Raises:
            UsageError: started twice, or after :meth:`close`.
            OSError: the socket or port cannot be had.

        """
        if self._state is not _State.NEW:
            raise UsageError(f"HostTools cannot start: it is {self._state.value}")
        self._state = _State.OPEN
        if not self.tools:
            return
        try:
            if self.http:
                await self._start_http()
            else:
                await self._start_socket()
        except BaseException:
            await self.close()
            raise

    async def _start_socket(self) -> None:
        self._place = SocketPlace()
        path = self._place.socket
        self._server = await asyncio.get_running_loop().create_unix_server(
            stream_protocols(self._serve_stream, MAX_MESSAGE_BYTES), path
        )
        self._place.made()

    async def _start_http(self) -> None:
        self._http_connection = McpConnection(self.tools)
        endpoint = HttpEndpoint(self._token, self._answer_http, MAX_MESSAGE_BYTES)
        self._endpoint = endpoint
        self._server = await asyncio.get_running_loop().create_server(
            # The reader's limit bounds what is buffered of a head without its end.
            stream_protocols(self._serve_http, MAX_HEAD_BYTES),
            "127.0.0.1",
            0,
            family=socket.AF_INET,
        )
        self._port = self._server.sockets[0].getsockname()[1]
        endpoint.port = self._port

    def bind(self, session_id: str) -> None:
        """Name the ACP session the tools act for (the id ``session/new`` answered).

        Raises:
            UsageError: bound already to another session.

        """
        if self._runner is not None:
            if self._runner.session_id != session_id:
                raise UsageError("HostTools serve one session: make one per session")
            return
        self._runner = ToolRunner(
            self._call, session_id, self._cwd, output_byte_limit=self._output_limit
        )

    async def close(self) -> None:
        """Stop serving: calls in flight are answered with an error, the socket and its folder go.

        Safe to call more than once.
        """
        if self._state is _State.CLOSED:
            return
        self._state = _State.CLOSED
        if self._server is not None:
            self._server.close()
        # Every call in flight is stopped (its terminal released) and told so.
        calls = list(self._calls.items())
        for task, _tell in calls:
            task.cancel()
        if calls:
            await asyncio.wait([task for task, _tell in calls])
        for _task, tell in calls:
            try:
                await asyncio.wait_for(tell(), _CLOSE_GRACE)
            except (asyncio.TimeoutError, ConnectionError, OSError) as exc:
                logger.info("MCP: could not tell a client the session closed: %r", exc)
        if self._endpoint is not None and self._endpoint.pending:
            # The HTTP answers of those calls are being written.
            await asyncio.wait(self._endpoint.pending, timeout=_CLOSE_GRACE)
        for handler in list(self._handlers):
            handler.cancel()
        if self._handlers:
            await asyncio.wait(self._handlers)
        if self._place is not None:
            self._place.remove()

    # -- what the agent is given -----------------------------------------------------------

    @property
    def secret(self) -> str:
        """The session's token (:data:`TOKEN_PREFIX` and 43 URL-safe characters).

        The redactor knows its form and masks it in any text; give it to the
        redactor as a configured value too wherever the ``session/new`` frame is kept.
        """
        return self._token

    def servers(self, protocol: int = 1) -> list[dict[str, Any]]:
        """The ``McpServer`` wire objects to list in ``session/new``'s ``mcpServers``.

        Args:
            protocol: the negotiated ACP version: v2's stdio entry carries
                ``"type": "stdio"`` (schema v2 ``McpServer``), v1's has no
                ``type`` (schema v1 ``McpServerStdio``).

        Returns:
            One server, or none when no tool is offered.

        Raises:
            UsageError: not started, or closed.

        """
        if self._state is not _State.OPEN:
            raise UsageError("HostTools.servers() needs a started HostTools (use `async with`)")
        if not self.tools:
            return []
        if self.http:
            assert self._port is not None
            return [
                {
                    "type": "http",
                    "name": SERVER_NAME,
                    "url": f"http://127.0.0.1:{self._port}/mcp",
                    "headers": [{"name": "Authorization", "value": f"Bearer {self._token}"}],
                }
            ]
        assert self._place is not None
        entry: dict[str, Any] = {
            "name": SERVER_NAME,
            # Schema McpServerStdio: "Absolute path to the MCP server executable".
            "command": os.path.abspath(sys.executable),
            "args": ["-I", "-S", os.path.abspath(bridge.__file__)],
            "env": [
                {"name": bridge.SOCKET_VARIABLE, "value": self._place.socket},
                {"name": bridge.TOKEN_VARIABLE, "value": self._token},
            ],
        }
        if protocol >= 2:
            entry = {"type": "stdio", **entry}
        return [entry]

    # -- serving -------------------------------------------------------------------

    async def _tracked(
        self,
        serve: Callable[
            [asyncio.StreamReader, asyncio.StreamWriter, Callable[[], bool]], Awaitable[None]
        ],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Serve one connection, known to :meth:`close`, admitted by :class:`Admission`.

        ``serve`` calls the ``admit`` it is given once the token is right.
        """
        if self._state is not _State.OPEN:
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        admit = self._admission.enter(task, reader)
        try:
            await serve(reader, writer, admit)
        except asyncio.CancelledError:
            # close() cancels the connection's task, and so does making room
            # for newer unauthenticated ones. It is asyncio's own
            # client_connected_cb task, whose done-callback (Python 3.11)
            # calls task.exception(): a cancelled task would be logged as an
            # unhandled error. Ending quietly is what the cancel asked for.
            if self._state is _State.OPEN and not self._admission.evicted(task):
                raise
        finally:
            self._handlers.discard(task)
            self._admission.leave(task)

    async def _run_tool(self, event: CallTool) -> dict[str, Any]:
        if self._runner is None:
            return tool_error("the session is not open yet; call the tool again once it is")
        return await self._runner.run(event.name, event.arguments)

    def _start_call(
        self, event: CallTool, tell_closed: Callable[[], Awaitable[None]]
    ) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(
            self._run_tool(event), name=f"acphost.host.mcp.{event.name}"
        )
        self._calls[task] = tell_closed
        task.add_done_callback(lambda t: self._calls.pop(t, None))
        return task

    async def _serve_stream(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        await self._tracked(self._stream, reader, writer)

    async def _serve_http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self._endpoint is not None
        endpoint = self._endpoint
        await self._tracked(
            lambda r, w, admit: serve_http(r, w, endpoint, admit, _AUTH_TIMEOUT), reader, writer
        )

    async def _stream(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        admit: Callable[[], bool],
    ) -> None:
        try:
            if not await hello(reader, writer, self._token, admit, _AUTH_TIMEOUT):
                return
            peer = StreamPeer(reader, writer, self.tools, self._start_call, MAX_MESSAGE_BYTES)
            await peer.serve()
        except (ConnectionError, OSError) as exc:
            logger.info("MCP: a bridge connection failed: %s", exc)
        finally:
            writer.close()

    async def _answer_http(self, body: bytes) -> tuple[int, bytes] | None:
        """One HTTP POST's message: its status and reply, or ``None`` for a notification."""
        connection = self._http_connection
        assert connection is not None
        reply: bytes | None = None
        for event in connection.receive_data(body):
            if isinstance(event, Reply):
                if event.request_id is None:
                    # Unreadable, or not a request: MCP "Sending Messages to the
                    # Server" asks for an HTTP error, the JSON-RPC error as its body.
                    return 400, event.frame
                reply = event.frame
            elif isinstance(event, CancelCall):
                task = self._http_calls.get(event.request_id)
                if task is not None:
                    task.cancel()
            elif event.request_id in self._http_calls:
                text = "Invalid Request: this id is already in use by a call in flight"
                reply = error_frame(event.request_id, INVALID_REQUEST, text)
            else:
                reply = await self._http_call(connection, event)
        return None if reply is None else (200, reply)

    async def _http_call(self, connection: McpConnection, event: CallTool) -> bytes:
        # The HTTP handler itself answers once the call ends, however it ends.
        task = self._start_call(event, _nothing)
        self._http_calls[event.request_id] = task
        try:
            await asyncio.wait({task})
        finally:
            self._http_calls.pop(event.request_id, None)
        if task.cancelled():
            text = CLOSED_TEXT if self._state is _State.CLOSED else "Request cancelled"
            return error_frame(event.request_id, INTERNAL_ERROR, text)
        return connection.tool_result(event.request_id, task.result()).frame


async def _nothing() -> None:
    """Nothing to tell: the HTTP handler answers a stopped call itself."""
