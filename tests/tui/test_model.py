"""The TUI's model layer, without an app (as Textual tests its notifications)."""

from __future__ import annotations

import asyncio
import json

from acphost import schema as s
from acphost.config import AgentSpec
from acphost.host import PermissionOption, PermissionRequest, Verdict
from acphost.host._terminals import (
    ExitStatus,
    TerminalCreated,
    TerminalExited,
    TerminalOutputReceived,
)
from acphost.redact import REDACTED, Redactor
from acphost.tui._asks import AskQueue, choices_for
from acphost.tui._completion import PromptHistory, command_matches, fuzzy_rank, workspace_files
from acphost.tui._frames import ProtocolLog, frame_matches
from acphost.tui._model import ConnectionState, StatusInfo, format_usage, location_text
from acphost.tui._status import status_text
from acphost.tui._terminals import TerminalBuffers
from tests.support.waiting import eventually


def frame(obj) -> bytes:
    return json.dumps(obj).encode()


def test_protocol_log_correlates_requests_and_responses():
    log = ProtocolLog()
    req = log.record(
        "send", frame({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}), now=10.0
    )
    note = log.record(
        "receive", frame({"jsonrpc": "2.0", "method": "session/update", "params": {}}), now=10.1
    )
    agent_req = log.record(
        "receive", frame({"jsonrpc": "2.0", "id": 1, "method": "fs/read_text_file"}), now=10.2
    )
    resp = log.record("receive", frame({"jsonrpc": "2.0", "id": 1, "result": {}}), now=10.5)
    answer = log.record("send", frame({"jsonrpc": "2.0", "id": 1, "error": {"code": -1}}), now=10.6)
    assert (req.kind, note.kind, agent_req.kind) == ("request", "notification", "request")
    # same id in both directions: each response pairs with the other side's request
    assert resp.method == "session/new" and resp.peer == req.seq and req.peer == resp.seq
    assert abs(resp.latency - 0.5) < 1e-9
    assert answer.kind == "error" and answer.method == "fs/read_text_file"
    assert answer.peer == agent_req.seq
    assert log.find(resp.seq) is resp


def test_protocol_log_keeps_invalid_lines_and_is_bounded():
    log = ProtocolLog(limit=3)
    for i in range(5):
        log.record("receive", f"garbage {i}".encode())
    assert len(log) == 3
    assert log.records[-1].kind == "invalid" and log.records[-1].payload == "garbage 4"
    assert log.find(1) is None and log.find(5) is log.records[-1]


def test_protocol_log_redacts_with_the_one_redactor_and_configured_secrets():
    agent = AgentSpec(
        name="x", command="agent", env={"SERVICE_KEY": "configured-secret-value", "DEBUG": "no"}
    )
    log = ProtocolLog(redactor=Redactor.from_config(agent=agent, host_env=None))
    data = {
        "params": {
            "apiKey": "sk-123",
            "mcpServers": [
                {
                    "env": [
                        {"name": "GITHUB_TOKEN", "value": "ghp_x"},
                        {"name": "HOME", "value": "/h"},
                    ]
                },
                {"headers": [{"name": "Authorization", "value": "Bearer y"}]},
            ],
            "text": "a token word in text is fine",
        }
    }
    data["params"]["echo"] = "the agent repeats configured-secret-value here; no"
    out = log.record("send", frame(data)).payload
    assert "configured-secret-value" not in json.dumps(out)
    assert out["params"]["echo"].endswith("here; no")  # short values are left alone
    assert out["params"]["apiKey"] == REDACTED
    env = out["params"]["mcpServers"][0]["env"]
    assert env[0]["value"] == REDACTED and env[1]["value"] == REDACTED  # every env value
    assert out["params"]["mcpServers"][1]["headers"][0]["value"] == REDACTED
    assert out["params"]["text"] == "a token word in text is fine"
    assert data["params"]["apiKey"] == "sk-123"  # the original is untouched


