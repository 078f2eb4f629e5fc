"""settings.json's ``protocol`` and ``mcp_tools``: checked, per agent and at the top level."""

from __future__ import annotations

import json

import pytest

from acphost.config import (
    DEMO,
    SettingsError,
    load_settings,
    parse_protocol,
    protocol_options,
    resolve_agent,
    with_protocol_choice,
)

AGENT = {"command": "my-agent", "args": ["--acp"]}


def _load(tmp_path, data):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    return load_settings(path)


def _error(tmp_path, data) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SettingsError) as info:
        load_settings(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    return message


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"protocol": 3}, 'protocol must be 1, 2 or "auto", got 3'),
        ({"protocol": "2"}, "protocol must be 1, 2 or \"auto\", got '2'"),
        ({"protocol": True}, 'protocol must be 1, 2 or "auto", got True'),
        ({"protocol": "AUTO!"}, "protocol must be"),
        ({"protocol": [1]}, "protocol must be"),
        ({"mcp_tools": "yes"}, "mcp_tools must be true or false, got 'yes'"),
        ({"mcp_tools": 1}, "mcp_tools must be true or false"),
    ],
)
def test_a_bad_protocol_or_mcp_tools_is_one_line_naming_the_key(tmp_path, data, needle):
    at_agent = _error(tmp_path, {"agent_servers": {"x": {**AGENT, **data}}})
    assert f"agent_servers.x.{needle}" in at_agent
    at_top = _error(tmp_path, {"agent_servers": {}, **data})
    assert f": {needle}" in at_top


def test_an_entry_chooses_its_protocol_and_the_top_level_the_others(tmp_path):
    settings = _load(
        tmp_path,
        {
            "protocol": "auto",
            "mcp_tools": True,
            "agent_servers": {
                "mine": {**AGENT, "protocol": 2, "mcp_tools": False},
                "other": AGENT,
                "demo": {"protocol": 1},  # adjusts the built-in demo
            },
        },
    )
    assert (settings.protocol, settings.mcp_tools) == ("auto", True)
    mine = with_protocol_choice(resolve_agent("mine", settings), settings)
    other = with_protocol_choice(resolve_agent("other", settings), settings)
    demo = with_protocol_choice(resolve_agent("demo", settings), settings)
    assert protocol_options(mine) == {"protocol": 2, "mcp_tools": False}
    assert protocol_options(other) == {"protocol": "auto", "mcp_tools": True}
    assert protocol_options(demo) == {"protocol": 1, "mcp_tools": True}


def test_the_flags_win_over_the_entry_and_nothing_said_is_protocol_1(tmp_path):
    settings = _load(tmp_path, {"agent_servers": {"mine": {**AGENT, "protocol": 2}}})
    spec = resolve_agent("mine", settings)
    chosen = with_protocol_choice(spec, settings, protocol="auto", mcp_tools=True)
    assert protocol_options(chosen) == {"protocol": "auto", "mcp_tools": True}
    assert protocol_options(with_protocol_choice(DEMO)) == {"protocol": 1, "mcp_tools": False}
    assert with_protocol_choice(DEMO) is DEMO


@pytest.mark.parametrize(
    ("given", "expected"), [("1", 1), ("2", 2), ("auto", "auto"), (" Auto ", "auto"), (2, 2)]
)
def test_parse_protocol_takes_a_word_or_a_number(given, expected):
    assert parse_protocol(given) == expected


@pytest.mark.parametrize("given", ["3", "0", "", "v2", 3, True, 1.0, None])
def test_parse_protocol_refuses_anything_else_saying_what_it_takes(given):
    with pytest.raises(ValueError, match="must be 1, 2 or auto"):
        parse_protocol(given)
