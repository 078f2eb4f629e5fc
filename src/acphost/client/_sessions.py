"""Opening sessions: ``session/new``, load, resume, list, delete, and fork.

The session half of :class:`~acphost.AcpClient`, kept apart from its
construction and lifecycle: every method checks the agent's capabilities
before anything is sent and registers the session with the peer so its
updates reach it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..errors import CapabilityNotSupported, UsageError
from ._session import Session
from ._unstable import system_prompt_wire

if TYPE_CHECKING:
    from ._options import Settings
    from ._peer import Peer
    from ._unstable import Unstable

__all__ = ["SessionMethods"]


class SessionMethods:
    """The session methods of :class:`~acphost.AcpClient` (a base class, internal)."""

    _peer: Peer
    _settings: Settings

    def _require_open(self) -> None:
        raise NotImplementedError

    @property
    def unstable(self) -> Unstable:
        """The unstable methods (see :class:`~acphost.AcpClient`)."""
        raise NotImplementedError

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
    ) -> Session:
        """Open a new session (``session/new``).

        Args:
            cwd: the session's absolute working directory (the workspace root).
            mcp_servers: MCP servers for the agent (schema objects or wire dicts).
            additional_directories: further absolute workspace roots.
            meta: ``_meta`` for the request.
            system_prompt: instructions appended to the agent's own (a string),
                or an unstable ``SystemPrompt``; unstable, needs ``unstable=True``
                and an agent advertising ``sessionCapabilities.systemPrompt``.

        Raises:
            AuthRequired: authenticate with one of ``exc.auth_methods``, then retry.
            LocalProtocolError: a relative path, or an unsupported MCP transport.
            CapabilityNotSupported: a system prompt the agent cannot take.
            UsageError: a system prompt without ``unstable=True``.

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
        result = await peer.request_raw(
            s.SESSION_NEW,
            self._with_system_prompt(request.to_wire(), system_prompt),
            timeout=self._settings.session_timeout,
        )
        response = s.NewSessionResponse.from_wire(result if result is not None else {})
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
    ) -> Session:
        """Load a previous session (``session/load``); its history is replayed.

        The session is registered before the request, so the replayed updates
        land in its state; when this returns, the replay is complete.
        ``system_prompt`` is as for :meth:`new_session`.

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
            request, s.LoadSessionResponse, cwd=cwd_s, dirs=dirs, system_prompt=system_prompt
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str],
        *,
        mcp_servers: Sequence[Any] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        system_prompt: str | Any | None = None,
    ) -> Session:
        """Resume a session without replaying its history (``session/resume``).

        ``system_prompt`` is as for :meth:`new_session`.

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
            request, s.ResumeSessionResponse, cwd=cwd_s, dirs=dirs, system_prompt=system_prompt
        )

    async def _reopen(
        self,
        request: s.LoadSessionRequest | s.ResumeSessionRequest,
        result_type: type[s.LoadSessionResponse] | type[s.ResumeSessionResponse],
        *,
        cwd: str,
        dirs: list[str],
        system_prompt: str | Any | None,
    ) -> Session:
        method = s.SESSION_LOAD if isinstance(request, s.LoadSessionRequest) else s.SESSION_RESUME
        params = self._with_system_prompt(request.to_wire(), system_prompt)
        # Registered before the request, so a load's replayed updates land in it.
        session = self._session(request.session_id, cwd, dirs)
        session.state.system_prompt = _prompt_text(system_prompt)
        self._peer.register(session.id, session)
        try:
            result = await self._peer.request_raw(
                method, params, timeout=self._settings.session_timeout
            )
            response = result_type.from_wire(result if result is not None else {})
        except BaseException:
            self._peer.unregister(session.id)
            session._abandoned()
            raise
        session._apply_setup(response.modes, response.config_options)
        # A load's replayed history came before this answer (UpdatesReceived
        # before SessionOpened): observers that follow from the opening on
        # see the new turns only.
        session._opened("load" if method == s.SESSION_LOAD else "resume")
        return session

    def _with_system_prompt(self, params: dict[str, Any], prompt: str | Any | None) -> Any:
        if prompt is None:
            return params
        self.unstable.require_system_prompt()
        return {**params, "systemPrompt": system_prompt_wire(prompt)}

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


def _prompt_text(prompt: str | Any | None) -> str | None:
    """The text of a system prompt, for the session state."""
    if prompt is None or isinstance(prompt, str):
        return prompt
    return "".join(getattr(block, "text", "") for block in getattr(prompt, "content", ()))
