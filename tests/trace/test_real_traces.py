"""The library against traces recorded from the real agents, through the replay agent.

The files in ``tests/fixtures/traces/real/`` were recorded by
``python -m tests.fixtures.traces.record_real`` from Claude Code, Gemini CLI,
Qwen Code and the TS SDK example agent (the interop suite's pinned versions,
offline against its fake model). These tests only read and replay the
committed files: no node, no npm.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys

import pytest

from acphost import AcpClient
from acphost.redact import REDACTED, Redactor
from acphost.trace import validate_file
from tests.fixtures.traces.record_real import (
    DUMMY_KEYS,
    REAL,
    SCENARIOS,
    WS,
    leaks,
    reset_workspace,
)

TRACES = sorted(REAL.glob("*.jsonl"))
REPLAY = [sys.executable, "-m", "acphost.agents.replay"]

# The violations the validator finds in each trace, as (line, side, rule). The
# pinned agents broke no checked rule in these recordings; the wire quirks they
# do show are either legal or outside what the validator checks, noted per file
# so that a re-recording (or a stricter validator) that changes this is seen.
EXPECTED_VIOLATIONS: dict[str, set[tuple[int, str, str]]] = {
    # The canned turn: a tool call and a permission request (allowed), about
    # /home/user/project paths that are not in the workspace (legal: only text).
    "sdk-example_text": set(),
    # The same turn, permission rejected: the agent skips the "update".
    "sdk-example_reject": set(),
    # available_commands_update arrives only once the first prompt runs (legal:
    # not a turn update); an empty "" message chunk precedes the text (legal).
    "claude_text": set(),
    # A tool_call repeated for the same id (first with empty rawInput) instead
    # of a tool_call_update: legal by the schema, not checked by the validator.
    "claude_read": set(),
    # Cancelled mid-stream: a clean stopReason "cancelled", nothing after it.
    "claude_cancel": set(),
    # The prompt result carries _meta.quota with token counts (legal extra).
    "gemini_text": set(),
    # fs/read_text_file of the not-yet-existing out.txt *before* asking
    # permission, then again after; tool_call_update for a call never announced
    # with tool_call (only inside the permission request). Neither is checked.
    "gemini_write": set(),
    # The usage chunk (empty text, _meta.usage) comes before the prompt result
    # here; docs/INTEROP.md has seen it after the result (turn-order), timing.
    "qwen_text": set(),
    # tool_call_update for a call never announced; diff content with a relative
    # path ("out.txt"). Neither is checked by the validator.
    "qwen_write": set(),
    # Cancelled after its shell tool call failed (Qwen Code blocks "sleep N"
    # in the foreground): Qwen Code answers the prompt with a -32603 error
    # "Request was aborted." instead of stopReason "cancelled". ACP says a
    # cancelled turn ends with stopReason cancelled; the `cancelled` rule only
    # checks results, so this is not flagged (see test_qwen_cancel_is_an_error).
    "qwen_cancel_tool": set(),
}


@pytest.fixture(scope="module", autouse=True)
def _remove_workspace():
    yield
    shutil.rmtree(WS, ignore_errors=True)


def test_every_trace_has_a_scenario_and_expectations():
    stems = {p.stem for p in TRACES}
    assert stems == set(SCENARIOS)
    assert stems == set(EXPECTED_VIOLATIONS)


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_real_trace_violations_are_the_documented_quirks(path):
    found = validate_file(str(path))
    assert not [v for v in found if v.side == "client"], found
    assert {(v.line, v.side, v.rule) for v in found} == EXPECTED_VIOLATIONS[path.stem], found


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_real_trace_holds_no_secret_and_no_machine_path(path):
    assert leaks(path.read_text(encoding="utf-8")) == []


def test_qwen_cancel_is_an_error():
    """Qwen Code's quirk, pinned: a cancelled turn ends with an error, not a result."""
    frames = [json.loads(x) for x in (REAL / "qwen_cancel_tool.jsonl").read_text().splitlines()]
    cancel = next(i for i, f in enumerate(frames) if f.get("method") == "session/cancel")
    prompt_id = next(f["id"] for f in frames if f.get("method") == "session/prompt")
    answer = next(f for f in frames[cancel:] if f.get("id") == prompt_id and "method" not in f)
    assert answer["error"]["code"] == -32603 and "result" not in answer


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_library_against_replayed_real_trace(path, tmp_path):
    scenario = SCENARIOS[path.stem]
    report = tmp_path / "report.json"
    live = tmp_path / "live.jsonl"
    reset_workspace()  # the recorded state: notes.txt only (the agents read it)

    async def main() -> None:
        async with AcpClient.start(
            [*REPLAY, str(path), "--report", str(report)],
            host=scenario.host(),
            trace=str(live),
        ) as client:
            await scenario.client(client)

    asyncio.run(main())
    assert json.loads(report.read_text())["differences"] == []
    # The library's own side of the replayed conversation is clean.
    assert [v for v in validate_file(str(live)) if v.side == "client"] == []


def test_recorder_redacts_the_dummy_keys():
    frame = {"a": "key sk-ant-dummy", "b": ["sk-dummy"], "c": "dummy", "d": "a dummy value"}
    out = Redactor(value_patterns=DUMMY_KEYS)(frame)
    assert out == {"a": f"key {REDACTED}", "b": [REDACTED], "c": REDACTED, "d": "a dummy value"}
