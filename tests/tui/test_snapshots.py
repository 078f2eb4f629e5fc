"""Snapshots of the key screens, one file per screen, at 80x24 unless named wider.

Each screen is stored twice under ``snapshots/``: as plain text (compared,
readable in a diff) and as SVG (compared too; open it in a browser to look).
Regenerate after an intended change with ``--snapshot-update`` (or
``ACPHOST_UPDATE_SNAPSHOTS=1``); a snapshot whose file is missing fails
until it is written that way and looked at.
The demo agent runs with a fixed seed, so session ids repeat; nothing shown
depends on the clock, and the workspace shows as ``~/ws`` (HOME is the test's
directory). What the OS sandbox shows is pinned (its ABI is the kernel's, its
grants the machine's); ``test_sandbox.py`` checks the real one. The README's
screenshot (``docs/tui.svg``) is the wide tour.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets._collapsible import CollapsibleTitle

from acphost.config import AgentSpec
from acphost.tui import AcpApp
from acphost.tui._dialogs import CrashScreen, PickerScreen
from acphost.tui._elicit import FormScreen
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._keys import KeysScreen
from acphost.tui._lifecycle import AgentLifecycle
from acphost.tui._model import SandboxInfo
from acphost.tui._past import PastSessionScreen
from acphost.tui._permission import PermissionScreen
from acphost.tui._subagent_screen import SubagentScreen
from acphost.tui._subagents import SubagentCard

from .conftest import SIZE, demo_spec, ready, screen_text, send, wait_for
from .recorded import fill_store, scripted_sessions

SNAPSHOTS = Path(__file__).parent / "snapshots"
README_SCREENSHOT = Path(__file__).parents[2] / "docs" / "tui.svg"
WIDE = (120, 35)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """The workspace shows as ``~/ws`` whatever the test's directory."""
    monkeypatch.setenv("HOME", str(tmp_path))


#: What the screens show of the sandbox, whatever this machine's kernel offers.
PINNED_SANDBOX = SandboxInfo(
    mechanism="landlock",
    abi=7,
    write=("~/ws", "~/.local/state/acphost/demo", "private temp ($TMPDIR)"),
    deny=("~/.ssh", "~/.local/state/acphost"),
)


@pytest.fixture(autouse=True)
def pinned_sandbox(monkeypatch):
    """The sandbox shows the same on every machine (the agent runs in the real one)."""

    def show(app, run) -> None:
        app.sandbox = PINNED_SANDBOX

    monkeypatch.setattr(AgentLifecycle, "_show_sandbox", show)


UPDATE_WITH = "pytest tests/tui/test_snapshots.py --snapshot-update (or ACPHOST_UPDATE_SNAPSHOTS=1)"
_updating: list[bool] = [False]


@pytest.fixture(autouse=True)
def updating(pytestconfig):
    """Whether this run writes the snapshots instead of comparing them."""
    _updating[0] = bool(
        os.environ.get("ACPHOST_UPDATE_SNAPSHOTS") or pytestconfig.getoption("snapshot_update")
    )
    return _updating[0]


def _stable_svg(svg: str) -> str:
    # Rich derives CSS class names from a hash of the whole render: keep them,
    # they are deterministic, but drop the terminal title (the app title).
    return re.sub(r"<title>.*?</title>", "", svg)


def check(app, name: str) -> None:
    text = screen_text(app)
    svg = _stable_svg(app.export_screenshot(title="acphost tui"))
    text_file = SNAPSHOTS / f"{name}.txt"
    svg_file = SNAPSHOTS / f"{name}.svg"
    if _updating[0]:
        SNAPSHOTS.mkdir(exist_ok=True)
        text_file.write_text(text)
        svg_file.write_text(svg)
        return
    for file in (text_file, svg_file):
        if not file.exists():
            pytest.fail(
                f"{name}: no snapshot {file.relative_to(SNAPSHOTS.parent)}; write it with "
                f"{UPDATE_WITH}, look at it, and commit it",
                pytrace=False,
            )
    assert text == text_file.read_text(), f"{name}: the screen changed ({UPDATE_WITH})"
    assert svg == svg_file.read_text(), f"{name}: the colours changed ({UPDATE_WITH})"


