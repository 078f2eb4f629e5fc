"""Fixtures for the TUI tests: the app against the real demo agent, headless."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from acphost.config import AgentSpec
from acphost.tui import AcpApp

SIZE = (80, 24)


def demo_spec(tmp_path: Path, **env: str) -> AgentSpec:
    return AgentSpec(
        name="demo",
        command=sys.executable,
        args=("-m", "acphost.agents.demo"),
        env={
            "ACPHOST_DEMO_STEP": "0",
            "ACPHOST_DEMO_SEED": "tui-tests",
            "ACPHOST_DEMO_STATE_DIR": str(tmp_path / "state"),
            **env,
        },
        source="built-in",
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "hello.py").write_text('print("hello")\n')
    (ws / "README.md").write_text("# demo\n\nTODO: one\n")
    (ws / "src" / "helpers.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "state").mkdir()
    return ws


@pytest.fixture
def make_app(tmp_path: Path, workspace: Path) -> Callable[..., AcpApp]:
    def make(**env: str) -> AcpApp:
        return AcpApp(demo_spec(tmp_path, **env), str(workspace))

    return make


async def wait_for(pilot, predicate: Callable[[], object], timeout: float = 10.0) -> None:
    """Pause the pilot until ``predicate()`` is true."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {predicate}")
        await pilot.pause(0.02)


async def ready(pilot) -> None:
    """Wait until the app is connected with a session; stop the cursor blinking."""
    app = pilot.app
    await wait_for(pilot, lambda: app.active_view is not None)
    from acphost.tui._composer import PromptArea

    app.query_one(PromptArea).cursor_blink = False
    await pilot.pause()


async def send(pilot, text: str, *, wait: bool = True) -> None:
    """Type a prompt and press Enter; wait for the turn to end unless told not to."""
    from acphost.tui._composer import PromptArea

    app = pilot.app
    area = app.query_one(PromptArea)
    area.focus()
    area.load_text(text)
    area.move_cursor(area.document.end)
    area.close_completions()
    view = app.active_view
    before = view.stop_reason
    view.stop_reason = ""
    await pilot.press("enter")
    if wait:
        await wait_for(pilot, lambda: view.stop_reason and not view.busy)
        await view.transcript.settled()
        await pilot.pause()
    else:
        view.stop_reason = before


def screen_text(app) -> str:
    """The screen as plain text (for readable snapshots and asserts)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(
            full=True, screen_stack=app._background_screens, simplify=True
        )
    )
    return console.export_text()


def transcript_source(app) -> str:
    """The Markdown source of every message in the active transcript."""
    return "\n".join(md.source for md in app.active_view.transcript.streams())
