"""Prompts sent while a turn runs wait in the tab's queue: shown, edited, removed, sent in order.

The model is tested without an app; the app with real key presses against
the demo agent, whose first turn runs a command in a client terminal that
reads one byte from a FIFO in the workspace: the turn ends exactly when the
test writes it, however slow the machine.
"""

from __future__ import annotations

import errno
import os
import time

from acphost.tui import AcpApp
from acphost.tui._composer import PromptArea
from acphost.tui._queue import PromptQueue
from acphost.tui._queue_panel import QueueList

from .conftest import (
    SIZE,
    demo_spec,
    post,
    ready,
    screen_text,
    send,
    transcript_source,
    typed,
    wait_for,
)

# -- the model, no app -------------------------------------------------------------------


def test_the_queue_keeps_order_and_an_edited_prompt_goes_back_in_its_place():
    changes: list[int] = []
    queue = PromptQueue(on_change=lambda: changes.append(len(queue)))
    assert queue.takes(busy=True) and not queue.takes(busy=False)
    one, two, _three = (queue.add(t) for t in ("one", "two", "three"))
    assert queue.edit(two.id) == "two"
    queue.add("two, edited")
    assert [i.text for i in queue.items] == ["one", "two, edited", "three"]
    assert queue.remove(one.id) == one and queue.remove(one.id) is None
    assert queue.takes(busy=False)  # others wait: a new prompt goes behind them
    assert [queue.next().text, queue.next().text] == ["two, edited", "three"]
    assert queue.next() is None and changes


def test_a_cancelled_or_failed_turn_holds_the_queue_until_released():
    queue = PromptQueue()
    assert queue.turn_ended("cancelled", cancelled=False) == ""  # nothing waits: no hold
    queue.add("next")
    assert queue.turn_ended("end_turn", cancelled=True) == "the turn was cancelled"
    assert queue.next() is None and not queue.takes(busy=False)  # a typed prompt goes now
    queue.release()
    assert queue.next().text == "next"
    queue.add("again")
    assert queue.turn_ended("agent exited", cancelled=False) == "the turn failed"
    queue.clear()
    assert not queue and not queue.held


def test_a_queued_prompt_shows_as_one_inert_line():
    queue = PromptQueue()
    item = queue.add("[bold]hi[/]\x1b[31m\nsecond line")
    line = item.line(200)
    assert "\n" not in line and "\x1b" not in line and "[bold]" in line
    assert len(queue.add("x" * 500).line(40)) == 40


# -- the app, real keys ------------------------------------------------------------------


def _gate(workspace) -> str:
    path = workspace / "gate"
    os.mkfifo(path)
    return str(path)


