"""``--protocol 1|2|auto`` and ``--mcp-tools``: parsed once, carried to the run, shown.

The demo agent runs as a real subprocess. The choice reaches the library's
run options (protocol 1 is what the demo agrees to today); a choice the
library refuses comes back as its one line and exit 2, so a test that asks
for it sees that the value travelled: flag, settings entry, top level.
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


@pytest.mark.parametrize("command", [[], ["doctor"], ["sessions"]])
def test_protocol_2_reaches_the_library_whose_refusal_is_one_line(tmp_path, command):
    # The library negotiates version 1 only, for now: it refuses 2 before the
    # agent starts, naming the version asked for, so the flag travelled.
    prompt = [] if command else ["--no-history", "echo hi"]
    r = run([*command, "--protocol", "2", *prompt], cwd=tmp_path)
    assert r.returncode == 2
    assert "protocol 2 is not supported yet" in _one_line(r.stderr)


def test_the_settings_choose_the_protocol_and_the_flag_wins(tmp_path):
    # The top level asks for auto; the demo's entry for 2; the flag for 1.
    env = _settings(tmp_path, {"protocol": "auto", "agent_servers": {"demo": {"protocol": 2}}})
    r = run(["--no-history", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 2 and "protocol 2 is not supported yet" in _one_line(r.stderr)
    r = run(["--no-history", "--protocol", "1", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    env = _settings(tmp_path, {"protocol": "auto", "agent_servers": {}})
    r = run(["--no-history", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 2 and "protocol auto is not supported yet" in _one_line(r.stderr)


def test_mcp_tools_reaches_the_library_and_no_mcp_tools_wins_over_settings(tmp_path):
    r = run(["--no-history", "--mcp-tools", "echo hi"], cwd=tmp_path)
    assert r.returncode == 2 and "MCP server" in _one_line(r.stderr)
    env = _settings(tmp_path, {"mcp_tools": True, "agent_servers": {}})
    r = run(["--no-history", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 2 and "MCP server" in _one_line(r.stderr)
    r = run(["--no-history", "--no-mcp-tools", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr


def test_a_bad_protocol_in_settings_is_one_line_naming_the_key(tmp_path):
    env = _settings(tmp_path, {"agent_servers": {"demo": {"protocol": "two"}}})
    r = run(["--no-history", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 2
    assert "agent_servers.demo.protocol must be 1, 2 or \"auto\", got 'two'" in _one_line(r.stderr)
