"""``acphost.run(protocol=..., mcp_tools=...)``: the choice reaches the wire, the result says it.

The demo agent runs as a real subprocess; a tap sees the frames on the pipe.
"""

from __future__ import annotations

import json

import pytest

import acphost
from acphost import HostConfig
from acphost.errors import UsageError
from acphost.host import AllowAll
from acphost.launch import UsageProblem


def _frames() -> tuple[list[dict], object]:
    seen: list[dict] = []

    def tap(direction: str, line: bytes) -> None:
        seen.append({"direction": direction, **json.loads(line)})

    return seen, tap


def _initialize(seen: list[dict]) -> list[int]:
    return [f["params"]["protocolVersion"] for f in seen if f.get("method") == "initialize"]


def _acphost_server(seen: list[dict]) -> list[dict]:
    (new,) = [f for f in seen if f.get("method") == "session/new"]
    return [m for m in new["params"]["mcpServers"] if m.get("name") == "acphost"]


@pytest.mark.parametrize(("asked", "sent", "agreed"), [(1, [1], 1), (2, [2], 2), ("auto", [2], 2)])
def test_run_speaks_the_protocol_it_is_asked_for(tmp_path, monkeypatch, asked, sent, agreed):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    seen, tap = _frames()
    result = acphost.run("echo hi", cwd=tmp_path, protocol=asked, tap=tap)
    assert (result.text, result.stop_reason) == ("hi", "end_turn")
    assert _initialize(seen) == sent
    assert result.protocol_version == agreed


def test_run_auto_falls_back_to_1_against_a_v1_only_agent(tmp_path, monkeypatch):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    seen, tap = _frames()
    result = acphost.run(
        "echo hi", cwd=tmp_path, env={"ACPHOST_DEMO_PROTOCOL": "1"}, protocol="auto", tap=tap
    )
    assert result.text == "hi" and result.protocol_version == 1
    assert _initialize(seen) == [2, 1]


def test_run_mcp_tools_offers_the_host_tools_on_v1_and_the_write_lands(tmp_path, monkeypatch):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    seen, tap = _frames()
    host = HostConfig(allow_write=True, permissions=AllowAll())
    result = acphost.run(
        "write notes.txt hello", cwd=tmp_path, protocol=1, mcp_tools=True, host=host, tap=tap
    )
    assert result.stop_reason == "end_turn", result.text
    assert len(_acphost_server(seen)) == 1
    assert not [f for f in seen if str(f.get("method", "")).startswith("fs/")]
    assert (tmp_path / "notes.txt").read_text() == "hello"
    assert result.protocol_version == 1


def test_run_refuses_a_protocol_it_does_not_know_before_the_agent_starts(tmp_path):
    with pytest.raises((UsageError, UsageProblem), match="unknown ACP protocol version 3"):
        acphost.run("echo hi", cwd=tmp_path, protocol=3, agent=["/nonexistent/agent"])  # type: ignore[typeddict-item]


def test_a_v2_diff_is_the_same_content_as_v1s(tmp_path, monkeypatch):
    """v2 sends a diff as ``{changes, patch}``; read back, it is v1's (path, oldText,
    newText): the path the change names, and text without a final newline when the
    patch says "\\ No newline at end of file" (it gained one)."""
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    host = HostConfig(allow_write=True, permissions=AllowAll())
    diffs = {}
    for version in (1, 2):
        ws = tmp_path / f"v{version}"
        ws.mkdir()
        result = acphost.run(f"write {ws}/notes.txt hello", cwd=ws, protocol=version, host=host)
        assert result.protocol_version == version
        (call,) = result.tool_calls
        (diff,) = call.content
        diffs[version] = (diff.path.replace(str(ws), "WS"), diff.old_text, diff.new_text)
    assert diffs[2] == diffs[1] == ("WS/notes.txt", None, "hello")
