"""Exports, imports, transcripts and dates, without a store or an agent."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from acphost.history import (
    HistoryError,
    PermissionRecord,
    SessionRecord,
    ToolCallRecord,
    TurnRecord,
    Usage,
    export_session,
    parse_age,
    parse_when,
    transcript_text,
)
from acphost.history._export import parse_sessions

T0 = "2026-05-01T10:00:00.000+00:00"


def sample(**changes) -> SessionRecord:
    call = ToolCallRecord(
        "c1", "Edit `a.py`", "edit", "Write", "completed", ({"path": "/w/a.py", "line": 1},),
        ({"path": "/w/a.py", "old_text": "x = 1\n", "new_text": "x = 2\n"},),
    )  # fmt: skip
    turn = TurnRecord(
        seq=1,
        started_at=T0,
        prompt="change ```x```",
        ended_at=T0,
        prompt_blocks=({"type": "text", "text": "change ```x```"},),
        text="Done: ```python\nx = 2\n```",
        events=(
            {"kind": "thought", "text": "hmm"},
            {"kind": "tool", "id": "c1"},
            {"kind": "text", "text": "Done: ```python\nx = 2\n```"},
        ),
        stop_reason="end_turn",
        complete=True,
        tool_calls=(call,),
        permissions=(PermissionRecord("c1", "Edit `a.py`", "allow", "allow_once", "ok", T0),),
        usage=Usage(input=10, output=5, total=15, cost_amount=0.01, cost_currency="EUR"),
    )
    fields = dict(
        id="0123456789abcdef" * 2, agent="demo", command=("demo", "--x"), cwd="/w",
        started_at=T0, agent_session_id="s1", title="T", ended_at=T0, turns=(turn,),
        usage=Usage(cost_amount=0.01, cost_currency="EUR"),
    )  # fmt: skip
    fields.update(changes)
    return SessionRecord(**fields)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_and_jsonl_read_back_to_the_same_record(fmt):
    record = sample()
    (back,) = parse_sessions(export_session(record, fmt))
    assert back == record


def test_jsonl_may_hold_several_sessions():
    a, b = sample(), sample(id="f" * 32, title="other")
    text = export_session(a, "jsonl") + export_session(b, "jsonl")
    assert [s.id for s in parse_sessions(text)] == [a.id, b.id]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("[1, 2]", "expected a line of type 'session' or 'turn'"),
        ('{"type": "turn", "seq": 1}', "a turn before any session line"),
        ('{"format": "acphost-history", "version": 99, "session": {}}', "newer than this acphost"),
        ('{"format": "other-tool", "session": {}}', "not an acphost history export"),
        ('{"session": {"id": "xyz", "agent": "a", "cwd": "/", "started_at": "2026-01-01"}}',
         "session.id: expected hexadecimal"),
        ('{"session": {"id": "' + "a" * 32 + '", "agent": 3}}', "session.agent: expected str"),
        ('{"session": {"id": "' + "a" * 32 + '", "agent": "a", "cwd": "/", "started_at": "May"}}',
         "session.started_at: not an ISO 8601 time"),
    ],
)  # fmt: skip
def test_bad_imports_say_what_is_wrong(text, message):
    with pytest.raises(HistoryError, match=message):
        parse_sessions(text, "f.json")


def test_times_are_normalised_to_utc_on_import():
    data = json.loads(export_session(sample(), "json"))
    data["session"]["started_at"] = "2026-05-01T12:00:00+02:00"
    (back,) = parse_sessions(json.dumps(data))
    assert back.started_at == T0


def test_markdown_keeps_fences_intact():
    md = export_session(sample(), "md")
    assert "```diff\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```" in md
    assert r"- \[permission\] Edit \`a\.py\`: allow (allow\_once)" in md
    # The prompt holds ``` runs of its own: a longer fence keeps them inside.
    assert "````\n> change ```x```\n````" in md
    # The answer is the agent's Markdown, kept as Markdown: its inline run of
    # backticks (no code span: nothing closes it on its line) is literal, and
    # the fence its last line opens is closed, so it swallows nothing after it;
    # all of it is in a block quote, the host's lines after it at the top.
    assert "> Done: \\`\\`\\`python\n> x = 2\n> ```\n> ```\n\n- \\[stop\\] end\\_turn" in md
    assert "- **Usage** tokens 15 (input 10, output 5) · cost 0.0100 EUR" in md


def test_the_transcript_places_tools_and_decisions_in_order():
    text = transcript_text(sample())
    lines = text.splitlines()
    assert lines[1:] == [
        "",
        "> change ```x```",
        "[tool] Edit `a.py` (edit) completed",
        "[permission] Edit `a.py`: allow (allow_once)",
        "[diff] /w/a.py",
        "@@ -1 +1 @@",
        "-x = 1",
        "+x = 2",
        # The agent's answer, indented under the host's lines.
        "  Done: ```python",
        "  x = 2",
        "  ```",
        "[stop] end_turn",
        "[usage] tokens 15 (input 10, output 5) · cost 0.0100 EUR",
    ]
    assert "hmm" in transcript_text(sample(), thoughts=True)
    assert "[diff]" not in transcript_text(sample(), diffs=False)


def test_unknown_export_format():
    with pytest.raises(ValueError, match="use one of md, html, json, jsonl"):
        export_session(sample(), "pdf")


NOW = datetime(2026, 5, 10, 12, 0, tzinfo=timezone.utc)


def test_parse_age():
    assert parse_age("30d") == timedelta(days=30)
    assert parse_age(" 2W ") == timedelta(weeks=2)
    assert parse_age("90m") == timedelta(minutes=90)
    with pytest.raises(ValueError, match=r"e\.g\. 30d, 12h"):
        parse_age("thirty days")


def test_parse_when():
    assert parse_when("7d", now=NOW) == "2026-05-03T12:00:00.000+00:00"
    assert parse_when("2026-05-01T14:30+02:00") == "2026-05-01T12:30:00.000+00:00"
    local_midnight = datetime(2026, 5, 1).astimezone().astimezone(timezone.utc)
    assert parse_when("2026-05-01") == local_midnight.isoformat(timespec="milliseconds")
    next_midnight = local_midnight + timedelta(days=1)
    assert parse_when("2026-05-01", end_of_day=True) == next_midnight.isoformat(
        timespec="milliseconds"
    )
    assert parse_when("yesterday", now=NOW.astimezone()) < parse_when("today", now=NOW.astimezone())
    with pytest.raises(ValueError, match="use 2026-05-01"):
        parse_when("2026-13-45")
