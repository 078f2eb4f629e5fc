"""The client façade: start an agent, initialize, open sessions.

:class:`AcpClient` is the public face of one connection to one agent. The
work is done by its :class:`~acphost.client._peer.Peer` (the connection, the
negotiated capabilities, the session registry) and its host bridge (the
agent's requests); the client negotiates the protocol, refuses calls the
agent's capabilities do not allow before anything is sent, and opens sessions.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from .. import schema as s
from ..errors import (
    CapabilityNotSupported,
    LocalProtocolError,
    RemoteProtocolError,
    RequestError,
    UsageError,
)
from ..host import HostConfig
from ..rpc import ProtocolViolation, chain_taps
from ..transport import Transport
from ._events import EventStream
from ._host_bridge import HostBridge
from ._lifecycle import Lifecycle, LifecycleState
from ._options import ClientOptions, Settings, auth_method_id
from ._peer import Peer
from ._session import Session
from ._sessions import SessionMethods
from ._unstable import Unstable
from ._v2 import V2, initialize_params, initialize_result

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["AcpClient", "ClientContext"]

#: Lowest protocol version acphost speaks; also the one it asks for by default.
MIN_PROTOCOL_VERSION = 1

logger = logging.getLogger("acphost.client")


class AcpClient(SessionMethods):
    """A connection to one ACP agent, initialized and ready for sessions.

    Create it with :meth:`start` (an agent subprocess) or :meth:`connect`
    (any transport), then either use it as ``async with`` or ``await`` it and
    call :meth:`close` yourself::

        async with AcpClient.start(argv) as client: ...
        client = await AcpClient.start(argv)
        try: ...
        finally: await client.close()

    """

    def __init__(self, peer: Peer, bridge: HostBridge, settings: Settings, trace: Any) -> None:
        self._peer = peer
        self._bridge = bridge
        self._events = cast("EventStream", peer.events)
        self._settings = settings
        self._trace = trace
        self._life = Lifecycle("the client")
        self._closed_event = asyncio.Event()
        self._unstable: Unstable | None = None
        if settings.unstable:
            self._unstable = peer.unstable = Unstable(peer, settings.session_timeout)
        bridge.attach(peer.sessions, peer.children)

    def __repr__(self) -> str:
        name = self._peer.agent_info.name if self._peer.agent_info else "?"
        return f"<AcpClient agent={name!r} {self._life.state.value}>"

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
        **options: Unpack[ClientOptions],
    ) -> ClientContext:
        """Start an agent subprocess and initialize it.

        Args:
            command: the agent's argv (never run through a shell).
            env: variables overlaid on the host's environment for the agent.
            cwd: the agent process's working directory.
            kill_on_host_death: on Linux, the agent dies if the host is killed.
            close_grace: seconds the agent gets to exit after EOF (and after
                SIGTERM) when the client closes, before its process group is
                killed; several real agents ignore EOF, so a CLI wants it short.
            **options: see :class:`~acphost.client.ClientOptions`.

        Returns:
            A :class:`ClientContext`: ``async with`` it, or ``await`` it.

        Raises:
            TypeError: an unknown option (at once, before anything starts).

        """
        settings = Settings.resolve(options)
        host = options.get("host")
        argv = list(command)

        async def open_transport() -> Transport:
            from ..transport import StdioTransport  # noqa: PLC0415 - spawn cost only when used

            return await StdioTransport.spawn(
                argv,
                env=env,
                cwd=cwd,
                kill_on_host_death=kill_on_host_death,
                close_grace=close_grace,
            )

        return ClientContext(open_transport, settings, host)

    @classmethod
    def connect(cls, transport: Transport, **options: Unpack[ClientOptions]) -> ClientContext:
        """Initialize an agent reachable through ``transport``.

        Args:
            transport: the byte stream to the agent (e.g. an in-memory pair end).
            **options: see :class:`~acphost.client.ClientOptions`.

        Returns:
            A :class:`ClientContext`: ``async with`` it, or ``await`` it.

        Raises:
            TypeError: an unknown option.

        """
        settings = Settings.resolve(options)

        async def open_transport() -> Transport:
            return transport

        return ClientContext(open_transport, settings, options.get("host"))

    @classmethod
    async def _open(
        cls, transport: Transport, settings: Settings, host: HostConfig | None
    ) -> AcpClient:
        try:
            client = cls._build(transport, settings, host)
        except BaseException:
            # A bad host configuration or an unwritable trace path must not
            # leave the agent running.
            await transport.close()
            raise
        client._peer.connection.start()
        try:
            await client._initialize()
        except BaseException:
            await client.close()
            raise
        return client

    @classmethod
    def _build(cls, transport: Transport, settings: Settings, host: HostConfig | None) -> AcpClient:
        events = EventStream()
        bridge = HostBridge(host or HostConfig(), events)
        tap = settings.tap
        writer = None
        if settings.trace is not None:
            from ..trace import TraceWriter  # noqa: PLC0415 - only when tracing

            trace = settings.trace
            writer = trace if isinstance(trace, TraceWriter) else TraceWriter(trace)
            tap = writer if tap is None else chain_taps(tap, writer)
        peer = Peer(
            transport,
            on_request=bridge.handle,
            host=bridge,
            max_line_bytes=settings.max_line_bytes,
            tap=tap,
            on_violation=_violations_to(settings.on_violation, writer),
            events=events,
        )
        return cls(peer, bridge, settings, writer)

    async def _initialize(self) -> None:
        settings = self._settings
        capabilities = self._bridge.capabilities(
            auth_terminal=settings.auth_terminal,
            notices=settings.notices,
            compaction=settings.compaction,
            subagents=settings.subagents,
        )
        peer = self._peer
        result: Any = None
        if settings.protocol != MIN_PROTOCOL_VERSION:
            result = await self._offer_v2(capabilities)
        if result is None:
            request = s.InitializeRequest(
                protocol_version=MIN_PROTOCOL_VERSION,
                client_capabilities=capabilities,
                client_info=settings.client_info,
            )
            result = await peer.request_raw(
                s.INITIALIZE, request.to_wire(), timeout=settings.init_timeout, what="initialize"
            )
        response = s.InitializeResponse.from_wire(result)
        peer.initialize_raw = result
        version = response.protocol_version
        expected = V2 if peer.v2 is not None else MIN_PROTOCOL_VERSION
        if version != expected:
            # ACP "Initialization": the client closes the connection when it
            # does not support the version the agent answered with.
            raise RemoteProtocolError(
                f"the agent speaks ACP protocol version {version}; acphost supports "
                f"versions {MIN_PROTOCOL_VERSION} and {V2}. Update the agent (or acphost)."
            )
        peer.protocol_version = version
        peer.initialize_response = response
        peer.agent_capabilities = response.agent_capabilities or s.AgentCapabilities()
        peer.auth_methods = list(response.auth_methods or ())
        peer.agent_info = response.agent_info
        self._life.move(LifecycleState.OPEN)
        peer.connection.closed.add_done_callback(lambda _: self._closed_event.set())

    async def _offer_v2(self, capabilities: s.ClientCapabilities) -> Any:
        # v2 "Initialization": the v2 shape (``info`` is required: an agent
        # answers -32602 to version 2 with v1 fields). A failed initialize
        # leaves the connection open, so "auto" asks again with v1 when the
        # agent refuses, or answers 1 (it read the v2 fields as v1's, so it
        # saw none of the host's capabilities).
        settings = self._settings
        peer = self._peer
        params = initialize_params(settings.client_info.to_wire(), capabilities.to_wire())
        try:
            result = await peer.request_raw(
                s.INITIALIZE, params, timeout=settings.init_timeout, what="initialize"
            )
        except RequestError as exc:
            if settings.protocol == V2:
                raise RemoteProtocolError(
                    f"the agent refused ACP protocol version 2 ({exc}): ask for version 1 "
                    "or 'auto' (the CLI's --protocol)"
                ) from exc
            logger.info("the agent refused ACP v2 (%s): initializing with v1", exc)
            return None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        # A v2 InitializeResponse requires ``info``: an agent that echoes the
        # version in the v1 shape (fast-agent 0.10.48) does not speak v2.
        v2_shaped = version == V2 and isinstance(result.get("info"), dict)
        if v2_shaped:
            peer.speak_v2()
            return initialize_result(result)
        said = f"version {version!r}" + (" in the v1 shape" if version == V2 else "")
        if settings.protocol == V2:
            raise RemoteProtocolError(
                f"the agent answered ACP protocol {said} to version 2: ask for "
                "version 1 or 'auto' (the CLI's --protocol)"
            )
        logger.info("the agent answered ACP %s to v2: initializing with v1", said)
        return None

    # -- what happens --------------------------------------------------------------

    @property
    def events(self) -> EventStream:
        """The typed event stream of this client: subscribe to observe its sessions.

        Every fact is told once, in order, by the part that knows it (see
        :mod:`acphost.client._events`): :class:`~acphost.client.SessionOpened`
        and :class:`~acphost.client.SessionClosed`;
        :class:`~acphost.client.TurnStarted`, then the turn's
        :class:`~acphost.client.UpdatesReceived` blocks (one per run of one
        session's updates in a read of the connection, not one per update),
        then :class:`~acphost.client.TurnEnded`;
        :class:`~acphost.client.PermissionAsked` and
        :class:`~acphost.client.PermissionDecided` (every decision of the
        permission broker, mediated operations too);
        :class:`~acphost.client.TerminalStarted` and
        :class:`~acphost.client.TerminalExited`. Observers run inline: keep
        them quick. Subscribe before opening a session to see it open.
        """
        return self._events

    # -- what was negotiated --------------------------------------------------------

    @property
    def agent_capabilities(self) -> s.AgentCapabilities:
        """What the agent advertised in ``initialize``."""
        return self._peer.agent_capabilities

    @property
    def auth_methods(self) -> list[s.AuthMethod]:
        """The agent's authentication methods."""
        return self._peer.auth_methods

    @property
    def agent_info(self) -> s.Implementation | None:
        """The agent's name and version, if it sent them."""
        return self._peer.agent_info

    @property
    def protocol_version(self) -> int:
        """The negotiated protocol version (0 before ``initialize`` answered)."""
        return self._peer.protocol_version

    @property
    def initialize_response(self) -> s.InitializeResponse | None:
        """The agent's whole ``initialize`` answer."""
        return self._peer.initialize_response

    @property
    def sessions(self) -> dict[str, Session]:
        """The open sessions by id (read it; open and close them with the methods)."""
        return cast("dict[str, Session]", self._peer.sessions)

    @property
    def client_info(self) -> s.Implementation:
        """How the host named itself in ``initialize``."""
        return self._settings.client_info

    @property
    def unstable(self) -> Unstable:
        """The unstable protocol methods (``session/set_title``, ``auth/status``...).

        Raises:
            UsageError: the client was not started with ``unstable=True``.

        """
        if self._unstable is None:
            raise UsageError("unstable ACP features are off: start the client with unstable=True")
        return self._unstable

    @property
    def lifecycle(self) -> LifecycleState:
        """Where the client is in its life (opening, open, closing, closed)."""
        if self._life.state is LifecycleState.OPEN and self._peer.connection.is_closed:
            return LifecycleState.CLOSED
        return self._life.state

    @property
    def closed(self) -> bool:
        """True once the client was closed or the agent went away."""
        return self._life.closed or self._peer.connection.is_closed

    @property
    def transport(self) -> Transport:
        """The transport this client speaks over."""
        return self._peer.connection.transport

    def stderr_tail(self, lines: int = 20) -> str:
        """The agent's last stderr lines (empty for non-process transports)."""
        return self._peer.stderr_tail(lines)

    # -- authentication ------------------------------------------------------------

    async def authenticate(self, method_id: str) -> None:
        """Authenticate with one of :attr:`auth_methods` (``authenticate``).

        Raises:
            LocalProtocolError: the agent offers no such method, or it is a
                terminal method (those run the agent's login command instead).
            RequestError: the agent refused.

        """
        self._require_open()
        methods = self._peer.auth_methods
        for method in methods:
            if auth_method_id(method) == method_id:
                if isinstance(method, s.AuthMethodTerminal):
                    raise LocalProtocolError(
                        f"{method_id!r} is a terminal login: run the agent with its login "
                        "arguments in a terminal instead of calling authenticate"
                    )
                break
        else:
            if methods:
                valid = ", ".join(auth_method_id(m) for m in methods)
                raise LocalProtocolError(
                    f"unknown auth method {method_id!r}; the agent offers: {valid}"
                )
        await self._peer.request(
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
        self._require_open()
        auth = self._peer.agent_capabilities.auth
        if auth is None or auth.logout is None:
            raise CapabilityNotSupported("auth.logout", "the agent does not support logout")
        await self._peer.request(
            s.LOGOUT, s.LogoutRequest(), s.LogoutResponse, timeout=self._settings.session_timeout
        )

    # -- shutdown ------------------------------------------------------------------

    def _require_open(self) -> None:
        if self._peer.connection.is_closed and self._life.state is LifecycleState.OPEN:
            self._life.move(LifecycleState.CLOSED)
        self._life.require_open("start a new client")

    async def close(self) -> None:
        """End the agent and free everything (terminals, process group). Idempotent."""
        if self._life.closed:
            if self._life.state is LifecycleState.CLOSING:
                await self._closed_event.wait()
            return
        self._life.move(LifecycleState.CLOSING)
        peer = self._peer
        peer.mark_closing()
        try:
            for session in list(self.sessions.values()):
                session._abandoned()
            await self._bridge.close()
            await peer.connection.close()
            if self._trace is not None:
                self._trace.close()
        finally:
            self._life.move(LifecycleState.CLOSED)
            self._closed_event.set()

    async def wait_closed(self) -> None:
        """Wait until the client is closed or the agent went away (whichever first)."""
        await self._closed_event.wait()


def _violations_to(
    handler: Callable[[ProtocolViolation], None] | None, writer: Any
) -> Callable[[ProtocolViolation], None] | None:
    """The violation handler: the caller's, and the trace's (taps only see frames)."""
    if writer is None:
        return handler
    if handler is None:
        return writer.record_violation  # type: ignore[no-any-return]

    def both(violation: ProtocolViolation) -> None:
        writer.record_violation(violation)
        handler(violation)

    return both


class ClientContext:
    """What :meth:`AcpClient.start` and :meth:`AcpClient.connect` return.

    ``async with`` it (the client is closed on exit) or ``await`` it (close
    the client yourself). Either opens the client once: a second use raises
    :class:`~acphost.UsageError`.
    """

    def __init__(
        self,
        open_transport: Callable[[], Awaitable[Transport]],
        settings: Settings,
        host: HostConfig | None,
    ) -> None:
        self._open_transport = open_transport
        self._settings = settings
        self._host = host
        self._used = False
        self._client: AcpClient | None = None

    async def _open(self) -> AcpClient:
        if self._used:
            raise UsageError(
                "this AcpClient.start()/connect() result was already opened; call it again "
                "for a new client"
            )
        self._used = True
        transport = await self._open_transport()
        self._client = await AcpClient._open(transport, self._settings, self._host)
        return self._client

    def __await__(self) -> Generator[Any, None, AcpClient]:
        return self._open().__await__()

    async def __aenter__(self) -> AcpClient:
        return await self._open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._client is not None:
            await self._client.close()
