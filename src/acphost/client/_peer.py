"""The client's one internal object: the connection and what was negotiated on it.

A :class:`Peer` owns the JSON-RPC connection, the agent's capabilities (once
``initialize`` answered), request and notification sending, and the registry
of sessions that ``session/update`` notifications are routed to. Sessions and
the host bridge talk to the peer, never to :class:`~acphost.AcpClient`, which
is a thin public façade over it.

Routing runs inline in the connection's reader, once per streamed update, so
it is written for speed: no wrapper objects, one dict lookup per update. Each
``session/update`` line is first read by the strict decoder
(:mod:`acphost.schema.strict`, straight from bytes, a read's worth of lines
at once when they all are updates); a line it refuses is parsed and decoded
the general way, which keeps unknown members and variants.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import orjson

from .. import schema as s
from ..errors import (
    AcpTimeout,
    AgentExited,
    AuthRequired,
    CapabilityNotSupported,
    LocalProtocolError,
    UsageError,
)
from ..rpc import (
    DEFAULT_MAX_LINE_BYTES,
    Connection,
    FrameTap,
    ProtocolViolation,
    RequestHandler,
)
from ..safetext import CUT
from ..schema.strict import decode_update_line, decode_update_lines
from ..transport import Transport
from ._subagent_state import TREE_KINDS, decode_tree_update
from ._v2 import V2Wire, strict_line, strict_lines

__all__ = ["Emitter", "HostHooks", "Peer", "UpdateSink"]

#: The extension notification codex-acp 2.6.0 and claude-agent-acp 0.101.0 send
#: after ``session/new``: ``{"authStatus": {"kind", "label", "detail"}}``, in no
#: schema (a leading ``_`` marks an extension method, ACP "Extensibility").
ADAPTER_AUTH_STATUS = "_auth/status_update"

logger = logging.getLogger("acphost.client")

T = TypeVar("T")

#: Updates for sessions the host does not know yet (some agents stream before
#: answering ``session/new``) are kept up to this many bytes of wire data;
#: past it the oldest go first. Bytes, not a count: an agent can make each
#: update as large as a frame.
EARLY_UPDATES_MAX_BYTES = 8 * 1024 * 1024


class UpdateSink(Protocol):
    """What the peer routes a session's updates to (a :class:`~acphost.Session`)."""

    def _receive_update(self, update: s.SessionUpdate) -> asyncio.Future[None] | None: ...

    @property
    def closed(self) -> bool:
        """True once the session closed: its late updates are no longer told as events."""


class Emitter(Protocol):
    """The client's event stream as its emitters see it (an :class:`~acphost.client.EventStream`).

    Structural, so that the modules that emit (the peer, the session, the
    host bridge) do not import the events' module: it names their classes,
    and importing it back would be an import cycle. ``observed`` is a plain
    attribute: the hot paths test it before anything is built.
    """

    observed: bool

    def _follow(
        self, session: object, on_updates: Callable[[Sequence[s.SessionUpdate]], object]
    ) -> Callable[[], None]: ...
    def _follow_tree(
        self, session: object, on_updates: Callable[[Any, Sequence[s.SessionUpdate]], object]
    ) -> Callable[[], None]: ...
    def _updates(self, session: Any, updates: Sequence[s.SessionUpdate]) -> None: ...
    def _session_opened(self, session: Any, how: Any) -> None: ...
    def _session_closed(self, session: Any) -> None: ...
    def _turn_started(self, session: Any, turn: Any, prompt: Sequence[s.ContentBlock]) -> None: ...
    def _turn_ended(
        self,
        session: Any,
        turn: Any,
        prompt: Sequence[s.ContentBlock],
        result: Any,
        host_stop: str | None,
    ) -> None: ...
    def _permission_asked(self, session_id: str, request: Any) -> None: ...
    def _permission_decided(self, request: Any, outcome: Any, asked: bool) -> None: ...
    def _terminal_started(
        self, session_id: str, terminal_id: str, command: str, args: Sequence[str], cwd: str | None
    ) -> None: ...
    def _terminal_exited(
        self, session_id: str, terminal_id: str, status: dict[str, Any]
    ) -> None: ...


