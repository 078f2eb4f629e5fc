"""A batch spec: the options of ``acphost batch`` in a TOML file, for reproducible suites.

::

    agents = ["demo"]                      # names from settings / presets (--agent)
    agent_commands = ["my-agent --acp"]    # command lines (--agent-command)
    prompts = ["echo hi", "plan"]          # --prompt
    prompts_file = "prompts.jsonl"         # --prompts
    repeat = 3
    jobs = 8
    workspace = "."                        # relative paths are relative to this file
    out = "results"
    timeout = 600
    max_tokens = 200000
    max_cost = 2.5
    system_prompt = "Be brief."            # every session's (or "@file.md"); mode: append
    system_prompt_mode = "append"          # or "override" (the agent must advertise it)
    subagents = false                      # do not advertise subagents (default true)
    protocol = "auto"                      # 1 (default), 2 or "auto"; mcp_tools = true
    write = true                           # and yolo, approve = "all" | "reads" | "deny",
    permission_policy = "rules.json"       # no_terminal, no_fs, audit_log, settings
    keep_workspaces = false
    executor = "ray"
    ray_address = "head.example:6379"
    ray_env = ["ANTHROPIC_API_KEY"]        # variables passed to the agents on Ray

    [[agent]]                              # an agent defined here
    name = "mine"
    command = "my-agent"
    args = ["--acp"]
    env = { LOG_LEVEL = "debug" }
    system_prompt = "Answer in French."    # its sessions' (text only; the top-level key wins)
    protocol = 2                           # and mcp_tools (the top-level keys win)

    [[prompt]]                             # a prompt with an id (and its own workspace)
    id = "fix-tests"
    text = "Make the tests pass"
    workspace = "tasks/fix-tests"

Every key is checked (an unknown key or a wrong type is an error naming it).
Reading TOML needs Python 3.11's ``tomllib`` or, on 3.10, the ``tomli`` package.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from ..config import AgentSpec, InputFileError, parse_protocol, read_text_input
from ._plan import PlanError, Prompt
from ._workspace import WorkspaceError, inspect_workspace

__all__ = ["SpecError", "load_spec"]

_PATH = "path"
_NUMBER = (int, float)
_PROTOCOL = "protocol"

#: Key -> expected type (``_PATH``: a string, resolved against the spec's directory).
SCALARS: dict[str, Any] = {
    "prompts_file": _PATH,
    "repeat": int,
    "jobs": int,
    "workspace": _PATH,
    "out": _PATH,
    "timeout": _NUMBER,
    "init_timeout": _NUMBER,
    "max_tokens": int,
    "max_cost": _NUMBER,
    "currency": str,
    "write": bool,
    "yolo": bool,
    "approve": str,
    "permission_policy": _PATH,
    "no_terminal": bool,
    "no_fs": bool,
    "audit_log": _PATH,
    "settings": _PATH,
    "keep_workspaces": bool,
    "no_history": bool,
    "retry_failed": bool,
    "executor": str,
    "ray_address": str,
    "ray_cpus": _NUMBER,
    "system_prompt": str,
    "system_prompt_mode": str,
    "subagents": bool,
    "protocol": _PROTOCOL,
    "mcp_tools": bool,
}
LISTS = ("agents", "agent_commands", "prompts", "ray_env")
CHOICES = {
    "approve": ("all", "reads", "deny"),
    "executor": ("local", "ray"),
    "system_prompt_mode": ("append", "override"),
}


class SpecError(PlanError):
    """The spec file cannot be used (the message names the file and the key)."""


def _toml() -> Any:
    for name in ("tomllib", "tomli"):  # the standard library's on 3.11+, the same parser before
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise SpecError(
        "reading a --spec file needs Python 3.11 or later, or the tomli package (pip install tomli)"
    )


def _type_name(expected: Any) -> str:
    if expected is _PATH:
        return "a path (string)"
    if expected is _NUMBER:
        return "a number"
    return {int: "an integer", str: "a string", bool: "true or false"}[expected]


def _check(where: str, value: Any, expected: Any) -> None:
    if expected is _PROTOCOL:
        _protocol(where, value)
        return
    if expected is _PATH:
        expected = str
    kinds = expected if isinstance(expected, tuple) else (expected,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        raise SpecError(f"{where}: expected {_type_name(expected)}, got {type(value).__name__}")


def load_spec(path: str) -> dict[str, Any]:
    """Read and check a spec file.

    Args:
        path: the TOML file.

    Returns:
        The options by key (see the module docstring): paths made absolute;
        ``agent_specs`` holds the ``[[agent]]`` tables as
        :class:`~acphost.config.AgentSpec` and ``prompt_items`` the
        ``[[prompt]]`` tables as :class:`~acphost.batch.Prompt`.

    Raises:
        SpecError: unreadable, not TOML, or a key that is unknown or of the wrong type.

    """
    toml = _toml()
    full = os.path.abspath(os.path.expanduser(path))
    try:
        data = toml.loads(read_text_input(full, what="the --spec file"))
    except InputFileError as exc:
        raise SpecError(str(exc)) from None
    except toml.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    base = os.path.dirname(full)
    out: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{path}: {key}"
        if key in SCALARS:
            _check(where, value, SCALARS[key])
            if key in CHOICES and value not in CHOICES[key]:
                raise SpecError(f"{where}: expected one of {', '.join(CHOICES[key])}")
            if key == "system_prompt":
                out[key] = _system_prompt(where, value, base)
                continue
            is_path = SCALARS[key] is _PATH
            out[key] = (
                os.path.normpath(os.path.join(base, os.path.expanduser(value)))
                if is_path
                else value
            )
        elif key in LISTS:
            if not isinstance(value, list):
                raise SpecError(f"{where}: expected a list of strings")
            for i, item in enumerate(value):
                _check(f"{where}[{i}]", item, str)
            out[key] = list(value)
        elif key == "agent":
            out["agent_specs"] = [
                _agent(f"{path}: agent[{i}]", t, full) for i, t in enumerate(_tables(where, value))
            ]
        elif key == "prompt":
            out["prompt_items"] = [
                _prompt(f"{path}: prompt[{i}]", t, base)
                for i, t in enumerate(_tables(where, value))
            ]
        else:
            known = sorted([*SCALARS, *LISTS, "agent", "prompt"])
            raise SpecError(f"{where}: unknown key; known keys: {', '.join(known)}")
    return out


def _protocol(where: str, value: Any) -> Any:
    """``protocol``: 1, 2 or ``"auto"`` (TOML numbers; the string ``"2"`` is a typo)."""
    try:
        if isinstance(value, str) and value != "auto":
            raise ValueError
        return parse_protocol(value)
    except ValueError:
        raise SpecError(f'{where}: expected 1, 2 or "auto", got {value!r}') from None


def _system_prompt(where: str, value: str, base: str) -> str:
    """The text, or ``@FILE`` with the file made relative to the spec's folder (read later)."""
    if not value.strip():
        raise SpecError(f"{where}: the system prompt is empty")
    if value.startswith("@"):
        return "@" + os.path.normpath(os.path.join(base, os.path.expanduser(value[1:])))
    return value


