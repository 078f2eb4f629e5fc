"""Agent presets: the built-in demo agent and well-known agents from the registry.

The registry data (``data/registry.json``, the ACP registry's format) is
vendored; agents distributed through npm or PyPI become ``npx -y PKG`` /
``uvx PKG`` presets, binary-only agents a preset that expects the binary on
PATH. A few facts the registry does not carry live in ``_OVERLAY``: short
aliases users type, a newer launch flag, and wire quirks (Gemini CLI reads
files before creating them and needs empty content back).

A settings entry with the same name always wins over a preset.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import replace
from typing import Any

from ._spec import AgentSpec, Settings

__all__ = ["DEMO", "all_agents", "command_found", "presets", "resolve_agent"]

DEMO = AgentSpec(
    name="demo",
    command=sys.executable,
    args=("-m", "acphost.agents.demo"),
    source="built-in",
    description="acphost's scripted demo agent (no model, no network)",
)

# id -> adjustments. "alias": names that also select it; "npx": the package
# (pinned to the version tests/interop runs against, newer than the snapshot);
# "version": shown in the description; "args": its launch flags; "env": more
# of its environment.
_OVERLAY: dict[str, dict[str, Any]] = {
    # claude-agent-acp succeeded @zed-industries/claude-code-acp (last 0.16.2),
    # whose registry id stays an alias; docs/INTEROP.md has the history.
    "claude-acp": {
        "alias": ["claude", "claude-code", "claude-code-acp"],
        "npx": "@agentclientprotocol/claude-agent-acp@0.101.0",
        "version": "0.101.0",
    },
    "gemini": {
        "alias": ["gemini-cli"],
        "npx": "@google/gemini-cli@0.61.0",
        "version": "0.61.0",
        "args": ["--acp"],
        "missing_file_returns_empty": True,
    },
    # Qwen Code 0.24 starts in its "auto" mode, where a model call (not the
    # client) approves each tool use; "default" asks the client, so acphost's
    # permission policy decides.
    "qwen-code": {
        "alias": ["qwen"],
        "npx": "@qwen-code/qwen-code@0.24.4",
        "version": "0.24.4",
        "args": ["--acp", "--approval-mode", "default"],
    },
    # codex-acp moved to @agentclientprotocol (a TypeScript adapter on
    # `codex app-server`). Its default mode sends commands that need approval
    # to a "guardian" model call; read-only asks the client
    # (session/request_permission), so acphost's permission policy decides.
    "codex-acp": {
        "alias": ["codex"],
        "npx": "@agentclientprotocol/codex-acp@2.6.0",
        "version": "2.6.0",
        "env": {"INITIAL_AGENT_MODE": "read-only"},
    },
    "github-copilot": {"alias": ["copilot"]},
    "opencode": {},
}


def _load_registry() -> list[dict[str, Any]]:
    # A plain file beside this module (package data, installed with it):
    # importlib.resources would cost more at start-up than reading it.
    with open(os.path.join(os.path.dirname(__file__), "data", "registry.json"), "rb") as f:
        agents: list[dict[str, Any]] = json.loads(f.read())["agents"]
    return agents


def _preset(entry: dict[str, Any]) -> AgentSpec | None:
    ident = entry["id"]
    dist = entry.get("distribution", {})
    over = _OVERLAY.get(ident, {})
    env: dict[str, str] = {}
    if "npx" in over:
        command, args = "npx", ["-y", over["npx"]]
    elif "npx" in dist:
        spec = dist["npx"]
        command, args = "npx", ["-y", spec["package"], *spec.get("args", [])]
        env.update(spec.get("env", {}))
    elif "uvx" in dist:
        spec = dist["uvx"]
        command, args = "uvx", [spec["package"], *spec.get("args", [])]
        env.update(spec.get("env", {}))
    elif "binary" in dist:
        # We never download archives; the binary must already be on PATH.
        targets = dist["binary"]
        target = next(iter(targets.values()), None) if targets else None
        if target is None:
            return None
        command = os.path.basename(target["cmd"])
        args = list(target.get("args", []))
        env.update(target.get("env", {}))
    else:
        return None
    env.update(over.get("env", {}))
    version = entry.get("version", "")
    if "args" in over:  # the registry snapshot predates the stable flag
        args = [a for a in args if not a.startswith("--experimental-acp") and a != "--acp"]
        args += over["args"]
    return AgentSpec(
        name=ident,
        command=command,
        args=tuple(args),
        env=env,
        source="registry",
        description=f"{entry.get('name', ident)} {over.get('version', version)}".strip(),
        missing_file_returns_empty=bool(over.get("missing_file_returns_empty", False)),
    )


def presets() -> dict[str, AgentSpec]:
    """Every preset by name, aliases included (the demo agent first)."""
    out: dict[str, AgentSpec] = {"demo": DEMO}
    for entry in _load_registry():
        spec = _preset(entry)
        if spec is None:
            continue
        out[spec.name] = spec
        for alias in _OVERLAY.get(spec.name, {}).get("alias", []):
            out.setdefault(alias, spec)
    return out


def _keep_quirks(spec: AgentSpec, known: dict[str, AgentSpec]) -> AgentSpec:
    """A settings entry named like a preset keeps the preset's wire quirks.

    Users replace a preset's command (a local install, a pinned version) far
    more often than its protocol behaviour: ``"gemini": {"command": ...}``
    still reads files before creating them.
    """
    preset = known.get(spec.name)
    if preset is None or not preset.missing_file_returns_empty:
        return spec
    return replace(spec, missing_file_returns_empty=True)


def all_agents(settings: Settings) -> dict[str, AgentSpec]:
    """Settings entries first (they win), then the presets they do not shadow."""
    known = presets()
    out = {name: _keep_quirks(spec, known) for name, spec in settings.agents.items()}
    for name, spec in known.items():
        if name in out:
            continue
        extra = settings.partial.get(name)
        if extra is not None:
            env = {**spec.env, **extra["env"]}
            args = spec.args + tuple(extra["args"])
            out[name] = replace(
                spec,
                args=args,
                env=env,
                source=f"{spec.source} + {settings.path}",
                **{k: v for k, v in extra.items() if k not in ("args", "env")},
            )
        else:
            out[name] = spec
    return out


def resolve_agent(name: str | None, settings: Settings) -> AgentSpec:
    """Pick the agent: the named one, else the first in settings, else the demo.

    Raises:
        KeyError: no agent has that name (the message lists the known ones).

    """
    if name is None:
        if settings.agents:
            return _keep_quirks(next(iter(settings.agents.values())), presets())
        if DEMO.name in settings.partial:  # the demo, adjusted by the settings
            return all_agents(settings)[DEMO.name]
        return DEMO
    agents = all_agents(settings)
    if name not in agents:
        known = ", ".join(sorted(agents))
        raise KeyError(f"unknown agent {name!r}; known agents: {known}")
    return agents[name]


def command_found(spec: AgentSpec) -> bool:
    """Whether the agent's program can be found (on PATH or as a path)."""
    if os.sep in spec.command:
        return os.access(spec.command, os.X_OK)
    return shutil.which(spec.command) is not None