class HostHooks(Protocol):
    """What the peer tells the host side about a session's turns (the host bridge)."""

    def begin_turn(self, session_id: str) -> None:
        """A prompt starts: the session's permission requests are live again."""

    def cancel_session(self, session_id: str) -> None:
        """The turn is cancelled: pending and new permission requests answer ``cancelled``."""

    async def release_session(self, session_id: str) -> None:
        """The session is closed: free what it holds."""

    def elicitation_complete(self, params: Any) -> None:
        """The agent says a URL elicitation finished."""


def decode_update(update_raw: dict[str, Any]) -> s.SessionUpdate:
    """A session update (``session/update``'s ``update``) from its wire form, as the client reads.

    Never fails: a malformed known variant is kept as raw data
    (``UnknownSessionUpdate``), and the session tree's kinds (subagents,
    inter-session messages) get the unstable schema's classes.

    Args:
        update_raw: the update's JSON object (its ``to_wire()`` gives it back).

    Returns:
        The typed update, as a :class:`~acphost.Session` applies it.

    """
    update: s.SessionUpdate
    try:
        update = s.decode_session_update(update_raw, "update")
    except s.SchemaError as exc:
        # Lossless: a malformed known variant is kept as raw data.
        logger.warning("session/update kept as Unknown: %s", exc)
        kind = update_raw.get("sessionUpdate")
        update = s.UnknownSessionUpdate(kind=kind if isinstance(kind, str) else "", raw=update_raw)
    if type(update) is s.UnknownSessionUpdate and update.kind in TREE_KINDS:
        # Subagents and inter-session messages: stable in the protocol,
        # but the vendored stable schema predates them.
        update = decode_tree_update(update.kind, update_raw) or update
    return update


