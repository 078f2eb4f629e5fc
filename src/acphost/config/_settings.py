"""``settings.json``: which agents exist and how to launch them.

The file is strict JSON with the ``agent_servers`` shape Zed and JetBrains
use (name → ``command``, optional ``args`` list, optional ``env`` map), plus
optional ``mcp_servers`` forwarded to ``session/new`` and ``session/load``
(seeds/003 §8). Unknown top-level keys are ignored, so an editor's whole
settings file can be passed with ``--settings``.

Lookup order (first found wins): ``--settings PATH``, ``$ACPHOST_SETTINGS``,
``./.acphost/settings.json``, ``$XDG_CONFIG_HOME/acphost/settings.json``
(default ``~/.config/acphost/settings.json``). A path given explicitly must
exist; the implicit ones are skipped when missing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import AcpError

__all__ = ["AgentSpec", "Settings", "SettingsError", "find_settings", "load_settings"]


class SettingsError(AcpError, ValueError):
    """A settings file is missing, unreadable or malformed; the message names it."""


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """How to launch one agent.

    Attributes:
        name: the name users pick it by (``-a NAME``).
        command: the program to run.
        args: its arguments.
        env: variables overlaid on the environment.
        source: where it comes from (``built-in``, ``registry``, or the settings path).
        description: a one-line description, when known.
        missing_file_returns_empty: answer reads of missing files with ``""``
            (some agents, e.g. Gemini CLI, read before creating a file).

    """

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    source: str = "settings"
    description: str = ""
    missing_file_returns_empty: bool = False

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

    """

    path: Path | None
    agents: dict[str, AgentSpec]
    mcp_servers: list[dict[str, Any]]
    partial: dict[str, dict[str, Any]] = field(default_factory=dict)


def find_settings(explicit: str | None, cwd: str) -> tuple[Path | None, bool]:
    """Return the settings path to use and whether it was named explicitly."""
    if explicit:
        return Path(os.path.expanduser(explicit)), True
    env = os.environ.get("ACPHOST_SETTINGS")
    if env:
        return Path(os.path.expanduser(env)), True
    local = Path(cwd) / ".acphost" / "settings.json"
    if local.is_file():
        return local, False
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    user = Path(config_home) / "acphost" / "settings.json"
    if user.is_file():
        return user, False
    return None, False


def load_settings(path: Path | None, *, explicit: bool = True) -> Settings:
    """Read and validate a settings file.

    Args:
        path: the file, or None for "no settings".
        explicit: the user named this file, so it must exist.

    Raises:
        SettingsError: missing (when explicit), unreadable, not JSON, or
            with a wrong type; the message names the file and the problem.

    """
    if path is None:
        return Settings(None, {}, [])
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if not explicit:
            return Settings(None, {}, [])
        raise SettingsError(f"settings file {where} does not exist") from None
    except IsADirectoryError:
        raise SettingsError(f"settings file {where} is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read settings file {where}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"settings file {where}: invalid JSON at line {exc.lineno} "
            f"column {exc.colno}: {exc.msg}"
            " (settings are strict JSON: no comments or trailing commas)"
        ) from None
    return parse_settings(data, path)


def _expect(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise SettingsError(f"settings file {where}: {what}")


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def parse_settings(data: Any, path: Path) -> Settings:
    """Validate decoded settings JSON (see :func:`load_settings`)."""
    where = str(path)
    _expect(isinstance(data, dict), where, "the top level must be a JSON object")
    servers = data.get("agent_servers", {})
    _expect(isinstance(servers, dict), where, "'agent_servers' must be an object of name → agent")
    agents: dict[str, AgentSpec] = {}
    partial: dict[str, dict[str, Any]] = {}
    for name, entry in servers.items():
        at = f"agent_servers.{name}"
        _expect(bool(name.strip()), where, "an agent name is empty")
        _expect(isinstance(entry, dict), where, f"{at} must be an object")
        command = entry.get("command")
        args = entry.get("args", [])
        env = entry.get("env", {})
        _expect(
            command is None or (isinstance(command, str) and command.strip() != ""),
            where,
            f"{at}.command must be a non-empty string",
        )
        _expect(_str_list(args), where, f"{at}.args must be a list of strings")
        _expect(_str_map(env), where, f"{at}.env must be an object of string values")
        if command is None:
            # Zed lets an entry adjust a built-in agent (e.g. only its env).
            partial[name] = {"args": tuple(args), "env": dict(env)}
            continue
        agents[name] = AgentSpec(
            name=name,
            command=command,
            args=tuple(args),
            env=dict(env),
            source=where,
            missing_file_returns_empty=bool(entry.get("missing_file_returns_empty", False)),
        )
    mcp = _parse_mcp(data.get("mcp_servers", []), where)
    return Settings(path, agents, mcp, partial)


def _parse_mcp(value: Any, where: str) -> list[dict[str, Any]]:
    """Accept a list of ACP McpServer objects, or a map name → {command|url, ...}."""
    items: list[tuple[str, Any]]
    if isinstance(value, list):
        items = []
        for i, v in enumerate(value):
            _expect(
                isinstance(v, dict) and isinstance(v.get("name"), str),
                where,
                f"mcp_servers[{i}] must be an object with a string 'name'",
            )
            items.append((v["name"], v))
    else:
        _expect(isinstance(value, dict), where, "'mcp_servers' must be a list or an object")
        items = list(value.items())
    out: list[dict[str, Any]] = []
    for name, spec in items:
        at = f"mcp_servers.{name}"
        _expect(isinstance(spec, dict), where, f"{at} must be an object")
        if "url" in spec:
            kind = spec.get("type", "http")
            _expect(kind in ("http", "sse"), where, f"{at}.type must be 'http' or 'sse'")
            _expect(isinstance(spec["url"], str), where, f"{at}.url must be a string")
            headers = spec.get("headers", {})
            if isinstance(headers, dict):
                _expect(_str_map(headers), where, f"{at}.headers must map names to strings")
                headers = [{"name": k, "value": v} for k, v in headers.items()]
            out.append({"type": kind, "name": name, "url": spec["url"], "headers": headers})
        else:
            command = spec.get("command")
            _expect(
                isinstance(command, str) and bool(command),
                where,
                f"{at} needs a 'command' or a 'url'",
            )
            args = spec.get("args", [])
            env = spec.get("env", {})
            _expect(_str_list(args), where, f"{at}.args must be a list of strings")
            if isinstance(env, dict):
                _expect(_str_map(env), where, f"{at}.env must map names to strings")
                env = [{"name": k, "value": v} for k, v in env.items()]
            out.append({"name": name, "command": command, "args": args, "env": env})
    return out
