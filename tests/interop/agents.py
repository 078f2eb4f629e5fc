"""How to run each pinned third-party agent offline, and its tools' wire names.

Every agent gets ``HOME`` = a fresh temp dir, telemetry and updates off, a
proxy that refuses everything but loopback, and a model endpoint on the fake
model server at 127.0.0.1.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.interop.fake_model import FakeModel, Step, Tool

MARK = "ACPHOST_INTEROP_RUN"
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
        # Inherited by every process the agent starts: the suite finds any that
        # outlive the run by it (conftest.survivors).
        MARK: str(home),
    }
    # Never let a developer's real credentials reach an agent under test.
    env.update(dict.fromkeys(_CREDENTIALS, ""))
    return env


@dataclass(frozen=True)
class Agent:
    """One third-party agent under test.

    Attributes:
        name: the settings/preset name.
        entry: the script to run with node, relative to node_modules; for a
            ``pypi`` agent, the command in its virtual environment's ``bin``.
        pypi: a Python agent from PyPI (``tests/interop/pypi/<name>.txt``), run
            from its own virtual environment, the ``agents_root`` it gets.
        read/write/shell/plan: the scripted tool call for each feature, or
            None when the agent has no such tool; ``na`` gives the reason.
        uses_terminal: the agent runs shell commands through ``terminal/*``.
        own_tools: the agent reads, writes and runs commands with its own tools
            (after a permission request): no ``fs/*`` or ``terminal/*`` reach the host.
        auth_needs_terminal: the agent offers its (terminal) login methods only to
            clients that advertise ``clientCapabilities.auth.terminal``.
        missing_file_returns_empty: the preset's compatibility option.
        na: features the agent does not have, with the reason (the test skips).
        defects: features where this agent shows a defect of acphost itself, with
            the defect (the test is a strict xfail until acphost is fixed).
        reject_ends_turn: a rejected permission ends the turn (``cancelled``) instead
            of reporting the refusal to the model.
        node22: run with the pinned node 22 (npm's ``node`` package in the install
            root): the agent's ``engines`` ask for node >= 22 (codex-acp has no
            ``engines``; it was studied on 22).
        subagent: the scripted tool call that starts a subagent on a task, or
            None when the agent offers the model none (``na["subagents"]`` says why).
        fallback: how the agent shows a subagent to a client that did not opt
            in (``clientCapabilities.subagents``): ``("name", X)`` a tool call
            named X, ``("title", X)`` a tool call titled X.
        subagent_tree: with the opt-in the agent runs its subagents as child
            sessions (``subagent_update``); False: a tool call all the same.
        subagents_outlive_turn: its children go on after the parent's
            ``session/prompt`` answered (codex-acp); else the turn waits for them.
        meta_terminal: it reports a command's output and exit only in the tool
            call's ``_meta`` (``terminal_output_delta``, ``terminal_exit``), for a
            terminal the client never created (codex-acp).
        system_prompt_modes: the modes its ``sessionCapabilities.systemPrompt``
            advertises (``()``: none; the session openers refuse a system prompt).

    """

    name: str
    entry: str
    args: tuple[str, ...] = ()
    pypi: bool = False
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
    node22: bool = False
    reject_ends_turn: bool = False
    subagent: Callable[[str], Step] | None = None
    fallback: tuple[str, str] | None = None
    subagent_tree: bool = True
    subagents_outlive_turn: bool = False
    meta_terminal: bool = False
    system_prompt_modes: tuple[str, ...] = ()
    na: dict[str, str] = field(default_factory=dict)
    defects: dict[str, str] = field(default_factory=dict)

    def node(self, root: Path) -> str:
        """The node binary that runs this agent."""
        return str(node22(root)) if self.node22 else "node"

    def argv(self, root: Path, model: FakeModel | None, *, credentials: bool = True) -> list[str]:
        if self.pypi:
            return [str(root / "bin" / self.entry), *self.args]
        argv = [self.node(root), str(root / "node_modules" / self.entry), *self.args]
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
        if self.name == "fast-agent":
            # Its home (sessions, cards) would otherwise go under the workspace.
            env["FAST_AGENT_HOME"] = str(home / ".fast-agent")
            if credentials:
                env["GENERIC_API_KEY"] = "sk-dummy"
        if self.name == "vibe":
            env["VIBE_HOME"] = str(home / ".vibe")
            if credentials:
                env["FAKE_API_KEY"] = "sk-dummy"
        if self.name == "codex":
            env["CODEX_HOME"] = str(home / ".codex")
            # codex-acp's default mode "agent" (Auto review) sends each command
            # that asks for escalation to a "guardian" model call instead of the
            # client; read-only asks the client (session/request_permission).
            env["INITIAL_AGENT_MODE"] = "read-only"
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
        elif self.name == "fast-agent":
            env["GENERIC_BASE_URL"] = f"{model.base_url}/v1"
        elif self.name == "gemini" and credentials:
            # Without a key, a base URL alone counts as a gateway login: drop both.
            env.update(GOOGLE_GEMINI_BASE_URL=model.base_url, GEMINI_API_KEY="dummy")
        return env

    def prepare_home(self, home: Path, model: FakeModel | None = None) -> None:
        """Settings files that switch off what env vars cannot (usage statistics).

        Claude Code starts in its `auto` mode (no permission requests) unless
        ``permissions.defaultMode`` says otherwise: the tests want the host asked.
        Qwen Code 0.24 has todo_write off unless its settings enable it.
        Codex reads its model provider from ``$CODEX_HOME/config.toml`` only.
        """
        if self.name == "codex":
            (home / ".codex").mkdir(parents=True, exist_ok=True)
            (home / ".codex" / "config.toml").write_text(codex_config(model))
        if self.name == "vibe":
            (home / ".vibe").mkdir(parents=True, exist_ok=True)
            (home / ".vibe" / "config.toml").write_text(vibe_config(model))
        off = {"usageStatisticsEnabled": False, "telemetry": {"enabled": False}}
        # Qwen Code 0.24 ships todo_write disabled ("enable it with the
        # tools.todoWrite.enabled setting"): the plan test enables it, as a user would.
        extra = {".gemini": {}, ".qwen": {"tools": {"todoWrite": {"enabled": True}}}}
        for d, more in extra.items():
            (home / d).mkdir(parents=True, exist_ok=True)
            (home / d / "settings.json").write_text(json.dumps({"privacy": off, **off, **more}))
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        (home / ".claude" / "settings.json").write_text(
            json.dumps({"permissions": {"defaultMode": "default"}})
        )


def node22(root: Path) -> Path:
    """The node 22 binary of npm's ``node`` package, pinned in packages.txt."""
    return root / "node_modules" / "node" / "bin" / "node"


def codex_config(model: FakeModel | None) -> str:
    """Codex's config.toml: the fake model as a custom provider.

    A custom provider without ``env_key`` needs no login. The approval policy
    comes from codex-acp's mode (``INITIAL_AGENT_MODE``), not from here; note
    that Codex 0.166 refuses ``approval_policy = "untrusted"`` (its app-server
    exits at start). Its update check and analytics are off.
    """
    base = model.base_url if model is not None else "http://127.0.0.1:9"
    return (
        'model = "gpt-5.3-codex"\n'
        'model_provider = "fake"\n'
        "check_for_update_on_startup = false\n"
        "[analytics]\nenabled = false\n"
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "{base}/v1"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )


def vibe_config(model: FakeModel | None) -> str:
    """Mistral Vibe's config.toml: the fake model as an OpenAI-style provider.

    ``default_agent = "ask"``: Vibe's default agent, ``accept-edits``, writes files
    without asking; ``ask`` asks the client before every tool. Telemetry, update
    checks, OpenTelemetry and connectors are off.
    """
    base = model.base_url if model is not None else "http://127.0.0.1:9"
    return (
        'active_model = "fake"\n'
        'default_agent = "ask"\n'
        "enable_telemetry = false\n"
        "enable_update_checks = false\n"
        "enable_auto_update = false\n"
        "enable_otel = false\n"
        "enable_connectors = false\n"
        "[[providers]]\n"
        'name = "fake"\n'
        f'api_base = "{base}/v1"\n'
        'api_key_env_var = "FAKE_API_KEY"\n'
        'api_style = "openai"\n'
        'backend = "generic"\n'
        "[[models]]\n"
        'name = "fake-model"\n'
        'provider = "fake"\n'
        'alias = "fake"\n'
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
        "subagents": "the SDK example agent has no subagents",
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
    node22=True,
    own_tools=True,
    auth_needs_terminal=True,
    # Its Agent tool (formerly Task), run in the foreground: the parent's turn waits for it.
    subagent=lambda task: Tool(
        "Agent",
        {
            "description": "probe subagent",
            "prompt": task,
            "subagent_type": "general-purpose",
            "run_in_background": False,
        },
    ),
    fallback=("name", "Agent"),
    system_prompt_modes=("append", "override"),
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
        "command output": "Gemini CLI 0.61.0 ends a run_shell_command call with a "
        "tool_call_update that has neither content nor rawOutput: no output to show",
        "subagents": "Gemini CLI 0.61.0 sends no subagent updates and offers the model "
        "no subagent tool in ACP mode",
    },
)

QWEN = Agent(
    name="qwen",
    entry="@qwen-code/qwen-code/cli.js",
    # Qwen Code 0.24 starts in its "auto" mode: an LLM classifier call approves
    # each tool use (against the fake model it approved writes without asking the
    # client). "default" asks the client, offline and deterministically.
    args=("--acp", "--approval-mode", "default"),
    read=lambda p: Tool("read_file", {"file_path": p}),
    write=lambda p, c: Tool("write_file", {"file_path": p, "content": c}),
    shell=lambda c: Tool("run_shell_command", {"command": c}),
    plan=_todos_qwen,
    node22=True,
    # Its `agent` tool runs the subagent in the background and shows it only as a
    # tool call, opt-in or not (no subagent_update; the child's output is not shown).
    subagent=lambda task: Tool(
        "agent",
        {"description": "probe subagent", "prompt": task, "subagent_type": "general-purpose"},
    ),
    fallback=("title", "Agent: probe subagent"),
    subagent_tree=False,
)


def _escalated(command: str) -> Step:
    """Codex's ``exec_command`` asking out of the read-only sandbox: the client is asked.

    A command without ``require_escalated`` runs in the sandbox without asking.
    """
    return Tool(
        "exec_command",
        {
            "cmd": command,
            "sandbox_permissions": "require_escalated",
            "justification": "the test needs it",
        },
    )


CODEX = Agent(
    name="codex",
    entry="@agentclientprotocol/codex-acp/dist/index.js",
    # Codex 0.166 offers the model no file tool for an unknown model (no
    # apply_patch): it writes with its shell, escalated, so the client is asked.
    write=lambda p, c: _escalated(f"printf %s {shlex.quote(c)} > {shlex.quote(p)}"),
    shell=_escalated,
    own_tools=True,
    node22=True,
    # Its only reject option, "No, and tell Codex what to do differently", stops the turn.
    reject_ends_turn=True,
    # multi_agent_v1's spawn_agent (a Responses namespace tool; the fake model names it).
    subagent=lambda task: Tool("spawn_agent", {"message": task}),
    fallback=("title", "spawnAgent"),
    subagents_outlive_turn=True,
    meta_terminal=True,
    system_prompt_modes=("append",),
    na={
        "auth": "the suite runs Codex against a custom model provider, which needs no login",
        "read": "codex-acp 2.6.0 reads files with its own shell, never through fs/read_text_file",
        "plan": "Codex 0.166 offers the model no plan tool here (no update_plan in its tools)",
        "jail": "codex-acp 2.6.0 writes with its own shell: only the permission request "
        "(acphost's policy), not the host's jail, can stop a write outside the workspace",
    },
)

VIBE = Agent(
    name="vibe",
    entry="vibe-acp",
    pypi=True,
    read=lambda p: Tool("read_file", {"path": p}),
    write=lambda p, c: Tool("write_file", {"path": p, "content": c}),
    shell=lambda c: Tool("bash", {"command": c}),
    plan=lambda item: Tool(
        "todo", {"action": "write", "todos": [{"id": "1", "content": item, "status": "pending"}]}
    ),
    own_tools=True,
    na={
        "read": "Mistral Vibe 3.0.3 reads files with its own read_file tool, "
        "never through fs/read_text_file",
        "jail": "Mistral Vibe 3.0.3 writes with its own tools: only the permission request "
        "(acphost's policy), not the host's jail, can stop a write outside the workspace",
        "auth": "Mistral Vibe 3.0.3 offers this client no auth method (authMethods: []); "
        "the suite's provider takes its key from an environment variable",
        "subagents": "Mistral Vibe 3.0.3 offers the model no subagent tool here and "
        "sends no subagent updates",
    },
)

FAST_AGENT = Agent(
    name="fast-agent",
    entry="fast-agent",
    # -x: a shell tool ("execute"), run through the client's terminal/* by default.
    args=("--no-update-check", "acp", "--model", "generic.fake-model", "-x"),
    pypi=True,
    read=lambda p: Tool("read_text_file", {"path": p}),
    write=lambda p, c: Tool("write_text_file", {"path": p, "content": c}),
    shell=lambda c: Tool("execute", {"command": c}),
    uses_terminal=True,
    na={
        "auth": "the suite's generic (OpenAI-style) provider takes its key from "
        "GENERIC_API_KEY; fast-agent 0.10.48 offers only a configure-it-yourself method",
        "plan": "fast-agent 0.10.48 offers the model no plan tool",
        "subagents": "fast-agent 0.10.48 offers the model no subagent tool",
    },
)

AGENTS: dict[str, Agent] = {a.name: a for a in (SDK, CLAUDE, CODEX, GEMINI, QWEN, VIBE, FAST_AGENT)}


def settings_for(agent: Agent, root: Path, home: Path, model: FakeModel | None) -> dict[str, Any]:
    """A settings.json naming only this agent (the CLI picks the first)."""
    entry: dict[str, Any] = {
        "command": agent.argv(root, model)[0],
        "args": agent.argv(root, model)[1:],
        "env": agent.env(home, model),
    }
    if agent.name == "vibe":  # not a preset's name: the sandbox lets it write its home
        entry["sandbox"] = {"write": ["$VIBE_HOME"]}
    return {"agent_servers": {agent.name: entry}}
