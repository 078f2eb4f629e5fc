"""What every face needs before talking to an agent: the cwd, the settings, the agent."""

from __future__ import annotations

import os
import sys
from typing import Protocol

from ..config import AgentSpec, Settings, SettingsError, find_settings, load_settings, resolve_agent
from ..safetext import sanitize

__all__ = ["AgentChoice", "UsageProblem", "fail", "resolve"]


class UsageProblem(Exception):
    """A usage or configuration error: the face prints the message and exits 2."""


class AgentChoice(Protocol):
    """What the user chose: ``--agent``, ``--settings``, ``--cwd`` (parsed flags fit)."""

    agent: str | None
    settings: str | None
    cwd: str | None


def resolve(args: AgentChoice) -> tuple[str, Settings, AgentSpec]:
    """Return the absolute cwd, the settings and the chosen agent.

    Raises:
        UsageProblem: a bad ``--cwd``, settings file or agent name.

    """
    cwd = os.path.abspath(os.path.expanduser(args.cwd)) if args.cwd else os.getcwd()
    if not os.path.isdir(cwd):
        raise UsageProblem(f"--cwd {cwd} is not a directory")
    path, explicit = find_settings(args.settings, cwd)
    try:
        settings = load_settings(path, explicit=explicit)
    except SettingsError as exc:
        raise UsageProblem(str(exc)) from None
    try:
        spec = resolve_agent(args.agent, settings)
    except KeyError as exc:
        where = f" (settings: {settings.path})" if settings.path else ""
        raise UsageProblem(f"{exc.args[0]}{where}") from None
    return cwd, settings, spec


def fail(message: str) -> None:
    """Print one diagnostic line on stderr, ``acphost: message``.

    The message may quote the agent (its errors, its stderr): stderr is
    usually a terminal, so it always goes through the sanitiser.
    """
    print(f"acphost: {sanitize(message)}", file=sys.stderr)