async def _open_gate(pilot, path: str) -> None:
    """End the gated turn: write the byte its command reads (once it reads)."""
    fds: list[int] = []

    def opened() -> bool:
        try:
            fds.append(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            return False
        return True

    await wait_for(pilot, opened, timeout=60)
    os.write(fds[0], b"x")
    os.close(fds[0])


async def _gated_turn(pilot, app: AcpApp) -> None:
    view = app.active_view
    await send(pilot, "terminal head -c 1 gate", wait=False)
    await wait_for(pilot, lambda: view.busy)


def _queued(app: AcpApp) -> list[str]:
    return [item.text for item in app.active_view.queue.items]


async def _to_queue(pilot, app: AcpApp) -> QueueList:
    app.query_one(PromptArea).focus()
    await pilot.press("shift+tab")
    await wait_for(pilot, lambda: isinstance(app.focused, QueueList))
    return app.focused


def _user_prompts(app: AcpApp) -> list[str]:
    return [m.text for m in app.active_view.session.state.messages if m.role == "user"]


async def test_prompts_queued_during_a_turn_are_edited_removed_and_sent_in_order(
    tmp_path, workspace
):
    gate = _gate(workspace)
    app = AcpApp(demo_spec(tmp_path), str(workspace), yolo=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        view = app.active_view
        await _gated_turn(pilot, app)
        for text in ("echo one", "echo two", "echo three"):
            await send(pilot, text, wait=False)
        assert _queued(app) == ["echo one", "echo two", "echo three"]
        shown = screen_text(app)
        assert "3 queued, sent when the turn ends" in shown
        assert "1. echo one" in shown and "3. echo three" in shown
        assert "echo one" not in transcript_source(app)  # not sent yet

        # Edit the second: Enter takes it back into the prompt box, Enter queues it again.
        await _to_queue(pilot, app)
        await pilot.press("down", "enter")
        area = app.query_one(PromptArea)
        await wait_for(pilot, lambda: area.text == "echo two" and area.has_focus)
        assert _queued(app) == ["echo one", "echo three"]
        await pilot.press("end", "space", "a", "g", "a", "i", "n", "enter")
        await wait_for(pilot, lambda: len(view.queue) == 3)
        assert _queued(app) == ["echo one", "echo two again", "echo three"]

        # Remove the first.
        await _to_queue(pilot, app)
        await pilot.press("home", "delete")
        await wait_for(pilot, lambda: len(view.queue) == 2)
        assert _queued(app) == ["echo two again", "echo three"]
        assert view.busy  # all of it while the first turn ran

        await _open_gate(pilot, gate)
        await wait_for(pilot, lambda: not view.queue and not view.busy, timeout=60)
        await view.transcript.settled()
        assert _user_prompts(app) == ["terminal head -c 1 gate", "echo two again", "echo three"]
        agent = [m.text for m in view.session.state.messages if m.role == "agent"]
        assert agent[-2:] == ["two again", "three"]
        assert view.stop_reason == "end_turn"
        assert "queued" not in screen_text(app)  # the panel is gone


async def test_a_cancel_leaves_the_queue_waiting_until_enter_on_an_empty_prompt(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        view = app.active_view
        await send(pilot, "wait 3600", wait=False)
        await wait_for(pilot, lambda: view.busy)
        await send(pilot, "echo first", wait=False)
        await send(pilot, "echo second", wait=False)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not view.busy and view.stop_reason == "cancelled")
        await view.transcript.settled()
        assert _queued(app) == ["echo first", "echo second"]  # nothing sent after a cancel
        assert view.queue.held == "the turn was cancelled"
        assert "2 queued prompts wait (the turn was cancelled)" in transcript_source(app) or (
            "2 queued prompts wait (the turn was cancelled)" in screen_text(app)
        )

        # Another tab has a queue of its own.
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.active_view is not view and app.active_view)
        assert not app.active_view.queue
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: app.active_view is view)

        # Enter on an empty prompt sends the next, and the queue goes on after it.
        area = app.query_one(PromptArea)
        area.focus()
        assert not area.text
        await pilot.press("enter")
        await wait_for(pilot, lambda: not view.queue and not view.busy, timeout=60)
        await view.transcript.settled()
        assert _user_prompts(app)[-2:] == ["echo first", "echo second"]
        assert view.stop_reason == "end_turn"


async def test_a_waiting_queue_can_be_cleared(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        view = app.active_view
        await send(pilot, "wait 3600", wait=False)
        await wait_for(pilot, lambda: view.busy)
        await send(pilot, "echo never", wait=False)
        await send(pilot, "echo nor this", wait=False)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not view.busy and view.queue.held)
        await _to_queue(pilot, app)
        await pilot.press("C")
        await wait_for(pilot, lambda: not view.queue)
        await wait_for(pilot, lambda: app.query_one(PromptArea).has_focus)
        await pilot.press("enter")  # nothing waits: nothing is sent
        await pilot.pause()
        assert not view.busy
        assert "echo never" not in " ".join(_user_prompts(app))


async def test_two_prompts_typed_at_once_are_both_sent_in_order(make_app):
    """The second Enter comes before the first turn has started: it is queued, not refused."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        view = app.active_view
        app.query_one(PromptArea).focus()
        await post(pilot, typed("echo a\recho b\r", time.monotonic(), every=0))
        await wait_for(pilot, lambda: len(_user_prompts(app)) == 2 and not view.busy)
        await wait_for(pilot, lambda: not view.queue and not view.busy)
        await view.transcript.settled()
        assert _user_prompts(app) == ["echo a", "echo b"]
        assert "✗" not in transcript_source(app)
