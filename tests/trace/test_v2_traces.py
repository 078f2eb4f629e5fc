"""ACP v2 traces: the version the initialize exchange agreed selects the schema and the rules.

The adapters' captures (``tests/trace/adapters/``) are the real agents' frames;
the rest are hand-written frames in the v2 schema's shapes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from acphost.trace import TraceValidator
from acphost.trace._v2methods import V2_METHODS
from tests.trace.captures import ADAPTERS, frames, write_trace

V2 = Path(resources.files("acphost.schema").joinpath("v2"))  # type: ignore[arg-type]
CAPTURES = sorted(p.name for p in ADAPTERS.glob("*.jsonl"))

# What each capture breaks, as (line, side, rule); the version it negotiates.
EXPECTED: dict[str, tuple[set[tuple[int, str, str]], int]] = {
    "claude-init1.jsonl": (set(), 1),
    "claude-init1bare.jsonl": (set(), 1),
    "claude-init2.jsonl": (set(), 2),
    # Protocol 3 in the v2 shape: the agent answers 2, the highest it has.
    "claude-init-pv3-v2fields.jsonl": (set(), 2),
    # Protocol 1 with v2 members: a v1 request (unknown members are ignored).
    "claude-init-pv1-v2fields.jsonl": (set(), 1),
    # The probe asked for 2 in the v1 shape (no info): the client's fault,
    # and the agent refuses it with -32602.
    "claude-init-pv2-v1fields.jsonl": ({(1, "client", "version")}, 2),
    "claude-turn1-tools.jsonl": (set(), 1),
    "claude-turn2-tools.jsonl": (set(), 2),
    "claude-turn2-subagent.jsonl": (set(), 2),
    "codex-init1.jsonl": (set(), 1),
    "codex-init1bare.jsonl": (set(), 1),
    "codex-init2.jsonl": (set(), 2),
    "codex-init-pv3-v2fields.jsonl": (set(), 2),
    "codex-init-pv1-v2fields.jsonl": (set(), 1),
    "codex-init-pv2-v1fields.jsonl": ({(1, "client", "version")}, 2),
    "codex-turn1-tools2.jsonl": (set(), 1),
    "codex-turn2-tools2.jsonl": (set(), 2),
    "codex-turn2-subagent.jsonl": (set(), 2),
}


def _run(pairs, *, schema=True) -> TraceValidator:
    validator = TraceValidator(schema=schema)
    for direction, frame in pairs:
        validator.feed(direction, frame)
    validator.finish()
    return validator


def _found(validator: TraceValidator) -> set[tuple[int, str, str]]:
    return {(v.line, v.side, v.rule) for v in validator.violations}


# -- the vendored schema -------------------------------------------------------------


def test_the_v2_schema_files_match_their_recorded_digests():
    source = (V2 / "SOURCE.md").read_text(encoding="utf-8")
    recorded = dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", source, re.M)
    )
    assert set(recorded) == {p.name for p in V2.glob("*.json")}
    assert set(recorded) == {"schema.json", "schema.unstable.json"}
    for name, digest in recorded.items():
        assert hashlib.sha256((V2 / name).read_bytes()).hexdigest() == digest, name
    assert "@agentclientprotocol/sdk@2.4.0" in source


def test_the_v2_schema_ships_with_the_package():
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"schema/v2/*.json"' in pyproject


def test_the_v2_method_table_is_the_schemas_annotations():
    expected: dict[tuple[str, str, str], str] = {}
    for unstable in (False, True):
        name = "schema.unstable.json" if unstable else "schema.json"
        schema = json.loads((V2 / name).read_text(encoding="utf-8"))
        for def_name, d in schema["$defs"].items():
            if "x-method" not in d:
                continue
            role = (
                "response"
                if def_name.endswith("Response")
                else "notification"
                if def_name.endswith("Notification")
                else "request"
            )
            expected.setdefault(
                (d["x-method"], d["x-side"], role), ("unstable:" if unstable else "") + def_name
            )
    assert expected == V2_METHODS
    # v2 has no client fs/* or terminal/* methods and no session/load.
    assert not [k for k in V2_METHODS if k[0].startswith("fs/") or k[0] == "session/load"]
    assert not [k for k in V2_METHODS if k[0].startswith("terminal/") and k[1] == "client"]


# -- the real adapters ---------------------------------------------------------------


def test_every_capture_has_expectations():
    assert set(CAPTURES) == set(EXPECTED)


@pytest.mark.parametrize("name", CAPTURES)
def test_a_real_adapters_capture_validates_in_the_version_it_negotiated(name):
    validator = _run(frames(name))
    violations, version = EXPECTED[name]
    assert _found(validator) == violations, validator.violations
    assert validator.protocol_version == version


def test_the_captures_are_checked_against_the_v2_schema_not_waved_through():
    # The same captures with one member broken: the v2 schema (and for usage,
    # which only its unstable schema defines, that one) says what is wrong.
    def broken(name, line, change):
        pairs = copy.deepcopy(frames(name))
        change(pairs[line - 1][1])
        return [str(v) for v in _run(pairs).violations]

    def drop_message_id(frame):
        del frame["params"]["update"]["messageId"]

    def bad_usage(frame):
        frame["params"]["update"]["usage"] = {"totalTokens": "many"}

    def bad_child(frame):
        frame["params"]["update"]["sessionId"] = 7

    found = broken("claude-turn2-tools.jsonl", 10, drop_message_id)  # the user_message
    assert len(found) == 1 and "v2:UpdateSessionNotification" in found[0]
    assert "messageId" in found[0]
    found = broken("claude-turn2-tools.jsonl", 46, bad_usage)  # the idle state_update
    assert len(found) == 1 and "v2:unstable:UpdateSessionNotification" in found[0]
    subagent = next(
        i
        for i, (_, f) in enumerate(frames("claude-turn2-subagent.jsonl"), 1)
        if f.get("params", {}).get("update", {}).get("sessionUpdate") == "subagent_update"
    )
    found = broken("claude-turn2-subagent.jsonl", subagent, bad_child)
    assert found and "v2:unstable:UpdateSessionNotification" in found[0]


def test_acphost_validate_takes_the_captures(tmp_path):
    paths = [str(write_trace(n, tmp_path)) for n in CAPTURES if "pv2-v1fields" not in n]
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "validate", *paths],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr.count(": ok") == len(paths)
    refused = write_trace("codex-init-pv2-v1fields.jsonl", tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "validate", str(refused)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1
    assert r.stdout == (
        f"{refused}:1: [client] version: initialize asks for protocol version 2 "
        "without info (the v1 shape)\n"
    )


# -- negotiation ---------------------------------------------------------------------

INFO = {"name": "acphost", "version": "0"}
INIT2 = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 2, "info": INFO, "capabilities": {}},
}
INIT1 = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}
REFUSED = {
    "jsonrpc": "2.0",
    "id": 0,
    "error": {"code": -32602, "message": "Invalid params", "data": "info"},
}


def _v1_turn(first_id: int):
    return [
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": first_id,
                "method": "session/new",
                "params": {"cwd": "/w", "mcpServers": []},
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": first_id, "result": {"sessionId": "s"}}),
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": first_id + 1,
                "method": "session/prompt",
                "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]},
            },
        ),
        (
            "incoming",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "s",
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "hello"},
                    },
                },
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": first_id + 1, "result": {"stopReason": "end_turn"}}),
    ]


def _v2_open(caps=None, **result):
    return [
        ("outgoing", INIT2),
        (
            "incoming",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": 2,
                    "info": INFO,
                    "capabilities": {"session": {}} if caps is None else caps,
                    **result,
                },
            },
        ),
        (
            "outgoing",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "session/new",
                "params": {"cwd": "/w", "mcpServers": []},
            },
        ),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}}),
    ]


def _update(update, sid="s"):
    return (
        "incoming",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": sid, "update": update},
        },
    )


PROMPT = (
    "outgoing",
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/prompt",
        "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]},
    },
)
ACCEPTED = ("incoming", {"jsonrpc": "2.0", "id": 2, "result": {"messageId": "m1"}})
RUNNING = _update({"sessionUpdate": "state_update", "state": "running"})
IDLE = _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
CHUNK = _update(
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "a1",
        "content": {"type": "text", "text": "hello"},
    }
)
V2_TURN = [*_v2_open(), PROMPT, ACCEPTED, RUNNING, CHUNK, IDLE]


def test_a_refused_v2_initialize_then_v1_on_the_same_connection_is_valid_and_v1():
    """The ``auto`` fallback against a v1-only agent: -32602, then initialize again with 1."""
    pairs = [
        ("outgoing", INIT2),
        ("incoming", REFUSED),
        ("outgoing", INIT1),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        *_v1_turn(2),
    ]
    for schema in (True, False):
        validator = _run(pairs, schema=schema)
        assert validator.violations == [] and validator.protocol_version == 1


def test_a_v2_initialize_answered_1_then_v1_is_valid_and_v1():
    """``auto`` against an agent that answers 1: initialize again with the v1 shape."""
    pairs = [
        ("outgoing", INIT2),
        ("incoming", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
        ("outgoing", INIT1),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        *_v1_turn(2),
    ]
    validator = _run(pairs)
    assert validator.violations == [] and validator.protocol_version == 1


def test_the_v1_turn_on_a_v2_connection_is_what_v2_does_not_have():
    pairs = [
        ("outgoing", INIT2),
        ("incoming", REFUSED),
        ("outgoing", {**INIT2, "id": 1}),
        (
            "incoming",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {"protocolVersion": 2, "info": INFO, "capabilities": {"session": {}}},
            },
        ),
        *_v1_turn(2),
    ]
    validator = _run(pairs)
    assert validator.protocol_version == 2
    messages = [str(v) for v in validator.violations]
    assert len(messages) == 3, messages
    # The chunk lacks v2's messageId; the prompt is answered the v1 way.
    assert "[agent] schema: v2:UpdateSessionNotification" in messages[0]
    assert "[agent] version: session/prompt answered with a v1 stopReason" in messages[1]
    assert "never ended with an idle state_update" in messages[2]


def test_an_agent_answering_above_the_version_asked_for_is_flagged():
    pairs = [
        ("outgoing", INIT1),
        (
            "incoming",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {"protocolVersion": 2, "info": INFO, "capabilities": {}},
            },
        ),
    ]
    validator = _run(pairs)
    assert [(v.side, v.rule) for v in validator.violations] == [("agent", "version")]
    assert "above the 1 asked for" in validator.violations[0].message


# -- the v2 rules --------------------------------------------------------------------


def test_a_v2_turn_ends_with_idle_not_with_the_prompts_answer():
    assert _run(V2_TURN).violations == []
    assert _run(V2_TURN, schema=False).violations == []
    # Updates after the answer belong to the turn; without the idle it never ends.
    validator = _run(V2_TURN[:-1], schema=False)
    assert [(v.line, v.rule) for v in validator.violations] == [(5, "turn-order")]
    # Agent-initiated and background work report without a prompt.
    assert _run([*_v2_open(), RUNNING, CHUNK, IDLE, CHUNK]).violations == []


def test_a_cancelled_v2_turn_goes_idle_cancelled():
    cancel = (
        "outgoing",
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}},
    )
    cancelled = _update(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}
    )
    no_reason = _update({"sessionUpdate": "state_update", "state": "idle"})
    assert _run([*V2_TURN[:-1], cancel, cancelled]).violations == []
    # IdleStateUpdate: the stop reason is optional.
    assert _run([*V2_TURN[:-1], cancel, no_reason]).violations == []
    validator = _run([*V2_TURN[:-1], cancel, IDLE])
    assert [(v.side, v.rule) for v in validator.violations] == [("agent", "cancelled")]


@pytest.mark.parametrize(
    ("frame", "side", "needle"),
    [
        (
            (
                "incoming",
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "fs/read_text_file",
                    "params": {"sessionId": "s", "path": "/w/a"},
                },
            ),
            "agent",
            "fs/read_text_file does not exist in ACP v2",
        ),
        (
            (
                "incoming",
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "terminal/create",
                    "params": {"sessionId": "s", "command": "ls"},
                },
            ),
            "agent",
            "terminal/create does not exist in ACP v2",
        ),
        (
            (
                "outgoing",
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "session/load",
                    "params": {"sessionId": "s", "cwd": "/w", "mcpServers": []},
                },
            ),
            "client",
            "session/load does not exist in ACP v2",
        ),
        (
            (
                "outgoing",
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "session/set_config_option",
                    "params": {"sessionId": "s", "configId": "mode", "value": "ask"},
                },
            ),
            "client",
            'without "type"',
        ),
        (
            (
                "incoming",
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": "s",
                        "toolCall": {"toolCallId": "t"},
                        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
                    },
                },
            ),
            "agent",
            "ACP v2 carries the operation in subject",
        ),
        (
            _update({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x"}),
            "agent",
            "tool_call_update upserts",
        ),
        (_update({"sessionUpdate": "plan", "entries": []}), "agent", "it sends plan_update"),
    ],
    ids=["fs", "terminal", "load", "config-type", "permission-subject", "tool_call", "plan"],
)
def test_what_only_v1_has_breaks_the_version_rule(frame, side, needle):
    for schema in (True, False):
        validator = TraceValidator(schema=schema)
        for direction, f in _v2_open():
            validator.feed(direction, f)
        found = validator.feed(*frame)
        # One violation a frame: the rule says what v2 has instead.
        assert [(v.side, v.rule) for v in found] == [(side, "version")], found
        assert needle in found[0].message


def test_v2_shapes_pass_where_v1_ones_broke_the_version_rule():
    permission = (
        "incoming",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "session/request_permission",
            "params": {
                "sessionId": "s",
                "title": "Write a",
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t"}},
                "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
            },
        },
    )
    answer = (
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {"outcome": {"outcome": "selected", "optionId": "a"}},
        },
    )
    config = (
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "session/set_config_option",
            "params": {"sessionId": "s", "configId": "mode", "type": "id", "value": "ask"},
        },
    )
    options = ("incoming", {"jsonrpc": "2.0", "id": 3, "result": {"configOptions": []}})
    tool = _update({"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": "x"})
    resume = (
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "session/resume",
            "params": {
                "sessionId": "s",
                "cwd": "/w",
                "mcpServers": [],
                "replayFrom": {"type": "start"},
            },
        },
    )
    resumed = ("incoming", {"jsonrpc": "2.0", "id": 4, "result": {}})
    pairs = [*V2_TURN[:-1], tool, permission, answer, IDLE, config, options, resume]
    pairs += [CHUNK, IDLE, resumed]  # the replay, then the current state
    assert _run(pairs, schema=False).violations == []
    assert _run(pairs).violations == []


def test_a_v2_resume_is_answered_after_the_current_state_update():
    """ResumeSessionResponse: the agent MUST send a state_update before it answers."""
    resume = (
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "session/resume",
            "params": {"sessionId": "s", "cwd": "/w", "mcpServers": []},
        },
    )
    resumed = ("incoming", {"jsonrpc": "2.0", "id": 4, "result": {}})
    refused = ("incoming", {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "x"}})
    assert _run([*_v2_open(), resume, RUNNING, resumed], schema=False).violations == []
    assert _run([*_v2_open(), resume, refused], schema=False).violations == []
    found = _run([*_v2_open(), resume, resumed, IDLE], schema=False).violations
    assert [(v.line, v.side, v.rule) for v in found] == [(6, "agent", "turn-order")]
    assert "answered before its current state_update" in found[0].message


def test_subagents_notices_and_compaction_need_no_capability_on_v2():
    announce = _update(
        {"sessionUpdate": "subagent_update", "sessionId": "child", "state": {"state": "running"}}
    )
    child = _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "c1",
            "content": {"type": "text", "text": "hi"},
        },
        sid="child",
    )
    notice = _update({"sessionUpdate": "notice", "severity": "info", "title": "hi"})
    pairs = [*V2_TURN[:-1], announce, child, notice, IDLE]
    assert _run(pairs, schema=False).violations == []
    assert _run(pairs).violations == []
    # On v1 the same announcement needs clientCapabilities.subagents (unchanged).
    v1 = [
        ("outgoing", INIT1),
        ("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
        *_v1_turn(2)[:3],
        announce,
    ]
    assert [(v.rule, v.side) for v in _run(v1, schema=False).violations] == [
        ("capability", "agent"),
        ("one-response", "agent"),
    ]


def test_v2_updates_need_a_session_the_client_opened_or_a_child_announced_first():
    """SubagentUpdate: the announcement comes before any traffic bearing the child's id."""
    child = _update(
        {"sessionUpdate": "agent_message_chunk", "messageId": "c1",
         "content": {"type": "text", "text": "hi"}},
        sid="child",
    )  # fmt: skip
    announce = _update({"sessionUpdate": "subagent_update", "sessionId": "child"})
    found = _run([*V2_TURN[:-1], child, announce, child, IDLE], schema=False).violations
    assert [(v.line, v.side, v.rule) for v in found] == [(9, "agent", "turn-order")]
    assert "'child', which no session/new, session/resume or subagent_update opened" in (
        found[0].message
    )
    # The session session/new answered may report before the client names it.
    assert _run([*_v2_open(), RUNNING, CHUNK, IDLE]).violations == []
    # The block path of the live check finds the same.
    validator = TraceValidator(schema=False)
    for direction, frame in _v2_open():
        validator.feed(direction, frame)
    found = validator.feed_session_updates([("s", "usage_update"), ("child", "usage_update")])
    assert [v.rule for v in found] == ["turn-order"]


