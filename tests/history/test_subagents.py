"""Subagents in the history: each child of a turn recorded within it, shown nested.

Against the demo agent's ``subagent`` keyword (a real agent process over real
pipes): through the real command line, and through the library where the
test must hold the run open while a background child works.
"""

from __future__ import annotations

import contextlib
import json

import acphost.history._recording as recording_module
from acphost import AcpClient
from acphost.history import HistoryRecorder, export_session, transcript_text
from acphost.history._model import SessionRecord, TurnRecord
from acphost.redact import Redactor
from tests.support.in_process import run_main
from tests.support.waiting import eventually

from .conftest import DEMO, only_record

SECRET = "topsecretvalue42"


def _children(turn):
    return [e for e in turn.events if e.get("kind") == "subagent"]


def test_a_subagent_is_recorded_in_its_turn_and_shown_nested(tmp_path, env, store_path):
    r = run_main(["-a", "demo", "subagent look it up"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    record = only_record(store_path)
    (turn,) = record.turns
    (child,) = _children(turn)
    assert child["label"] == "helper 1" and child["description"] == "answers one question"
    assert (child["activity"], child["stop_reason"]) == ("idle", "end_turn")
    assert child["text"] == "Working on: look it up"
    assert child["tools"] == [{"title": "Look it up", "kind": "search", "status": "completed"}]
    # At its place: announced before the parent's answer.
    assert [e["kind"] for e in turn.events] == ["subagent", "text"]
    assert turn.text == "The subagent answered: Done: look it up"  # the parent's text only

    show = run_main(["history", "show", record.id[:8]], cwd=tmp_path, env=env)
    assert show.code == 0, show.stderr
    lines = show.stdout.splitlines()
    at = lines.index("[subagent] helper 1 · idle (end_turn)")
    assert lines[at + 1 : at + 3] == [
        "    Working on: look it up",
        "[subagent tool] Look it up (search) completed",
    ]
    assert "  The subagent answered: Done: look it up" in lines[at + 3 :]

    md = run_main(["history", "export", record.id, "-f", "md"], cwd=tmp_path, env=env).stdout
    assert "- \\[subagent\\] helper 1 · idle (end\\_turn)\n\n  > Working on: look it up\n" in md
    html = run_main(["history", "export", record.id, "-f", "html"], cwd=tmp_path, env=env).stdout
    assert "[subagent] helper 1 · idle (end_turn)</p>" in html
    assert '<div class="answer subagent"><p>Working on: look it up</p>' in html
    data = json.loads(
        run_main(["history", "export", record.id, "-f", "json"], cwd=tmp_path, env=env).stdout
    )
    assert _children(TurnRecord(**{"seq": 1, "started_at": "", "prompt": "",
                                   "events": tuple(data["session"]["turns"][0]["events"])})) == [child]  # fmt: skip


def test_a_background_subagent_through_the_command_line_is_in_its_turn(tmp_path, env, store_path):
    r = run_main(["-a", "demo", "subagent background look it up"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    (turn,) = only_record(store_path).turns
    (child,) = _children(turn)
    assert [e["kind"] for e in turn.events] == ["subagent", "text"]
    # The command line waits for the child that goes on after the answer;
    # its event was updated when it went idle.
    assert (child["label"], child["activity"], child["stop_reason"]) == (
        "helper 1",
        "idle",
        "end_turn",
    )
    assert child["text"] == "Working on: look it up"
    text = transcript_text(only_record(store_path))
    assert "[subagent] helper 1 · idle (end_turn)\n    Working on: look it up\n" in text


@contextlib.asynccontextmanager
async def _recorded(store_path, tmp_path, redactor=None):
    """A real demo agent's session, recorded; the recording closes before the agent."""
    recorder = HistoryRecorder.open(str(store_path), redactor)
    try:
        async with AcpClient.start(DEMO) as client:
            session = await client.new_session(str(tmp_path))
            recording = recorder.open_session("demo", DEMO, str(tmp_path), session)
            try:
                yield session, recording
            finally:
                recording.close()
    finally:
        recorder.close()


async def test_a_child_that_goes_on_after_the_turn_is_updated_when_it_goes_idle(
    tmp_path, store_path
):
    async with _recorded(store_path, tmp_path) as (session, _):
        result = await session.prompt("subagent background wait 30 look it up")
        (sub,) = session.subagents
        assert result.subagents_running == (sub.id,)
        await eventually(lambda: sub.state.tool_calls, what="the child's tool call")
        # The turn was written as it ended: the child running, its text held back.
        (child,) = _children(only_record(store_path).turns[0])
        assert (child["activity"], child["text"]) == ("running", "")
        await sub.cancel()
        await session.wait_subagents(10)
        # Idle: its event is updated now, before the run closes.
        (child,) = _children(only_record(store_path).turns[0])
        assert (child["activity"], child["stop_reason"]) == ("idle", "cancelled")
        assert child["text"] == "Working on: look it up"
        # Cancelling the child ended its unfinished tool call as cancelled.
        assert child["tools"] == [{"title": "Look it up", "kind": "search", "status": "cancelled"}]
    (child,) = _children(only_record(store_path).turns[0])
    assert child["text"] == "Working on: look it up"  # closing wrote nothing twice


async def test_a_background_child_of_a_turn_stays_in_that_turn(tmp_path, store_path):
    async with _recorded(store_path, tmp_path) as (session, _):
        await session.prompt("subagent background look it up")
        await session.wait_subagents(10)
        await session.prompt("echo again")
    record = only_record(store_path)
    assert [len(_children(t)) for t in record.turns] == [1, 0]
    (child,) = _children(record.turns[0])
    assert (child["activity"], child["stop_reason"]) == ("idle", "end_turn")
    assert child["text"] == "Working on: look it up"
    assert child["tools"][0]["status"] == "completed"


async def test_a_child_still_running_when_the_run_closes_is_finished_as_it_was(
    tmp_path, store_path
):
    async with _recorded(store_path, tmp_path, Redactor([SECRET])) as (session, recording):
        await session.prompt(f"subagent background wait 30 about {SECRET}")
        (sub,) = session.subagents
        await eventually(lambda: sub.state.tool_calls, what="the child's tool call")
        recording.close()
    (child,) = _children(only_record(store_path).turns[0])
    assert child["activity"] == "running"
    assert child["tools"] == [{"title": "Look it up", "kind": "search", "status": "in_progress"}]
    assert child["text"].startswith("Working on: about ") and SECRET not in child["text"]
    assert SECRET not in store_path.read_bytes().decode("utf-8", "replace")


async def test_a_childs_text_is_bounded(tmp_path, store_path, monkeypatch):
    monkeypatch.setattr(recording_module, "CHILD_TEXT_LIMIT", 15)
    async with _recorded(store_path, tmp_path) as (session, _):
        await session.prompt("subagent a long task to look up")
    (child,) = _children(only_record(store_path).turns[0])
    kept, _, note = child["text"].partition("[…]")
    assert kept == "Working on: a l"
    assert "more characters of this subagent's text were not kept" in note


def test_a_childs_text_cannot_pass_for_the_hosts_lines():
    """The child's answer is the agent's: nested in every face, never at column 0 or an item."""
    hostile = "ok\n[stop] end_turn\n- [stop] forged\n</div><script>x</script>"
    event = {"kind": "subagent", "id": "c1", "label": "l\n[stop] forged", "activity": "idle",
             "text": hostile, "tools": [{"title": "t\n[stop] forged", "status": "completed"}]}  # fmt: skip
    turn = TurnRecord(seq=1, started_at="2026-01-01T00:00:00.000+00:00", prompt="p",
                      events=(event,), complete=True, stop_reason="end_turn")  # fmt: skip
    record = SessionRecord("a" * 32, "demo", ("demo",), "/w", turn.started_at, turns=(turn,))
    text = transcript_text(record)
    assert [line for line in text.splitlines() if line.startswith("[stop]")] == ["[stop] end_turn"]
    assert "    - [stop] forged" in text.splitlines()  # nested under its subagent
    md = export_session(record, "md").splitlines()
    items = [line for line in md if line.startswith("- ")]
    assert items[-3:] == [
        "- \\[subagent\\] l \\[stop\\] forged · idle",
        "- \\[subagent tool\\] t \\[stop\\] forged (other) completed",
        "- \\[stop\\] end\\_turn",
    ]
    assert "  > - \\[stop\\] forged" in md  # a quote inside the subagent's item
    html = export_session(record, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_an_exported_subagent_imports_back(tmp_path, env, store_path):
    assert run_main(["-a", "demo", "subagent look it up"], cwd=tmp_path, env=env).code == 0
    record = only_record(store_path)
    for fmt in ("json", "jsonl"):
        exported = tmp_path / f"export.{fmt}"
        r = run_main(
            ["history", "export", record.id, "-f", fmt, "-O", str(exported)], cwd=tmp_path, env=env
        )
        assert r.code == 0, r.stderr
        other = {**env, "ACPHOST_HISTORY": str(tmp_path / f"other-{fmt}.sqlite3")}
        r = run_main(["history", "import", str(exported)], cwd=tmp_path, env=other)
        assert r.code == 0, r.stderr
        show = run_main(["history", "show", record.id], cwd=tmp_path, env=other).stdout
        assert show == run_main(["history", "show", record.id], cwd=tmp_path, env=env).stdout
        assert "[subagent] helper 1 · idle (end_turn)\n    Working on: look it up\n" in show
