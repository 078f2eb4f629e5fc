"""The local history in the TUI: every session recorded, Ctrl+O, read-only past sessions, resume.

Against the real demo agent (and the scripted agent where the demo cannot
show a case), with a history store of each test's own (``ACPHOST_HISTORY``,
set by the autouse fixture) and real key presses.
"""

from __future__ import annotations

import sqlite3

import pytest

from acphost.history import HistoryStore
from acphost.tui import AcpApp
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._notes import Marker
from acphost.tui._past import PastSessionScreen
from acphost.tui._permission import PermissionScreen
from acphost.tui._toolcard import ToolCard
from acphost.tui._transcript import StreamingMarkdown

from .conftest import (
    SIZE,
    answer,
    demo_spec,
    ready,
    run_on_pty,
    screen_text,
    send,
    sent_methods,
    wait_for,
)
from .recorded import fill_store, scripted_sessions


def recorded(path) -> list:
    """The sessions in the store, newest first, whole."""
    with HistoryStore.open(str(path)) as store:
        return [store.get(x.id) for x in store.list_sessions()]


async def open_list(pilot) -> HistoryScreen:
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen))
    return pilot.app.screen


def note(screen: HistoryScreen, title: str) -> str:
    """What the list says in the section whose heading starts with ``title``."""
    return next(s.note for s in screen.sections if s.title.startswith(title))


async def highlight_local(pilot, screen: HistoryScreen) -> None:
    """Arrow down to the first recorded session."""
    for _ in range(30):
        row = screen.highlighted
        if row is not None and row.source == "local":
            return
        await pilot.press("down")
    raise AssertionError("no recorded session in the list")


async def test_every_session_and_turn_is_recorded(make_app, history_store):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo hello history")
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn" and not view.busy)
        sid = view.session.id
    [record] = recorded(history_store)
    assert (record.agent, record.agent_session_id) == ("demo", sid)
    assert record.cwd == app.cwd and record.ended_at is not None  # closed at quit
    first, second = record.turns
    assert first.prompt == "echo hello history" and "hello history" in first.text
    assert first.complete and first.stop_reason == "end_turn"
    [decision] = second.permissions  # the answer to session/request_permission, from the tap
    assert (decision.decision, decision.option_kind) == ("allow", "allow_once")


async def test_no_history_records_nothing(tmp_path, workspace, history_store):
    app = AcpApp(demo_spec(tmp_path), str(workspace), history=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo not kept")
    assert not history_store.exists()


async def test_the_app_records_nothing_when_the_environment_says_so(
    make_app, history_store, monkeypatch
):
    monkeypatch.setenv("ACPHOST_NO_HISTORY", "1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo not kept either")
        screen = await open_list(pilot)
        assert "recording is off" in note(screen, "This workspace")
    assert not history_store.exists()


async def test_a_damaged_store_costs_one_notification_and_the_app_goes_on(make_app, history_store):
    history_store.parent.mkdir()
    history_store.write_bytes(b"this is not a database\n" * 100)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo still works")
        await send(pilot, "echo and again")
        assert "and again" in app.active_view.session.state.last_agent_text()
        warnings = [n.message for n in app._notifications if "history" in n.message]
        assert len(warnings) == 1, warnings
        assert "not recorded" in warnings[0]
        screen = await open_list(pilot)  # the list says why, and still lists the agent's
        assert any(r.source == "agent" for r in screen.shown)
        assert "cannot be read" in note(screen, "This workspace")
        await pilot.press("escape")
    assert history_store.read_bytes().startswith(b"this is not a database")


async def test_a_locked_store_costs_one_notification_and_the_app_goes_on(make_app, history_store):
    history_store.parent.mkdir()
    HistoryStore.open(str(history_store)).close()
    holder = sqlite3.connect(str(history_store), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, and never done
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, "echo locked out")
            await send(pilot, "echo still going")
            assert "still going" in app.active_view.session.state.last_agent_text()
            warnings = [n.message for n in app._notifications if "history" in n.message]
            assert len(warnings) == 1, warnings
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert recorded(history_store) == []


async def test_ctrl_o_opens_a_recorded_session_read_only_and_resumes_it(
    tmp_path, workspace, history_store
):
    first = AcpApp(demo_spec(tmp_path), str(workspace))
    async with first.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo remembered words")
        await send(pilot, "tour")
        sid = first.active_view.session.id
    app = AcpApp(demo_spec(tmp_path), str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_list(pilot)
        local = [r for r in screen.shown if r.source == "local"]
        assert [r.turns for r in local] == [2]  # the new, empty session is not listed
        await highlight_local(pilot, screen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        past = app.screen
        await wait_for(pilot, lambda: len(past.transcript.query(ToolCard)) == 2)
        text = screen_text(app)
        assert "read-only" in text and "r resume in a new tab (session/load)" in text
        sources = past.transcript.sources()
        assert "echo remembered words" in sources[0]
        assert any("remembered words" in s for s in sources[1:])  # the agent's answer
        assert [c.call.status for c in past.transcript.query(ToolCard)] == ["completed"] * 2
        assert len(app.views()) == 1
        await pilot.press("r")
        await wait_for(pilot, lambda: len(app.views()) == 2)
        view = app.active_view
        assert view.session.id == sid
        await view.transcript.settled()
        assert any("remembered words" in s for s in view.transcript.sources())  # replayed
        assert "session/load" in sent_methods(app)


async def test_a_session_open_in_a_tab_is_shown_not_opened_twice(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo here")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.views()) == 2)
        screen = await open_list(pilot)
        await highlight_local(pilot, screen)
        assert screen.highlighted.open
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        assert "r go to its tab (it is open)" in screen_text(app)
        await pilot.press("r")
        await wait_for(pilot, lambda: app.active_view is app.views()[0])
        assert len(app.views()) == 2


async def test_the_list_filters_as_you_type_and_ctrl_o_closes_it(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "title alpha notes")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.views()) == 2)
        await send(pilot, "title beta notes")
        screen = await open_list(pilot)
        titles = {r.title for r in screen.shown}
        assert {"alpha notes", "beta notes"} <= titles
        await pilot.press(*"beta")
        assert {r.title for r in screen.shown} == {"beta notes"}  # in both sections
        assert len(screen.shown) == 2
        await pilot.press("space", "minus", *"notes")
        assert screen.shown == []
        assert "nothing matches" in screen_text(app)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistoryScreen))


