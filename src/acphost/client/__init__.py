"""The client library: a connection to one agent, its sessions and their turns.

:class:`AcpClient` starts (or connects to) an agent and opens sessions;
a :class:`Session` sends prompts; a :class:`Turn` streams a prompt's updates
in wire order and resolves to a :class:`TurnResult`; :class:`SessionState`
holds what the host knows of a session. The most used names are also
exported by :mod:`acphost` itself.
"""

from __future__ import annotations

from ._client import AcpClient, ClientContext, auth_method_id
from ._host_bridge import ElicitationHandler, HostConfig
from ._session import Session, UpdateListener, option_id, option_values
from ._state import Message, SessionState, ToolCallState
from ._sync import DEMO_AGENT, RunResult, run
from ._turn import Turn, TurnResult

__all__ = [
    "DEMO_AGENT",
    "AcpClient",
    "ClientContext",
    "ElicitationHandler",
    "HostConfig",
    "Message",
    "RunResult",
    "Session",
    "SessionState",
    "ToolCallState",
    "Turn",
    "TurnResult",
    "UpdateListener",
    "auth_method_id",
    "option_id",
    "option_values",
    "run",
]
