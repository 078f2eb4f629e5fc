"""Dialogs take one answer, ignore stray keys, and come one at a time in arrival order."""

from __future__ import annotations

import time

from textual import events

from acphost.tui._dialogs import PickerScreen
from acphost.tui._permission import PermissionScreen

from .conftest import SIZE, answer, ready, send, transcript_source, wait_for

OPTIONS = [
    {"optionId": "yes", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def ask(call_id: str, title: str, **extra) -> dict:
    return {
        "request": "session/request_permission",
        "params": {
            "sessionId": "{sid}",
            "toolCall": {"toolCallId": call_id, "title": title, "kind": "execute", **extra},
            "options": OPTIONS,
        },
        "nowait": True,
    }


TWO_ASKS = {"prompts": {"two": [ask("c1", "first"), ask("c2", "second"), {"say_responses": 2}]}}


async def test_two_quick_keys_on_a_picker_do_not_crash(make_app):
    """Regression: the second key dismissed a screen already closing (ScreenStackError)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("2", "3", "enter", "escape")
        view = app.active_view
        await wait_for(pilot, lambda: view.session.state.current_mode_id == "code")
        assert app.is_running and not isinstance(app.screen, PickerScreen)


async def test_two_quick_answers_to_a_permission_count_once(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, "a", "r", "enter", "escape")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert "You chose allow_once." in transcript_source(app)
        assert app.is_running


async def test_a_burst_of_keys_never_crashes_a_dialog(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        burst = ["up", "down", "x", "enter", "a", "escape", "R", "tab", "space", "r"] * 5
        await pilot.press(*burst)  # within the guard time, or partly after it
        if isinstance(app.screen, PermissionScreen):
            await answer(pilot, *burst)
        view = app.active_view
        await wait_for(pilot, lambda: not view.busy)
        assert app.is_running


async def test_keys_within_the_guard_time_do_not_answer(make_app):
    app = make_app()
    app.key_guard = 3600.0  # the guard never passes during this test
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        await pilot.press("a", "y", "enter", "A", "escape")
        await pilot.pause(0.1)
        assert app.screen is screen and not screen.answered
        assert len(app.asks) == 1
        await pilot.press("ctrl+c")  # the app's own keys still work: cancel the turn
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "cancelled")


async def test_keys_typed_before_the_dialog_appeared_do_not_answer(make_app):
    """Keys read before the dialog showed, but handled after, are not answers."""
    app = make_app()
    app.key_guard = 0.0  # only the keys' own time protects the dialog here
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        typed_before = time.monotonic() - 10
        for key, char in (("a", "a"), ("enter", "\r"), ("y", "y")):
            event = events.Key(key, char)
            event.time = typed_before
            app.post_message(event)  # as the driver posts what it read
        await pilot.pause(0.1)
        assert app.screen is screen and not screen.answered
        await pilot.press("r")  # typed at the dialog: answers
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert "You chose reject_once." in transcript_source(app)


async def test_requests_come_one_at_a_time_with_the_number_waiting(scripted):
    app = scripted(TWO_ASKS)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "two", wait=False)
        await wait_for(
            pilot, lambda: len(app.asks) == 2 and isinstance(app.screen, PermissionScreen)
        )
        first = app.screen
        assert first.request.title == "first"
        await wait_for(
            pilot, lambda: "1 more waiting" in str(first.query_one(".perm-title").render())
        )
        await answer(pilot, "a")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PermissionScreen) and app.screen is not first
        )
        second = app.screen
        assert second.request.title == "second" and second.waiting == 0
        await answer(pilot, "r")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        outcomes = transcript_source(app)
        assert '"optionId": "yes"' in outcomes and '"optionId": "no"' in outcomes