async def test_resume_from_the_history_when_the_agent_only_resumes(scripted, history_store):
    script = {
        "capabilities": {"sessionCapabilities": {"resume": {}}},
        "prompts": {
            "hello": [
                {
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "hi from the first run"},
                    }
                }
            ]
        },
    }
    first = scripted(script)
    async with first.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello there")
        old = first.active_view.session.id
    app = scripted({**script, "session_prefix": "later-"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_list(pilot)
        assert "does not list its sessions" in note(screen, "The agent")
        await highlight_local(pilot, screen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        assert "(session/resume)" in screen_text(app)
        await pilot.press("r")
        await wait_for(pilot, lambda: len(app.views()) == 2)
        view = app.active_view
        assert view.session.id == old
        resumed = [m for m in app.agent_log() if m.get("method") == "session/resume"]
        assert resumed[0]["params"]["sessionId"] == old
        # The agent does not replay a resumed session: the tab shows the record.
        await wait_for(pilot, lambda: view.transcript.query(Marker))
        assert "hello there" in view.transcript.sources()[0]
        assert any("hi from the first run" in s for s in view.transcript.sources())
        marker = view.transcript.query_one(Marker)
        assert "resumed from the local history" in str(marker.render())
        markdown = view.transcript.query(StreamingMarkdown)
        assert markdown and view.label == "hello there"


async def test_a_session_of_another_agent_opens_read_only_without_resume(
    scripted, make_app, history_store
):
    other = scripted({"prompts": {}})
    async with other.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "note from scripted")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo from demo")
        screen = await open_list(pilot)
        local = [r for r in screen.shown if r.source == "local"]
        assert [r.agent for r in local] == ["demo", "scripted"]  # this agent first
        await pilot.press(*"scripted")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        assert "cannot resume: it was recorded with scripted" in screen_text(app)
        await pilot.press("r")  # nothing to resume: the screen stays
        await pilot.pause()
        assert isinstance(app.screen, PastSessionScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, PastSessionScreen))
        assert len(app.views()) == 1


@pytest.mark.parametrize(
    ("args", "env", "kept"),
    [
        ((), {}, True),
        (("--no-history",), {}, False),
        ((), {"ACPHOST_NO_HISTORY": "1"}, False),
    ],
    ids=["default", "flag", "environment"],
)
def test_acphost_tui_records_unless_told_not_to(workspace, history_store, args, env, kept):
    # The first tab's label says the session is open (and recorded) before Ctrl+Q.
    assert run_on_pty(workspace, b"\x11", *args, env=env, shown=b"new session") == 0
    assert history_store.exists() is kept
    if kept:
        [session] = recorded(history_store)
        assert session.agent == "demo" and session.ended_at is not None


async def test_ctrl_o_closes_a_past_session_too(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo look back")
        await open_list(pilot)
        await pilot.press(*"turn", "enter")  # only recorded sessions count turns
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
        assert len(app.views()) == 1


async def test_ctrl_o_lists_this_workspaces_conversations_first_then_the_agents_sessions(
    scripted, history_store, workspace, monkeypatch
):
    """Recorded conversations of this workspace lead, newest first; the agent's list follows."""
    monkeypatch.setenv("HOME", str(workspace.parent))  # paths show home-relative
    fill_store(history_store, str(workspace))
    app = scripted(
        {
            "capabilities": {"loadSession": True, "sessionCapabilities": {"list": {}}},
            "sessions": scripted_sessions(str(workspace)),
        }
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_list(pilot)
        assert [(r.source, r.title, r.cwd) for r in screen.shown] == [
            ("local", "Fix the flaky parser test", "~/ws"),
            ("local", "Review the README", "~/ws"),  # another agent's, still this workspace's
            ("agent", "Fix the flaky parser test", "~/ws"),
            ("agent", "(untitled) old-3", "~/ws"),
            ("local", "Explain how the build works", "~/other"),  # elsewhere, last
        ]
        assert [s.title.split(" (")[0] for s in screen.sections] == [
            "This workspace's conversations",
            "The agent's sessions",
            "Elsewhere in the local history",
        ]
        assert screen.highlighted == screen.shown[0]  # Enter opens the newest conversation
