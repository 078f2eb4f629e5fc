"""Traces of runs with subagents: the session tree's shapes validate, broken ones are reported.

The shapes (``subagent_update``, ``session_message``, ``session_message_chunk``,
``clientCapabilities.subagents``) are defined only in the vendored unstable
schema: the validator checks them there. Recorded through the real command
line against the demo agent's ``subagent`` keyword (a real subprocess).
"""

from __future__ import annotations

import json
import os
import shlex
import sys

import pytest

from acphost.trace import TraceValidator, validate_file
from tests.support.in_process import run_main
from tests.support.waiting import eventually_sync

REPLAY = [sys.executable, "-m", "acphost.agents.replay"]


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "TERM": "dumb",
        "ACPHOST_DEMO_STEP": "0",
        "ACPHOST_HISTORY": str(tmp_path / "history.sqlite3"),
        "XDG_CONFIG_HOME": str(tmp_path / ".xdg"),
    }


def _record(tmp_path, env, prompt: str, name: str = "t.jsonl"):
    trace = tmp_path / name
    r = run_main(["-a", "demo", "--trace", str(trace), prompt], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    # The live check (on by default) found nothing either.
    assert "protocol violation" not in r.stderr, r.stderr
    return trace


def _lines(trace):
    return [json.loads(line) for line in trace.read_text().splitlines()]


def _write(trace, frames):
    trace.write_text("".join(json.dumps(f) + "\n" for f in frames))


def _kind(frame):
    return frame.get("params", {}).get("update", {}).get("sessionUpdate")


@pytest.mark.parametrize("prompt", ["subagent look it up", "subagent background look it up"])
def test_a_recorded_trace_with_subagents_validates(tmp_path, env, prompt):
    trace = _record(tmp_path, env, prompt)
    frames = _lines(trace)
    kinds = {_kind(f) for f in frames}
    assert {"subagent_update", "session_message"} <= kinds
    init = frames[0]["params"]["clientCapabilities"]
    assert init["subagents"] == {}
    children = {
        f["params"]["sessionId"]
        for f in frames
        if ":sub-" in str(f.get("params", {}).get("sessionId"))
    }
    assert children, "the child's own updates are in the trace"
    assert validate_file(str(trace)) == []
    r = run_main(["validate", str(trace)], cwd=tmp_path, env=env)
    assert r.code == 0 and r.stdout == "", (r.stdout, r.stderr)


def test_a_subagent_update_without_its_session_id_is_reported(tmp_path, env):
    trace = _record(tmp_path, env, "subagent look it up")
    frames = _lines(trace)
    (at,) = [i for i, f in enumerate(frames) if _kind(f) == "subagent_update"][:1]
    del frames[at]["params"]["update"]["sessionId"]
    _write(trace, frames)
    found = [(v.line, v.side, v.rule, v.message) for v in validate_file(str(trace))]
    assert (
        at + 1,
        "agent",
        "schema",
        "unstable:SessionNotification.update: 'sessionId' is a required property",
    ) in found
    r = run_main(["validate", str(trace)], cwd=tmp_path, env=env)
    assert r.code == 1 and "'sessionId' is a required property" in r.stdout


def test_a_malformed_session_message_and_capability_are_reported(tmp_path, env):
    trace = _record(tmp_path, env, "subagent look it up")
    frames = _lines(trace)
    frames[0]["params"]["clientCapabilities"]["subagents"] = 5
    message = next(i for i, f in enumerate(frames) if _kind(f) == "session_message")
    frames[message]["params"]["update"]["content"] = "not blocks"
    _write(trace, frames)
    found = {(v.line, v.rule): v.message for v in validate_file(str(trace))}
    assert found[(1, "schema")].startswith(
        "unstable:InitializeRequest.clientCapabilities.subagents"
    )
    assert found[(message + 1, "schema")].startswith("unstable:SessionNotification.update.content")


def test_child_traffic_before_its_announcement_is_out_of_order(tmp_path, env):
    trace = _record(tmp_path, env, "subagent look it up")
    frames = _lines(trace)
    announce = next(i for i, f in enumerate(frames) if _kind(f) == "subagent_update")
    child = frames[announce]["params"]["update"]["sessionId"]
    first = next(
        i for i, f in enumerate(frames)
        if f.get("params", {}).get("sessionId") == child and _kind(f) == "agent_message_chunk"
    )  # fmt: skip
    frames.insert(announce, frames.pop(first))  # the child speaks before it was announced
    _write(trace, frames)
    found = [(v.line, v.rule) for v in validate_file(str(trace))]
    assert found == [(announce + 1, "turn-order")]


def test_tree_updates_need_the_clients_subagents_capability(tmp_path, env):
    trace = _record(tmp_path, env, "subagent look it up")
    frames = _lines(trace)
    del frames[0]["params"]["clientCapabilities"]["subagents"]
    _write(trace, frames)
    found = [v for v in validate_file(str(trace)) if v.rule == "capability"]
    assert found and all(
        v.side == "agent" and "did not advertise subagents" in v.message for v in found
    )
    tree = [
        i + 1 for i, f in enumerate(frames) if _kind(f) in ("subagent_update", "session_message")
    ]
    assert [v.line for v in found] == tree


def test_the_live_check_follows_the_announced_children():
    """The live check reads a ``subagent_update``'s child id on its fast path (no schema)."""
    v = TraceValidator(schema=False)
    v.feed("outgoing", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                        "params": {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}}})  # fmt: skip
    assert v.feed_session_updates([("s", "agent_message_chunk", None)])  # no turn, no child
    assert (
        v.feed_session_updates([("s", "subagent_update", "c"), ("c", "agent_message_chunk", None)])
        == []
    )
    assert v.feed_session_update("c", "tool_call") == []
    assert v.feed_session_update("d", "tool_call")  # never announced


