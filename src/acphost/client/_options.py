"""The client's options, declared once and typed, and small helpers on schema unions.

:class:`ClientOptions` is the one declaration of what :meth:`AcpClient.start`
and :meth:`AcpClient.connect` accept (as typed keyword arguments: a typo is a
type error, and at run time a :class:`TypeError` naming the valid options).
``USE_DEFAULT`` stands for "the default" where ``None`` means something else
(``init_timeout=None`` waits forever), in the manner of httpx's
``USE_CLIENT_DEFAULT``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from .. import schema as s
from .._version import __version__
from ..errors import UsageError
from ..rpc import DEFAULT_MAX_LINE_BYTES, FrameTap, ProtocolViolation

if TYPE_CHECKING:
    import os

    from ..host import HostConfig
    from ..trace import TraceWriter

__all__ = [
    "PROTOCOL_CHOICES",
    "USE_DEFAULT",
    "ClientOptions",
    "ProtocolChoice",
    "UseDefault",
    "check_protocol",
    "auth_method_id",
    "option_id",
    "option_values",
]

#: Default bound on ``initialize``: npx may download the agent on first launch.
DEFAULT_INIT_TIMEOUT = 60.0
#: Default bound on session setup (new, load, resume, list, close...).
DEFAULT_SESSION_TIMEOUT = 60.0


class UseDefault(enum.Enum):
    """The type of :data:`USE_DEFAULT`."""

    USE_DEFAULT = "USE_DEFAULT"

    def __repr__(self) -> str:
        return "USE_DEFAULT"


#: "Use the default" for options where ``None`` has a meaning of its own.
USE_DEFAULT = UseDefault.USE_DEFAULT


#: The protocol versions a client can be asked to speak (see ``ClientOptions.protocol``).
ProtocolChoice = Literal[1, 2, "auto"]
PROTOCOL_CHOICES: tuple[ProtocolChoice, ...] = (1, 2, "auto")


def check_protocol(value: object) -> ProtocolChoice:
    """``value`` as a protocol choice.

    Raises:
        UsageError: not 1, 2 or ``"auto"`` (the message lists them).

    """
    for choice in PROTOCOL_CHOICES:
        if value == choice and type(value) is type(choice):
            return choice
    raise UsageError(f"unknown ACP protocol version {value!r}: use 1, 2 or 'auto'")


class ClientOptions(TypedDict, total=False):
    """The options of a client, all optional.

    Attributes:
        host: a :class:`~acphost.HostConfig`: file system, terminals,
            permission policy, elicitation (default: reads inside the
            session's workspace, terminals, the ``AllowReads`` policy).
        client_info: a :class:`~acphost.schema.Implementation` naming the host.
        init_timeout: seconds for ``initialize`` (default 60; None: unbounded).
        session_timeout: seconds for session setup calls (default 60; None: unbounded).
        max_line_bytes: the largest frame accepted from the agent.
        tap: ``(direction, bytes)`` callback that sees every frame.
        trace: a path (or :class:`~acphost.trace.TraceWriter`): record every
            frame, secrets redacted, as JSONL.
        on_violation: callback for malformed frames from the agent.
        keep_history: keep message content in session state (default True).
        unstable: enable unstable protocol features (``session/fork``, ...):
            never advertised or sent without it.
        auth_terminal: advertise terminal authentication (the host runs the
            agent's login command itself).
        notices: advertise ``session.notices`` (default True): the agent may
            then send ``notice`` updates.
        compaction: advertise ``session.compaction`` (default True): the
            agent may then send compaction updates.
        subagents: advertise ``subagents`` (default True): the agent may
            then run subagents as child sessions, streamed to the host
            (:attr:`Session.subagents <acphost.Session.subagents>`); without
            it, agents show a subagent as one tool call, if at all.
        protocol: the ACP protocol version to speak: ``1`` (the default),
            ``2`` (the v2 draft the newest adapters answer to; an agent that
            answers another version is refused), or ``"auto"`` (offer 2, and
            initialize again with 1 on the same connection when the agent
            answers 1 or refuses). :attr:`AcpClient.protocol_version
            <acphost.AcpClient.protocol_version>` says what was agreed.
        mcp_tools: offer the host's file and command tools to the agent as an
            MCP server named ``acphost`` in each session's ``mcpServers``
            (:class:`~acphost.host.HostTools`; every call passes the same
            jail, policy and audit as ``fs/*`` and ``terminal/*``). None (the
            default): on ACP v2 only, which has no client ``fs/*`` or
            ``terminal/*``; a host with neither files nor terminals offers none.

    """

    host: HostConfig | None
    client_info: s.Implementation | None
    init_timeout: float | UseDefault | None
    session_timeout: float | UseDefault | None
    max_line_bytes: int
    tap: FrameTap | None
    trace: str | os.PathLike[str] | TraceWriter | None
    on_violation: Callable[[ProtocolViolation], None] | None
    keep_history: bool
    unstable: bool
    auth_terminal: bool
    notices: bool
    compaction: bool
    subagents: bool
    protocol: ProtocolChoice
    mcp_tools: bool | None


@dataclass(frozen=True, slots=True)
class Settings:
    """:class:`ClientOptions` resolved: every default filled in (internal)."""

    client_info: s.Implementation
    init_timeout: float | None
    session_timeout: float | None
    max_line_bytes: int
    tap: FrameTap | None
    trace: Any
    on_violation: Callable[[ProtocolViolation], None] | None
    keep_history: bool
    unstable: bool
    auth_terminal: bool
    notices: bool
    compaction: bool
    subagents: bool
    protocol: ProtocolChoice
    mcp_tools: bool | None

    @classmethod
    def resolve(cls, options: ClientOptions) -> Settings:
        """Fill in the defaults.

        Raises:
            TypeError: an unknown option (the message lists the valid ones).

        """
        unknown = set(options) - set(ClientOptions.__annotations__)
        if unknown:
            raise TypeError(
                f"unknown option(s) for the client: {', '.join(sorted(unknown))}; "
                f"valid: {', '.join(sorted(ClientOptions.__annotations__))}"
            )
        init = options.get("init_timeout", USE_DEFAULT)
        session = options.get("session_timeout", USE_DEFAULT)
        return cls(
            client_info=options.get("client_info")
            or s.Implementation(name="acphost", title="acphost", version=__version__),
            init_timeout=DEFAULT_INIT_TIMEOUT if init is USE_DEFAULT else init,
            session_timeout=DEFAULT_SESSION_TIMEOUT if session is USE_DEFAULT else session,
            max_line_bytes=options.get("max_line_bytes", DEFAULT_MAX_LINE_BYTES),
            tap=options.get("tap"),
            trace=options.get("trace"),
            on_violation=options.get("on_violation"),
            keep_history=options.get("keep_history", True),
            unstable=options.get("unstable", False),
            auth_terminal=options.get("auth_terminal", False),
            notices=options.get("notices", True),
            compaction=options.get("compaction", True),
            subagents=options.get("subagents", True),
            protocol=check_protocol(options.get("protocol", 1)),
            mcp_tools=options.get("mcp_tools"),
        )


def auth_method_id(method: s.AuthMethod) -> str:
    """The id of an auth method, also of one of a type this version does not know."""
    if isinstance(method, s.UnknownAuthMethod):
        return str(method.raw.get("id", ""))
    return method.id


def option_id(option: s.SessionConfigOption) -> str:
    """The id of a config option, also of one of a kind this version does not know."""
    if isinstance(option, s.UnknownSessionConfigOption):
        return str(option.raw.get("id", ""))
    return option.id


def option_values(option: s.SessionConfigOption) -> list[str]:
    """The value ids a ``select`` option accepts (groups flattened)."""
    values: list[str] = []
    for item in getattr(option, "options", None) or ():
        inner = getattr(item, "options", None)
        if inner is not None:  # a group
            values.extend(v.value for v in inner)
        else:
            values.append(item.value)
    return values
