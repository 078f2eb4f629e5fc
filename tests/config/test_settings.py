"""settings.json: every malformed file is one clear error naming the file and the key."""

from __future__ import annotations

import json

import pytest

from acphost.config import (
    SettingsError,
    agent_from_command,
    all_agents,
    load_settings,
    resolve_agent,
)


def _load(tmp_path, data):
    path = tmp_path / "s.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path, load_settings(path)


def _error(tmp_path, data) -> str:
    path = tmp_path / "s.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(SettingsError) as info:
        load_settings(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    return message


AGENT = {"command": "my-agent", "args": ["--acp"]}


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({}, "no 'agent_servers'"),
        ({"mcp_servers": {}}, "no 'agent_servers'"),
        ({"theme": "dark"}, "no 'agent_servers'"),
        ({"agent_servers": []}, "'agent_servers' must be an object"),
        ({"agent_servers": {"x": "cmd"}}, "agent_servers.x must be an object"),
        ({"agent_servers": {"x": {"args": ["a"]}}}, "agent_servers.x has no 'command'"),
        ({"agent_servers": {"x": {}}}, "agent_servers.x has no 'command'"),
        ({"agent_servers": {"x": {"command": ""}}}, "agent_servers.x.command"),
        ({"agent_servers": {"x": {"command": 5}}}, "agent_servers.x.command"),
        ({"agent_servers": {"x": {"command": "a\u0000b"}}}, "agent_servers.x.command"),
        ({"agent_servers": {"x": {"command": "a", "args": "b"}}}, "agent_servers.x.args"),
        ({"agent_servers": {"x": {"command": "a", "args": [1]}}}, "agent_servers.x.args"),
        ({"agent_servers": {"x": {"command": "a", "env": []}}}, "agent_servers.x.env"),
        ({"agent_servers": {"x": {"command": "a", "env": {"K": 1}}}}, "agent_servers.x.env.K"),
        ({"agent_servers": {"x": {"command": "a", "env": {"A=B": "v"}}}}, "agent_servers.x.env"),
        (
            {"agent_servers": {"x": {"command": "a", "missing_file_returns_empty": "yes"}}},
            "agent_servers.x.missing_file_returns_empty",
        ),
        ("[1]", "top level must be a JSON object"),
        ('{"agent_servers": {}, }', "invalid JSON at line 1"),
        ('{"agent_servers": {"x": {"command": "a", "args": [NaN]}}}', "invalid JSON"),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON"),
    ],
)
def test_agent_errors(tmp_path, data, needle):
    assert needle in _error(tmp_path, data)


def test_invalid_utf8_names_the_byte(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b'{"agent_servers": {"\xff": {}}}')
    with pytest.raises(SettingsError, match="not UTF-8"):
        load_settings(path)


def test_an_entry_without_command_may_adjust_a_preset(tmp_path):
    _, settings = _load(tmp_path, {"agent_servers": {"gemini": {"env": {"GEMINI_API_KEY": "k"}}}})
    spec = all_agents(settings)["gemini"]
    assert spec.env["GEMINI_API_KEY"] == "k" and spec.source.startswith("registry + ")


def test_empty_agent_servers_is_allowed_and_falls_back_to_the_demo(tmp_path):
    _, settings = _load(tmp_path, {"agent_servers": {}})
    assert settings.agents == {} and resolve_agent(None, settings).name == "demo"


@pytest.mark.parametrize(
    ("mcp", "needle"),
    [
        ("x", "'mcp_servers' must be a list or an object"),
        ([{"command": "c"}], "mcp_servers[0] must be an object with a string 'name'"),
        ({"": {"command": "c"}}, "MCP server name"),
        ({"m": "c"}, "mcp_servers.m must be an object"),
        ({"m": {}}, "mcp_servers.m needs a 'command'"),
        ({"m": {"command": ""}}, "mcp_servers.m needs a 'command'"),
        ({"m": {"command": "c", "args": "a"}}, "mcp_servers.m.args"),
        ({"m": {"command": "c", "env": {"K": 1}}}, "mcp_servers.m.env.K"),
        ({"m": {"command": "c", "env": "K=1"}}, "mcp_servers.m.env"),
        ({"m": {"command": "c", "env": [{"name": "K"}]}}, "mcp_servers.m.env[0]"),
        ({"m": {"command": "c", "env": {"": "v"}}}, "mcp_servers.m.env"),
        ({"m": {"command": "c", "url": "https://x"}}, "both 'command' and 'url'"),
        ({"m": {"type": "ftp", "url": "https://x"}}, "mcp_servers.m.type"),
        ({"m": {"type": "http"}}, "mcp_servers.m of type 'http' needs a 'url'"),
        ({"m": {"url": 5}}, "mcp_servers.m.url"),
        ({"m": {"url": "file:///etc/passwd"}}, "mcp_servers.m.url"),
        ({"m": {"url": "https://"}}, "mcp_servers.m.url"),
        ({"m": {"url": "https://h", "headers": {"X": 1}}}, "mcp_servers.m.headers.X"),
        ({"m": {"url": "https://h", "headers": {"X": "a\r\nB: c"}}}, "mcp_servers.m.headers.X"),
        ({"m": {"url": "https://h", "headers": {"Bad Name": "v"}}}, "mcp_servers.m.headers"),
        ({"m": {"url": "https://h", "headers": "v"}}, "mcp_servers.m.headers"),
        ([{"name": "m", "command": "c"}, {"name": "m", "command": "d"}], "used twice"),
    ],
)
def test_mcp_errors(tmp_path, mcp, needle):
    assert needle in _error(tmp_path, {"agent_servers": {}, "mcp_servers": mcp})


