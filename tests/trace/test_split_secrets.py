"""A configured secret streamed in pieces across message chunks leaves no piece in the trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import orjson
import pytest

from acphost.redact import REDACTED, Redactor
from acphost.trace import validate_file
from acphost.trace._carry import MAX_HELD, ChunkCarry, Entry

SECRET = "zq-split-canary-4242-xy"
PIECES = ["zq-split-", "canary-42", "42-xy"]  # each distinctive: none may reach the trace


def chunk(text, sid="s1", kind="agent_message_chunk"):
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": sid, "update": {"sessionUpdate": kind,
                                                "content": {"type": "text", "text": text}}},
    }  # fmt: skip


def feed(carry, frames):
    out = []
    for n, frame in enumerate(frames):
        e = Entry("incoming", str(n), orjson.dumps(frame), frame, parsed=True)
        out += carry.push(e)
    return out


def texts(entries):
    return [e.final_frame()["params"]["update"]["content"]["text"] for e in entries]


@pytest.mark.parametrize(
    "parts",
    [
        ["key: zq-split-", "canary-4242-xy done"],
        ["key: zq-split-", "canary-42", "42-xy done"],
        [*SECRET],  # one character a chunk
        ["zq", "-split-canary-4242-x", "y"],
    ],
    ids=["two", "three", "per-character", "edges"],
)
def test_pieces_across_chunks_are_redacted(parts):
    carry = ChunkCarry(Redactor([SECRET]).secrets, REDACTED)
    out = feed(carry, [chunk(p) for p in parts])
    out += carry.drain()
    joined = "".join(texts(out))
    assert SECRET not in joined and REDACTED in joined
    assert joined == "".join(parts).replace(SECRET, REDACTED)
    for piece in PIECES:
        assert all(piece not in t for t in texts(out))


def test_frames_behind_a_held_chunk_keep_wire_order():
    carry = ChunkCarry([SECRET], REDACTED)
    other = {"jsonrpc": "2.0", "id": 3, "method": "fs/read_text_file", "params": {}}
    first = feed(carry, [chunk("say zq-split-"), other, chunk("x", sid="s2")])
    assert first == []  # the prefix waits, and what came after it with it
    rest = feed(carry, [chunk("canary-4242-xy!")])
    assert len(rest) == 4 and texts([rest[0], rest[2], rest[3]]) == [f"say {REDACTED}", "x", "!"]
    assert rest[1].frame == other


def test_a_prefix_that_does_not_go_on_is_written_unchanged():
    carry = ChunkCarry([SECRET], REDACTED)
    assert feed(carry, [chunk("ends with zq-sp")]) == []
    out = feed(carry, [chunk("ace and more")])
    assert texts(out) == ["ends with zq-sp", "ace and more"]
    assert [e.changed for e in out] == [False, False]


def test_other_updates_and_responses_end_a_stream():
    carry = ChunkCarry([SECRET], REDACTED)
    assert feed(carry, [chunk("zq-split-")]) == []
    tool = {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "s1", "update": {"sessionUpdate": "tool_call",
                                                     "toolCallId": "t", "title": "x"}}}  # fmt: skip
    assert len(feed(carry, [tool])) == 2
    assert feed(carry, [chunk("zq-split-")]) == []
    assert len(feed(carry, [{"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}])) == 2


def test_holding_is_bounded():
    carry = ChunkCarry([SECRET], REDACTED)
    feed(carry, [chunk("zq-split-")])
    out = feed(carry, [chunk("y", sid="other") for _ in range(MAX_HELD)])
    assert len(out) == MAX_HELD + 1


AGENT = textwrap.dedent(
    r"""
    import json, os, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    def update(text, kind="agent_message_chunk"):
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
              "update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}}}})
    secret = os.environ["SPLIT_SERVICE_TOKEN"]
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            update("two: " + secret[:9]); update(secret[9:] + ".\n")
            update("three: " + secret[:9]); update(secret[9:18]); update(secret[18:] + ".\n")
            for ch in secret:
                update(ch, "agent_thought_chunk")
            update("done\n")
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    """
)


def test_the_real_command_traces_no_piece_of_a_configured_secret(tmp_path):
    agent = tmp_path / "split_agent.py"
    agent.write_text(AGENT)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"agent_servers": {"split": {
        "command": sys.executable, "args": [str(agent)], "env": {"SPLIT_SERVICE_TOKEN": SECRET},
    }}}))  # fmt: skip
    trace = tmp_path / "t.jsonl"
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "--settings", str(settings), "-a", "split",
         "--trace", str(trace), "-o", "simple", "go"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ACPHOST_NO_HISTORY": "1"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    data = trace.read_text()
    for piece in [SECRET, *PIECES]:
        assert piece not in data, piece
    records = [json.loads(line) for line in data.splitlines()]
    said = "".join(
        rec["params"]["update"]["content"]["text"]
        for rec in records
        if rec.get("method") == "session/update"
        and rec["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == f"two: {REDACTED}.\nthree: {REDACTED}.\ndone\n"
    thought = "".join(
        rec["params"]["update"]["content"]["text"]
        for rec in records
        if rec.get("method") == "session/update"
        and rec["params"]["update"]["sessionUpdate"] == "agent_thought_chunk"
    )
    assert thought == REDACTED  # one character a chunk, joined: still redacted
    assert records[-1].get("result") == {"stopReason": "end_turn"}  # all of it, in order
    assert validate_file(str(trace), schema=True) == []


@pytest.mark.parametrize("kind", [[], {}, [1]], ids=["list", "object", "list-of-one"])
def test_an_unhashable_update_kind_does_not_switch_the_carry_off(kind, tmp_path):
    """A frame whose ``sessionUpdate`` is no string once dropped the carry for the whole trace."""
    from acphost.trace import TraceWriter

    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, redactor=Redactor([SECRET]))
    odd = chunk("x")
    odd["params"]["update"]["sessionUpdate"] = kind
    for frame in (odd, chunk("key: zq-split-"), chunk("canary-4242-xy done")):
        writer("receive", orjson.dumps(frame))
    writer.close()
    data = path.read_text()
    assert writer._carry is not None
    for piece in PIECES:
        assert piece not in data
