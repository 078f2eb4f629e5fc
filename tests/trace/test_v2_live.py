"""The live check of a run (``--strict`` and the default warnings) on an ACP v2 connection."""

from __future__ import annotations

import json

import pytest

from acphost.cli._trace import LiveCheck
from acphost.errors import AcpError
from acphost.trace import TraceValidator
from tests.trace.captures import frames

V2_CAPTURES = [
    "claude-turn2-tools.jsonl",
    "claude-turn2-subagent.jsonl",
    "codex-turn2-tools2.jsonl",
    "codex-turn2-subagent.jsonl",
]


def _wire(name: str) -> list[tuple[str, bytes]]:
    return [
        ("send" if d == "outgoing" else "receive", json.dumps(f).encode()) for d, f in frames(name)
    ]


def _broken_turn() -> list[tuple[str, bytes]]:
    """A v2 turn with what v2 does not have: a tool_call, and no idle at the end."""
    wire = _wire("claude-turn2-tools.jsonl")
    out = []
    for direction, raw in wire:
        frame = json.loads(raw)
        update = frame.get("params", {}).get("update", {}) if "method" in frame else {}
        if update.get("state") == "idle":
            continue
        if update.get("sessionUpdate") == "tool_call_update" and len(out) < 18:
            update["sessionUpdate"] = "tool_call"
        out.append((direction, json.dumps(frame).encode()))
    return out


@pytest.mark.parametrize("name", V2_CAPTURES)
def test_a_real_v2_turn_passes_the_strict_check(name):
    failures: list[AcpError] = []
    live = LiveCheck(strict=True, on_abort=failures.append)
    for direction, line in _wire(name):
        live(direction, line)
    assert failures == [] and live.validator.finish() == []
    assert live.validator.protocol_version == 2


def test_strict_stops_at_a_v2_frame_that_breaks_the_v2_schema():
    failures: list[AcpError] = []
    live = LiveCheck(strict=True, on_abort=failures.append)
    for direction, raw in _wire("codex-turn2-tools2.jsonl"):
        frame = json.loads(raw)
        if frame.get("result", {}).get("messageId"):
            frame = {**frame, "result": {}}  # the prompt's answer
        live(direction, json.dumps(frame).encode())
    assert len(failures) == 1
    assert "session/prompt answered without a messageId" in str(failures[0])


def _escaped() -> list[tuple[str, bytes]]:
    """A v2 turn whose kinds are spelt with JSON escapes (``state\\u005fupdate``): the same frames."""
    return [
        (d, line.replace(b'"state_update"', b'"state\\u005fupdate"'))
        for d, line in _wire("codex-turn2-tools2.jsonl")
    ]


@pytest.mark.parametrize("name", [*V2_CAPTURES, "broken", "escaped"])
def test_the_fast_paths_find_what_a_full_check_finds_on_v2(name):
    wire = {"broken": _broken_turn, "escaped": _escaped}.get(name, lambda: _wire(name))()
    by_line = LiveCheck(strict=False, on_abort=lambda e: None)
    by_block = LiveCheck(strict=False, on_abort=lambda e: None)
    reference = TraceValidator(schema=False)
    block = b""
    for direction, line in wire:
        by_line(direction, line)
        reference.feed("outgoing" if direction == "send" else "incoming", json.loads(line))
        if direction == "receive":
            block += line + b"\n"
            continue
        if block:
            by_block.receive_block(block)
            block = b""
        by_block(direction, line)
    if block:
        by_block.receive_block(block)
    expected = reference.finish()
    assert by_line.validator.finish() == expected
    # The block path counts frames differently (a block is one ordinal run):
    # it finds the same violations, by rule and message.
    assert [(v.rule, v.message) for v in by_block.validator.finish()] == [
        (v.rule, v.message) for v in expected
    ]
    if name == "broken":
        rules = [v.rule for v in expected]
        assert rules[-1] == "turn-order" and set(rules[:-1]) == {"version"}
    else:
        assert expected == []
