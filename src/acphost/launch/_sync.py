"""The synchronous twin for scripts: one call, one prompt, one result.

It wraps the async client (never a second copy of it) through the one
assembly, :func:`~acphost.launch.open_run`: each call runs its own event
loop, starts the agent, runs one turn and ends the agent.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..errors import UsageError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..client import ClientOptions, SystemPromptMode, ToolCallState

__all__ = ["DEMO_AGENT", "RunResult", "run"]

#: The argv of the built-in demo agent.
DEMO_AGENT: tuple[str, ...] = (sys.executable, "-m", "acphost.agents.demo")


@dataclass(frozen=True, slots=True)
class RunResult:
    """The outcome of :func:`run`.

    Attributes:
        text: the agent's reply text.
        stop_reason: why the turn ended (``end_turn``, ``cancelled``...).
        tool_calls: the tool calls of the turn, merged.
        session_id: the session used.
        protocol_version: the ACP protocol version ``initialize`` agreed on
            (1 or 2; see the ``protocol`` option of :func:`run`).

    """

    text: str
    stop_reason: str
    tool_calls: tuple[ToolCallState, ...]
    session_id: str
    protocol_version: int = 1


def run(
    prompt: str,
    *,
    agent: Sequence[str] = DEMO_AGENT,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    system_prompt: str | None = None,
    system_prompt_mode: SystemPromptMode = "append",
    **options: Unpack[ClientOptions],
) -> RunResult:
    """Run one prompt against an agent and return its reply (blocking).

    Args:
        prompt: the prompt text.
        agent: the agent's argv (default: the built-in demo agent).
        cwd: the session's workspace (default: the current directory).
        env: variables overlaid on the environment for the agent.
        system_prompt: the session's system prompt (needs an agent that
            advertises ``sessionCapabilities.systemPrompt``).
        system_prompt_mode: ``append`` (to the agent's own instructions) or
            ``override`` (needs ``sessionCapabilities.systemPrompt.mode.override``).
        **options: client options (:class:`~acphost.client.ClientOptions`),
            e.g. ``host=HostConfig(allow_write=True)``; among them
            ``protocol`` (``1``, the default, ``2`` or ``"auto"``: offer 2 and
            fall back to 1 on the same connection) and ``mcp_tools`` (offer
            the host's file and command tools as the MCP server ``acphost`` on
            version 1 too; version 2 always offers them).

    Returns:
        The reply text, stop reason and tool calls.

    Raises:
        UsageError: called from a running event loop (use ``AcpClient`` there),
            or ``agent`` is empty.
        TypeError: an unknown option.
        UsageProblem: a system prompt the agent does not advertise (nothing
            is sent after ``initialize``), or an empty one; a ``protocol``
            that is not 1, 2 or ``"auto"`` (before the agent starts).
        AcpError: anything the async client raises.

    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise UsageError("acphost.run() blocks; in async code use AcpClient.start() instead")
    argv = list(agent)
    if not argv:
        raise UsageError("acphost.run(): agent is an empty command")
    from ..client import ClientOptions  # noqa: PLC0415 - keep `import acphost` light

    unknown = set(options) - set(ClientOptions.__annotations__)
    if unknown:  # at once, before anything starts
        raise TypeError(
            f"unknown option(s) for the client: {', '.join(sorted(unknown))}; "
            f"valid: {', '.join(sorted(ClientOptions.__annotations__))}"
        )
    workdir = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
    prompted = (system_prompt, system_prompt_mode)
    return asyncio.run(_run(prompt, argv, workdir, env, dict(options), system=prompted))


async def _run(
    prompt: str,
    argv: list[str],
    cwd: str,
    env: Mapping[str, str] | None,
    client: dict[str, Any],
    *,
    system: tuple[str | None, SystemPromptMode] = (None, "append"),
) -> RunResult:
    from ..config import AgentSpec  # noqa: PLC0415
    from ._open import RunOptions, open_run  # noqa: PLC0415

    host = client.pop("host", None)
    tap = client.pop("tap", None)
    trace = client.pop("trace", None)
    # The assembly owns the version and the tools' offer (RunOptions): as
    # client options they would be overwritten by its defaults (1, no tools).
    protocol = client.pop("protocol", 1)
    mcp_tools = bool(client.pop("mcp_tools", False))
    spec = AgentSpec(
        name=os.path.basename(argv[0]),
        command=argv[0],
        args=tuple(argv[1:]),
        env=dict(env or {}),
        source="acphost.run",
    )
    options = RunOptions(
        agent=spec,
        cwd=cwd,
        client=cast("ClientOptions", client),
        host=host,
        taps=[tap] if tap is not None else [],
        trace=trace,
        system_prompt=system[0],
        system_prompt_mode=system[1],
        protocol=protocol,
        mcp_tools=mcp_tools,
    )
    async with open_run(options) as opened:
        session = opened.session
        result = await session.prompt(prompt)
        return RunResult(
            result.text,
            result.stop_reason,
            result.tool_calls,
            session.id,
            opened.client.protocol_version,
        )
