"""Agent presets: the built-in demo agent and well-known agents from the registry.

Every agent of the vendored ACP registry (``data/registry.json``, read by
:mod:`._registry`) is a preset named by its id, launched as the registry
says (npx and uvx packages; a binary must already be on PATH). A few facts
the registry does not carry live in ``_OVERLAY``: short aliases users type,
the version a preset pins (the one ``tests/interop`` runs), launch flags
acphost chooses, and wire quirks (Gemini CLI reads files before creating
them and needs empty content back).

Any registry agent also runs by id, at any version of its package:
``acp:ID`` or ``acp:ID@VERSION`` (:func:`resolve_agent`). That runs the
registry's own launch, pinned; of the overlay only the wire quirks apply.

A settings entry with the same name always wins over a preset.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import replace
from typing import Any

from ._registry import PREFIX, launch, parse_name, registry_entries, registry_entry, unknown
from ._spec import AgentSpec, Settings, SettingsError

__all__ = [
    "DEMO",
    "agent_state_dirs",
    "all_agents",
    "command_found",
    "presets",
    "registry_agent",
    "resolve_agent",
]

# The folders (and files) each agent keeps its state, logins and caches in:
# the OS sandbox lets the agent write its own and read no other's. As each
# agent's documentation names them; ``~`` and ``$XDG_*_HOME`` expand.
_STATE: dict[str, tuple[str, ...]] = {
    "demo": ("$XDG_STATE_HOME/acphost/demo", "$ACPHOST_DEMO_STATE_DIR"),
    "claude-acp": ("~/.claude", "~/.claude.json", "$CLAUDE_CONFIG_DIR"),
    "gemini": ("~/.gemini",),
    "qwen-code": ("~/.qwen",),
    "codex-acp": ("~/.codex", "$CODEX_HOME"),
    "github-copilot-cli": ("~/.copilot", "$XDG_CONFIG_HOME/github-copilot"),
    "opencode": (
        "$XDG_CONFIG_HOME/opencode",
        "$XDG_DATA_HOME/opencode",
        "$XDG_STATE_HOME/opencode",
    ),
    "kimi": ("~/.kimi",),
    "auggie": ("~/.augment",),
    "cursor": ("~/.cursor", "$XDG_CONFIG_HOME/cursor"),
    "goose": ("$XDG_CONFIG_HOME/goose", "$XDG_DATA_HOME/goose", "$XDG_STATE_HOME/goose"),
    "kilo": ("~/.kilocode", "$XDG_CONFIG_HOME/kilo", "$XDG_DATA_HOME/kilo"),
    "fast-agent": ("~/.fast-agent", "$FAST_AGENT_HOME"),
    "mistral-vibe": ("~/.vibe", "$VIBE_HOME"),
}
# What every agent but the demo may write: caches, and the package
# managers' own when they launch it (npx keeps packages in ~/.npm/_npx).
_CACHES = ("$XDG_CACHE_HOME",)
_LAUNCHER_CACHES = {"npx": ("~/.npm",), "uvx": ("$XDG_DATA_HOME/uv",)}


def agent_state_dirs(name: str | None = None, command: str = "") -> tuple[str, ...]:
    """State folders, unexpanded: every preset's (no agent reads another's), or one agent's.

    Args:
        name: a preset's id or alias: its folders and caches (a spec built
            by hand for a known agent gets them too); None: every preset's.
        command: the agent's program (``npx`` and ``uvx`` add their caches).

    """
    if name is None:
        return tuple(dict.fromkeys(p for paths in _STATE.values() for p in paths))
    ident = _aliases().get(name, name)
    if ident not in _STATE:
        return ()
    return _state_of(ident, command) if ident != "demo" else _STATE["demo"]


def _state_of(ident: str, command: str) -> tuple[str, ...]:
    launcher = _LAUNCHER_CACHES.get(os.path.basename(command), ())
    return (*_STATE.get(ident, ()), *_CACHES, *launcher)


DEMO = AgentSpec(
    name="demo",
    command=sys.executable,
    args=("-m", "acphost.agents.demo"),
    source="built-in",
    description="acphost's scripted demo agent (no model, no network)",
    sandbox_write=_STATE["demo"],
)

# id -> adjustments of the registry entry. "alias": names that also select
# it; "version": the version the preset pins (tests/interop runs it, newer
# than the vendored entry); "args": its launch flags in place of the
# registry's; "env": more of its environment. Where the registry entry came
# from, and the agent's own page on starting it in ACP mode, are noted per
# agent: the registry's copy is agentclientprotocol/registry's <id>/agent.json.
_OVERLAY: dict[str, dict[str, Any]] = {
    # claude-agent-acp succeeded @zed-industries/claude-code-acp (last 0.16.2),
    # whose registry id stays an alias; docs/INTEROP.md has the history.
    "claude-acp": {
        "alias": ["claude", "claude-code", "claude-code-acp"],
        "version": "0.101.0",
    },
    "gemini": {
        "alias": ["gemini-cli"],
        "version": "0.61.0",
        "args": ["--acp"],
        "missing_file_returns_empty": True,
    },
    # Qwen Code 0.24 starts in its "auto" mode, where a model call (not the
    # client) approves each tool use; "default" asks the client, so acphost's
    # permission policy decides.
    "qwen-code": {
        "alias": ["qwen"],
        "version": "0.24.4",
        "args": ["--acp", "--approval-mode", "default"],
    },
    # codex-acp moved to @agentclientprotocol (a TypeScript adapter on
    # `codex app-server`). Its default mode sends commands that need approval
    # to a "guardian" model call; read-only asks the client
    # (session/request_permission), so acphost's permission policy decides.
    "codex-acp": {
        "alias": ["codex"],
        "version": "2.6.0",
        "env": {"INITIAL_AGENT_MODE": "read-only"},
    },
    # The Copilot CLI (`copilot --acp`, stdio by default):
    # https://docs.github.com/en/copilot/reference/copilot-cli-reference/acp-server
    # It replaced the registry's github-copilot (@github/copilot-language-server
    # --acp), whose id stays an alias.
    "github-copilot-cli": {"alias": ["copilot", "github-copilot"]},
    # OpenCode 2 on npm as @opencode/cli; `opencode acp`: https://opencode.ai/docs/acp
    "opencode": {},
    # Kimi Code CLI, `kimi acp` (a binary on PATH; it asks for `kimi login`
    # first): https://moonshotai.github.io/kimi-cli/en/reference/kimi-acp.html
    "kimi": {"alias": ["kimi-code", "kimi-cli"]},
    # Auggie, `auggie --acp`: https://docs.augmentcode.com/cli/acp/agent
    "auggie": {},
    # Cursor's agent CLI, `cursor-agent acp` as the registry's archive names
    # it (its installer also names it `agent`; then use a settings entry):
    # https://cursor.com/docs/cli/acp
    "cursor": {"alias": ["cursor-agent"]},
    # goose, `goose acp` (a binary on PATH):
    # https://block.github.io/goose/docs/guides/acp-clients
    "goose": {},
    # Kilo CLI, `kilo acp`, run from npm as @kilocode/cli (the registry lists
    # its binaries too): https://kilo.ai/docs/code-with-ai/platforms/cli
    "kilo": {"alias": ["kilocode", "kilo-code"]},
}


def _preset(entry: dict[str, Any]) -> AgentSpec | None:
    ident = entry["id"]
    over = _OVERLAY.get(ident, {})
    try:
        run = launch(entry, over.get("version"), over.get("args"))
    except SettingsError:
        return None  # nothing acphost can run: no preset (acp:ID says why)
    version = run.version or entry.get("version", "")
    return AgentSpec(
        name=ident,
        command=run.command,
        args=run.args,
        env={**run.env, **over.get("env", {})},
        source="registry",
        description=f"{entry.get('name', ident)} {version}".strip(),
        missing_file_returns_empty=bool(over.get("missing_file_returns_empty", False)),
        version=run.version,
        sandbox_write=_state_of(ident, run.command),
    )


def registry_agent(name: str) -> AgentSpec:
    """The registry agent ``acp:ID`` or ``acp:ID@VERSION``, as the registry launches it.

    Pinned to ``VERSION`` when given (``npx PACKAGE@VERSION``, ``uvx
    PACKAGE==VERSION``); a binary-only agent runs from PATH and cannot be
    pinned. Only the preset's wire quirks are added, never its flags.

    Raises:
        SettingsError: a malformed name, an id the registry does not have
            (the message names the close ones), or a distribution acphost
            cannot run (the message says what to do instead).

    """
    ident, version = parse_name(name)
    entry = registry_entry(ident)
    if entry is None:
        raise unknown(ident, _aliases())
    run = launch(entry, version)
    over = _OVERLAY.get(ident, {})
    shown = run.version or "(the version on PATH)"
    return AgentSpec(
        name=name,
        command=run.command,
        args=run.args,
        env=run.env,
        source="registry",
        description=f"{entry.get('name', ident)} {shown}",
        missing_file_returns_empty=bool(over.get("missing_file_returns_empty", False)),
        version=run.version,
        sandbox_write=_state_of(ident, run.command),
    )


def _aliases() -> dict[str, str]:
    return {alias: ident for ident, over in _OVERLAY.items() for alias in over.get("alias", [])}


def presets() -> dict[str, AgentSpec]:
    """Every preset by name, aliases included (the demo agent first)."""
    out: dict[str, AgentSpec] = {"demo": DEMO}
    for entry in registry_entries():
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
    still reads files before creating them, and so does one named by the
    registry id (``"acp:gemini@0.61.0": {"command": ...}``).
    """
    name = spec.name
    if name.startswith(PREFIX):
        name = name[len(PREFIX) :].partition("@")[0]
    preset = known.get(name)
    if preset is None:
        return spec
    # ... and its state folders: the sandbox lets it write them.
    spec = replace(spec, sandbox_write=(*preset.sandbox_write, *spec.sandbox_write))
    if not preset.missing_file_returns_empty:
        return spec
    return replace(spec, missing_file_returns_empty=True)


