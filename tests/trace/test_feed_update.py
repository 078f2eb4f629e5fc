"""TraceValidator.feed_session_update finds what feed finds for the same frame."""

from __future__ import annotations

import pytest

from acphost.trace import TraceValidator

KINDS = ["agent_message_chunk", "tool_call", "plan", "notice", "compaction_update",
         "compaction_summary_chunk", "usage_update", "future_kind"]


def setup(validator: TraceValidator, *, caps: dict, turn: bool) -> None:
    validator.feed("outgoing", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                "params": {"protocolVersion": 1, "clientCapabilities": caps}})
    validator.feed("incoming", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})
    if turn:
        validator.feed("outgoing", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                                    "params": {"sessionId": "s", "prompt": []}})


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("turn", [False, True])
@pytest.mark.parametrize("caps", [{}, {"session": {"notices": {}, "compaction": {}}}])
def test_the_same_violations_as_feed(kind, turn, caps):
    by_frame, by_fields = TraceValidator(schema=False), TraceValidator(schema=False)
    setup(by_frame, caps=caps, turn=turn)
    setup(by_fields, caps=caps, turn=turn)
    frame = {"jsonrpc": "2.0", "method": "session/update",
             "params": {"sessionId": "s", "update": {"sessionUpdate": kind}}}
    for _ in range(2):
        assert by_frame.feed("incoming", frame) == by_fields.feed_session_update("s", kind)
    assert by_frame.violations == by_fields.violations
    if not turn and kind == "agent_message_chunk":
        assert [v.rule for v in by_fields.violations] == ["turn-order", "turn-order"]
