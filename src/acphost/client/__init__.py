"""The client library: a connection to one agent, its sessions and their turns.

:class:`AcpClient` starts (or connects to) an agent and opens sessions;
a :class:`Session` sends prompts; a :class:`Turn` streams a prompt's updates
in wire order and resolves to a :class:`TurnResult`; :class:`SessionState`
holds what the host knows of a session. The most used names are also
exported by :mod:`acphost` itself.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# Not `from typing import TYPE_CHECKING` (see acphost/__init__.py).
TYPE_CHECKING = False

__all__ = [
    "USE_DEFAULT",
    "AcpClient",
    "Budget",
    "BudgetExceeded",
    "ClientContext",
    "CostStart",
    "ClientOptions",
    "Compaction",
    "ElicitationHandler",
    "HostConfig",
    "LifecycleState",
    "Message",
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
]

# Each name loads its own module on first use: the command line's run needs
# the client, not the synchronous runner or everything else re-exported here.
_LAZY = {
    "Budget": "._budget",
    "BudgetExceeded": "._budget",
    "CostStart": "._budget",
    "AcpClient": "._client",
    "ClientContext": "._client",
    "ElicitationHandler": "._host_bridge",
    "HostConfig": "._host_bridge",
    "LifecycleState": "._lifecycle",
    "USE_DEFAULT": "._options",
    "ClientOptions": "._options",
    "UseDefault": "._options",
    "auth_method_id": "._options",
    "option_id": "._options",
    "option_values": "._options",
    "Session": "._session",
    "UpdateListener": "._session",
    "Compaction": "._state",
    "Message": "._state",
    "SessionState": "._state",
    "ToolCallState": "._state",
    "Turn": "._turn",
    "TurnResult": "._turn",
}

if TYPE_CHECKING:
    from ._budget import Budget, BudgetExceeded, CostStart
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
    from ._turn import Turn, TurnResult

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
