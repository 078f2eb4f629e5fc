"""What every command needs before talking to an agent: cwd, settings, agent."""

from __future__ import annotations

import argparse
import os
import sys

from ..config import AgentSpec, Settings, SettingsError, find_settings, load_settings, resolve_agent

__all__ = ["UsageProblem", "resolve"]


class UsageProblem(Exception):
    """A usage or configuration error: print the message, exit 2."""


def resolve(args: argparse.Namespace) -> tuple[str, Settings, AgentSpec]:
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
    """Print one diagnostic line on stderr."""
    print(f"acphost: {message}", file=sys.stderr)