def test_protocol_log_shows_update_kinds_and_survives_hostile_lines():
    log = ProtocolLog()
    update = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": "tool_call_update"}},
    }
    rec = log.record("receive", frame(update))
    assert rec.detail == "tool_call_update"
    assert frame_matches(rec, "tool_call_update")
    deep = b"[" * 100_000 + b"]" * 100_000
    assert log.record("receive", b'{"a":' + deep + b"}").kind == "invalid"
    surrogate = log.record("receive", b'{"jsonrpc":"2.0","method":"x","params":"\\ud800"}')
    surrogate.copy_text().encode("utf-8")  # copyable to the clipboard
    huge = log.record("receive", b"x" * 1_000_000)
    assert huge.kind == "invalid" and len(huge.payload) < 70_000
    assert "Infinity" in log.record("receive", b'{"n": 1e999}').copy_text()
    assert log.record("receive", b"\xff\xfe not utf-8").kind == "invalid"


def test_filter_words():
    log = ProtocolLog()
    rec = log.record(
        "send",
        frame({"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {"x": "hello"}}),
    )
    assert frame_matches(rec, "")
    assert frame_matches(rec, "prompt hello")
    assert frame_matches(rec, "#7 >")
    assert not frame_matches(rec, "prompt -hello")
    assert not frame_matches(rec, "receive")
    assert log.filter("session/prompt") == [rec]


def test_choices_follow_the_agents_options_by_kind():
    req = PermissionRequest(
        session_id="s",
        options=(
            PermissionOption("r1", "No", "reject_once"),
            PermissionOption("a1", "Yes", "allow_once"),
            PermissionOption("x", "Odd", "future_kind"),
        ),
    )
    choices = choices_for(req)
    assert [(c.key, c.label, c.kind, c.agent_name) for c in choices] == [
        ("a", "Allow once", "allow_once", "Yes"),
        ("r", "Reject", "reject_once", "No"),
    ]
    assert choices[0].verdict == Verdict.allow("allowed by the user")
    mediated = choices_for(PermissionRequest.for_fs_write("s", "/w/a.txt"))
    assert [c.kind for c in mediated] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    assert mediated[1].verdict.always and mediated[3].verdict.always


async def test_permission_queue_orders_and_drops_cancelled():
    changes = []
    queue = AskQueue(on_change=lambda: changes.append(len(queue)))
    r1 = PermissionRequest(session_id="a", title="one")
    r2 = PermissionRequest(session_id="b", title="two")
    t1 = asyncio.ensure_future(queue.ask(r1))
    t2 = asyncio.ensure_future(queue.ask(r2))
    await eventually(lambda: len(queue) == 2, what="both questions queued")
    assert len(queue) == 2 and queue.current.request is r1
    assert queue.count(PermissionRequest) == 2
    t1.cancel()  # the turn was cancelled: the request leaves the queue
    await eventually(lambda: len(queue) == 1, what="the cancelled question leaving")
    assert queue.current.request is r2
    queue.answer(queue.current, Verdict.allow())
    assert (await t2).decision.value == "allow"
    assert len(queue) == 0 and changes[-1] == 0


def test_terminal_buffers_replay_and_follow():
    bufs = TerminalBuffers(limit=10)
    bufs.on_event(TerminalCreated("s", "t1", "echo", ("hi",), "/w"))
    bufs.on_event(TerminalOutputReceived("s", "t1", "hello "))
    seen = []
    bufs.watch("t1", seen.append)
    bufs.on_event(TerminalOutputReceived("s", "t1", "world!"))
    bufs.on_event(TerminalExited("s", "t1", ExitStatus(0, None)))
    buf = bufs.get("t1")
    assert buf.command == "echo hi"
    assert buf.text == "world!"  # bounded: the oldest chunk went
    assert seen == ["world!", ""] and buf.exit_text == "exit code 0"


def test_prompt_history():
    h = PromptHistory()
    assert h.previous("draft") is None
    h.add("one")
    h.add("two")
    h.add("two")
    assert h.previous("draft") == "two"
    assert h.previous("ignored") == "one"
    assert h.previous("ignored") is None
    assert h.next() == "two"
    assert h.next() == "draft"
    assert h.next() is None


def test_fuzzy_files(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.js").write_text("")
    for p in ("README.md", "src/pkg/session.py", "src/pkg/state.py", "setup.cfg"):
        (tmp_path / p).write_text("")
    files = workspace_files(str(tmp_path))
    assert files == ["README.md", "setup.cfg", "src/pkg/session.py", "src/pkg/state.py"]
    assert fuzzy_rank("sess", files)[0] == "src/pkg/session.py"
    assert fuzzy_rank("stpy", files)[0] == "src/pkg/state.py"
    assert fuzzy_rank("zzz", files) == []


def test_command_matches():
    cmds = [s.AvailableCommand(name=n, description="") for n in ("help", "plan", "explain")]
    assert [c.name for c in command_matches("/pl", cmds)] == ["plan", "explain"]
    assert [c.name for c in command_matches("/", cmds)] == ["help", "plan", "explain"]


def test_formatting():
    assert format_usage(None) == ""
    assert format_usage(s.UsageUpdate(used=12_000, size=200_000)) == "ctx 12k/200k 6%"
    usage = s.UsageUpdate(used=1, size=200_000, cost=s.Cost(amount=1.5, currency="USD"))
    assert format_usage(usage) == "ctx 1/200k 0% 1.50 USD"
    assert location_text(s.ToolCallLocation(path="/w/src/a.py", line=3), "/w") == "src/a.py:3"
    assert location_text(s.ToolCallLocation(path="/etc/x"), "/w") == "/etc/x"


def test_status_line_fits_80_columns():
    info = StatusInfo(
        agent="acphost-demo",
        version="0.1.0",
        connection=ConnectionState.CONNECTED,
        mode="Ask",
        model="demo-fast",
        usage="ctx 1/200k 0%",
        stop_reason="end_turn",
    )
    text = status_text(info).plain
    assert text == "● acphost-demo 0.1.0 │ stop: end_turn │ Ask · demo-fast │ ctx 1/200k 0%"
    assert len(text) <= 78
    info.connection = ConnectionState.CRASHED
    info.pending_asks = 2
    assert status_text(info).plain.startswith("✗ acphost-demo 0.1.0 crashed │ ⚠ 2 waiting for you")


def test_status_line_drops_the_least_important_parts_whole():
    info = StatusInfo(
        agent="acphost-demo",
        version="0.1.0",
        connection=ConnectionState.CONNECTED,
        mode="Architect",
        model="a-model-with-a-very-long-name",
        usage="ctx 150k/200k 75% 12.34 USD",
        title="Refactor the parser",
        busy=True,
        pending_asks=3,
    )
    for width in (50, 60, 78):
        text = status_text(info, width).plain
        assert len(text) <= width
        assert text.startswith("● acphost-demo 0.1.0 │ ⚠ 3 waiting for you")
        assert not text.endswith("…")  # parts are dropped whole, never cut
    assert "working" in status_text(info, 78).plain
    assert status_text(info, 10).plain.endswith("…")  # only the agent is left, cut
    info.title = "evil\x1b]52;c;AAAA\x07[bold]title"
    wide = status_text(info, 300).plain
    assert "\x1b" not in wide and "\\x1b]52" in wide and "[bold]title" in wide


async def test_tui_policy():
    from acphost.launch import AskPolicy as TuiPolicy

    ask = await TuiPolicy(write=False, yolo=False).decide(PermissionRequest(session_id="s"))
    assert ask.decision.value == "ask"
    write = PermissionRequest.for_fs_write("s", "/w/a")
    assert (await TuiPolicy(write=False, yolo=False).decide(write)).decision.value == "reject"
    assert (await TuiPolicy(write=True, yolo=False).decide(write)).decision.value == "ask"
    assert (await TuiPolicy(write=True, yolo=True).decide(write)).decision.value == "allow"


def test_run_tui_usage_error(capsys, monkeypatch, tmp_path):
    import argparse

    from acphost.tui import run_tui

    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    args = argparse.Namespace(
        agent="no-such-agent",
        settings=None,
        cwd=str(tmp_path),
        verbose=0,
        init_timeout=5.0,
        write=False,
        yolo=False,
    )
    assert run_tui(args) == 2
    assert "unknown agent 'no-such-agent'" in capsys.readouterr().err


def _summary(id_, agent, started, *, turns=1, title=None, prompt="p", cost=None, sid=None):
    from acphost.history import SessionSummary

    return SessionSummary(
        id=id_,
        agent=agent,
        cwd="/w",
        title=title,
        started_at=started,
        ended_at=None,
        agent_session_id=sid,
        turns=turns,
        first_prompt=prompt,
        total_tokens=None,
        cost_amount=cost,
        cost_currency="USD" if cost is not None else None,
        incomplete=0,
    )


def test_recorded_rows_this_agent_first_newest_first_without_empty_sessions():
    from acphost.tui._history import local_rows

    newest_first = [
        _summary("4", "claude", "2025-01-04T00:00:00.000+00:00"),
        _summary("3", "demo", "2025-01-03T00:00:00.000+00:00", turns=0),
        _summary("2", "demo", "2025-01-02T00:00:00.000+00:00", prompt="fix  the\nbug", sid="s2"),
        _summary("1", "demo", "2025-01-01T00:00:00.000+00:00", title="Old", cost=0.0002),
    ]
    rows = local_rows(newest_first, "demo", open_ids=["s2"])
    assert [r.value for r in rows] == ["2", "1", "4"]  # the empty session is left out
    assert rows[0].title == "fix the bug" and rows[0].open
    assert rows[1].title == "Old" and rows[1].cost == "0.0002 USD"


def test_rows_filter_by_every_word_and_leave_out_minus_words():
    from acphost.tui._history import HistoryRow, row_matches

    row = HistoryRow("local", "abc", "Fix the parser", "2025-01-02 10:00", "~/ws", 3, "0.42 USD")
    assert row_matches(row, "") and row_matches(row, "PARSER ws")
    assert row_matches(row, "3 turns") and row_matches(row, "2025-01")
    assert not row_matches(row, "parser -fix") and not row_matches(row, "lexer")


def test_agent_rows_newest_first_untitled_by_id():
    from acphost.tui._history import agent_rows

    infos = [
        s.SessionInfo(session_id="a", cwd="/w", updated_at="2025-01-01T00:00:00Z"),
        s.SessionInfo(session_id="b", cwd="/w", title="B", updated_at="2025-01-03T00:00:00Z"),
        s.SessionInfo(session_id="c", cwd="/w"),
    ]
    rows = agent_rows(infos, open_ids=["a"])
    assert [r.value for r in rows] == ["b", "a", "c"]
    assert rows[1].title == "(untitled) a" and rows[1].open and rows[2].when == ""


def test_usage_in_the_status_bar_with_tokens_and_a_budget():
    from acphost.client import Budget

    usage = s.UsageUpdate(used=3000, size=200_000, cost=s.Cost(amount=0.004, currency="USD"))
    assert format_usage(usage, tokens=2000) == "ctx 3k/200k 2% · 2k tok"  # under a cent: no cost
    budget = Budget(max_tokens=4000, max_cost=0.05)
    assert format_usage(usage, budget=budget) == "ctx 3k/200k 2% (max 4k) 0.00 USD (max 0.05)"
    assert format_usage(None, budget=budget) == "ctx max 4k cost max 0.05"
