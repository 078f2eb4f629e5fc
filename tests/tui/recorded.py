"""Recorded sessions with fixed times, for the history screens' tests and snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acphost.history import (
    HistoryStore,
    PermissionRecord,
    SessionRecord,
    ToolCallRecord,
    TurnRecord,
    Usage,
)


def scripted_sessions(ws: str) -> list[dict[str, Any]]:
    """The scripted agent's ``session/list`` (fixed times)."""
    return [
        {
            "sessionId": "old-7",
            "cwd": ws,
            "title": "Fix the flaky parser test",
            "updatedAt": "2025-03-14T10:02:11Z",
        },
        {"sessionId": "old-3", "cwd": ws, "updatedAt": "2025-03-02T16:40:00Z"},
    ]


def _parser_turns(ws: str) -> tuple[TurnRecord, ...]:
    answer = "It depends on dict order in `parse_args`. I will pin it."
    plan = [
        {"content": "Find the flaky assertion", "status": "completed", "priority": "high"},
        {"content": "Pin the order", "status": "completed", "priority": "medium"},
    ]
    edit = ToolCallRecord(
        "call-2",
        title="Edit parser.py",
        kind="edit",
        status="completed",
        locations=({"path": f"{ws}/parser.py", "line": 12},),
        diffs=(
            {
                "path": f"{ws}/parser.py",
                "old_text": "keys = set(args)\n",
                "new_text": "keys = sorted(args)\n",
            },
        ),
    )
    run = ToolCallRecord(
        "call-1", title="Run the parser tests", kind="execute", status="completed", name="Bash"
    )
    first = TurnRecord(
        seq=1,
        started_at="2025-03-14T09:27:02.000+00:00",
        ended_at="2025-03-14T09:28:40.000+00:00",
        prompt="Why does test_parser fail one run in ten?",
        prompt_blocks=({"type": "text", "text": "Why does test_parser fail one run in ten?"},),
        text=answer,
        events=(
            {"kind": "thought", "text": "The failure is random: look for ordering."},
            {"kind": "plan", "entries": plan},
            {"kind": "tool", "id": "call-1"},
            {"kind": "text", "text": answer},
            {"kind": "tool", "id": "call-2"},
        ),
        stop_reason="end_turn",
        complete=True,
        tool_calls=(run, edit),
        permissions=(PermissionRecord("call-2", "Edit parser.py", "allow", "allow_once", "allow"),),
        usage=Usage(input=1200, output=300, total=1500, context_used=4100, context_size=200_000),
    )
    second = TurnRecord(
        seq=2,
        started_at="2025-03-14T09:31:00.000+00:00",
        ended_at="2025-03-14T09:31:30.000+00:00",
        prompt="Now run the whole suite",
        text="Step 1/5: working.",
        events=({"kind": "text", "text": "Step 1/5: working."},),
        stop_reason="cancelled",
        host_stop="budget: cost budget exceeded: 0.42 USD spent > 0.4 USD",
        complete=True,
        usage=Usage(total=900, cost_amount=0.42, cost_currency="USD"),
    )
    return first, second


def fill_store(path: Path, ws: str) -> None:
    """Three recorded sessions: two of the scripted agent (one elsewhere), one of claude."""
    path.parent.mkdir(parents=True, exist_ok=True)
    home = str(Path(ws).parent)
    sessions = [
        SessionRecord(
            id="a1b2c3d4" * 4,
            agent="scripted",
            command=("scripted-agent",),
            cwd=ws,
            started_at="2025-03-14T09:26:53.000+00:00",
            ended_at="2025-03-14T10:02:11.000+00:00",
            agent_session_id="old-7",
            title="Fix the flaky parser test",
            usage=Usage(cost_amount=0.42, cost_currency="USD"),
            turns=_parser_turns(ws),
        ),
        SessionRecord(
            id="e5f6a7b8" * 4,
            agent="claude",
            command=("claude-code-acp",),
            cwd=ws,
            started_at="2025-03-12T14:05:00.000+00:00",
            agent_session_id="c-991",
            title="Review the README",
            usage=Usage(cost_amount=1.2, cost_currency="USD"),
            turns=tuple(
                TurnRecord(seq=n, started_at="2025-03-12T14:05:00.000+00:00", prompt="go")
                for n in (1, 2, 3)
            ),
        ),
        SessionRecord(
            id="c9d0e1f2" * 4,
            agent="scripted",
            command=("scripted-agent",),
            cwd=f"{home}/other",
            started_at="2025-03-10T08:00:00.000+00:00",
            agent_session_id="old-1",
            turns=(
                TurnRecord(
                    seq=1,
                    started_at="2025-03-10T08:00:00.000+00:00",
                    prompt="Explain how the build works",
                    complete=True,
                ),
            ),
        ),
    ]
    with HistoryStore.open(str(path)) as store:
        for record in sessions:
            store.add_session(record)