async def _settle(pilot) -> None:
    """Wait until the screen stops changing: streaming, layout and scrolling done."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    last, same = None, 0
    while same < 6:  # six unchanged frames: streaming, layout and scrolling done
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.05)
        text = screen_text(pilot.app)
        same = same + 1 if text == last else 0
        last = text
        if loop.time() > end:
            raise AssertionError("the screen did not settle within 10 s")


async def test_snapshot_start(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _settle(pilot)
        check(app, "start")


async def test_snapshot_start_with_an_agent_to_pick(tmp_path, workspace):
    demo = replace(demo_spec(tmp_path), description="acphost's scripted demo agent")
    other = AgentSpec(name="claude", command="claude-code-acp", description="Claude Code")
    app = AcpApp(demo, str(workspace), choices=[demo, other])
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        check(app, "start_picker")


async def test_snapshot_tour(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "tour")
        await _settle(pilot)
        check(app, "tour")


async def test_snapshot_tour_wide_is_the_readme_screenshot(make_app, updating):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "tour")
        await _settle(pilot)
        check(app, "tour_120x35")
    snapshot = (SNAPSHOTS / "tour_120x35.svg").read_text()
    if updating:
        README_SCREENSHOT.write_text(snapshot)
    assert README_SCREENSHOT.read_text() == snapshot, "docs/tui.svg is stale"


async def test_snapshot_keys(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, KeysScreen))
        await _settle(pilot)
        check(app, "keys")


async def test_snapshot_subagent_card_unfolded(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "subagent find it")
        card = app.active_view.transcript.query_one(SubagentCard)
        await wait_for(pilot, lambda: card.collapsed)  # folded once its child is idle
        title = card.query_one(CollapsibleTitle)
        title.focus()
        await wait_for(pilot, lambda: app.focused is title)
        await pilot.press("enter")
        await _settle(pilot)
        check(app, "subagent_card")


async def test_snapshot_subagent_in_full(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "subagent find it")
        card = app.active_view.transcript.query_one(SubagentCard)
        await wait_for(pilot, lambda: card.collapsed)
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        await _settle(pilot)
        check(app, "subagent_screen")


async def test_snapshot_elicitation_form(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "elicit", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
        await wait_for(pilot, lambda: app.screen.armed and app.focused is not None)
        app.focused.cursor_blink = False
        await _settle(pilot)
        check(app, "elicitation_form")
        await pilot.press("escape")


async def test_snapshot_permission_dialog(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "diff")
        await send(pilot, "permission", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await _settle(pilot)
        check(app, "permission")
        await pilot.press("r")


async def test_snapshot_mode_picker(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await _settle(pilot)
        check(app, "mode_picker")


async def test_snapshot_crash(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "crash", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        await _settle(pilot)
        check(app, "crash")


async def test_snapshot_no_color(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "plan")
        await _settle(pilot)
        check(app, "no_color_plan")


@pytest.fixture
def utc(monkeypatch):
    """Recorded times show the same wherever the test runs."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def _history_app(scripted, history_store, workspace):
    fill_store(history_store, str(workspace))
    return scripted(
        {
            "capabilities": {"loadSession": True, "sessionCapabilities": {"list": {}}},
            "agentInfo": {"name": "scripted", "version": "1.0"},
            "sessions": scripted_sessions(str(workspace)),
        }
    )


@pytest.mark.parametrize(
    ("typed", "name"), [("", "history_list"), ("parser", "history_list_filtered")]
)
async def test_snapshot_history_list(scripted, history_store, workspace, utc, typed, name):
    app = await _history_app(scripted, history_store, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        app.screen.query_one("#history-filter").cursor_blink = False
        await pilot.press(*typed)
        await _settle(pilot)
        check(app, name)


async def test_snapshot_past_session(scripted, history_store, workspace, utc):
    app = await _history_app(scripted, history_store, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"flaky", "enter")  # this workspace's conversation comes first
        await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
        await _settle(pilot)
        check(app, "past_session")


def test_a_missing_snapshot_fails_and_says_how_to_write_it(monkeypatch, tmp_path):
    """A screen with no snapshot yet is a failure, never a skip that CI would pass."""
    monkeypatch.setattr(f"{__name__}.SNAPSHOTS", tmp_path / "snapshots")
    monkeypatch.setattr(f"{__name__}._updating", [False])

    class Screen:
        def export_screenshot(self, title):
            return "<svg/>"

    monkeypatch.setattr(f"{__name__}.screen_text", lambda app: "text")
    with pytest.raises(pytest.fail.Exception, match="--snapshot-update") as failed:
        check(Screen(), "never_written")
    assert "never_written.txt" in str(failed.value)
    assert not (tmp_path / "snapshots").exists()  # nothing written behind the failure


async def test_snapshot_queue(make_app):
    """Prompts sent while a turn runs wait under the transcript, one inert line each."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        view = app.active_view
        await send(pilot, "wait 3600", wait=False)
        await wait_for(pilot, lambda: view.busy)
        await send(pilot, "echo [bold]not bold[/] in @README.md, \x1b[31mred?", wait=False)
        await send(pilot, "echo second\nline two", wait=False)
        await wait_for(pilot, lambda: len(view.queue) == 2)
        await _settle(pilot)
        check(app, "queue")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not view.busy)
