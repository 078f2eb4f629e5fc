"""What an agent launch is made of (:class:`AgentSpec`), and a settings file once read.

Also the one way to turn a command line typed by the user into a spec
(:func:`agent_from_command`): split as a POSIX shell would, run as an argv,
never through a shell.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import AcpError

__all__ = ["AgentSpec", "ProtocolChoice", "Settings", "SettingsError", "agent_from_command"]

#: A protocol choice: version 1, version 2, or ``auto`` (offer 2, fall back to 1).
ProtocolChoice = Literal[1, 2, "auto"]


class SettingsError(AcpError, ValueError):
    """A settings file or an agent command is missing, unreadable or malformed.

    The message is one line naming the file (or the command) and the key.
    """


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """How to launch one agent.

    Attributes:
        name: the name users pick it by (``-a NAME``).
        command: the program to run.
        args: its arguments.
        env: variables overlaid on the environment.
        source: where it comes from (``built-in``, ``registry``,
            ``--agent-command`` or the settings path).
        description: a one-line description, when known.
        missing_file_returns_empty: answer reads of missing files with ``""``
            (some agents, e.g. Gemini CLI, read before creating a file).
        max_tokens: the most tokens a turn may have in use (settings
            ``max_tokens``; ``--max-tokens`` wins), or None.
        max_cost: the most a turn may cost (settings ``max_cost``;
            ``--max-cost`` wins), or None.
        cost_currency: the currency ``max_cost`` is counted in, or None for any.
        system_prompt: the system prompt its sessions get (settings
            ``system_prompt``; ``--system-prompt`` wins), or None.
        system_prompt_mode: ``append`` or ``override`` (settings
            ``system_prompt_mode``; ``--system-prompt-mode`` wins), or None
            for ``append``.
        version: the agent's version this launch pins (a registry agent run
            through npx or uvx), or None when unknown (a settings command, a
            binary found on PATH).
        sandbox: the OS sandbox for it: None (the default) where the system
            has one, True insists (settings ``"sandbox": true``, ``--sandbox``),
            False turns it off (``"sandbox": false``, ``--no-sandbox``); a run's
            own choice (``RunOptions.confine``) wins.
        sandbox_write: the folders (or files) it may write beside its
            workspace: its state and caches (``~`` and ``$XDG_*_HOME`` expand);
            the preset's, then settings ``"sandbox": {"write": [...]}``.
        sandbox_deny: more paths it may not read (settings
            ``"sandbox": {"deny": [...]}``), beside the defaults.
        protocol: the ACP protocol version its runs ask for: 1, 2 or
            ``auto`` (settings ``"protocol"``; ``--protocol`` wins), or None
            for the settings' top-level choice, else 1.
        mcp_tools: offer it the host's tools as an MCP server, on v1 too
            (settings ``"mcp_tools"``; ``--mcp-tools`` wins), or None for the
            settings' top-level choice, else no.

    """

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    source: str = "settings"
    description: str = ""
    missing_file_returns_empty: bool = False
    max_tokens: int | None = None
    max_cost: float | None = None
    cost_currency: str | None = None
    system_prompt: str | None = None
    system_prompt_mode: str | None = None
    version: str | None = None
    sandbox: bool | None = None
    sandbox_write: tuple[str, ...] = ()
    sandbox_deny: tuple[str, ...] = ()
    protocol: ProtocolChoice | None = None
    mcp_tools: bool | None = None

    @property
    def argv(self) -> list[str]:
        """The full command line."""
        return [self.command, *self.args]


@dataclass(frozen=True, slots=True)
class Settings:
    """A parsed settings file.

    Attributes:
        path: the file it came from (None when no file was found).
        agents: agent specs in file order.
        mcp_servers: MCP servers in ACP wire form.
        partial: entries without ``command`` that adjust a preset of that name.
        protocol: the top-level ``"protocol"``: every agent's choice unless
            its entry makes its own (None: not said).
        mcp_tools: the top-level ``"mcp_tools"``, likewise.

    """

    path: Path | None
    agents: dict[str, AgentSpec]
    mcp_servers: list[dict[str, Any]]
    partial: dict[str, dict[str, Any]] = field(default_factory=dict)
    protocol: ProtocolChoice | None = None
    mcp_tools: bool | None = None


def agent_from_command(text: str, *, name: str | None = None) -> AgentSpec:
    """Build an agent spec from a command line, e.g. ``"npx my-agent --acp"``.

    The text is split into words as a POSIX shell would (quotes and
    backslashes group words) and the words are run as an argv: no shell ever
    sees them, so ``;``, ``|``, ``$VAR`` and globs are plain characters.

    Args:
        text: the command line.
        name: the agent's name (default: the program's file name, or the
            module of ``python -m module``).

    Returns:
        A spec with ``source`` ``"--agent-command"``.

    Raises:
        SettingsError: the text is empty, has an unclosed quote or a trailing
            backslash, or contains a NUL character.

    """
    if "\0" in text:
        raise SettingsError("the agent command contains a NUL character")
    try:
        words = shlex.split(text, posix=True)
    except ValueError as exc:
        # shlex says "No closing quotation" or "No escaped character".
        raise SettingsError(
            f"cannot split the agent command {text!r}: {str(exc).lower()} "
            "(quote it as you would in a shell)"
        ) from None
    if not words or not words[0]:
        raise SettingsError(
            "the agent command is empty: give the program and its arguments, "
            'e.g. "npx my-agent --acp"'
        )
    command, *args = words
    if name is None:
        # ``python -m package`` is named after the package, not after python.
        name = args[1] if len(args) > 1 and args[0] == "-m" else os.path.basename(command)
    return AgentSpec(
        name=name or command,
        command=command,
        args=tuple(args),
        source="--agent-command",
    )
