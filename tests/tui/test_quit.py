"""Quitting works in every state, with real key presses, and the agent never outlives the app.

Regression: Ctrl+Q and the command palette's Quit froze the app (the app kept
a ``_closing`` flag of its own, which shadowed Textual's and made it drop the
exit message), so the process had to be killed.
"""

from __future__ import annotations

import asyncio
import os

from acphost.tui._dialogs import CrashScreen
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._past import PastSessionScreen
from acphost.tui._permission import PermissionScreen

from .conftest import SIZE, ready, run_on_pty, send, wait_for


async def exited(app, timeout: float = 10.0) -> None:
    """Wait for the app to stop running (the pilot cannot pause a stopped app)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while app.is_running:
        if loop.time() > end:
            raise AssertionError("the app did not quit")
        await asyncio.sleep(0.02)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def quit_with(pilot, *keys: str) -> int | None:
    """Press ``keys``, wait for the app to quit; return the agent's pid (check it after)."""
    app = pilot.app
    pid = app.client.transport.pid if app.client is not None else None
    await pilot.press(*keys)
    await exited(app)
    return pid


async def test_ctrl_q_quits_when_idle(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        pid = await quit_with(pilot, "ctrl+q")
    assert pid is None or gone(pid), "the agent outlived the app"
    assert app.return_code == 0


async def test_ctrl_q_quits_mid_turn(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "slow", wait=False)
        view = app.active_view
        await wait_for(pilot, lambda: view.busy and view.session.state.last_agent_text())
        pid = await quit_with(pilot, "ctrl+q")
    assert pid is None or gone(pid), "the agent outlived the app"


async def test_ctrl_q_quits_with_a_permission_dialog_open(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        pid = await quit_with(pilot, "ctrl+q")
    assert pid is None or gone(pid), "the agent outlived the app"


async def test_ctrl_q_quits_after_an_agent_crash(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "crash", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        await quit_with(pilot, "ctrl+q")
    assert app.return_code == 1  # quitting after a crash says so


async def test_ctrl_q_quits_with_the_sessions_list_open(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo recorded")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"rec")  # typing in the filter
        pid = await quit_with(pilot, "ctrl+q")
    assert pid is None or gone(pid), "the agent outlived the app"
    assert app.return_code == 0


async def test_ctrl_q_quits_with_a_past_session_open(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo recorded")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"turn", "enter")  # only recorded sessions count turns
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        pid = await quit_with(pilot, "ctrl+q")
    assert pid is None or gone(pid), "the agent outlived the app"


async def test_the_command_palette_quits(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "CommandPalette")
        await pilot.press(*"quit")
        await pilot.pause(0.3)
        pid = await quit_with(pilot, "enter")
    assert pid is None or gone(pid), "the agent outlived the app"


async def test_ctrl_c_twice_quits_when_no_turn_runs(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+c")
        assert app.is_running  # the first one only says how to quit
        pid = await quit_with(pilot, "ctrl+c")
    assert pid is None or gone(pid), "the agent outlived the app"


async def test_ctrl_c_cancels_a_running_turn_and_does_not_quit(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "slow", wait=False)
        view = app.active_view
        await wait_for(pilot, lambda: view.busy and view.session.state.last_agent_text())
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: view.stop_reason == "cancelled")
        assert app.is_running
        assert "cancelling" not in str(app.status_info.parts())  # gone once the turn ended


def test_ctrl_q_quits_the_process_on_a_real_terminal(workspace):
    assert run_on_pty(workspace, b"\x11") == 0


def test_ctrl_c_twice_quits_the_process_on_a_real_terminal(workspace):
    assert run_on_pty(workspace, b"\x03\x03") == 0
