"""The client façade: start an agent, initialize, open sessions.

``AcpClient`` owns one connection to one agent. It negotiates the protocol,
keeps the agent's capabilities and refuses calls they do not allow before
anything is sent, routes ``session/update`` notifications to their
:class:`~acphost.Session` in wire order, and answers the agent's requests
through the host providers (:mod:`acphost._host_bridge`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

from .. import schema as s
from .._errors import (
    AcpTimeout,
    AgentExited,
    AuthRequired,
    CapabilityNotSupported,
    LocalProtocolError,
    RemoteProtocolError,
    UsageError,
)
from .._version import __version__
from ..rpc._connection import Connection
from ..rpc._core import DEFAULT_MAX_LINE_BYTES, FrameTap, ProtocolViolation
from ..transport._base import Transport
from ._host_bridge import HostBridge, HostConfig
from ._session import Session

__all__ = ["AcpClient", "ClientContext"]

logger = logging.getLogger("acphost.client")

T = TypeVar("T")

#: Default bound on ``initialize``: npx may download the agent on first launch.
DEFAULT_INIT_TIMEOUT = 60.0
#: Default bound on session setup (new, load, resume, list, close...).
DEFAULT_SESSION_TIMEOUT = 60.0
#: Lowest protocol version acphost speaks; also the one it asks for.
MIN_PROTOCOL_VERSION = 1

_EARLY_UPDATES_MAX = 10_000


class AcpClient:
    """A connection to one ACP agent, initialized and ready for sessions.

    Create it with :meth:`start` (an agent subprocess) or :meth:`connect`
    (any transport), both used as ``async with``.

    Attributes:
        agent_capabilities: what the agent advertised in ``initialize``.
        auth_methods: the agent's authentication methods.
        agent_info: the agent's name and version, if it sent them.
        protocol_version: the negotiated protocol version.
        sessions: the open sessions by id.

    """

    def __init__(
        self,
        connection: Connection,
        host: HostBridge,
        *,
        client_info: s.Implementation,
        init_timeout: float | None,
        session_timeout: float | None,
        keep_history: bool,
        unstable: bool,
    ) -> None:
        self._conn = connection
        self._host = host
        self.client_info = client_info
        self.init_timeout = init_timeout
        self.session_timeout = session_timeout
        self.keep_history = keep_history
        self.unstable = unstable
        self.sessions: dict[str, Session] = {}
        self.agent_capabilities = s.AgentCapabilities()
        self.auth_methods: list[s.AuthMethod] = []
        self.agent_info: s.Implementation | None = None
        self.protocol_version = 0
        self.initialize_response: s.InitializeResponse | None = None
        self._early: dict[str, list[s.SessionUpdate]] = {}
        self._early_count = 0
        self._closed = False
        self._trace: Any = None
        self._auth_terminal = False
        host.attach(self)

    # -- construction ------------------------------------------------------------

    @classmethod
    def start(
        cls,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        kill_on_host_death: bool = True,
        close_grace: float = 2.0,
        **options: Any,
    ) -> ClientContext:
        """Start an agent subprocess and initialize it; use with ``async with``.

        Args:
            command: the agent's argv (never run through a shell).
            env: variables overlaid on the host's environment for the agent.
            cwd: the agent process's working directory.
            kill_on_host_death: on Linux, the agent dies if the host is killed.
            close_grace: seconds the agent gets to exit after EOF (and after
                SIGTERM) when the client closes, before its process group is
                killed; several real agents ignore EOF, so a CLI wants it short.
            **options: see :meth:`connect`.

        Returns:
            An async context manager yielding the initialized client.

        """

        async def open_transport() -> Transport:
            from ..transport._stdio import StdioTransport  # noqa: PLC0415 - spawn cost only when used

            return await StdioTransport.spawn(
                command,
                env=env,
                cwd=cwd,
                kill_on_host_death=kill_on_host_death,
                close_grace=close_grace,
            )

        return ClientContext(open_transport, options)

    @classmethod
    def connect(cls, transport: Transport, **options: Any) -> ClientContext:
        """Initialize an agent reachable through ``transport``; use with ``async with``.

        Args:
            transport: the byte stream to the agent (e.g. an in-memory pair end).
            **options: the keyword options below.

        Keyword Args:
            host: a :class:`HostConfig` — file system, terminals, permission
                policy, elicitation (default: reads inside the session's
                workspace, terminals, the ``AllowReads`` policy).
            client_info: a :class:`~acphost.schema.Implementation` naming the host.
            init_timeout: seconds for ``initialize`` (default 60; None: unbounded).
            session_timeout: seconds for session setup calls (default 60).
            max_line_bytes: the largest frame accepted from the agent.
            tap: ``(direction, bytes)`` callback that sees every frame.
            trace: a path (or :class:`~acphost.trace.TraceWriter`): record
                every frame, secrets redacted, as JSONL.
            on_violation: callback for malformed frames from the agent.
            keep_history: keep message content in session state (default True).
            unstable: enable unstable protocol features (``session/fork``).
            auth_terminal: advertise terminal authentication (the host runs
                the agent's login command itself).

        """

        async def open_transport() -> Transport:
            return transport

        return ClientContext(open_transport, options)

    @classmethod
    async def _create(cls, transport: Transport, options: dict[str, Any]) -> AcpClient:
        try:
            client = cls._build(transport, options)
        except BaseException:
            # A bad option or an unwritable trace path must not leave the agent running.
            await transport.close()
            raise
        client._conn.start()
        try:
            await client._initialize(client._host.capabilities(auth_terminal=client._auth_terminal))
        except BaseException:
            await client.close()
            raise
        return client

    @classmethod
    def _build(cls, transport: Transport, options: dict[str, Any]) -> AcpClient:
        host_config: HostConfig = options.pop("host", None) or HostConfig()
        client_info = options.pop("client_info", None) or s.Implementation(
            name="acphost", title="acphost", version=__version__
        )
        init_timeout = options.pop("init_timeout", DEFAULT_INIT_TIMEOUT)
        auth_terminal = bool(options.pop("auth_terminal", False))
        bridge = HostBridge(host_config)

        violation: Callable[[ProtocolViolation], None] | None = options.pop("on_violation", None)
        tap: FrameTap | None = options.pop("tap", None)
        trace = options.pop("trace", None)
        writer = None
        if trace is not None:
            from ..trace import TraceWriter  # noqa: PLC0415 - only when tracing

            writer = trace if isinstance(trace, TraceWriter) else TraceWriter(trace)
            tap = writer if tap is None else _chain_taps(tap, writer)
        conn = Connection(
            transport,
            on_request=bridge.handle,
            on_notification=_no_notification,  # replaced by the client's below
            max_line_bytes=options.pop("max_line_bytes", DEFAULT_MAX_LINE_BYTES),
            tap=tap,
            on_violation=violation,
        )
        client = cls(
            conn,
            bridge,
            client_info=client_info,
            init_timeout=init_timeout,
            session_timeout=options.pop("session_timeout", DEFAULT_SESSION_TIMEOUT),
            keep_history=options.pop("keep_history", True),
            unstable=options.pop("unstable", False),
        )
        client._trace = writer
        client._auth_terminal = auth_terminal
        if options:
            raise TypeError(f"unknown option(s): {', '.join(sorted(options))}")
        # The bound method itself, not a closure: it runs once per update.
        conn._on_notification = client._on_notification
        return client

    async def _initialize(self, capabilities: s.ClientCapabilities) -> None:
        request = s.InitializeRequest(
            protocol_version=MIN_PROTOCOL_VERSION,
            client_capabilities=capabilities,
            client_info=self.client_info,
        )
        result = await self._request_raw(
            s.INITIALIZE, request.to_wire(), timeout=self.init_timeout, what="initialize"
        )
        response = s.InitializeResponse.from_wire(result)
        version = response.protocol_version
        if version < MIN_PROTOCOL_VERSION or version > MIN_PROTOCOL_VERSION:
            # ACP "Initialization": the client closes the connection when it
            # does not support the version the agent answered with.
            raise RemoteProtocolError(
                f"the agent speaks ACP protocol version {version}; acphost supports "
                f"version {MIN_PROTOCOL_VERSION}. Update the agent (or acphost)."
            )
        self.protocol_version = version
        self.initialize_response = response
        self.agent_capabilities = response.agent_capabilities or s.AgentCapabilities()
        self.auth_methods = list(response.auth_methods or ())
        self.agent_info = response.agent_info

    # -- plumbing ------------------------------------------------------------------

    def stderr_tail(self, lines: int = 20) -> str:
        """The agent's last stderr lines (empty for non-process transports)."""
        tail = self._conn.transport.stderr_tail()
        return "\n".join(tail.splitlines()[-lines:]) if tail else ""

    @property
    def transport(self) -> Transport:
        """The transport this client speaks over."""
        return self._conn.transport

    @property
    def closed(self) -> bool:
        """True once the client was closed or the agent went away."""
        return self._closed or self._conn.is_closed

    async def _request_raw(
        self,
        method: str,
        params: Any,
        *,
        timeout: float | None = None,
        what: str | None = None,
        on_response: Callable[[Any], None] | None = None,
    ) -> Any:
        if self._closed:
            raise UsageError("the client is closed; start a new one")
        try:
            return await self._conn.request(
                method, params, timeout=timeout, on_response=on_response
            )
        except AuthRequired as exc:
            exc.auth_methods = tuple(self.auth_methods)
            raise
        except AcpTimeout as exc:
            raise AcpTimeout(
                f"the agent did not answer {what or method} within {timeout:g} s "
                "(raise the timeout if it is slow to start, e.g. downloading on first run)",
                exc.stderr_tail,
            ) from None

    async def _request(
        self, method: str, request: Any, result_type: type[T], *, timeout: float | None = None
    ) -> T:
        result = await self._request_raw(method, request.to_wire(), timeout=timeout)
        decoded: T = result_type.from_wire(result if result is not None else {})  # type: ignore[attr-defined]
        return decoded

    def _notify(self, method: str, params: Any) -> None:
        try:
            self._conn.notify(method, params)
        except AgentExited:
            logger.debug("dropped %s: the agent is gone", method)

    def _on_notification(self, method: str, params: Any) -> asyncio.Future[None] | None:
        if method != s.SESSION_UPDATE:
            if method == s.ELICITATION_COMPLETE:
                self._host.elicitation_complete(params)
            else:
                logger.info("ignored notification %s from the agent", method)
            return None
        # session/update, inline: this runs once per streamed update. The
        # SessionNotification wrapper is not built: only its two fields matter.
        sid = params.get("sessionId") if type(params) is dict else None
        update_raw = params.get("update") if type(params) is dict else None
        if type(sid) is not str or type(update_raw) is not dict:
            logger.warning("dropped a session/update without a sessionId and an update object")
            return None
        update: s.SessionUpdate
        try:
            update = s.decode_session_update(update_raw, "update")
        except s.SchemaError as exc:
            # Lossless: a malformed known variant is kept as raw data.
            logger.warning("session/update kept as Unknown: %s", exc)
            kind = update_raw.get("sessionUpdate")
            update = s.UnknownSessionUpdate(
                kind=kind if isinstance(kind, str) else "", raw=update_raw
            )
        session = self.sessions.get(sid)
        if session is None:
            # Some agents stream updates before answering session/new: keep them.
            if self._early_count < _EARLY_UPDATES_MAX:
                self._early.setdefault(sid, []).append(update)
                self._early_count += 1
            else:
                logger.warning("dropped an update for unknown session %s", sid)
            return None
        return session._receive_update(update)

    def _register(self, session: Session) -> None:
        self.sessions[session.id] = session
        early = self._early.pop(session.id, None)
        if early:
            self._early_count -= len(early)
            for update in early:
                session._receive_update(update)

    # -- capability checks ------------------------------------------------------------

    def _session_cap(self, name: str) -> Any:
        caps = self.agent_capabilities.session_capabilities
        return getattr(caps, name, None) if caps is not None else None

    def _require_session_cap(self, name: str, what: str) -> None:
        if self._session_cap(name) is None:
            raise CapabilityNotSupported(
                f"sessionCapabilities.{name}", f"the agent does not support {what}"
            )

    def _check_prompt_blocks(self, blocks: Sequence[s.ContentBlock]) -> None:
        caps = self.agent_capabilities.prompt_capabilities or s.PromptCapabilities()
        for block in blocks:
            if isinstance(block, s.ImageContentBlock) and not caps.image:
                raise CapabilityNotSupported(
                    "promptCapabilities.image", "the agent does not accept images"
                )
            if isinstance(block, s.AudioContentBlock) and not caps.audio:
                raise CapabilityNotSupported(
                    "promptCapabilities.audio", "the agent does not accept audio"
                )
            if isinstance(block, s.EmbeddedResourceContentBlock) and not caps.embedded_context:
                raise CapabilityNotSupported(
                    "promptCapabilities.embeddedContext",
                    "the agent does not accept embedded resources; send a resource link instead",
                )

    def _check_mcp(self, servers: Sequence[Any]) -> list[Any]:
        caps = self.agent_capabilities.mcp_capabilities or s.McpCapabilities()
        out = []
        for i, server in enumerate(servers):
            decoded = (
                s.decode_mcp_server(server, f"mcpServers[{i}]")
                if isinstance(server, dict)
                else server
            )
            kind = getattr(decoded, "type", None)
            if kind == "http" and not caps.http:
                raise CapabilityNotSupported(
                    "mcpCapabilities.http", "the agent does not accept HTTP MCP servers"
                )
            if kind == "sse" and not caps.sse:
                raise CapabilityNotSupported(
                    "mcpCapabilities.sse", "the agent does not accept SSE MCP servers"
                )
            out.append(decoded)
        return out

    def _check_dirs(
        self, cwd: str | os.PathLike[str], extra: Sequence[str | os.PathLike[str]]
    ) -> tuple[str, list[str]]:
        cwd_s = os.fspath(cwd)
        if not os.path.isabs(cwd_s):
            raise LocalProtocolError(f"the session cwd must be an absolute path, got {cwd_s!r}")
        dirs = [os.fspath(d) for d in extra]
        for d in dirs:
            if not os.path.isabs(d):
                raise LocalProtocolError(f"additional directories must be absolute, got {d!r}")
        if dirs:
            self._require_session_cap("additional_directories", "additional workspace directories")
        return cwd_s, dirs

    # -- authentication ------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        """Authenticate with one of :attr:`auth_methods` (``authenticate``).

        Raises:
            LocalProtocolError: the agent offers no such method, or it is a
                terminal method (those run the agent's login command instead).
            RequestError: the agent refused.

        """
        for method in self.auth_methods:
            if auth_method_id(method) == method_id:
                if isinstance(method, s.AuthMethodTerminal):
                    raise LocalProtocolError(
                        f"{method_id!r} is a terminal login: run the agent with its login "
                        "arguments in a terminal instead of calling authenticate"
                    )
                break
        else:
            if self.auth_methods:
                valid = ", ".join(auth_method_id(m) for m in self.auth_methods)
                raise LocalProtocolError(
                    f"unknown auth method {method_id!r}; the agent offers: {valid}"
                )
        await self._request(
            s.AUTHENTICATE,
            s.AuthenticateRequest(method_id=method_id),
            s.AuthenticateResponse,
            timeout=None,
        )

    async def logout(self) -> None:
        """Log out (``logout``), when the agent advertises it.

        Raises:
            CapabilityNotSupported: the agent has no logout.

        """
        auth = self.agent_capabilities.auth
        if auth is None or auth.logout is None:
            raise CapabilityNotSupported("auth.logout", "the agent does not support logout")
        await self._request(
            s.LOGOUT, s.LogoutRequest(), s.LogoutResponse, timeout=self.session_timeout
        )

    # -- sessions ------------------------------------------------------------------

    async def new_session(
        self,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        meta: dict[str, Any] | None = None,
    ) -> Session:
        """Open a new session (``session/new``).

        Args:
            cwd: the session's absolute working directory (the workspace root).
            mcp_servers: MCP servers for the agent (schema objects or wire dicts).
            additional_directories: further absolute workspace roots.
            meta: ``_meta`` for the request.

        Raises:
            AuthRequired: authenticate with one of ``exc.auth_methods``, then retry.
            LocalProtocolError: a relative path, or an unsupported MCP transport.

        """
        cwd_s, dirs = self._check_dirs(cwd, additional_directories)
        request = s.NewSessionRequest(
            cwd=cwd_s,
            mcp_servers=self._check_mcp(mcp_servers),
            additional_directories=dirs or None,
            meta=meta,
        )
        response = await self._request(
            s.SESSION_NEW, request, s.NewSessionResponse, timeout=self.session_timeout
        )
        session = Session(self, response.session_id, cwd_s, dirs, keep_history=self.keep_history)
        session._apply_setup(response.modes, response.config_options)
        self._register(session)
        return session

    async def load_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
    ) -> Session:
        """Load a previous session (``session/load``); its history is replayed.

        The session is registered before the request, so the replayed updates
        land in its state; when this returns, the replay is complete.

        Raises:
            CapabilityNotSupported: the agent does not advertise ``loadSession``.

        """
        if not self.agent_capabilities.load_session:
            raise CapabilityNotSupported("loadSession", "the agent cannot load sessions")
        cwd_s, dirs = self._check_dirs(cwd, additional_directories)
        request = s.LoadSessionRequest(
            session_id=session_id,
            cwd=cwd_s,
            mcp_servers=self._check_mcp(mcp_servers),
            additional_directories=dirs or None,
        )
        return await self._reopen(
            s.SESSION_LOAD,
            request,
            s.LoadSessionResponse,
            session_id=session_id,
            cwd=cwd_s,
            dirs=dirs,
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
    ) -> Session:
        """Resume a session without replaying its history (``session/resume``).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.resume``.

        """
        self._require_session_cap("resume", "session/resume")
        cwd_s, dirs = self._check_dirs(cwd, additional_directories)
        request = s.ResumeSessionRequest(
            session_id=session_id,
            cwd=cwd_s,
            mcp_servers=self._check_mcp(mcp_servers) or None,
            additional_directories=dirs or None,
        )
        return await self._reopen(
            s.SESSION_RESUME,
            request,
            s.ResumeSessionResponse,
            session_id=session_id,
            cwd=cwd_s,
            dirs=dirs,
        )

    async def _reopen(
        self,
        method: str,
        request: Any,
        result_type: type[s.LoadSessionResponse] | type[s.ResumeSessionResponse],
        *,
        session_id: str,
        cwd: str,
        dirs: list[str],
    ) -> Session:
        # Registered before the request, so a load's replayed updates land in it.
        session = Session(self, session_id, cwd, dirs, keep_history=self.keep_history)
        self._register(session)
        try:
            response = await self._request(
                method, request, result_type, timeout=self.session_timeout
            )
        except BaseException:
            self.sessions.pop(session_id, None)
            raise
        session._apply_setup(response.modes, response.config_options)
        return session

    async def list_sessions(
        self, *, cwd: str | None = None, cursor: str | None = None
    ) -> s.ListSessionsResponse:
        """One page of the agent's sessions (``session/list``); see :meth:`iter_sessions`.

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.list``.

        """
        self._require_session_cap("list", "session/list")
        return await self._request(
            s.SESSION_LIST,
            s.ListSessionsRequest(cwd=cwd, cursor=cursor),
            s.ListSessionsResponse,
            timeout=self.session_timeout,
        )

    async def iter_sessions(self, *, cwd: str | None = None) -> AsyncIterator[s.SessionInfo]:
        """Every session the agent lists, following ``nextCursor`` across pages."""
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await self.list_sessions(cwd=cwd, cursor=cursor)
            for info in page.sessions:
                yield info
            cursor = page.next_cursor
            if not cursor or cursor in seen:
                return
            seen.add(cursor)

    async def delete_session(self, session_id: str) -> None:
        """Delete a session on the agent side (``session/delete``).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.delete``.

        """
        self._require_session_cap("delete", "session/delete")
        await self._request(
            s.SESSION_DELETE,
            s.DeleteSessionRequest(session_id=session_id),
            s.DeleteSessionResponse,
            timeout=self.session_timeout,
        )
        self.sessions.pop(session_id, None)

    async def fork_session(self, session: Session, *, cwd: str | None = None) -> Session:
        """Fork a session (``session/fork``, unstable: needs ``unstable=True``).

        Raises:
            UsageError: the client was not started with ``unstable=True``.

        """
        if not self.unstable:
            raise UsageError(
                "session/fork is an unstable ACP feature: start the client with unstable=True"
            )
        if self._session_cap("fork") is None and "fork" not in (
            (self.agent_capabilities.session_capabilities.extra or {})
            if self.agent_capabilities.session_capabilities is not None
            else {}
        ):
            raise CapabilityNotSupported(
                "sessionCapabilities.fork", "the agent does not support forking"
            )
        cwd_s = cwd or session.cwd
        result = await self._request_raw(
            "session/fork",
            {"sessionId": session.id, "cwd": cwd_s, "mcpServers": []},
            timeout=self.session_timeout,
        )
        response = s.NewSessionResponse.from_wire(result)
        forked = Session(
            self,
            response.session_id,
            cwd_s,
            session.additional_directories,
            keep_history=self.keep_history,
        )
        forked._apply_setup(response.modes, response.config_options)
        self._register(forked)
        return forked

    async def _close_session(self, session: Session) -> None:
        self.sessions.pop(session.id, None)
        await self._host.release_session(session.id)
        if self._session_cap("close") is not None and not self.closed:
            await self._request(
                s.SESSION_CLOSE,
                s.CloseSessionRequest(session_id=session.id),
                s.CloseSessionResponse,
                timeout=self.session_timeout,
            )

    def _permissions_begin_turn(self, session_id: str) -> None:
        self._host.begin_turn(session_id)

    def _permissions_cancel(self, session_id: str) -> None:
        self._host.cancel_session(session_id)

    # -- shutdown ------------------------------------------------------------------

    async def close(self) -> None:
        """End the agent and free everything (terminals, process group). Idempotent."""
        if self._closed:
            return
        self._closed = True
        for session in self.sessions.values():
            turn = session.turn
            if turn is not None:
                turn._finish(AgentExited(None, "", "the client was closed during the turn"))
        await self._host.close()
        await self._conn.close()
        if self._trace is not None:
            self._trace.close()


def _no_notification(method: str, params: Any) -> None:
    return None


def _chain_taps(first: FrameTap, second: FrameTap) -> FrameTap:
    def tap(direction: Any, line: bytes) -> None:
        first(direction, line)
        second(direction, line)

    return tap


def auth_method_id(method: s.AuthMethod) -> str:
    """The id of an auth method, also of one of a type this version does not know."""
    if isinstance(method, s.UnknownAuthMethod):
        return str(method.raw.get("id", ""))
    return method.id


class ClientContext:
    """``async with AcpClient.start(...) as client`` — opens, initializes, closes."""

    def __init__(self, open_transport: Callable[[], Any], options: dict[str, Any]) -> None:
        self._open = open_transport
        self._options = options
        self._client: AcpClient | None = None

    async def __aenter__(self) -> AcpClient:
        transport = await self._open()
        self._client = await AcpClient._create(transport, dict(self._options))
        return self._client

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._client is not None:
            await self._client.close()
