"""Traces: recording with redaction, validation, replay of the shipped fixtures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from acphost.redact import REDACTED, Redactor
from acphost.trace import TraceValidator, TraceWriter, validate_file
from tests.fixtures.traces.scenarios import HERE, SCENARIOS, run

FIXTURES = sorted(HERE.glob("*.jsonl"))
REPLAY = [sys.executable, "-m", "acphost.agents.replay"]


def test_every_scenario_has_a_fixture():
    assert {p.stem for p in FIXTURES} == set(SCENARIOS)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_validates(path):
    assert validate_file(str(path)) == []


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_library_against_replayed_fixture(name, tmp_path):
    report = tmp_path / "report.json"
    trace = tmp_path / "live.jsonl"
    run(
        SCENARIOS[name],
        [*REPLAY, str(HERE / f"{name}.jsonl"), "--report", str(report)],
        {},
        trace=str(trace),
    )
    assert json.loads(report.read_text())["differences"] == []
    assert validate_file(str(trace)) == []


def test_replay_reports_differences(tmp_path):
    report = tmp_path / "report.json"
    # Replaying the permission trace, but the host rejects instead of allowing.
    import asyncio

    from acphost import AcpClient, HostConfig
    from acphost.host import DenyAll

    async def main():
        async with AcpClient.start(
            [*REPLAY, str(HERE / "permission.jsonl"), "--report", str(report)],
            host=HostConfig(permissions=DenyAll()),
        ) as client:
            session = await client.new_session("/tmp/acphost-fixture-ws")
            await session.prompt("permission")

    asyncio.run(main())
    diffs = json.loads(report.read_text())["differences"]
    assert len(diffs) == 1 and "reject" in diffs[0]["difference"]


def _trace(lines: list[dict]) -> list[dict]:
    return [{"jsonrpc": "2.0", **f} for f in lines]


BROKEN = _trace(
    [
        {
            "direction": "outgoing",
            "id": 0,
            "method": "session/new",
            "params": {"cwd": "/w", "mcpServers": []},
        },  # 1 initialize-first
        {"direction": "incoming", "id": 0, "result": {"sessionId": "s"}},
        {
            "direction": "outgoing",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False}}},
        },
        {
            "direction": "incoming",
            "id": 1,
            "result": {"protocolVersion": 1, "agentCapabilities": {}},
        },
        {
            "direction": "incoming",
            "id": 1,
            "result": {"protocolVersion": 1},
        },  # 5 duplicate response
        {
            "direction": "incoming",
            "id": "a1",
            "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/w/x"},
        },  # 6 capability
        {"direction": "outgoing", "id": "a1", "error": {"code": -32601, "message": "no"}},
        {
            "direction": "incoming",
            "method": "session/update",
            "params": {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "x"},
                },
            },
        },  # 8 turn-order
        {
            "direction": "outgoing",
            "id": 2,
            "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]},
        },
        {"direction": "outgoing", "method": "session/cancel", "params": {"sessionId": "s"}},
        {"direction": "incoming", "id": 2, "result": {"stopReason": "end_turn"}},  # 11 cancelled
        {
            "direction": "outgoing",
            "id": 3,
            "method": "session/load",
            "params": {"sessionId": "s", "cwd": "/w", "mcpServers": []},
        },  # 12 capability (no loadSession)
        {
            "direction": "outgoing",
            "id": 4,
            "method": "session/set_mode",
            "params": {"sessionId": 5},
        },  # 13 schema; never answered
        {"direction": "incoming", "id": 3, "result": {}},
    ]
)


def test_broken_trace_reports_each_injected_violation(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in BROKEN) + "\nnot json\n")
    found = {(v.line, v.side, v.rule) for v in validate_file(str(path))}
    expected = {
        (1, "client", "initialize-first"),
        (5, "agent", "one-response"),
        (6, "agent", "capability"),
        (8, "agent", "turn-order"),
        (11, "agent", "cancelled"),
        (12, "client", "capability"),
        (13, "client", "schema"),
        (13, "agent", "one-response"),  # never answered
        (15, "trace", "unreadable"),
    }
    assert expected <= found, found
    assert found - expected == set(), found - expected


def test_cli_validate(tmp_path):
    ok = subprocess.run(
        [sys.executable, "-m", "acphost", "validate", *map(str, FIXTURES)],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in BROKEN))
    bad = subprocess.run(
        [sys.executable, "-m", "acphost", "validate", str(path)], capture_output=True, text=True
    )
    assert bad.returncode == 1
    assert f"{path}:1: [client] initialize-first" in bad.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "acphost", "validate", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_cli_trace_and_replay_as_agent(tmp_path):
    trace = tmp_path / "t.jsonl"
    env = {"ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # where the demo agent keeps sessions
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # where the command line keeps its history
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "--trace", str(trace), "-o", "simple", "echo traced"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0 and "traced" in r.stdout
    assert validate_file(str(trace)) == []
    settings = tmp_path / "s.json"
    settings.write_text(
        json.dumps(
            {
                "agent_servers": {
                    "replay": {
                        "command": sys.executable,
                        "args": ["-m", "acphost", "replay", str(trace)],
                    }
                }
            }
        )
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "acphost",
            "--settings",
            str(settings),
            "-o",
            "simple",
            "echo traced",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0 and "traced" in r.stdout, r.stderr


def test_strict_stops_on_agent_violation(tmp_path):
    env = {"ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # where the demo agent keeps sessions
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # where the command line keeps its history
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "--strict", "unknown"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1 and "--strict" in r.stderr and "future_variant" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "unknown"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert (
        r.returncode == 0 and "protocol violation by the agent (schema)" not in r.stderr
    )  # rules-only by default


def test_redactor():
    r = Redactor(value_patterns=[r"hunter2"])
    frame = {
        "params": {
            "mcpServers": [
                {
                    "name": "x",
                    "command": "c",
                    "args": ["--token", "t"],
                    "env": [{"name": "API_KEY", "value": "v1"}],
                },
                {
                    "type": "http",
                    "name": "h",
                    "url": "u",
                    "headers": [{"name": "Authorization", "value": "Bearer abcdefghijk"}],
                },
            ],
            "env": {"OPENAI_API_KEY": "sk-abcdefghijklmnopqrstuv"},
            "apiKey": "k",
            "authorization": "a",
            "text": "my password is hunter2 and key sk-abcdefghijklmnopqrstuvwx",
            "meta": {"note": "fine"},
            "accessToken": "t0k3n",
            "usage": {"inputTokens": 5, "total_tokens": 9},
        }
    }
    out = r(frame)["params"]
    assert out["mcpServers"][0]["env"][0] == {"name": "API_KEY", "value": REDACTED}
    assert out["mcpServers"][1]["headers"][0]["value"] == REDACTED
    assert out["env"] == {"OPENAI_API_KEY": REDACTED}
    assert (
        out["apiKey"] == REDACTED
        and out["authorization"] == REDACTED
        and out["accessToken"] == REDACTED
    )
    assert out["usage"] == {"inputTokens": 5, "total_tokens": 9}  # counts are not secrets
    assert "hunter2" not in out["text"] and "sk-abc" not in out["text"]
    assert out["meta"] == {"note": "fine"}
    assert out["mcpServers"][0]["args"] == ["--token", REDACTED]  # a secret flag's value
    assert frame["params"]["apiKey"] == "k"  # the input is untouched


def test_trace_writer_format_and_redaction(tmp_path):
    path = tmp_path / "t.jsonl"
    w = TraceWriter(str(path))
    w(
        "send",
        b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"m","command":"c","args":[],"env":[{"name":"TOKEN","value":"secret-v"}]}]}}',
    )
    w("receive", b"garbage")
    w.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert (
        lines[0]["direction"] == "outgoing"
        and lines[0]["method"] == "session/new"
        and "timestamp" in lines[0]
    )
    assert "secret-v" not in path.read_text()
    assert lines[1]["unparsed"] == "garbage" and lines[1]["direction"] == "incoming"
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_live_validator_feed_api():
    v = TraceValidator(schema=False)
    assert (
        v.feed(
            "outgoing",
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
        )
        == []
    )
    found = v.feed("incoming", {"jsonrpc": "2.0", "id": 9, "result": {}})
    assert found and found[0].rule == "one-response"
    assert [x.rule for x in v.finish()] == ["one-response", "one-response"]
