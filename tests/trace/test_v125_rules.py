"""Schema v1.25: notices and compaction only to a client that opted in; tool call names."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from acphost.trace import TraceValidator

_PACKAGED = json.loads(resources.files("acphost.schema").joinpath("v1/schema.json").read_text())
_VARIANTS = {
    v["properties"]["sessionUpdate"]["const"] for v in _PACKAGED["$defs"]["SessionUpdate"]["oneOf"]
}
needs_v125 = pytest.mark.skipif(
    not {"notice", "compaction_update", "compaction_summary_chunk"} <= _VARIANTS,
    reason="the packaged schema predates v1.25 (no notice/compaction variants yet)",
)

NOTICE = {
    "sessionUpdate": "notice",
    "severity": "warning",
    "title": "Rate limited",
    "description": "retrying in 5 s",
}
COMPACTION = {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}
CHUNK = {
    "sessionUpdate": "compaction_summary_chunk",
    "compactionId": "c1",
    "content": {"type": "text", "text": "summary so far"},
}
DONE = {
    "sessionUpdate": "compaction_update",
    "compactionId": "c1",
    "status": "completed",
    "summary": None,
    "error": None,
}
NAMED_CALL = {
    "sessionUpdate": "tool_call",
    "toolCallId": "t1",
    "title": "Run the tests",
    "name": "Bash",
    "kind": "execute",
    "status": "pending",
}
NAMED_UPDATE = {
    "sessionUpdate": "tool_call_update",
    "toolCallId": "t1",
    "name": "Bash",
    "status": "completed",
}


def _run(session_caps, updates, *, schema: bool):
    v = TraceValidator(schema=schema)
    caps = {} if session_caps is None else {"session": session_caps}
    v.feed(
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": caps},
        },
    )
    v.feed(
        "incoming",
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1, "agentCapabilities": {}}},
    )
    v.feed(
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]},
        },
    )
    for update in updates:
        v.feed(
            "incoming",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": "s", "update": update},
            },
        )
    v.feed("incoming", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    return v.finish()


@pytest.mark.parametrize(
    ("caps", "update", "needed"),
    [
        (None, NOTICE, "session.notices"),
        ({}, NOTICE, "session.notices"),
        ({"notices": None}, NOTICE, "session.notices"),
        ({"compaction": {}}, NOTICE, "session.notices"),
        (None, COMPACTION, "session.compaction"),
        ({"notices": {}}, CHUNK, "session.compaction"),
        ({"compaction": None}, DONE, "session.compaction"),
    ],
)
def test_an_update_the_client_did_not_opt_into_is_the_agents_violation(caps, update, needed):
    found = _run(caps, [update], schema=False)
    assert [(v.side, v.rule) for v in found] == [("agent", "capability")]
    assert needed in found[0].message and update["sessionUpdate"] in found[0].message


def test_opted_in_notices_and_compactions_are_fine():
    caps = {"notices": {}, "compaction": {}}
    assert _run(caps, [NOTICE, COMPACTION, CHUNK, DONE], schema=False) == []


def test_notices_and_compactions_may_come_between_turns():
    v = TraceValidator(schema=False)
    v.feed(
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": 1,
                "clientCapabilities": {"session": {"notices": {}, "compaction": {}}},
            },
        },
    )
    for update in (NOTICE, COMPACTION, CHUNK):
        assert (
            v.feed(
                "incoming",
                {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {"sessionId": "s", "update": update},
                },
            )
            == []
        )


@needs_v125
def test_the_new_variants_and_tool_names_validate_against_the_schema():
    caps = {"notices": {}, "compaction": {}}
    found = _run(caps, [NAMED_CALL, NAMED_UPDATE, NOTICE, COMPACTION, CHUNK, DONE], schema=True)
    assert found == []


@needs_v125
def test_malformed_new_variants_are_schema_violations():
    caps = {"notices": {}, "compaction": {}}
    bad = [
        {**NOTICE, "title": ""},  # Notice.title: minLength 1
        {"sessionUpdate": "compaction_update", "status": "completed"},  # no compactionId
        {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1"},  # no content
    ]
    found = _run(caps, bad, schema=True)
    assert [v.rule for v in found] == ["schema"] * 3
