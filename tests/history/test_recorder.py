"""Recording real sessions: the demo agent and a scripted agent that reports usage."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from acphost import AcpClient
from acphost.client import HostConfig
from acphost.history import HistoryRecorder, HistoryStore, transcript_text
from acphost.host import AllowAll
from acphost.redact import Redactor
from acphost.safetext import CUT

from .conftest import DEMO, USAGE_AGENT, WRITER, record


def only_session(path):
    with HistoryStore.open(str(path)) as store:
        (summary,) = store.list_sessions()
        return store.get(summary.id)


async def test_a_demo_session_is_recorded_turn_by_turn(store_path, workspace):
    _, recording, results = await record(
        store_path, ["echo hello there", "tool", "diff", "plan", "title Renamed"], cwd=workspace
    )
    record_ = only_session(store_path)
    assert record_.id == recording.id
    assert (record_.agent, record_.cwd, record_.title) == ("demo", str(workspace), "Renamed")
    assert record_.agent_session_id == recording.agent_session_id
    assert record_.ended_at is not None and record_.ended_at >= record_.started_at
    assert [t.prompt for t in record_.turns] == [
        "echo hello there", "tool", "diff", "plan", "title Renamed"
    ]
    assert all(t.complete and t.stop_reason == "end_turn" for t in record_.turns)
    echo, tool, diff, plan, _ = record_.turns
    assert echo.text == results[0].text == "hello there"
    assert echo.prompt_blocks == ({"type": "text", "text": "echo hello there"},)
    (call,) = tool.tool_calls
    assert (call.title, call.kind, call.status) == ("Searching for TODO", "search", "completed")
    assert [loc["line"] for loc in call.locations] == [3, 14]
    assert [e["kind"] for e in tool.events] == ["tool", "text"]
    (edit,) = diff.tool_calls
    assert edit.diffs[0]["new_text"] == 'print("hello, world")\n'
    plans = [e for e in plan.events if e["kind"] == "plan"]
    assert len(plans) == 1  # one plan, at its first position, with its last entries
    assert {e["status"] for e in plans[0]["entries"]} == {"completed"}


async def test_the_transcript_reads_like_the_cli_text_output(store_path, workspace):
    await record(store_path, ["tool", "diff"], cwd=workspace)
    text = transcript_text(only_session(store_path))
    # The agent's text indented under the host's lines.
    assert (
        "> tool\n[tool] Searching for TODO (search) completed\n  The search found 2 matches."
        in text
    )
    assert "[diff] " in text and '+print("hello, world")' in text
    assert text.count("[stop] end_turn") == 2


async def test_permission_decisions_are_recorded_from_the_wire(store_path, workspace):
    host = HostConfig(permissions=AllowAll())
    await record(store_path, ["permission"], cwd=workspace, client_options={"host": host})
    (turn,) = only_session(store_path).turns
    (decision,) = turn.permissions
    assert decision.decision == "allow"
    assert decision.option_kind == "allow_once"
    assert decision.title == "Delete build/ (demo)"
    assert "[permission] Delete build/ (demo): allow (allow_once)" in transcript_text(
        only_session(store_path)
    )


async def test_a_rejected_permission_is_recorded_as_a_reject(store_path, workspace):
    await record(store_path, ["permission"], cwd=workspace)  # default policy: reads only
    (decision,) = only_session(store_path).turns[0].permissions
    assert (decision.decision, decision.option_kind) == ("reject", "reject_once")


async def test_secrets_are_redacted_before_they_are_stored(store_path, workspace):
    secret = "sk-" + "a1b2c3d4" * 4
    command = [*DEMO, "--api-key", "plain-value-1", "--token=plain-value-2", "OPENAI_API_KEY=v3"]
    await record(store_path, [f"echo my key is {secret}"], cwd=workspace, command=command)
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    for value in (secret, "plain-value-1", "plain-value-2", "OPENAI_API_KEY=v3"):
        assert value.encode() not in raw
    session = only_session(store_path)
    assert session.command == (
        *DEMO, "--api-key", "[REDACTED]", "--token=[REDACTED]", "OPENAI_API_KEY=[REDACTED]"
    )
    assert session.turns[0].text == "my key is [REDACTED]"
    assert session.turns[0].prompt == "echo my key is [REDACTED]"


async def test_the_callers_redactor_is_the_one_used(store_path, workspace):
    redactor = Redactor(value_patterns=[r"hunter2"])
    await record(store_path, ["echo the password is hunter2"], cwd=workspace, redactor=redactor)
    assert only_session(store_path).turns[0].text == "the password is [REDACTED]"


async def test_usage_is_recorded_per_turn_and_per_session(store_path, workspace):
    await record(store_path, ["one", "two", "three"], cwd=workspace, argv=USAGE_AGENT, agent="u")
    session = only_session(store_path)
    first, second, third = (t.usage for t in session.turns)
    assert (first.input, first.output, first.thought, first.cached_read) == (100, 10, 5, 50)
    assert first.cached_write is None
    assert (third.input, third.total) == (300, 335)
    # usage_update's cost is cumulative: each turn records what it added.
    assert [u.cost_amount for u in (first, second, third)] == [0.25, 0.25, 0.25]
    assert {u.cost_currency for u in (first, second, third)} == {"USD"}
    assert (third.context_used, third.context_size) == (3000, 100000)
    assert (session.usage.cost_amount, session.usage.cost_currency) == (0.75, "USD")
    assert session.token_totals().input == 600
    assert "[usage] tokens 335 (input 300, output 30, thought 5, cached read 50)" in (
        transcript_text(session)
    )


async def test_the_agents_own_tool_name_is_kept(store_path, workspace):
    await record(store_path, ["tool"], cwd=workspace, argv=USAGE_AGENT, agent="u")
    (call,) = only_session(store_path).turns[0].tool_calls
    assert (call.title, call.kind, call.name) == ("Run ls", "execute", "Bash")


async def test_a_tool_call_only_a_permission_request_named_is_kept(store_path, workspace):
    await record(store_path, ["ask"], cwd=workspace, argv=USAGE_AGENT, agent="u")
    (turn,) = only_session(store_path).turns
    (call,) = turn.tool_calls
    assert (call.tool_call_id, call.title, call.kind) == ("p1", "Delete x", "delete")
    (decision,) = turn.permissions
    assert (decision.tool_call_id, decision.title, decision.decision) == ("p1", "Delete x", "reject")
    assert "[permission] Delete x: reject (reject_once)" in transcript_text(only_session(store_path))


async def test_an_unusable_store_path_warns_once(tmp_path, workspace):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    warnings = []
    _recorder, _, results = await record(
        blocker / "history.sqlite3", ["echo fine"], cwd=workspace, warn=warnings.append
    )
    assert results[0].text == "fine"
    assert len(warnings) == 1 and "cannot open the history store" in warnings[0]


async def test_keep_history_false_still_records_the_text(store_path, workspace):
    await record(
        store_path, ["echo streamed only"], cwd=workspace, client_options={"keep_history": False}
    )
    assert only_session(store_path).turns[0].text == "streamed only"


async def test_a_turn_the_agent_dies_in_is_recorded_with_its_error(store_path, workspace):
    _, _, results = await record(store_path, ["echo first", "crash"], cwd=workspace)
    assert isinstance(results[-1], Exception)
    turns = only_session(store_path).turns
    assert [t.prompt for t in turns] == ["echo first", "crash"]
    assert turns[1].complete and turns[1].stop_reason is None
    assert "exit" in turns[1].error
    assert "[error] " in transcript_text(only_session(store_path))


async def test_host_stop_reason_is_recorded(store_path, workspace):
    recorder = HistoryRecorder.open(str(store_path))
    async with AcpClient.start(DEMO) as client:
        session = await client.new_session(str(workspace))
        recording = recorder.open_session("demo", DEMO, str(workspace), session)
        turn = session.prompt("slow")
        async for _update in turn:
            break
        await turn.aclose()
        # The host's reason reaches the history through the turn's end (TurnEnded.host_stop).
        await session.cancel(reason="budget: 0.50 USD reached")
        recording.close()
    recorder.close()
    (turn_record,) = only_session(store_path).turns
    assert turn_record.stop_reason == "cancelled"
    assert turn_record.host_stop == "budget: 0.50 USD reached"
    assert "[stop] cancelled (stopped by the host: budget: 0.50 USD reached)" in transcript_text(
        only_session(store_path)
    )


async def test_a_begun_turn_never_recorded_is_kept_as_incomplete(store_path, workspace):
    recorder = HistoryRecorder.open(str(store_path))
    async with AcpClient.start(DEMO) as client:
        session = await client.new_session(str(workspace))
        recording = recorder.open_session("demo", DEMO, str(workspace), session)
        turn = session.prompt("echo abandoned")
        recording.close()  # the host stops recording (it dies) before the turn ends
        await turn
    recorder.close()
    (turn_record,) = only_session(store_path).turns
    assert not turn_record.complete
    assert turn_record.prompt == "echo abandoned"
    assert "[stop] incomplete" in transcript_text(only_session(store_path))


async def test_a_corrupt_store_warns_once_and_the_run_goes_on(store_path, workspace):
    store_path.parent.mkdir(parents=True)
    garbage = b"definitely not a database\n" * 200
    store_path.write_bytes(garbage)
    warnings = []
    recorder, _, results = await record(
        store_path, ["echo still works", "tool"], cwd=workspace, warn=warnings.append
    )
    assert [r.stop_reason for r in results] == ["end_turn", "end_turn"]
    assert len(warnings) == 1
    assert "damaged or not a history database" in warnings[0]
    assert "not recorded" in warnings[0]
    assert not recorder.enabled
    assert store_path.read_bytes() == garbage


def test_a_corrupt_store_prints_one_line_on_stderr(store_path, workspace):
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(b"\x00garbage" * 500)
    proc = subprocess.run(
        [sys.executable, str(WRITER), str(store_path), str(workspace), "echo ok", "tool"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("acphost: warning: the history store ")
    assert lines[0].endswith("this run is not recorded in the history")


async def test_a_locked_store_warns_once_and_records_nothing(store_path, workspace):
    HistoryStore.open(str(store_path)).close()
    # Another process holds the write lock for the whole run.
    locker = subprocess.Popen(
        [
            sys.executable, "-c",
            "import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE')\n"
            "print('locked', flush=True)\n"
            "sys.stdin.readline()\n"
            "c.execute('ROLLBACK')\n",
            str(store_path),
        ],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert locker.stdout.readline() == "locked\n"
        warnings = []
        _recorder, _, results = await record(
            store_path, ["echo locked out", "tool"], cwd=workspace, warn=warnings.append,
            timeout=0.2,
        )
        assert [r.stop_reason for r in results] == ["end_turn", "end_turn"]
        assert len(warnings) == 1 and "locked by another process" in warnings[0]
    finally:
        locker.communicate("\n", timeout=30)
    with HistoryStore.open(str(store_path)) as store:
        assert store.list_sessions() == []


async def test_no_store_records_nothing_and_costs_no_listener(workspace):
    recorder = HistoryRecorder(None)
    async with AcpClient.start(DEMO) as client:
        session = await client.new_session(str(workspace))
        recording = recorder.open_session("demo", DEMO, str(workspace), session)
        assert session._listeners == [] and not client.events.observed
        await session.prompt("echo x")
        recording.close()
    assert not recorder.enabled


def test_the_store_passes_an_integrity_check_after_recording(store_path):
    import asyncio

    asyncio.run(record(store_path, ["tool", "diff", "echo x"]))
    conn = sqlite3.connect(str(store_path))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


async def test_a_turn_keeps_at_most_its_text_limit_and_says_how_much_it_left_out(
    store_path, workspace, monkeypatch
):
    """Whatever an agent streams, the history keeps a bounded amount of a turn's
    text (memory stays flat under a flood) and says how many characters it left out."""
    from acphost.history import _recording

    monkeypatch.setattr(_recording, "TURN_TEXT_LIMIT", 1000)
    await record(store_path, ["flood 500"], cwd=workspace)
    (turn,) = only_session(store_path).turns
    streamed = sum(len(f"flood {i}\n") for i in range(1, 501))
    kept = "".join(e["text"] for e in turn.events if e["kind"] == "text")
    body, note = kept.split("\n\n[acphost: ")
    assert body.endswith(CUT)  # where it was cut, for the redactor
    body = body.removesuffix(CUT)
    assert 900 < len(body) <= 1000  # whole chunks, as streamed, up to the limit
    assert body == "".join(f"flood {i}\n" for i in range(1, 501))[: len(body)]
    assert note.startswith(f"{streamed - len(body):,} more characters of this turn's text")