def test_replaying_a_trace_with_a_subagent_matches_the_same_client(tmp_path, env):
    """``acphost replay`` re-sends the child's updates as recorded; the client acts the same."""
    trace = _record(tmp_path, env, "subagent look it up")
    # In a folder of its own: the test's history and state live in the
    # workspace, so the sandbox carves them out of it and the agent may
    # create files only in the workspace's subfolders (see docs/SANDBOX.md).
    (tmp_path / "out").mkdir()
    report = tmp_path / "out" / "replay.json"
    replay = shlex.join([*REPLAY, str(trace), "--report", str(report)])
    again = tmp_path / "again.jsonl"
    r = run_main(
        ["--agent-command", replay, "--trace", str(again), "subagent look it up"],
        cwd=tmp_path,
        env=env,
    )
    assert r.code == 0, r.stderr
    assert r.stdout.endswith("The subagent answered: Done: look it up\n")
    assert "protocol violation" not in r.stderr
    eventually_sync(report.exists, what="the replay agent's report")
    assert json.loads(report.read_text())["differences"] == []
    assert validate_file(str(again)) == []


def _system_prompt_trace(tmp_path, env):
    trace = tmp_path / "sp.jsonl"
    r = run_main(
        ["-a", "demo", "--trace", str(trace), "--system-prompt", "Be brief.", "system"],
        cwd=tmp_path,
        env=env,
    )
    assert r.code == 0, r.stderr
    frames = _lines(trace)
    new = next(i for i, f in enumerate(frames) if f.get("method") == "session/new")
    assert frames[new]["params"]["systemPrompt"]["mode"] == "append"
    return trace, frames, new


def test_a_system_prompt_validates_against_the_unstable_schema(tmp_path, env):
    trace, frames, new = _system_prompt_trace(tmp_path, env)
    assert validate_file(str(trace)) == []
    frames[new]["params"]["systemPrompt"]["content"] = "not blocks"
    _write(trace, frames)
    found = [(v.line, v.side, v.rule, v.message[:54]) for v in validate_file(str(trace))]
    assert found == [
        (new + 1, "client", "schema", "unstable:NewSessionRequest.systemPrompt.content: 'not ")
    ]


def test_a_system_prompt_needs_the_agents_capability(tmp_path, env):
    trace, frames, new = _system_prompt_trace(tmp_path, env)
    caps = frames[1]["result"]["agentCapabilities"]["sessionCapabilities"]
    caps["systemPrompt"] = {}  # append only
    frames[new]["params"]["systemPrompt"]["mode"] = "override"
    _write(trace, frames)
    (v,) = validate_file(str(trace))
    assert (v.line, v.side, v.rule) == (new + 1, "client", "capability")
    assert "sessionCapabilities.systemPrompt.mode.override" in v.message
    del caps["systemPrompt"]
    _write(trace, frames)
    (v,) = validate_file(str(trace))
    assert (v.line, v.rule) == (new + 1, "capability")
    assert v.message.endswith("without sessionCapabilities.systemPrompt")
    caps["systemPrompt"] = {"mode": 3}  # the agent's capability, checked where it lives
    _write(trace, frames)
    found = {(v.line, v.side, v.rule) for v in validate_file(str(trace))}
    assert (2, "agent", "schema") in found


def test_a_child_may_not_be_the_announcing_or_another_session():
    """The turn-order exemption of children cannot be claimed for a real session."""
    from acphost.trace import TraceValidator

    v = TraceValidator(schema=False)
    frames = [
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}},
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/prompt",
                "params": {"sessionId": "s1", "prompt": []},
            },
        ),
        (
            "incoming",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "s1",
                    "update": {"sessionUpdate": "subagent_update", "sessionId": "s1"},
                },
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
        (
            "incoming",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "s1",
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "late"},
                    },
                },
            },
        ),
    ]
    found = [x for side, frame in frames for x in v.feed(side, frame)]
    rules = [x.rule for x in found]
    assert rules == ["subagent", "turn-order"], found
