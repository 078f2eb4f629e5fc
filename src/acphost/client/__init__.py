"""The client library: a connection to one agent, its sessions and their turns.

:class:`AcpClient` starts (or connects to) an agent and opens sessions;
a :class:`Session` sends prompts; a :class:`Turn` streams a prompt's updates
in wire order and resolves to a :class:`TurnResult`; :class:`SessionState`
holds what the host knows of a session. The most used names are also
exported by :mod:`acphost` itself.
"""

from __future__ import annotations

from ._budget import Budget, BudgetExceeded
from ._client import AcpClient, ClientContext
from ._host_bridge import ElicitationHandler, HostConfig
from ._lifecycle import LifecycleState
from ._options import (
    USE_DEFAULT,
    ClientOptions,
    UseDefault,
    auth_method_id,
    option_id,
    option_values,
)
from ._session import Session, UpdateListener
from ._state import Compaction, Message, SessionState, ToolCallState
from ._sync import DEMO_AGENT, RunResult, run
from ._turn import Turn, TurnResult

__all__ = [
    "DEMO_AGENT",
    "USE_DEFAULT",
    "AcpClient",
    "Budget",
    "BudgetExceeded",
    "ClientContext",
    "ClientOptions",
    "Compaction",
    "ElicitationHandler",
    "HostConfig",
    "LifecycleState",
    "Message",
    "RunResult",
    "Session",
    "SessionState",
    "ToolCallState",
    "Turn",
    "TurnResult",
    "UpdateListener",
    "UseDefault",
    "auth_method_id",
    "option_id",
    "option_values",
    "run",
]
