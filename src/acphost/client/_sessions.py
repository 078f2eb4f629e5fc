"""Opening sessions: ``session/new``, load, resume, list, delete, and fork.

The session half of :class:`~acphost.AcpClient`, kept apart from its
construction and lifecycle: every method checks the agent's capabilities
before anything is sent and registers the session with the peer so its
updates reach it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..content import block_text
from ..errors import CapabilityNotSupported, UsageError
from ._session import Session
from ._sysprompt import SystemPromptMode, system_prompt_modes, system_prompt_params

if TYPE_CHECKING:
    from ..host import HostTools
    from ._host_bridge import HostBridge
    from ._options import Settings
    from ._peer import Peer
    from ._unstable import Unstable

__all__ = ["SessionMethods"]

logger = logging.getLogger("acphost.client")


class SessionMethods:
    """The session methods of :class:`~acphost.AcpClient` (a base class, internal)."""

    _peer: Peer
    _settings: Settings
    _bridge: HostBridge

    def _require_open(self) -> None:
        raise NotImplementedError

    @property
    def unstable(self) -> Unstable:
        """The unstable methods (see :class:`~acphost.AcpClient`)."""
        raise NotImplementedError

    @property
    def system_prompt_modes(self) -> tuple[str, ...]:
        """The system prompt modes the agent takes: ``()``, ``("append",)`` or both.

        Read from its ``initialize`` answer (``sessionCapabilities.systemPrompt``
        and its ``mode.override``), so a caller can check before opening.
        """
        return system_prompt_modes(self._peer.initialize_raw)

    def _session(
        self, session_id: str, cwd: str, dirs: Sequence[str], *, fresh: bool = False
    ) -> Session:
        return Session(
            self._peer,
            session_id,
            cwd,
            dirs,
            keep_history=self._settings.keep_history,
            setup_timeout=self._settings.session_timeout,
            fresh=fresh,
        )

    async def new_session(
        self,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        meta: dict[str, Any] | None = None,
        system_prompt: str | Any | None = None,
        system_prompt_mode: SystemPromptMode = "append",
    ) -> Session:
        """Open a new session (``session/new``).

        Args:
            cwd: the session's absolute working directory (the workspace root).
            mcp_servers: MCP servers for the agent (schema objects or wire dicts).
            additional_directories: further absolute workspace roots.
            meta: ``_meta`` for the request.
            system_prompt: the session's system prompt: a string (sent as one
                text block), or an unstable ``SystemPrompt`` (its own mode);
                needs an agent advertising ``sessionCapabilities.systemPrompt``.
            system_prompt_mode: ``append`` (added to the agent's own
                instructions) or ``override`` (replaces them; needs the
                agent's ``sessionCapabilities.systemPrompt.mode.override``).

        Raises:
            AuthRequired: authenticate with one of ``exc.auth_methods``, then retry.
            LocalProtocolError: a relative path, or an unsupported MCP transport.
            CapabilityNotSupported: a system prompt (or its mode) the agent
                cannot take; nothing is sent.
            UsageError: an empty system prompt, or an unknown mode.

        """
        self._require_open()
        peer = self._peer
        cwd_s, dirs = peer.check_dirs(cwd, additional_directories)
        request = s.NewSessionRequest(
            cwd=cwd_s,
            mcp_servers=peer.check_mcp(mcp_servers),
            additional_directories=dirs or None,
            meta=meta,
        )
        params = system_prompt_params(
            request.to_wire(), peer.initialize_raw, system_prompt, system_prompt_mode
        )
        tools = await self._offer_tools(cwd_s, params)
        try:
            result = await peer.request_raw(
                s.SESSION_NEW, params, timeout=self._settings.session_timeout
            )
            response = s.NewSessionResponse.from_wire(result if result is not None else {})
            if tools is not None:
                await self._bridge.bind_tools(tools, response.session_id)
        except BaseException:
            if tools is not None:
                await tools.close()
            raise
        session = self._session(response.session_id, cwd_s, dirs, fresh=True)
        session.state.system_prompt = _prompt_text(system_prompt)
        session._apply_setup(response.modes, response.config_options)
        # Opened (SessionOpened told) before the updates that came early are
        # handed over: an observer sees the session before its updates.
        session._opened("new")
        peer.register(session.id, session)
        return session

    async def load_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        system_prompt: str | Any | None = None,
        system_prompt_mode: SystemPromptMode = "append",
    ) -> Session:
        """Load a previous session (``session/load``); its history is replayed.

        The session is registered before the request, so the replayed updates
        land in its state; when this returns, the replay is complete.
        ``system_prompt`` and ``system_prompt_mode`` are as for
        :meth:`new_session` (send the same prompt the session was created with).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``loadSession``.

        """
        self._require_open()
        peer = self._peer
        if not peer.agent_capabilities.load_session:
            raise CapabilityNotSupported("loadSession", "the agent cannot load sessions")
        cwd_s, dirs = peer.check_dirs(cwd, additional_directories)
        request = s.LoadSessionRequest(
            session_id=session_id,
            cwd=cwd_s,
            mcp_servers=peer.check_mcp(mcp_servers),
            additional_directories=dirs or None,
        )
        return await self._reopen(
            request,
            s.LoadSessionResponse,
            cwd=cwd_s,
            dirs=dirs,
            system_prompt=system_prompt,
            system_prompt_mode=system_prompt_mode,
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        system_prompt: str | Any | None = None,
        system_prompt_mode: SystemPromptMode = "append",
    ) -> Session:
        """Resume a session without replaying its history (``session/resume``).

        ``system_prompt`` and ``system_prompt_mode`` are as for
        :meth:`new_session` (send the same prompt the session was created with).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.resume``.

        """
        self._require_open()
        peer = self._peer
        peer.require_session_cap("resume", "session/resume")
        cwd_s, dirs = peer.check_dirs(cwd, additional_directories)
        request = s.ResumeSessionRequest(
            session_id=session_id,
            cwd=cwd_s,
            mcp_servers=peer.check_mcp(mcp_servers) or None,
            additional_directories=dirs or None,
        )
        return await self._reopen(
            request,
            s.ResumeSessionResponse,
            cwd=cwd_s,
            dirs=dirs,
            system_prompt=system_prompt,
            system_prompt_mode=system_prompt_mode,
        )

    async def _reopen(
        self,
        request: s.LoadSessionRequest | s.ResumeSessionRequest,
        result_type: type[s.LoadSessionResponse] | type[s.ResumeSessionResponse],
        *,
        cwd: str,
        dirs: list[str],
        system_prompt: str | Any | None,
        system_prompt_mode: SystemPromptMode,
    ) -> Session:
        method = s.SESSION_LOAD if isinstance(request, s.LoadSessionRequest) else s.SESSION_RESUME
        params = system_prompt_params(
            request.to_wire(), self._peer.initialize_raw, system_prompt, system_prompt_mode
        )
        # A session open in this client may be opened again (a load shows its
        # replay in a fresh Session); until the agent answers, the live one
        # keeps its routing, terminals and tools, and keeps them if it fails.
        previous = self._peer.sessions.get(request.session_id)
        tools = await self._offer_tools(cwd, params)
        # Registered before the request, so a load's replayed updates land in it.
        session = self._session(request.session_id, cwd, dirs)
        session.state.system_prompt = _prompt_text(system_prompt)
        self._peer.register(session.id, session)
        try:
            if tools is not None and previous is None:
                await self._bridge.bind_tools(tools, session.id)
            result = await self._peer.request_raw(
                method, params, timeout=self._settings.session_timeout
            )
            response = result_type.from_wire(result if result is not None else {})
        except BaseException:
            if previous is not None:
                self._peer.sessions[session.id] = previous
            else:
                self._peer.unregister(session.id)
                await self._bridge.release_session(session.id)
            if tools is not None:
                await tools.close()
            session._abandoned()
            raise
        if tools is not None and previous is not None:
            await self._bridge.bind_tools(tools, session.id)
        session._apply_setup(response.modes, response.config_options)
        # A load's replayed history came before this answer (UpdatesReceived
        # before SessionOpened): observers that follow from the opening on
        # see the new turns only.
        session._opened("load" if method == s.SESSION_LOAD else "resume")
        return session

    async def _offer_tools(self, cwd: str, params: dict[str, Any]) -> HostTools | None:
        """Add the host's tools to ``params``' ``mcpServers`` when they are offered.

        They are offered on ACP v2 (no client ``fs/*`` or ``terminal/*``
        there) or when asked for (``mcp_tools``).
        """
        peer = self._peer
        offer = self._settings.mcp_tools
        if offer is None:
            offer = peer.v2 is not None
        if not offer:
            return None
        servers = params.setdefault("mcpServers", [])
        opened = await self._bridge.open_tools(
            cwd, protocol=peer.protocol_version, beside=servers, http=_http_only(peer)
        )
        if opened is None:
            return None
        tools, entries = opened
        servers.extend(entries)
        return tools

    async def list_sessions(
        self, *, cwd: str | None = None, cursor: str | None = None
    ) -> s.ListSessionsResponse:
        """One page of the agent's sessions (``session/list``); see :meth:`iter_sessions`.

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.list``.

        """
        self._require_open()
        self._peer.require_session_cap("list", "session/list")
        return await self._peer.request(
            s.SESSION_LIST,
            s.ListSessionsRequest(cwd=cwd, cursor=cursor),
            s.ListSessionsResponse,
            timeout=self._settings.session_timeout,
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
        self._require_open()
        self._peer.require_session_cap("delete", "session/delete")
        await self._peer.request(
            s.SESSION_DELETE,
            s.DeleteSessionRequest(session_id=session_id),
            s.DeleteSessionResponse,
            timeout=self._settings.session_timeout,
        )
        session = self._peer.sessions.get(session_id)
        self._peer.unregister(session_id)
        if isinstance(session, Session):
            session._abandoned()

    async def fork_session(self, session: Session, *, cwd: str | None = None) -> Session:
        """Fork a session (``session/fork``, unstable: needs ``unstable=True``).

        Raises:
            UsageError: the client was not started with ``unstable=True``.
            CapabilityNotSupported: the agent does not advertise forking.

        """
        self._require_open()
        if not self._settings.unstable:
            raise UsageError(
                "session/fork is an unstable ACP feature: start the client with unstable=True"
            )
        peer = self._peer
        fork_cap = self.unstable.capabilities.session_capabilities
        if fork_cap is None or fork_cap.fork is None:
            raise CapabilityNotSupported(
                "sessionCapabilities.fork", "the agent does not support forking"
            )
        from ..schema import unstable as u  # noqa: PLC0415 - loaded only by unstable clients

        cwd_s = cwd or session.cwd
        request = u.ForkSessionRequest(session_id=session.id, cwd=cwd_s, mcp_servers=[])
        result = await peer.request_raw(
            s.UNSTABLE_SESSION_FORK, request.to_wire(), timeout=self._settings.session_timeout
        )
        response = u.ForkSessionResponse.from_wire(result if result is not None else {})
        forked = self._session(response.session_id, cwd_s, session.additional_directories)
        forked._apply_setup(response.modes, response.config_options)
        forked.state.parent_id = session.id
        session.state.children.append(forked.id)
        forked._opened("fork")
        peer.register(forked.id, forked)
        return forked


def _http_only(peer: Peer) -> bool:
    """Whether the agent takes MCP servers over HTTP but not over stdio (v2 only).

    Every v1 agent takes stdio (ACP v1 "MCP Servers"); v2 McpCapabilities
    says it (``session.mcp.stdio``).
    """
    if peer.v2 is None:
        return False
    mcp = peer.agent_capabilities.mcp_capabilities
    extra = (mcp.extra or {}) if mcp is not None else {}
    return bool(mcp is not None and mcp.http and extra.get("stdio") is False)


def _prompt_text(prompt: str | Any | None) -> str | None:
    """The text of a system prompt, for the session state."""
    if prompt is None or isinstance(prompt, str):
        return prompt
    return "".join(block_text(block) for block in getattr(prompt, "content", ()))
