"""How to run each pinned third-party agent offline, and its tools' wire names.

Every agent gets ``HOME`` = a fresh temp dir, telemetry and updates off, a
proxy that refuses everything but loopback, and a model endpoint on the fake
model server at 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.interop.fake_model import FakeModel, Step, Tool

# Anything not on loopback goes to a closed port; loopback goes direct.
_DEAD_PROXY = "http://127.0.0.1:9"
_CREDENTIALS = (
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "OPENAI_API_KEY",
)


def base_env(home: Path) -> dict[str, str]:
    """Isolation every agent gets: own HOME, no telemetry, no updates, no network."""
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DO_NOT_TRACK": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "GEMINI_TELEMETRY_ENABLED": "false",
        "QWEN_TELEMETRY_ENABLED": "false",
        "NO_BROWSER": "1",
        "CI": "1",
        "HTTP_PROXY": _DEAD_PROXY,
        "HTTPS_PROXY": _DEAD_PROXY,
        "http_proxy": _DEAD_PROXY,
        "https_proxy": _DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "npm_config_offline": "true",
    }
    # Never let a developer's real credentials reach an agent under test.
    env.update(dict.fromkeys(_CREDENTIALS, ""))
    return env


@dataclass(frozen=True)
class Agent:
    """One third-party agent under test.

    Attributes:
        name: the settings/preset name.
        entry: the script to run with node, relative to node_modules.
        read/write/shell/plan: the scripted tool call for each feature, or
            None when the agent has no such tool; ``na`` gives the reason.
        uses_terminal: the agent runs shell commands through ``terminal/*``.
        own_tools: the agent reads, writes and runs commands with its own tools
            (after a permission request): no ``fs/*`` or ``terminal/*`` reach the host.
        auth_needs_terminal: the agent offers its (terminal) login methods only to
            clients that advertise ``clientCapabilities.auth.terminal``.
        missing_file_returns_empty: the preset's compatibility option.

    """

    name: str
    entry: str
    args: tuple[str, ...] = ()
    read: Callable[[str], Step] | None = None
    write: Callable[[str, str], Step] | None = None
    shell: Callable[[str], Step] | None = None
    plan: Callable[[str], Step] | None = None
    uses_terminal: bool = False
    own_tools: bool = False
    auth_needs_terminal: bool = False
    read_needs_write: bool = False
    missing_file_returns_empty: bool = False
    scripted: bool = False  # answers without a model (the SDK example)
    na: dict[str, str] = field(default_factory=dict)

    def argv(self, root: Path, model: FakeModel | None, *, credentials: bool = True) -> list[str]:
        argv = ["node", str(root / "node_modules" / self.entry), *self.args]
        if self.name == "qwen" and model is not None and credentials:
            argv += [
                "--auth-type",
                "openai",
                "--openai-base-url",
                f"{model.base_url}/v1",
                "--openai-api-key",
                "sk-dummy",
                "--model",
                "fake-model",
            ]
        return argv

    def env(
        self, home: Path, model: FakeModel | None, *, credentials: bool = True
    ) -> dict[str, str]:
        """The agent's environment; ``credentials=False``: no API key anywhere."""
        env = base_env(home)
        if self.name == "claude":
            env["IS_SANDBOX"] = "1"  # Claude Code refuses to run as root otherwise
        if model is None:
            return env
        # The fake server is also the proxy: it refuses (and records) any other host.
        # Qwen Code ignores NO_PROXY, so loopback traffic must work through it as well.
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            env[var] = model.base_url
        if self.name == "claude":
            env["ANTHROPIC_BASE_URL"] = model.base_url
            if credentials:
                env["ANTHROPIC_API_KEY"] = "sk-ant-dummy"
        elif self.name == "gemini" and credentials:
            # Without a key, a base URL alone counts as a gateway login: drop both.
            env.update(GOOGLE_GEMINI_BASE_URL=model.base_url, GEMINI_API_KEY="dummy")
        return env

    def prepare_home(self, home: Path) -> None:
        """Settings files that switch off what env vars cannot (usage statistics).

        Claude Code starts in its `auto` mode (no permission requests) unless
        ``permissions.defaultMode`` says otherwise: the tests want the host asked.
        """
        off = {"usageStatisticsEnabled": False, "telemetry": {"enabled": False}}
        for d in (".gemini", ".qwen"):
            (home / d).mkdir(parents=True, exist_ok=True)
            (home / d / "settings.json").write_text(json.dumps({"privacy": off, **off}))
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        (home / ".claude" / "settings.json").write_text(
            json.dumps({"permissions": {"defaultMode": "default"}})
        )


def _todos_claude(item: str) -> Step:
    return Tool(
        "TodoWrite",
        {"todos": [{"content": item, "status": "pending", "activeForm": f"Doing {item}"}]},
    )


def _todos_qwen(item: str) -> Step:
    return Tool("todo_write", {"todos": [{"id": "1", "content": item, "status": "pending"}]})


SDK = Agent(
    name="sdk-example",
    entry="@agentclientprotocol/sdk/dist/examples/agent.js",
    scripted=True,
    na={
        "auth": "the SDK example agent has no authentication (authenticate is a no-op)",
        "read": "the SDK example agent never calls fs/read_text_file",
        "terminal": "the SDK example agent never runs commands",
        "plan": "the SDK example agent never sends a plan",
        "jail": "the SDK example agent never writes files (it only asks permission)",
    },
)

CLAUDE = Agent(
    name="claude",
    entry="@agentclientprotocol/claude-agent-acp/dist/index.js",
    read=lambda p: Tool("Read", {"file_path": p}),
    write=lambda p, c: Tool("Write", {"file_path": p, "content": c}),
    # Claude Code's Bash tool needs a numeric timeout (ms).
    shell=lambda c: Tool("Bash", {"command": c, "timeout": 20000}),
    plan=_todos_claude,
    own_tools=True,
    auth_needs_terminal=True,
    na={
        "read": "claude-agent-acp 0.101.0 reads files with its own Read tool, "
        "never through fs/read_text_file",
        "jail": "claude-agent-acp 0.101.0 writes with its own tools: only the permission "
        "request (acphost's policy), not the host's jail, can stop a write outside the "
        "workspace",
    },
)

GEMINI = Agent(
    name="gemini",
    entry="@google/gemini-cli/bundle/gemini.js",
    args=("--acp",),
    # read_file reads the disk itself (processSingleFileContent ignores the ACP
    # file system); replace and write_file read through fs/read_text_file.
    read=lambda p: Tool(
        "replace",
        {
            "file_path": p,
            "instruction": "rename the second line",
            "old_string": "line two",
            "new_string": "line 2",
        },
    ),
    read_needs_write=True,
    write=lambda p, c: Tool("write_file", {"file_path": p, "content": c}),
    shell=lambda c: Tool("run_shell_command", {"command": c}),
    missing_file_returns_empty=True,
    na={
        "plan": "Gemini CLI 0.61.0's ACP layer never sends plan updates "
        "(write_todos is not registered in ACP mode)",
    },
)

QWEN = Agent(
    name="qwen",
    entry="@qwen-code/qwen-code/cli.js",
    args=("--acp",),
    read=lambda p: Tool("read_file", {"file_path": p}),
    write=lambda p, c: Tool("write_file", {"file_path": p, "content": c}),
    shell=lambda c: Tool("run_shell_command", {"command": c}),
    plan=_todos_qwen,
)

AGENTS: dict[str, Agent] = {a.name: a for a in (SDK, CLAUDE, GEMINI, QWEN)}


def settings_for(agent: Agent, root: Path, home: Path, model: FakeModel | None) -> dict[str, Any]:
    """A settings.json naming only this agent (the CLI picks the first)."""
    return {
        "agent_servers": {
            agent.name: {
                "command": "node",
                "args": agent.argv(root, model)[1:],
                "env": agent.env(home, model),
            }
        }
    }
