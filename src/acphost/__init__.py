"""acphost: the host side of the Agent Client Protocol.

Start an agent, open sessions, send prompts and consume one ordered, typed
stream of updates, while host providers answer the agent's file, permission
and terminal requests inside a workspace jail::

    import asyncio, acphost

    async def main():
        async with acphost.AcpClient.start(["python", "-m", "acphost.agents.demo"]) as client:
            session = await client.new_session("/path/to/project")
            turn = session.prompt("hello")
            async for update in turn:
                print(update.text, end="")
            print((await turn).stop_reason)

    asyncio.run(main())

Names are imported lazily: ``import acphost`` loads neither asyncio nor the
schema until one of them is used (the CLI's start-up time depends on it).
"""

from __future__ import annotations

from ._lazy import lazy_exports
from ._version import __version__

# The error classes are cheap (no typing at run time) and wanted by every
# caller's except clauses: imported eagerly, unlike the rest.
from .errors import (
    AcpError,
    AcpTimeout,
    AgentExited,
    AgentStartError,
    AuthRequired,
    CapabilityNotSupported,
    InternalError,
    InvalidParams,
    InvalidRequest,
    LocalProtocolError,
    MethodNotFound,
    NotAnAcpAgent,
    OutputFileError,
    ParseError,
    RemoteProtocolError,
    RequestCancelled,
    RequestError,
    ResourceNotFound,
    UsageError,
)

# Not `from typing import TYPE_CHECKING`: typing pulls in re and enum (~6 ms),
# which `import acphost` and the demo agent's start-up must not pay.
TYPE_CHECKING = False

__all__ = [
    "AcpClient",
    "AcpError",
    "AcpTimeout",
    "AgentExited",
    "AgentStartError",
    "AuthRequired",
    "CapabilityNotSupported",
    "EventStream",
    "HostConfig",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "LocalProtocolError",
    "Message",
    "MethodNotFound",
    "NotAnAcpAgent",
    "OutputFileError",
    "ParseError",
    "RemoteProtocolError",
    "RequestCancelled",
    "RequestError",
    "ResourceNotFound",
    "RunResult",
    "Session",
    "SessionState",
    "ToolCallState",
    "Turn",
    "TurnResult",
    "UsageError",
    "__version__",
    "run",
]

_LAZY = {
    "AcpClient": ".client",
    "EventStream": ".client",
    "HostConfig": ".host",
    "Session": ".client",
    "Message": ".client",
    "SessionState": ".client",
    "ToolCallState": ".client",
    "Turn": ".client",
    "TurnResult": ".client",
    "RunResult": ".launch",
    "run": ".launch",
}
if TYPE_CHECKING:
    from .client import (
        AcpClient,
        EventStream,
        Message,
        Session,
        SessionState,
        ToolCallState,
        Turn,
        TurnResult,
    )
    from .host import HostConfig
    from .launch import RunResult, run

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
