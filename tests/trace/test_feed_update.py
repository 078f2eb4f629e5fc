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


def test_the_live_check_reads_updates_partly_and_finds_what_a_full_check_finds():
    import json

    import orjson

    from acphost.cli._trace import LiveCheck

    def update(kind: str, sid: object = "s", **params: object) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "method": "session/update",
                           "params": {"sessionId": sid, "update": {"sessionUpdate": kind,
                                                                   "x": [1, {"y": 2}]},
                                      **params}}).encode()

    stream = [
        ("send", b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}'),
        ("receive", b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'),
        ("receive", update("agent_message_chunk")),  # outside a turn
        ("receive", update("notice")),  # not advertised
        ("send", b'{"jsonrpc":"2.0","id":1,"method":"session/prompt",'
                 b'"params":{"sessionId":"s","prompt":[]}}'),
        ("receive", update("agent_message_chunk")),
        ("receive", update("tool_call", sid="other")),
        ("receive", update("plan", sid=7)),  # not a string: read whole
        ("receive", update("plan").replace(b'"2.0"', b'"1.0"')),  # envelope
        ("receive", b'{"jsonrpc":"2.0","id":9,"method":"session/update","params":{}}'),
        ("receive", b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
                    b'"update":{"sessionUpdate":"plan","sessionUpdate":"notice"}}}'),
        ("receive", b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"\\ud800"}}'),
        ("receive", b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"\xff"}}'),
        ("receive", b'{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}'),
        ("receive", update("agent_thought_chunk", _meta={"k": 1})),  # after the turn
    ]
    live = LiveCheck(strict=False, on_abort=lambda e: None)
    reference = TraceValidator(schema=False)
    for direction, line in stream:
        live(direction, line)
        try:
            frame = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        reference.feed("outgoing" if direction == "send" else "incoming", frame)
    assert live.validator.violations == reference.violations
    rules = [v.rule for v in reference.violations]
    assert rules.count("turn-order") == 3 and "capability" in rules and "envelope" in rules


@pytest.mark.parametrize("turn", [False, True])
def test_the_live_check_finds_the_same_in_a_block_as_line_by_line(turn):
    import json

    from acphost.cli._trace import LiveCheck

    def update(kind: str, sid: str = "s") -> bytes:
        return json.dumps({"jsonrpc": "2.0", "method": "session/update",
                           "params": {"sessionId": sid, "update": {"sessionUpdate": kind}}}
                          ).encode() + b"\n"

    opening = [
        ("send", b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}'),
        ("receive", b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'),
    ]
    if turn:
        opening.append(("send", b'{"jsonrpc":"2.0","id":1,"method":"session/prompt",'
                                b'"params":{"sessionId":"s","prompt":[]}}'))
    quiet = update("usage_update") * 3
    loud = update("agent_message_chunk") + b"\n" + update("notice", sid="t") + update("plan")
    mixed = update("plan") + b'{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}\n'
    by_block, by_line = (LiveCheck(strict=False, on_abort=lambda e: None) for _ in range(2))
    for direction, line in opening:
        by_block(direction, line)
        by_line(direction, line)
    for block in (quiet, loud, mixed, loud):
        by_block.receive_block(block)
        for line in block.splitlines():
            if line.strip():
                by_line("receive", line)
    assert by_block.validator.violations == by_line.validator.violations
    assert {v.rule for v in by_line.validator.violations} >= {"capability"}
