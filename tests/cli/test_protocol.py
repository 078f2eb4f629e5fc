"""``--protocol 1|2|auto`` and ``--mcp-tools``: parsed once, carried to the run, shown.

The demo agent runs as a real subprocess; it speaks v1 and v2 (negotiated),
or v1 only with ``ACPHOST_DEMO_PROTOCOL=1``. The choice (flag, else the
agent's settings entry, else the settings' top level) reaches the wire: the
``initialize`` frames of the jsonl mirror, checked against the schema of the
version agreed, and the version agreed is said by every face.
"""

from __future__ import annotations

import json

import pytest

from tests.cli.runner import run
from tests.cli.test_cli import check_jsonl


def _settings(tmp_path, data) -> dict[str, str]:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(data))
    return {"ACPHOST_SETTINGS": str(path)}


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def test_protocol_1_is_sent_agreed_and_listed_with_what_was_asked(tmp_path):
    r = run(["--no-history", "--protocol", "1", "-o", "jsonl", "echo hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (init,) = [f for f in check_jsonl(r.stdout) if f.get("method") == "initialize"]
    assert init["params"]["protocolVersion"] == 1
    r = run(["--no-history", "--protocol", "1", "--list-caps"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\n  protocol 1 (asked: 1)\n" in r.stdout


def test_verbose_says_the_agreed_version_and_what_was_asked(tmp_path):
    r = run(["--no-history", "-v", "echo hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "acphost: acphost.cli: protocol 1 (asked: 1)" in r.stderr.splitlines()


def test_doctor_says_the_agreed_version_and_what_was_asked(tmp_path):
    r = run(["doctor", "--protocol", "1"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("initialize:")]
    assert line.endswith(", protocol 1 (asked: 1)")


@pytest.mark.parametrize("command", [[], ["doctor"], ["sessions"], ["tui"], ["batch"]])
@pytest.mark.parametrize("value", ["3", "0", "two", ""])
def test_a_bad_protocol_is_one_line_and_exit_2_before_any_agent_starts(tmp_path, command, value):
    r = run([*command, "--protocol", value, *([] if command else ["echo hi"])], cwd=tmp_path)
    assert r.returncode == 2
    line = _one_line(r.stderr)
    assert f"argument --protocol: must be 1, 2 or auto, got {value!r}" in line
    assert r.stdout == ""


V1_ONLY = {"ACPHOST_DEMO_PROTOCOL": "1"}


def _methods(frames: list[dict]) -> list[str]:
    return [f["method"] for f in frames if "method" in f]


def test_protocol_2_is_sent_agreed_and_shown_by_every_command(tmp_path):
    r = run(["--no-history", "--protocol", "2", "-o", "jsonl", "echo hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    (init,) = [f for f in frames if f.get("method") == "initialize"]
    assert init["params"]["protocolVersion"] == 2 and "info" in init["params"]
    (answer,) = [f for f in frames if f.get("id") == init["id"] and "result" in f]
    assert answer["result"]["protocolVersion"] == 2
    r = run(["--no-history", "--protocol", "2", "--list-caps"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\n  protocol 2 (asked: 2)\n" in r.stdout
    r = run(["doctor", "--protocol", "2"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("initialize:")]
    assert line.endswith(", protocol 2 (asked: 2)")
    r = run(["sessions", "--protocol", "2"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_auto_lands_on_2_against_the_demo_and_falls_back_to_1_against_a_v1_only_one(tmp_path):
    args = ["--no-history", "--protocol", "auto", "-v", "-o", "jsonl", "echo hi"]
    r = run(args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    inits = [f for f in check_jsonl(r.stdout) if f.get("method") == "initialize"]
    assert [f["params"]["protocolVersion"] for f in inits] == [2]
    assert "acphost: acphost.cli: protocol 2 (asked: auto)" in r.stderr.splitlines()
    r = run(args, cwd=tmp_path, env=V1_ONLY)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    # The fallback is on the wire: v2 offered, answered 1, then v1's initialize
    # on the same connection, and the turn in v1's shape.
    inits = [f for f in frames if f.get("method") == "initialize"]
    assert [f["params"]["protocolVersion"] for f in inits] == [2, 1]
    answers = [
        f["result"]["protocolVersion"] for f in frames if "protocolVersion" in f.get("result", {})
    ]
    assert answers == [1, 1]
    assert any(f.get("result", {}).get("stopReason") == "end_turn" for f in frames)
    assert "acphost: acphost.cli: protocol 1 (asked: auto)" in r.stderr.splitlines()


def test_a_v1_only_agent_asked_for_2_is_one_line_naming_the_way_out(tmp_path):
    r = run(["--no-history", "--protocol", "2", "echo hi"], cwd=tmp_path, env=V1_ONLY)
    # The agent broke no rule of ours: it speaks another version. The CLI's
    # agent/protocol failure (exit 1), one line that says what to ask for.
    assert r.returncode == 1
    line = _one_line(r.stderr)
    assert "answered ACP protocol version 1 to version 2" in line
    assert "ask for version 1 or 'auto'" in line
    assert r.stdout == ""


def test_the_settings_choose_the_protocol_and_the_flag_wins(tmp_path):
    # The top level asks for auto; the demo's entry for 2; the flag for 1.
    env = _settings(tmp_path, {"protocol": "auto", "agent_servers": {"demo": {"protocol": 2}}})
    r = run(["--no-history", "-v", "echo hi"], cwd=tmp_path, env={**env, **V1_ONLY})
    # The entry's 2 is asked (not the top level's auto): a v1-only demo refuses it.
    assert r.returncode == 1 and "to version 2" in r.stderr
    r = run(["--no-history", "-v", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert "acphost: acphost.cli: protocol 2 (asked: 2)" in r.stderr.splitlines()
    r = run(["--no-history", "-v", "--protocol", "1", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert "acphost: acphost.cli: protocol 1 (asked: 1)" in r.stderr.splitlines()
    env = _settings(tmp_path, {"protocol": "auto", "agent_servers": {}})
    r = run(["--no-history", "-v", "echo hi"], cwd=tmp_path, env={**env, **V1_ONLY})
    assert r.returncode == 0, r.stderr
    assert "acphost: acphost.cli: protocol 1 (asked: auto)" in r.stderr.splitlines()


def _acphost_server(frames: list[dict]) -> list[dict]:
    (new,) = [f for f in frames if f.get("method") == "session/new"]
    return [m for m in new["params"]["mcpServers"] if m.get("name") == "acphost"]


def test_mcp_tools_offers_the_acphost_server_on_v1_and_the_demo_writes_through_it(tmp_path):
    args = ["--no-history", "--protocol", "1", "--write", "-o", "jsonl"]
    r = run([*args, "--mcp-tools", "write notes.txt hello"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    assert len(_acphost_server(frames)) == 1
    # The write went through the MCP tool, not the v1 client method.
    assert not [m for m in _methods(frames) if m.startswith("fs/")]
    assert (tmp_path / "notes.txt").read_text() == "hello"
    # Without the flag the agent gets no such server and asks with fs/*.
    r = run([*args, f"write {tmp_path / 'other.txt'} hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    assert _acphost_server(frames) == []
    assert "fs/write_text_file" in _methods(frames)
    assert (tmp_path / "other.txt").read_text() == "hi"


def test_no_mcp_tools_wins_over_settings(tmp_path):
    env = _settings(tmp_path, {"mcp_tools": True, "agent_servers": {}})
    args = ["--no-history", "--protocol", "1", "-o", "jsonl", "echo hi"]
    r = run(args, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert len(_acphost_server(check_jsonl(r.stdout))) == 1
    r = run(["--no-mcp-tools", *args], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert _acphost_server(check_jsonl(r.stdout)) == []


def test_a_bad_protocol_in_settings_is_one_line_naming_the_key(tmp_path):
    env = _settings(tmp_path, {"agent_servers": {"demo": {"protocol": "two"}}})
    r = run(["--no-history", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 2
    assert "agent_servers.demo.protocol must be 1, 2 or \"auto\", got 'two'" in _one_line(r.stderr)