def _tables(where: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise SpecError(f"{where}: expected tables ([[{where.rsplit(' ', 1)[-1]}]])")
    return value


def _only(where: str, table: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in table:
        if key not in keys:
            raise SpecError(f"{where}.{key}: unknown key; known keys: {', '.join(keys)}")


#: The keys of an ``[[agent]]`` table.
_AGENT_KEYS = (
    "name", "command", "args", "env", "system_prompt", "system_prompt_mode", "protocol",
    "mcp_tools",
)  # fmt: skip


def _agent(where: str, table: dict[str, Any], source: str) -> AgentSpec:
    _only(where, table, _AGENT_KEYS)
    for key in ("name", "command"):
        if key not in table:
            raise SpecError(f"{where}.{key}: missing")
        _check(f"{where}.{key}", table[key], str)
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise SpecError(f"{where}.args: expected a list of strings")
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise SpecError(f"{where}.env: expected a table of strings")
    prompt, mode = table.get("system_prompt"), table.get("system_prompt_mode")
    if prompt is not None:
        _check(f"{where}.system_prompt", prompt, str)
        if not prompt.strip():
            raise SpecError(f"{where}.system_prompt: the system prompt is empty")
    if mode is not None:
        _check(f"{where}.system_prompt_mode", mode, str)
        if mode not in CHOICES["system_prompt_mode"]:
            raise SpecError(f"{where}.system_prompt_mode: expected one of append, override")
    protocol = table.get("protocol")
    if protocol is not None:
        protocol = _protocol(f"{where}.protocol", protocol)
    tools = table.get("mcp_tools")
    if tools is not None:
        _check(f"{where}.mcp_tools", tools, bool)
    return AgentSpec(
        name=table["name"],
        command=table["command"],
        args=tuple(args),
        env=dict(env),
        source=source,
        system_prompt=prompt,
        system_prompt_mode=mode,
        protocol=protocol,
        mcp_tools=tools,
    )


def _prompt(where: str, table: dict[str, Any], base: str) -> Prompt:
    _only(where, table, ("id", "text", "workspace"))
    for key in ("id", "text"):
        if key not in table:
            raise SpecError(f"{where}.{key}: missing")
        _check(f"{where}.{key}", table[key], str)
    if not table["text"].strip():
        raise SpecError(f"{where}.text: the prompt is empty")
    source = None
    if "workspace" in table:
        _check(f"{where}.workspace", table["workspace"], str)
        try:
            source = inspect_workspace(os.path.join(base, os.path.expanduser(table["workspace"])))
        except WorkspaceError as exc:
            raise SpecError(f"{where}.workspace: {exc}") from None
    return Prompt(table["id"], table["text"], source)
