"""The app driven with Textual's Pilot against the real demo agent (80x24)."""

from __future__ import annotations

from acphost.tui._composer import PromptArea
from acphost.tui._dialogs import CrashScreen, PickerScreen
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._model import ConnectionState
from acphost.tui._permission import PermissionScreen
from acphost.tui._plan import PlanPanel
from acphost.tui._protocol_log import ProtocolLogScreen
from acphost.tui._toolcard import DiffView, TerminalView, ToolCard
from acphost.tui._transcript import ThoughtBlock

from .conftest import SIZE, answer, ready, screen_text, send, transcript_source, wait_for


async def test_prompt_streams_text(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "stream 40")
        source = transcript_source(app)
        assert "stream 40" in source  # the user's prompt
        view = app.active_view
        agent = view.transcript.streams()[-1]
        assert agent.chunks >= 39  # chunk after chunk into one widget
        assert agent.source.strip() == view.session.state.last_agent_text().strip()
        assert view.stop_reason == "end_turn"
        assert "stop: end_turn" in screen_text(app)


async def test_tour_shows_thought_plan_tools_and_diff(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "tour")
        t = app.active_view.transcript
        thought = t.query_one(ThoughtBlock)
        assert thought.collapsed  # collapsed once the answer started
        cards = list(t.query(ToolCard))
        assert [c.call.status for c in cards] == ["completed", "completed"]
        assert "README.md:3" in str(cards[0].query_one(".tool-locations").render())
        assert t.query(DiffView)
        plan = app.query_one(PlanPanel)
        assert plan.has_class("-visible")
        assert "Plan 3/3" in str(plan.render())
        assert "ctx 1/200k" in screen_text(app)


async def test_diff_and_plan(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "diff")
        diff = app.active_view.transcript.query_one(DiffView)
        lines = diff.diff_text.splitlines()
        assert lines[0].startswith("@@")
        assert any(x.startswith("-") for x in lines) and any(x.startswith("+") for x in lines)
        await send(pilot, "plan")
        plan = app.active_view.plan
        rendered = str(plan.render())
        assert rendered.count("●") == 3  # every entry completed, replaced whole each time
        assert "high" in rendered


async def test_permission_approve(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert "⚠ 1 waiting for you" in screen_text(app)
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert "You chose allow_once." in transcript_source(app)
        assert not isinstance(app.screen, PermissionScreen)
        assert app.status_info.pending_asks == 0


async def test_permission_reject(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, "r")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert "You chose reject_once." in transcript_source(app)


async def test_permission_always_is_remembered(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, "A")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        # The second identical request is answered from memory: no dialog.
        shown = []
        await send(pilot, "permission", wait=False)
        await wait_for(
            pilot,
            lambda: shown.append(isinstance(app.screen, PermissionScreen)) or view.stop_reason,
        )
        await view.transcript.settled()
        assert not any(shown)
        assert transcript_source(app).count("You chose allow") == 2


async def test_terminal_permission_and_live_output(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "terminal echo hello-from-terminal", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert app.screen.request.operation == "terminal_create"
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await pilot.pause(0.1)
        term = view.transcript.query_one(TerminalView)
        assert any("hello-from-terminal" in line for line in term.lines)


async def test_cancel_turn_with_escape(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "slow", wait=False)
        view = app.active_view
        await wait_for(pilot, lambda: view.busy and view.session.state.last_agent_text())
        await pilot.press("escape")
        await wait_for(pilot, lambda: view.stop_reason == "cancelled")
        assert "turn cancelled" in screen_text(app)
        assert "stop: cancelled" in screen_text(app)


async def test_cancel_closes_the_pending_permission(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("ctrl+c")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "cancelled")
        await wait_for(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        assert len(app.asks) == 0


async def test_switch_mode(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("2")  # ask, code, architect
        view = app.active_view
        await wait_for(pilot, lambda: view.session.state.current_mode_id == "code")
        await wait_for(pilot, lambda: "Code · demo-fast" in screen_text(app))


async def test_choose_model(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")  # the model option is listed first
        await wait_for(
            pilot, lambda: isinstance(app.screen, PickerScreen) and "Model" in app.screen.title_text
        )
        await pilot.press("down", "enter")
        view = app.active_view
        await wait_for(pilot, lambda: app.status_info.model == "demo-smart")
        assert view.session.model_option().current_value == "demo-smart"


async def test_second_session_in_a_tab(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        first = app.active_view
        await send(pilot, "echo one")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.views()) == 2 and app.active_view is not first)
        second = app.active_view
        assert second.session.id != first.session.id
        await send(pilot, "echo two")
        assert "two" in second.session.state.last_agent_text()
        assert "two" not in first.session.state.last_agent_text()
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: app.active_view is first)


async def test_close_and_load_session_from_the_list(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo remember me")
        await send(pilot, "title notes for later")
        sid = app.active_view.session.id
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.views()) == 2)
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: app.active_view.session.id == sid)
        await pilot.press("f4")
        await wait_for(pilot, lambda: len(app.views()) == 1)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        theirs = [r.value for r in app.screen.shown if r.source == "agent"]
        assert sid in theirs
        await pilot.press(*"notes")  # the filter: this workspace's conversation comes first
        assert app.screen.highlighted.source == "local"
        assert app.screen.highlighted.title == "notes for later"
        await pilot.press("down")  # then the agent's own session
        assert app.screen.highlighted.source == "agent"
        assert app.screen.highlighted.value == sid
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.views()) == 2 and app.active_view.session.id == sid)
        await app.active_view.transcript.settled()
        assert "remember me" in transcript_source(app)  # the replayed history