def test_mcp_both_forms_become_the_wire_shape(tmp_path):
    _, settings = _load(
        tmp_path,
        {
            "agent_servers": {},
            "mcp_servers": {
                "files": {"command": "mcp-files", "args": ["--ro"], "env": {"TOKEN": "t"}},
                "web": {"type": "sse", "url": "https://h/sse", "headers": {"Authorization": "a"}},
                "local": {"type": "stdio", "command": "c"},
            },
        },
    )
    assert settings.mcp_servers == [
        {
            "name": "files",
            "command": "mcp-files",
            "args": ["--ro"],
            "env": [{"name": "TOKEN", "value": "t"}],
        },
        {
            "type": "sse",
            "name": "web",
            "url": "https://h/sse",
            "headers": [{"name": "Authorization", "value": "a"}],
        },
        {"name": "local", "command": "c", "args": [], "env": []},
    ]
    _, listed = _load(
        tmp_path,
        {
            "agent_servers": {},
            "mcp_servers": [{"name": "h", "type": "http", "url": "http://h", "headers": []}],
        },
    )
    assert listed.mcp_servers == [{"type": "http", "name": "h", "url": "http://h", "headers": []}]


def test_agent_from_command_splits_like_a_shell_and_never_uses_one():
    spec = agent_from_command("npx -y 'my agent' --flag=\"a b\" ; rm -rf $HOME")
    assert spec.argv == ["npx", "-y", "my agent", "--flag=a b", ";", "rm", "-rf", "$HOME"]
    assert spec.name == "npx" and spec.source == "--agent-command"
    assert agent_from_command("/opt/bin/agent --acp", name="mine").name == "mine"
    assert agent_from_command("/opt/bin/agent").name == "agent"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("''", "empty"),
        ("agent 'unclosed", "no closing quotation"),
        ('agent "unclosed', "no closing quotation"),
        ("agent \\", "no escaped character"),
        ("agent\x00x", "NUL"),
    ],
)
def test_agent_from_command_errors(text, needle):
    with pytest.raises(SettingsError, match=needle):
        agent_from_command(text)


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"max_tokens": 200000}, (200000, None, None)),
        ({"max_cost": 1.5}, (None, 1.5, None)),
        ({"max_cost": 2}, (None, 2.0, None)),
        ({"max_cost": "0.50 usd", "max_tokens": 0}, (0, 0.5, "USD")),
        ({"max_cost": "3EUR"}, (None, 3.0, "EUR")),
        ({}, (None, None, None)),
    ],
)
def test_agent_budgets(tmp_path, entry, expected):
    _, settings = _load(tmp_path, {"agent_servers": {"x": {**AGENT, **entry}}})
    spec = settings.agents["x"]
    assert (spec.max_tokens, spec.max_cost, spec.cost_currency) == expected


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"max_tokens": -1}, "agent_servers.x.max_tokens must be a whole number >= 0"),
        ({"max_tokens": 1.5}, "agent_servers.x.max_tokens"),
        ({"max_tokens": True}, "agent_servers.x.max_tokens"),
        ({"max_tokens": "100"}, "agent_servers.x.max_tokens"),
        ({"max_cost": -0.5}, "agent_servers.x.max_cost must be an amount >= 0"),
        ({"max_cost": "lots"}, "agent_servers.x.max_cost"),
        ({"max_cost": "1 dollar"}, "agent_servers.x.max_cost"),
        ({"max_cost": [1]}, "agent_servers.x.max_cost"),
        ({"max_cost": False}, "agent_servers.x.max_cost"),
    ],
)
def test_bad_agent_budgets(tmp_path, entry, needle):
    assert needle in _error(tmp_path, {"agent_servers": {"x": {**AGENT, **entry}}})


def test_a_budget_adjusts_a_preset_and_the_demo(tmp_path):
    data = {"agent_servers": {"demo": {"max_cost": 0.25}, "gemini": {"max_tokens": 1000}}}
    _, settings = _load(tmp_path, data)
    agents = all_agents(settings)
    assert agents["gemini"].max_tokens == 1000 and agents["gemini"].command
    assert agents["demo"].max_cost == 0.25
    # The demo is the default agent when the settings name no full entry.
    assert resolve_agent(None, settings).max_cost == 0.25
    assert resolve_agent("demo", settings).max_cost == 0.25