class Peer:
    """The connection to one agent and the state negotiated on it (internal).

    Args:
        transport: the byte stream to the agent.
        on_request: answers the agent's requests (the host bridge's ``handle``).
        host: the host bridge's turn hooks.
        max_line_bytes: the largest frame accepted from the agent.
        tap: sees every frame's exact bytes in both directions.
        on_violation: called for every malformed frame the agent sends.
        events: the client's event stream; the peer emits
            :class:`~acphost.client.UpdatesReceived` on it, one per run of
            one session's updates in a block.

    """

    def __init__(
        self,
        transport: Transport,
        *,
        on_request: RequestHandler,
        host: HostHooks,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        tap: FrameTap | None = None,
        events: Emitter,
        on_violation: Callable[[ProtocolViolation], None] | None = None,
    ) -> None:
        self.host = host
        self.events = events
        self.sessions: dict[str, UpdateSink] = {}
        #: The child sessions of subagents (see ``_subagents``), routed like
        #: sessions but not among :attr:`sessions` (the client's open sessions).
        self.children: dict[str, UpdateSink] = {}
        self.agent_capabilities = s.AgentCapabilities()
        self.auth_methods: list[s.AuthMethod] = []
        self.agent_info: s.Implementation | None = None
        self.protocol_version = 0
        self.initialize_response: s.InitializeResponse | None = None
        #: The ``initialize`` result as received (unstable fields are read from it).
        self.initialize_raw: Any = None
        #: Set when the client opted into unstable features: it receives their notifications.
        self.unstable: Any = None
        self._closing = False
        self._early: deque[tuple[str, s.SessionUpdate, int]] = deque()
        self._early_bytes = 0
        self._early_dropped = 0
        self._on_request = on_request
        #: The v2 mapping once ``initialize`` agreed on version 2 (see :meth:`speak_v2`).
        self.v2: V2Wire | None = None
        # The bound method itself, not a closure: it runs once per update.
        self.connection = Connection(
            transport,
            on_request=self._serve,
            on_notification=self.receive_notification,
            max_line_bytes=max_line_bytes,
            tap=tap,
            on_violation=on_violation,
            decode_notification=decode_update_line,
            decode_notifications=decode_update_lines,
            on_decoded=self.receive_update,
            on_decoded_block=self.receive_updates,
        )

    def speak_v2(self) -> None:
        """``initialize`` agreed on ACP v2: map the wire from now on.

        Text chunks, the same on both versions, are still read from bytes by
        the strict decoder; every other update takes the general path, where
        :class:`~acphost.client._v2.V2Wire` turns it into the updates of the
        one model.
        """
        self.v2 = V2Wire(self.routes)
        core = self.connection.core
        core.decode_notification = strict_line
        core.decode_notifications = strict_lines

    async def _serve(self, method: str, params: Any) -> Any:
        if self.v2 is not None:
            params = self.v2.incoming(method, params)
        return await self._on_request(method, params)

    @property
    def closed(self) -> bool:
        """True once the client began closing, or the connection ended."""
        return self._closing or self.connection.is_closed

    def mark_closing(self) -> None:
        """The client is closing: refuse new requests from now on."""
        self._closing = True

    # -- sending -------------------------------------------------------------------

    async def request_raw(
        self,
        method: str,
        params: Any,
        *,
        timeout: float | None = None,
        what: str | None = None,
        on_response: Callable[[Any], None] | None = None,
    ) -> Any:
        """Send a request and return its raw result.

        Raises:
            UsageError: the client is closed.
            AuthRequired: carrying the agent's auth methods.
            AcpTimeout: no answer in ``timeout`` seconds (the request is abandoned).
            RequestError, AgentExited: as the connection raises them.

        """
        if self.closed:
            raise UsageError("the client is closed; start a new one")
        v2 = self.v2
        try:
            if v2 is None:
                return await self.connection.request(
                    method, params, timeout=timeout, on_response=on_response
                )
            wire_method, wire_params = v2.outgoing(method, params)
            result = await self.connection.request(
                wire_method, wire_params, timeout=timeout, on_response=on_response
            )
            self._opened_commands(method, params, result)
            return v2.result(method, params, result)
        except AuthRequired as exc:
            exc.auth_methods = tuple(self.auth_methods)
            raise
        except AcpTimeout as exc:
            # The connection's diagnosis (a program that only printed junk) wins
            # over the advice to wait longer.
            _, _, diagnosis = str(exc).partition("; ")
            advice = diagnosis or (
                "raise the timeout if it is slow to start, e.g. downloading on first run"
            )
            raise AcpTimeout(
                f"the agent did not answer {what or method} within {timeout:g} s ({advice})",
                exc.stderr_tail,
            ) from None

    async def request(
        self, method: str, request: Any, result_type: type[T], *, timeout: float | None = None
    ) -> T:
        """Send a typed request and decode its typed result."""
        result = await self.request_raw(method, request.to_wire(), timeout=timeout)
        decoded: T = result_type.from_wire(result if result is not None else {})  # type: ignore[attr-defined]
        return decoded

    def _opened_commands(self, method: str, params: Any, result: Any) -> None:
        # v2 answers session/new and session/resume with the session's
        # commands; v1 sends them as an update, which is what the session
        # state reads: told as one, kept until the session registers.
        if method not in (s.SESSION_NEW, s.SESSION_LOAD, s.SESSION_RESUME) or self.v2 is None:
            return
        commands = self.v2.opened_commands(result)
        holder = result if method == s.SESSION_NEW else params
        sid = holder.get("sessionId") if isinstance(holder, dict) else None
        if commands is not None and isinstance(sid, str):
            update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
            self._route(sid, update)

    def notify(self, method: str, params: Any) -> None:
        """Send a notification; dropped quietly when the agent is gone."""
        try:
            self.connection.notify(method, params)
        except AgentExited:
            logger.debug("dropped %s: the agent is gone", method)

    def stderr_tail(self, lines: int = 20) -> str:
        """The agent's last stderr lines (empty for non-process transports)."""
        tail = self.connection.transport.stderr_tail()
        kept = tail.splitlines()
        shown = "\n".join(kept[-lines:])
        # Lines left out are marked, as the transport marks them (safetext.CUT).
        return f"{CUT}\n{shown}" if len(kept) > lines > 0 else shown

    # -- receiving -----------------------------------------------------------------

    def receive_notification(self, method: str, params: Any) -> asyncio.Future[None] | None:
        """Route one notification from the agent (the connection's handler).

        Returns:
            A future the reader awaits before reading on when the session's
            update queue is full (backpressure), else None.

        """
        if method != s.SESSION_UPDATE:
            if method == s.ELICITATION_COMPLETE:
                self.host.elicitation_complete(params)
            elif method == s.UNSTABLE_AUTH_STATUS_UPDATE and self.unstable is not None:
                self.unstable.receive_auth_status_update(params)
            elif method == ADAPTER_AUTH_STATUS and self.unstable is not None:
                self.unstable.receive_adapter_auth_status(params)
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
        v2 = self.v2
        if v2 is None:
            return self._route(sid, update_raw)
        wire = v2.session(sid)
        try:
            mapped = wire.updates(update_raw)
        except Exception:  # the mapping reads untrusted JSON: one bad update, not the connection
            logger.warning("dropped a v2 update that could not be read: %.200r", update_raw)
            return None
        waiter = None
        for update in mapped:
            waiter = self._route(sid, update) or waiter
        wire.settle()
        return waiter

    def _route(self, sid: str, update_raw: dict[str, Any]) -> asyncio.Future[None] | None:
        update = decode_update(update_raw)
        session = self.sessions.get(sid) or self.children.get(sid)
        if session is None:
            self._keep_early(sid, update, len(orjson.dumps(update_raw)))
            return None
        waiter = session._receive_update(update)
        events = self.events
        if events.observed and not session.closed:
            events._updates(session, (update,))
        return waiter

    def receive_update(self, decoded: tuple[str, s.SessionUpdate]) -> asyncio.Future[None] | None:
        """Route one update the strict decoder read (the connection's ``on_decoded``).

        Returns:
            As :meth:`receive_notification`.

        """
        sid, update = decoded
        if self.v2 is not None:
            self.v2.track((decoded,))
        session = self.sessions.get(sid) or self.children.get(sid)
        if session is None:
            self._keep_early_update(sid, update)
            return None
        waiter = session._receive_update(update)
        events = self.events
        if events.observed and not session.closed:
            events._updates(session, (update,))
        return waiter

    async def receive_updates(self, block: list[tuple[str, s.SessionUpdate]]) -> None:
        """Route a chunk's worth of updates the strict decoder read, in order.

        The connection's ``on_decoded_block``: as :meth:`receive_update` for
        each, awaiting a full queue's future before the next (backpressure).
        Observed, each run of consecutive updates of one session becomes one
        :class:`~acphost.client.UpdatesReceived`; unobserved, the loop is the
        bare one (the stream costs one test per block, nothing per update).
        """
        if self.v2 is not None:
            self.v2.track(block)
        if self.events.observed:
            await self._receive_updates_observed(block)
            return
        sessions = self.sessions
        children = self.children
        for sid, update in block:
            session = sessions.get(sid) or children.get(sid)
            if session is None:
                self._keep_early_update(sid, update)
                continue
            waiter = session._receive_update(update)
            if waiter is not None:
                await waiter

    async def _receive_updates_observed(self, block: list[tuple[str, s.SessionUpdate]]) -> None:
        # The event of a run is told when the run ends, and before the reader
        # waits on a full queue: an observer sees the updates already applied
        # to the state, and nothing later of the connection comes before them.
        sessions = self.sessions
        children = self.children
        emit = self.events._updates
        run: list[s.SessionUpdate] = []
        run_session: UpdateSink | None = None
        for sid, update in block:
            session = sessions.get(sid) or children.get(sid)
            if session is not run_session:
                if run and not run_session.closed:  # type: ignore[union-attr]
                    emit(run_session, run)
                run = []
                run_session = session
            if session is None:
                self._keep_early_update(sid, update)
                continue
            waiter = session._receive_update(update)
            run.append(update)
            if waiter is not None:
                if not session.closed:
                    emit(session, run)
                run = []
                await waiter
        if run and not run_session.closed:  # type: ignore[union-attr]
            emit(run_session, run)

    def _keep_early_update(self, sid: str, update: s.SessionUpdate) -> None:
        self._keep_early(sid, update, len(orjson.dumps(update.to_wire())))

    def _keep_early(self, sid: str, update: s.SessionUpdate, size: int) -> None:
        self._early.append((sid, update, size))
        self._early_bytes += size
        while self._early_bytes > EARLY_UPDATES_MAX_BYTES and self._early:
            _, _, dropped = self._early.popleft()
            self._early_bytes -= dropped
            self._early_dropped += 1
            if self._early_dropped in (1, 100, 10_000) or self._early_dropped % 100_000 == 0:
                logger.warning(
                    "dropped %d update(s) for sessions the host never opened "
                    "(more than %d bytes of them were waiting)",
                    self._early_dropped,
                    EARLY_UPDATES_MAX_BYTES,
                )

    def register(self, session_id: str, session: UpdateSink) -> None:
        """Route the session's updates to ``session``, first those that came early."""
        self.sessions[session_id] = session
        self._replay_early(session_id, session)

    def register_child(self, session_id: str, child: UpdateSink) -> bool:
        """Route a subagent's updates to ``child``; False when the id is taken.

        The id of an open session or of another child is never taken over:
        the agent names children, and it must not redirect a session's
        updates (or its requests' workspace) by naming one.
        """
        if self.routes(session_id):
            return False
        self.children[session_id] = child
        self._replay_early(session_id, child)
        return True

    def routes(self, session_id: str) -> bool:
        """Whether updates for this id already go to a session or a subagent."""
        return session_id in self.sessions or session_id in self.children

    def unregister_child(self, session_id: str) -> None:
        """Stop routing a subagent's updates."""
        self.children.pop(session_id, None)
        if self.v2 is not None:
            self.v2.drop(session_id)

    def _replay_early(self, session_id: str, session: UpdateSink) -> None:
        if not any(sid == session_id for sid, _, _ in self._early):
            return
        kept: deque[tuple[str, s.SessionUpdate, int]] = deque()
        replayed: list[s.SessionUpdate] = []
        for item in self._early:
            if item[0] == session_id:
                self._early_bytes -= item[2]
                session._receive_update(item[1])
                replayed.append(item[1])
            else:
                kept.append(item)
        self._early = kept
        if self.events.observed:
            self.events._updates(session, replayed)

    def unregister(self, session_id: str) -> None:
        """Stop routing updates to the session."""
        self.sessions.pop(session_id, None)
        if self.v2 is not None:
            self.v2.drop(session_id)

    # -- capability checks --------------------------------------------------------------

    def session_cap(self, name: str) -> Any:
        """The agent's ``sessionCapabilities.<name>``, or None."""
        caps = self.agent_capabilities.session_capabilities
        return getattr(caps, name, None) if caps is not None else None

    def require_session_cap(self, name: str, what: str) -> None:
        """Raise unless the agent advertised ``sessionCapabilities.<name>``.

        Raises:
            CapabilityNotSupported: it did not.

        """
        if self.session_cap(name) is None:
            raise CapabilityNotSupported(
                f"sessionCapabilities.{name}", f"the agent does not support {what}"
            )

    def check_prompt_blocks(self, blocks: Sequence[s.ContentBlock]) -> None:
        """Refuse blocks the agent's prompt capabilities do not allow.

        Raises:
            CapabilityNotSupported: an image, audio or embedded resource the
                agent did not opt into (ACP "Prompt Capabilities").

        """
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

    def check_mcp(self, servers: Sequence[Any]) -> list[Any]:
        """Decode MCP server definitions and refuse transports the agent lacks.

        Raises:
            CapabilityNotSupported: an HTTP or SSE server the agent cannot use.

        """
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

    def check_dirs(
        self, cwd: str | os.PathLike[str], extra: Sequence[str | os.PathLike[str]]
    ) -> tuple[str, list[str]]:
        """The session's absolute cwd and additional directories, checked.

        Raises:
            LocalProtocolError: a relative path (ACP requires absolute ones).
            CapabilityNotSupported: additional directories the agent cannot take.

        """
        cwd_s = os.fspath(cwd)
        if not os.path.isabs(cwd_s):
            raise LocalProtocolError(f"the session cwd must be an absolute path, got {cwd_s!r}")
        dirs = [os.fspath(d) for d in extra]
        for d in dirs:
            if not os.path.isabs(d):
                raise LocalProtocolError(f"additional directories must be absolute, got {d!r}")
        if dirs:
            self.require_session_cap("additional_directories", "additional workspace directories")
        return cwd_s, dirs