async def test_slash_command_completion(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.query_one(PromptArea).commands)
        await pilot.press("slash", "p", "l")
        area = app.query_one(PromptArea)
        assert area.completing
        await pilot.press("tab")
        assert area.text == "/plan "
        assert not area.completing


async def test_file_mention_completion_makes_a_resource_link(make_app, workspace):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"echo ", "at", "h", "e", "l", "p")
        area = app.query_one(PromptArea)
        assert area.completing
        await pilot.press("enter")
        assert area.text == "echo @src/helpers.py "
        await pilot.press("enter")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        first = view.session.state.messages[0]
        links = [b for b in first.content if b.type == "resource_link"]
        assert links and links[0].uri == (workspace / "src" / "helpers.py").as_uri()
        await view.transcript.settled()
        assert "helpers.py" in transcript_source(app)


async def test_prompt_history(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo first")
        await send(pilot, "echo second")
        area = app.query_one(PromptArea)
        await pilot.press("up")
        assert area.text == "echo second"
        await pilot.press("up")
        assert area.text == "echo first"
        await pilot.press("down", "down")
        assert area.text == ""


async def test_protocol_log(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo hi")
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProtocolLogScreen))
        screen = app.screen
        assert len(screen._shown) == len(app.protocol)
        await pilot.press("slash", *"session/prompt")
        await wait_for(pilot, lambda: len(screen._shown) == 2)
        request, response = screen._shown
        assert request.kind == "request" and response.kind == "response"
        assert response.peer == request.seq and response.latency is not None
        await pilot.press("escape")  # leave the filter... then close
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ProtocolLogScreen))


async def test_auth_flow(make_app):
    app = make_app(ACPHOST_DEMO_REQUIRE_AUTH="1")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert "authentication" in app.screen.title_text
        await pilot.press("enter")
        await ready(pilot)
        assert app.connection is ConnectionState.CONNECTED
        await send(pilot, "echo authed")
        assert "authed" in app.active_view.session.state.last_agent_text()


async def test_agent_crash_shows_stderr_and_restarts(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "crash", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        assert app.connection is ConnectionState.CRASHED
        assert "code 3" in app.screen.message
        assert app.screen.stderr_tail.strip()
        old = app.active_view.session.id
        await answer(pilot, "r")
        await wait_for(pilot, lambda: app.connection is ConnectionState.CONNECTED and app.views())
        await wait_for(pilot, lambda: app.active_view is not None)
        # the demo can load sessions: the crashed one is reopened
        assert app.active_view.session.id == old
        await send(pilot, "echo back")
        assert "back" in app.active_view.session.state.last_agent_text()


async def test_no_color(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.no_color
