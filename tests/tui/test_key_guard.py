"""A dialog the agent opens is never answered by someone still typing.

Keys carry the time the driver read them (``Message.time``); the dialog
decides by that clock. Posting keys with chosen times (as the driver posts
what it reads) drives the clock without waiting for it: steady typing at ten
keys a second for seconds on end, then a pause, then an answer.
"""

from __future__ import annotations

import time

from textual.containers import VerticalScroll
from textual.widgets import Input

from acphost.tui._dialogs import CrashScreen
from acphost.tui._elicit import FormScreen
from acphost.tui._permission import PermissionScreen

from .conftest import (
    SIZE,
    answer,
    key_event,
    post,
    ready,
    send,
    transcript_source,
    typed,
    wait_for,
)

#: What a message typed at the keyboard looks like, with the dialog's own keys in it.
MESSAGE = "yes a A r enter\r"


async def test_steady_typing_never_answers_then_a_pause_does(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        # Typing since a second before the dialog showed, for 4.8 s: far past the guard.
        keys = typed(MESSAGE * 3, screen.shown_at - 1.0)
        await post(pilot, keys)
        assert app.screen is screen and not screen.answered
        # A pause after the guard, then more of a message: a key that means
        # nothing to the dialog is not an answer, and the next ones come too fast.
        after_pause = keys[-1].time + 2 * app.key_guard
        await post(pilot, typed("hello a", after_pause))
        assert app.screen is screen and not screen.answered
        last = after_pause + 0.6
        await post(pilot, typed("r", last + 2 * app.key_guard))  # a pause, then an answer
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert "You chose reject_once." in transcript_source(app)


async def test_a_burst_of_170_keys_neither_crashes_nor_answers(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        # The typist was at it when the dialog showed (however long this test
        # took to see it), then the burst: 170 keys 5 ms apart, all in the
        # app's queue at once. (The keys carry the times a terminal would
        # stamp them with: a slow machine handling them late makes no pause.)
        start = screen.shown_at - 1.0
        filler = typed("x" * int((time.monotonic() - start) / 0.1 + 1), start)
        burst = ["a", "y", "enter", "A", "up", "down", "escape", "r", "R", "n", "space", "x"]
        after = filler[-1].time + 0.005
        keys = [key_event(key, after + i * 0.005) for i, key in enumerate((burst * 15)[:170])]
        await post(pilot, filler + keys)
        assert app.is_running
        assert app.screen is screen and not screen.answered
        assert len(app.asks) == 1
        await answer(pilot, "r", "a", "enter", "escape")  # after a pause: one answer only
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert "You chose reject_once." in transcript_source(app)
        assert app.is_running


async def test_a_form_gives_no_focus_to_a_typist(make_app):
    """The first field takes the focus only after a pause; Tab before that reaches nothing."""
    app = make_app()
    app.key_guard = 3.0  # the test sees the form well within it, however slow the machine
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "elicit", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
        screen = app.screen
        assert app.focused is None
        await pilot.press("tab", "A", "d", "a", "enter", "tab", "enter")
        assert app.focused is None and not screen.answered
        keys = typed("still typing\r", screen.shown_at - 1.0)
        await post(pilot, keys)
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        assert time.monotonic() >= keys[-1].time + app.key_guard  # not before the pause
        field = app.focused
        assert field.value == "" and not screen.answered
        await pilot.press(*"Ada", "enter")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        assert "Nice to meet you, Ada." in view.session.state.last_agent_text()
        assert app.is_running


async def test_the_crash_report_scrolls_without_being_answered(scripted):
    """Nothing in a guarded dialog has the focus; its arrows still scroll, and answer nothing."""
    script = {
        "prompts": {
            "die": [{"stderr": "".join(f"trace line {i}\n" for i in range(200))}, {"exit": 3}]
        }
    }
    app = scripted(script)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "die", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        screen = app.screen
        assert app.focused is None
        tail = screen.query_one(VerticalScroll)
        await pilot.press("pagedown", "down")
        await wait_for(pilot, lambda: tail.scroll_y > 0)
        assert app.screen is screen and not screen.answered
        await answer(pilot, "escape")
        await wait_for(pilot, lambda: app.screen is not screen)
        assert app.is_running