def test_a_subagent_may_not_name_the_announcing_session_on_v2_either():
    announce = _update({"sessionUpdate": "subagent_update", "sessionId": "s"})
    found = _run([*V2_TURN[:-1], announce, IDLE], schema=False).violations
    assert [(v.side, v.rule) for v in found] == [("agent", "subagent")]


@pytest.mark.parametrize(
    ("caps", "sent", "needle"),
    [
        (
            None,
            {"method": "session/delete", "params": {"sessionId": "s"}},
            "without capabilities.session.delete",
        ),
        ({}, {"method": "session/list", "params": {}}, "did not advertise capabilities.session"),
        (
            None,
            {
                "method": "session/prompt",
                "params": {
                    "sessionId": "s",
                    "prompt": [{"type": "image", "mimeType": "image/png", "data": ""}],
                },
            },
            "without capabilities.session.prompt.image",
        ),
        (
            None,
            {
                "method": "session/new",
                "params": {
                    "cwd": "/w",
                    "mcpServers": [],
                    "systemPrompt": {"mode": "append", "content": [{"type": "text", "text": "x"}]},
                },
            },
            "without capabilities.session.systemPrompt",
        ),
        (
            {"session": {"systemPrompt": {}}},
            {
                "method": "session/new",
                "params": {
                    "cwd": "/w",
                    "mcpServers": [],
                    "systemPrompt": {
                        "mode": "override",
                        "content": [{"type": "text", "text": "x"}],
                    },
                },
            },
            "without capabilities.session.systemPrompt.mode.override",
        ),
        (None, {"method": "auth/logout", "params": {}}, "advertised no authMethods"),
    ],
    ids=["delete", "no-session", "image", "system-prompt", "override", "auth"],
)
def test_v2_capabilities_are_objects_the_agent_advertised(caps, sent, needle):
    frame = ("outgoing", {"jsonrpc": "2.0", "id": 7, **sent})
    found = [
        v
        for v in _run([*_v2_open(caps), frame], schema=False).violations
        if v.line == 5 and v.rule != "one-response"
    ]
    assert [(v.side, v.rule) for v in found] == [("client", "capability")]
    assert needle in found[0].message
    # Advertised (v2 advertises with an object: {} counts), the same request passes.
    granted = {
        "session": {
            "delete": {},
            "prompt": {"image": {}},
            "systemPrompt": {"mode": {"override": {}}},
        }
    }
    methods = [{"methodId": "k", "name": "Key"}]
    found = [
        v
        for v in _run([*_v2_open(granted, authMethods=methods), frame], schema=False).violations
        if v.rule != "one-response"
    ]
    assert found == []


