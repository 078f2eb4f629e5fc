"""``acphost replay`` plays ACP v2 traces back: the adapters' captures and the v1 fallback.

The client here is the recording's own client side, sent over real pipes to
the replay agent (the library's v2 client is tested against it elsewhere).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.trace.captures import write_trace

REPLAY = [sys.executable, "-m", "acphost", "replay"]
V2_CAPTURES = [
    "claude-turn2-tools.jsonl",
    "claude-turn2-subagent.jsonl",
    "codex-turn2-tools2.jsonl",
    "codex-turn2-subagent.jsonl",
]


def _client_side(path, change=None) -> bytes:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.pop("direction") == "outgoing":
            out.append(json.dumps(change(record) if change else record))
    return ("\n".join(out) + "\n").encode()


def _replay(path, stdin: bytes, *args: str):
    return subprocess.run([*REPLAY, str(path), *args], input=stdin, capture_output=True, timeout=60)


@pytest.mark.parametrize("name", V2_CAPTURES)
def test_a_v2_capture_replays_to_its_own_client(name, tmp_path):
    trace = write_trace(name, tmp_path)
    r = _replay(trace, _client_side(trace))
    assert r.returncode == 0, r.stderr
    assert "the client matched the recording" in r.stderr.decode()
    sent = [json.loads(x) for x in r.stdout.splitlines()]
    # The v2 lifecycle as recorded: the prompt is answered {messageId}, the turn
    # ends later with an idle state_update.
    assert any("messageId" in f.get("result", {}) for f in sent)
    states = [
        f["params"]["update"].get("state")
        for f in sent
        if f.get("params", {}).get("update", {}).get("sessionUpdate") == "state_update"
    ]
    assert "idle" in states


def test_a_client_asking_for_another_version_is_a_difference(tmp_path):
    trace = write_trace("claude-turn2-tools.jsonl", tmp_path)

    def v1(frame):
        if frame.get("method") == "initialize":
            return {**frame, "params": {"protocolVersion": 1, "clientCapabilities": {}}}
        return frame

    r = _replay(trace, _client_side(trace, v1), "-v")
    err = r.stderr.decode()
    assert r.returncode == 1
    assert f"{trace}:1: the client asked for protocol version 1, the recording for 2" in err


def test_the_v1_fallback_replays_as_recorded(tmp_path):
    """A refused v2 initialize, then v1 on the same connection, then a v1 turn."""
    info = {"name": "acphost", "version": "0"}
    frames = [
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": 2, "info": info, "capabilities": {}},
            },
        ),
        (
            "incoming",
            {"jsonrpc": "2.0", "id": 0, "error": {"code": -32602, "message": "Invalid params"}},
        ),
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": {}},
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": "/w", "mcpServers": []},
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s"}}),
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "session/prompt",
                "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]},
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}),
    ]
    trace = tmp_path / "fallback.jsonl"
    trace.write_text("".join(json.dumps({"direction": d, **f}) + "\n" for d, f in frames))
    r = _replay(trace, _client_side(trace))
    assert r.returncode == 0, r.stderr
    sent = [json.loads(x) for x in r.stdout.splitlines()]
    assert sent[0]["error"]["code"] == -32602 and sent[1]["result"] == {"protocolVersion": 1}

    # A client that does not fall back (asks 2 again) differs at the retry.
    def stubborn(frame):
        if frame.get("id") == 1:
            return {**frame, "params": frames[0][1]["params"]}
        return frame

    r = _replay(trace, _client_side(trace, stubborn))
    assert r.returncode == 1
    assert "at line 3: the client asked for protocol version 2, the recording for 1" in (
        r.stderr.decode()
    )