def all_agents(settings: Settings) -> dict[str, AgentSpec]:
    """Settings entries first (they win), then the presets they do not shadow."""
    known = presets()
    out = {name: _keep_quirks(spec, known) for name, spec in settings.agents.items()}
    for name, spec in known.items():
        if name in out:
            continue
        out[name] = _adjusted(spec, settings.partial.get(name), settings)
    return out


def _adjusted(spec: AgentSpec, extra: dict[str, Any] | None, settings: Settings) -> AgentSpec:
    """A preset with a settings entry without ``command`` applied (more args, env, limits)."""
    if extra is None:
        return spec
    return replace(
        spec,
        args=spec.args + tuple(extra["args"]),
        env={**spec.env, **extra["env"]},
        source=f"{spec.source} + {settings.path}",
        sandbox_write=spec.sandbox_write + tuple(extra.get("sandbox_write", ())),
        **{k: v for k, v in extra.items() if k not in ("args", "env", "sandbox_write")},
    )


def resolve_agent(name: str | None, settings: Settings) -> AgentSpec:
    """Pick the agent: the named one, else the first in settings, else the demo.

    A name ``acp:ID[@VERSION]`` not defined in the settings is the registry
    agent of that id (:func:`registry_agent`), adjusted by a settings entry
    without ``command`` of the same name, or else of the name ``acp:ID``.

    Raises:
        KeyError: no agent has that name (the message lists the known ones).
        SettingsError: an ``acp:`` name that cannot run (one line: why, and
            the close ids when the registry does not have it).

    """
    if name is None:
        if settings.agents:
            return _keep_quirks(next(iter(settings.agents.values())), presets())
        if DEMO.name in settings.partial:  # the demo, adjusted by the settings
            return all_agents(settings)[DEMO.name]
        return DEMO
    if name.startswith(PREFIX) and name not in settings.agents:
        spec = registry_agent(name)
        extra = settings.partial.get(name) or settings.partial.get(name.partition("@")[0])
        return _adjusted(spec, extra, settings)
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