def test_an_elicitation_needs_the_v2_capability_object():
    elicit = (
        "incoming",
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "elicitation/create",
            "params": {
                "sessionId": "s",
                "mode": "form",
                "message": "?",
                "requestedSchema": {"type": "object", "properties": {}},
            },
        },
    )
    found = _run([*_v2_open(), elicit], schema=False).violations
    assert ("agent", "capability") in {(v.side, v.rule) for v in found}
    init = {**INIT2, "params": {**INIT2["params"], "capabilities": {"elicitation": {}}}}
    pairs = [("outgoing", init), *_v2_open()[1:], elicit]
    assert ("agent", "capability") not in {(v.side, v.rule) for v in _run(pairs).violations}


def test_the_live_shortcut_sees_what_feed_sees_on_v2():
    """``feed_session_updates`` (the live check's block path) ends turns and flags the same."""
    validator = TraceValidator(schema=False)
    for direction, frame in V2_TURN[:-1]:
        validator.feed(direction, frame)
    quiet = [("s", "agent_message_chunk", None, None, None)] * 3
    assert validator.feed_session_updates(quiet) == []
    found = validator.feed_session_updates(
        [
            *quiet,
            ("s", "tool_call", None, None, None),
            ("s", "state_update", None, "idle", "end_turn"),
        ]
    )
    assert [(v.rule, v.line) for v in found] == [("version", len(V2_TURN) + 6)]
    assert validator.finish() == found  # the idle ended the turn
