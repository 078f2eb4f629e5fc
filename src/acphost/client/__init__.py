"""The client library: a connection to one agent, its sessions and their turns.

:class:`AcpClient` starts (or connects to) an agent and opens sessions;
a :class:`Session` sends prompts; a :class:`Turn` streams a prompt's updates
in wire order and resolves to a :class:`TurnResult`; :class:`SessionState`
holds what the host knows of a session; a :class:`Subagent` is a child
session an agent runs for a subagent. The most used names are also
exported by :mod:`acphost` itself.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# Not `from typing import TYPE_CHECKING` (see acphost/__init__.py).
TYPE_CHECKING = False

__all__ = [
    "SYSTEM_PROMPT_MODES",
    "USE_DEFAULT",
    "AcpClient",
    "AgentTerminal",
    "Budget",
    "BudgetExceeded",
    "ClientContext",
    "ClientOptions",
    "decode_update",
    "Compaction",
    "CostStart",
    "ElicitationHandler",
    "Event",
    "EventStream",
    "HostConfig",
    "LifecycleState",
    "Message",
    "Observer",
    "PermissionAsked",
    "PermissionDecided",
    "ProtocolChoice",
    "Session",
    "SessionClosed",
    "SessionMessageState",
    "SessionOpened",
    "SessionState",
    "Subagent",
    "SubagentState",
    "SystemPromptMode",
    "TerminalExited",
    "TerminalReport",
    "TerminalStarted",
    "ToolCallState",
    "Turn",
    "TurnEnded",
    "TurnResult",
    "TurnStarted",
    "TurnState",
    "UpdateListener",
    "UpdatesReceived",
    "UseDefault",
    "auth_method_id",
    "describe_system_prompt_support",
    "option_id",
    "option_values",
    "system_prompt_modes",
    "terminal_report",
]

# Each name loads its own module on first use: the command line's run needs
# the client, not the synchronous runner or everything else re-exported here.
_LAZY = {
    "SYSTEM_PROMPT_MODES": "._sysprompt",
    "SystemPromptMode": "._sysprompt",
    "describe_system_prompt_support": "._sysprompt",
    "system_prompt_modes": "._sysprompt",
    "Budget": "._budget",
    "BudgetExceeded": "._budget",
    "CostStart": "._budget",
    "AcpClient": "._client",
    "decode_update": "._peer",
    "Event": "._events",
    "EventStream": "._events",
    "Observer": "._events",
    "PermissionAsked": "._events",
    "PermissionDecided": "._events",
    "SessionClosed": "._events",
    "SessionOpened": "._events",
    "TerminalExited": "._events",
    "TerminalStarted": "._events",
    "TurnEnded": "._events",
    "TurnStarted": "._events",
    "UpdatesReceived": "._events",
    "ClientContext": "._client",
    "ElicitationHandler": "..host",
    "HostConfig": "..host",
    "LifecycleState": "._lifecycle",
    "USE_DEFAULT": "._options",
    "ClientOptions": "._options",
    "ProtocolChoice": "._options",
    "UseDefault": "._options",
    "auth_method_id": "._options",
    "option_id": "._options",
    "option_values": "._options",
    "Session": "._session",
    "UpdateListener": "._session",
    "AgentTerminal": "._state",
    "Compaction": "._state",
    "Message": "._state",
    "SessionState": "._state",
    "TerminalReport": "._state",
    "ToolCallState": "._state",
    "terminal_report": "._state",
    "Turn": "._turn",
    "TurnResult": "._turn",
    "TurnState": "._turn",
    "Subagent": "._subagents",
    "SessionMessageState": "._subagent_state",
    "SubagentState": "._state",
}

if TYPE_CHECKING:
    from ..host import ElicitationHandler, HostConfig
    from ._budget import Budget, BudgetExceeded, CostStart
    from ._client import AcpClient, ClientContext
    from ._events import (
        Event,
        EventStream,
        Observer,
        PermissionAsked,
        PermissionDecided,
        SessionClosed,
        SessionOpened,
        TerminalExited,
        TerminalStarted,
        TurnEnded,
        TurnStarted,
        UpdatesReceived,
    )
    from ._lifecycle import LifecycleState
    from ._options import (
        USE_DEFAULT,
        ClientOptions,
        ProtocolChoice,
        UseDefault,
        auth_method_id,
        option_id,
        option_values,
    )
    from ._peer import decode_update
    from ._session import Session, UpdateListener
    from ._state import (
        AgentTerminal,
        Compaction,
        Message,
        SessionState,
        SubagentState,
        TerminalReport,
        ToolCallState,
        terminal_report,
    )
    from ._subagent_state import SessionMessageState
    from ._subagents import Subagent
    from ._sysprompt import (
        SYSTEM_PROMPT_MODES,
        SystemPromptMode,
        describe_system_prompt_support,
        system_prompt_modes,
    )
    from ._turn import Turn, TurnResult, TurnState

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
