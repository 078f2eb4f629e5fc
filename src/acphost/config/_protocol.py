"""Which ACP protocol version a run asks for, and whether it offers the host's tools over MCP.

One choice, made in one order by every face: the command line's
``--protocol`` and ``--mcp-tools`` (or a batch spec's top-level keys) win,
then the agent's settings entry (``"protocol"``, ``"mcp_tools"``), then the
settings file's top level, then protocol 1 without MCP tools. Each face
folds the flags into the agent with :func:`with_protocol_choice` right
after it resolved the agent, and opens its run with
:func:`protocol_options`, so the agent it describes carries the choice (a
batch run travels to another machine as that description).

ACP "Initialization": the client sends the newest version it supports and
the agent answers the one it speaks; ``auto`` offers 2 and settles for 1.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ._spec import ProtocolChoice

if TYPE_CHECKING:
    from ._spec import AgentSpec, Settings

__all__ = [
    "PROTOCOL_CHOICES",
    "ProtocolChoice",
    "describe_protocol",
    "parse_protocol",
    "protocol_options",
    "with_protocol_choice",
]

#: Every protocol choice, in the order help texts list them.
PROTOCOL_CHOICES: tuple[ProtocolChoice, ...] = (1, 2, "auto")

#: The protocol a run asks for when nothing chose one.
DEFAULT_PROTOCOL: ProtocolChoice = 1


def parse_protocol(value: object) -> ProtocolChoice:
    """A protocol choice as typed (``"2"``, ``"auto"``) or as JSON/TOML holds it (``2``).

    Args:
        value: the flag's word, or the settings or spec value.

    Returns:
        1, 2 or ``"auto"``.

    Raises:
        ValueError: anything else; the message says what was given and what
            is accepted (the caller prefixes where it was given).

    """
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "auto":
            return "auto"
        if word in ("1", "2"):
            return cast("ProtocolChoice", int(word))
    elif isinstance(value, int) and not isinstance(value, bool) and value in (1, 2):
        return cast("ProtocolChoice", value)
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    raise ValueError(f"must be 1, 2 or auto, got {shown}")


def with_protocol_choice(
    spec: AgentSpec,
    settings: Settings | None = None,
    *,
    protocol: ProtocolChoice | None = None,
    mcp_tools: bool | None = None,
) -> AgentSpec:
    """The agent with the run's protocol choice settled: flag, else its entry, else the file's.

    Args:
        spec: the resolved agent (its settings entry's ``protocol`` and
            ``mcp_tools`` already on it).
        settings: the settings it was resolved from: their top-level
            ``protocol`` and ``mcp_tools`` apply to an agent that sets neither.
        protocol: ``--protocol`` (None: not given).
        mcp_tools: ``--mcp-tools`` (None: not given).

    Returns:
        The spec with :attr:`~AgentSpec.protocol` and
        :attr:`~AgentSpec.mcp_tools` set when anything chose them (else as it was).

    """
    chosen = _first(protocol, spec.protocol, settings.protocol if settings else None)
    tools = _first(mcp_tools, spec.mcp_tools, settings.mcp_tools if settings else None)
    if chosen == spec.protocol and tools == spec.mcp_tools:
        return spec
    return replace(spec, protocol=chosen, mcp_tools=tools)


def protocol_options(spec: AgentSpec) -> dict[str, Any]:
    """The ``protocol`` and ``mcp_tools`` of a run's :class:`~acphost.launch.RunOptions`.

    Args:
        spec: the agent, its choice settled by :func:`with_protocol_choice`.

    Returns:
        ``{"protocol": 1 | 2 | "auto", "mcp_tools": bool}``: protocol 1
        without MCP tools where nothing chose otherwise.

    """
    return {
        "protocol": spec.protocol if spec.protocol is not None else DEFAULT_PROTOCOL,
        "mcp_tools": bool(spec.mcp_tools),
    }


def describe_protocol(negotiated: int, asked: ProtocolChoice | None = None) -> str:
    """How every face says the version agreed on, and what was asked: ``protocol 2 (asked: auto)``.

    Args:
        negotiated: the version ``initialize`` agreed on
            (:attr:`~acphost.AcpClient.protocol_version`).
        asked: what the run asked for (:attr:`~acphost.launch.RunOptions.protocol`);
            None leaves it out.

    """
    return f"protocol {negotiated}" + (f" (asked: {asked})" if asked is not None else "")


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)
