"""What every face needs before talking to an agent: the cwd, the settings, the agent."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from ..config import (
    DEMO,
    AgentSpec,
    Settings,
    SettingsError,
    agent_from_command,
    project_dir,
    resolve_agent,
    settings_for,
)
from ..safetext import sanitize, sanitize_line

if TYPE_CHECKING:
    from ..transport import StdioTransport

__all__ = [
    "AgentChoice",
    "UsageProblem",
    "fail",
    "resolve",
    "start_agent",
    "with_sandbox_choice",
]

logger = logging.getLogger("acphost.launch")


class UsageProblem(Exception):
    """A usage or configuration error: the face prints the message and exits 2."""


class AgentChoice(Protocol):
    """What the user chose: ``--agent``, ``--settings``, ``--cwd`` (parsed flags fit).

    A face that offers ``--agent-command`` adds an ``agent_command`` attribute.
    """

    agent: str | None
    settings: str | None
    cwd: str | None


def resolve(args: AgentChoice) -> tuple[str, Settings, AgentSpec]:
    """Return the real project folder, the settings and the chosen agent.

    The working directory (``--cwd``, else ours) is resolved once, every
    symbolic link followed (:func:`~acphost.config.project_dir`): the
    folder returned is the one whose settings were checked and read, so the
    face must start the agent there and open its session there, never in
    the path as given, which a link changed meanwhile could lead elsewhere.

    Returns:
        ``(cwd, settings, spec)``.

    Raises:
        UsageProblem: a bad ``--cwd``, settings file or agent name.

    """
    given = os.path.abspath(os.path.expanduser(args.cwd or os.curdir))
    cwd = project_dir(given)
    if not os.path.isdir(cwd):
        raise UsageProblem(f"--cwd {given} is not a directory")
    if cwd != given:
        logger.info(
            "working in %s (%s leads there through a symbolic link)",
            sanitize_line(cwd),
            sanitize_line(given),
        )
    try:
        settings = settings_for(args.settings, cwd)
    except SettingsError as exc:
        raise UsageProblem(str(exc)) from None
    command: str | None = getattr(args, "agent_command", None)
    if command is not None:
        if args.agent is not None:
            raise UsageProblem("--agent and --agent-command exclude each other: pick one")
        try:
            return (
                cwd,
                settings,
                with_sandbox_choice(getattr(args, "sandbox", None), agent_from_command(command)),
            )
        except SettingsError as exc:
            raise UsageProblem(f"--agent-command: {exc}") from None
    adjusted = DEMO.name in settings.agents or DEMO.name in settings.partial
    if args.agent == DEMO.name and not adjusted:
        # built in: no need to read the registry's presets
        return cwd, settings, with_sandbox_choice(getattr(args, "sandbox", None), DEMO)
    try:
        spec = resolve_agent(args.agent, settings)
    except KeyError as exc:
        where = f" (settings: {settings.path})" if settings.path else ""
        raise UsageProblem(f"{exc.args[0]}{where}") from None
    except SettingsError as exc:  # an acp:ID[@VERSION] the registry cannot run
        raise UsageProblem(str(exc)) from None
    return cwd, settings, with_sandbox_choice(getattr(args, "sandbox", None), spec)


def with_sandbox_choice(wanted: bool | None, spec: AgentSpec) -> AgentSpec:
    """The agent with ``--sandbox`` (True: insist) or ``--no-sandbox`` (False) applied.

    The flags win over the agent's settings entry (``"sandbox": false``);
    None leaves the spec as it is.

    Raises:
        UsageProblem: ``--sandbox`` where the OS sandbox cannot be had.

    """
    if wanted is None:
        return spec
    if wanted:
        from ..host import sandbox_support  # noqa: PLC0415 - only when asked for

        abi, why = sandbox_support()
        if abi == 0:
            raise UsageProblem(f"--sandbox: {why}; drop --sandbox to run the agent unconfined")
    return replace(spec, sandbox=wanted)


async def start_agent(
    spec: AgentSpec,
    cwd: str,
    *,
    close_grace: float = 2.0,
    env: dict[str, str] | None = None,
    confine: Callable[[], None] | None = None,
    unset: Sequence[str] = (),
) -> StdioTransport:
    """Start the agent's process now, before the host's heavier modules load.

    The assembly (:func:`~acphost.launch.open_run`) calls it first and hands
    the transport to :meth:`acphost.AcpClient.connect`: the agent's own
    start-up (often longer than ours) then overlaps the rest of ours.

    Args:
        spec: the agent.
        cwd: its working directory (the session's workspace): the real
            project folder :func:`resolve` returned, whose settings chose
            ``spec``.
        close_grace: seconds it gets to exit after EOF, and after SIGTERM.
        env: variables laid over the agent's own (the sandbox's ``TMPDIR``).
        confine: the sandbox's hook, run in the child before the agent starts.
        unset: variables the agent goes without (the sandbox's).

    Returns:
        The running agent; the client that is given it closes it.

    Raises:
        AgentStartError: the program is missing or not executable.

    """
    from ..transport import StdioTransport  # noqa: PLC0415 - light; only when an agent runs

    return await StdioTransport.spawn(
        spec.argv,
        env={**spec.env, **(env or {})},
        cwd=cwd,
        close_grace=close_grace,
        confine=confine,
        unset=unset,
    )


def fail(message: str) -> None:
    """Print one diagnostic line on stderr, ``acphost: message``.

    The message may quote the agent (its errors, its stderr): stderr is
    usually a terminal, so it always goes through the sanitiser.
    """
    print(f"acphost: {sanitize(message)}", file=sys.stderr)
