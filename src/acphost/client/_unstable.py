"""Unstable protocol features, behind one switch (``unstable=True``).

The unstable schema (``schema.unstable.json``) carries methods that may change
in any release: ``session/fork``, ``session/set_title``, ``session/status``,
``session/archive`` and ``session/unarchive``, and ``auth/status`` with its
``auth/status_update`` notification. (The system prompt on ``session/new``,
``session/load`` and ``session/resume`` is stable now: see
:mod:`._sysprompt`; a client started with ``unstable=True`` may still pass
an unstable ``SystemPrompt`` object.) acphost never
advertises, sends or answers any of them unless the client was started with
``unstable=True``; each call is also gated by the capability the agent
advertised in the unstable shape of its ``initialize`` answer.

Use them through :attr:`AcpClient.unstable <acphost.AcpClient.unstable>`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..errors import CapabilityNotSupported
from ..schema import SchemaError
from ._peer import Peer

if TYPE_CHECKING:
    from ..schema import unstable as u

__all__ = ["Unstable"]

logger = logging.getLogger("acphost.client")


def _unstable_schema() -> Any:
    from ..schema import unstable  # noqa: PLC0415 - only loaded by clients that opted in

    return unstable


class Unstable:
    """The unstable methods of one client (internal; reached as ``client.unstable``).

    Args:
        peer: the client's connection and negotiated state.
        timeout: the bound on each call (the client's session timeout).

    """

    def __init__(self, peer: Peer, timeout: float | None) -> None:
        self._peer = peer
        self._timeout = timeout
        self._capabilities: u.AgentCapabilities | None = None
        #: The agent's last ``auth/status_update`` (or ``auth/status`` answer).
        self.auth: u.AuthStatusResponse | None = None
        #: The ``authStatus`` object of the agent's last ``_auth/status_update``,
        #: the extension the newest adapters send instead (its keys are theirs:
        #: ``kind``, ``label``, ``detail``), as sent.
        self.adapter_auth: dict[str, Any] | None = None

    @property
    def capabilities(self) -> u.AgentCapabilities:
        """The agent's capabilities as the unstable schema reads them."""
        if self._capabilities is None:
            raw = self._peer.initialize_raw or {}
            caps = raw.get("agentCapabilities") if isinstance(raw, dict) else None
            self._capabilities = _unstable_schema().AgentCapabilities.from_wire(
                caps if isinstance(caps, dict) else {}, "agentCapabilities"
            )
        return self._capabilities

    def _session_cap(self, name: str, what: str) -> None:
        caps = self.capabilities.session_capabilities
        if caps is None or getattr(caps, name, None) is None:
            wire = {"system_prompt": "systemPrompt"}.get(name, name)
            raise CapabilityNotSupported(
                f"sessionCapabilities.{wire}", f"the agent does not support {what}"
            )

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        return await self._peer.request_raw(method, params, timeout=self._timeout)

    async def set_title(self, session_id: str, title: str) -> None:
        """Rename a session (``session/set_title``).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.title``.

        """
        self._session_cap("title", "session/set_title")
        await self._call("session/set_title", {"sessionId": session_id, "title": title})
        session = self._peer.sessions.get(session_id)
        state = getattr(session, "state", None)
        if state is not None:
            state.title = title

    async def status(self, session_id: str) -> str:
        """Whether the agent has the session in memory (``open``), saved (``saved``)...

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.status``.

        """
        self._session_cap("status", "session/status")
        result = await self._call("session/status", {"sessionId": session_id})
        response = _unstable_schema().SessionStatusResponse.from_wire(result or {}, "result")
        return str(response.status)

    async def archive(self, session_id: str) -> None:
        """Archive a session (``session/archive``).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.archive``.

        """
        self._session_cap("archive", "session/archive")
        await self._call("session/archive", {"sessionId": session_id})

    async def unarchive(self, session_id: str) -> None:
        """Bring an archived session back (``session/unarchive``).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``sessionCapabilities.archive``.

        """
        self._session_cap("archive", "session/unarchive")
        await self._call("session/unarchive", {"sessionId": session_id})

    async def auth_status(self) -> u.AuthStatusResponse:
        """The agent's authentication state (``auth/status``).

        Raises:
            CapabilityNotSupported: the agent does not advertise ``auth.status``.

        """
        auth = self.capabilities.auth
        if auth is None or auth.status is None:
            raise CapabilityNotSupported("auth.status", "the agent does not support auth/status")
        result = await self._call("auth/status", {})
        self.auth = _unstable_schema().AuthStatusResponse.from_wire(result or {}, "result")
        return self.auth

    def receive_auth_status_update(self, params: Any) -> None:
        """Record an ``auth/status_update`` notification from the agent.

        Runs in the connection's reader: a malformed one is logged, never fatal.
        """
        try:
            update = _unstable_schema().AuthStatusUpdateNotification.from_wire(params, "params")
        except SchemaError as exc:
            logger.warning("ignored a malformed auth/status_update: %s", exc)
            return
        self.auth = _unstable_schema().AuthStatusResponse(
            state=update.state, accounts=update.accounts, meta=update.meta
        )

    def receive_adapter_auth_status(self, params: Any) -> None:
        """Keep the ``authStatus`` of an ``_auth/status_update`` (an extension, in no schema).

        Runs in the connection's reader; anything but an object there is ignored.
        """
        status = params.get("authStatus") if isinstance(params, dict) else None
        if isinstance(status, dict):
            self.adapter_auth = status
        else:
            logger.debug("ignored an _auth/status_update without an authStatus object")

    def require_system_prompt(self) -> None:
        """Raise unless the agent takes a system prompt on new, load and resume.

        Kept for callers of the unstable API; the check is the stable one now
        (:attr:`AcpClient.system_prompt_modes <acphost.AcpClient.system_prompt_modes>`).

        Raises:
            CapabilityNotSupported: it does not advertise ``sessionCapabilities.systemPrompt``.

        """
        self._session_cap("system_prompt", "a system prompt")
