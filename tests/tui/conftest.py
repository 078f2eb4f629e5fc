"""Fixtures for the TUI tests: the app against the real demo agent, headless."""

from __future__ import annotations

import asyncio
import io
import json
import os
import pty
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual import events

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


@pytest.fixture(autouse=True)
def history_store(tmp_path: Path, monkeypatch) -> Path:
    """Each test's sessions are recorded in a history store of its own (as users' are)."""
    path = tmp_path / "history" / "history.sqlite3"
    monkeypatch.setenv("ACPHOST_HISTORY", str(path))
    monkeypatch.delenv("ACPHOST_NO_HISTORY", raising=False)
    return path


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


@pytest.fixture
def scripted(tmp_path: Path, workspace: Path) -> Callable[..., AcpApp]:
    """An app against ``scripted_agent.py`` running ``script``; ``app.agent_log()`` reads
    the frames the agent received."""

    def make(script: dict, **kwargs) -> AcpApp:
        n = len(list(tmp_path.glob("script-*.json")))
        path = tmp_path / f"script-{n}.json"
        path.write_text(json.dumps(script))
        log = tmp_path / f"agent-{n}.jsonl"
        spec = AgentSpec(
            name="scripted",
            command=sys.executable,
            args=(str(Path(__file__).parent / "scripted_agent.py"),),
            env={"SCRIPTED_AGENT_SCRIPT": str(path), "SCRIPTED_AGENT_LOG": str(log)},
            source="tests",
            sandbox_write=(str(tmp_path),),  # its log of the frames it received
        )
        app = AcpApp(spec, str(workspace), **kwargs)
        app.agent_log = lambda: (
            [  # type: ignore[attr-defined]
                json.loads(line) for line in log.read_text().splitlines()
            ]
            if log.exists()
            else []
        )
        return app

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
    """Wait until the app is connected with a session; stop the cursor blinking.

    An agent may take many seconds to start on a loaded machine (the interop
    agents are large node programs): the test's own timeout is the bound.
    """
    app = pilot.app
    await wait_for(pilot, lambda: app.active_view is not None, timeout=120)
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


def sent_methods(app) -> list[str]:
    """The methods of the requests and notifications the app sent, in order (protocol log)."""
    return [
        r.method for r in app.protocol.records if r.direction == "send" and r.kind != "response"
    ]


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
    """The Markdown source of every message (prompts included) in the active transcript."""
    return "\n".join(app.active_view.transcript.sources())


async def answer(pilot, *keys: str) -> None:
    """Press keys at the dialog on screen once its guard has passed (it ignores earlier keys)."""
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.armed)
    await pilot.press(*keys)


def key_event(key: str, at: float) -> events.Key:
    """The key event a terminal read of ``key`` at time ``at`` makes (``a``, ``enter``...)."""
    chars = {"enter": "\r", "escape": "\x1b", "space": " ", "tab": "\t"}
    event = events.Key(key, chars.get(key, key if len(key) == 1 else None))
    event.time = at
    return event


def typed(text: str, start: float, every: float = 0.1) -> list[events.Key]:
    """Key events for ``text`` typed steadily, one key every ``every`` seconds."""
    names = {"\r": "enter", " ": "space"}
    return [key_event(names.get(char, char), start + i * every) for i, char in enumerate(text)]


async def post(pilot, keys: list[events.Key]) -> None:
    """Post key events as the driver posts the keys it read, then let the app handle them."""
    for event in keys:
        pilot.app.post_message(event)
    await pilot.pause()


async def burst(pilot, *keys: str) -> None:
    """Keys typed in one quick burst at the dialog on screen, once its guard has passed.

    A terminal stamps each key with the time it was read, so a fast
    typist's keys all carry nearly the same time however late the app
    handles them. ``pilot.press`` stamps each key only once the previous one
    was handled, which on a loaded machine spreads them over seconds; a test
    about keys typed together posts them as the terminal would.
    """
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.armed)
    now = time.monotonic()
    await post(pilot, [key_event(key, now) for key in keys])


def run_on_pty(
    workspace, keys: bytes, *args: str, env: dict[str, str] | None = None, shown: bytes = b""
) -> int:
    """Run ``acphost tui`` on a real pty, send ``keys`` once it shows, return its exit status.

    ``shown``: wait for this too before sending the keys (the first tab's label...).
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command line on a real terminal
        os.environ.update(TERM="xterm-256color", COLUMNS="100", LINES="30", **(env or {}))
        os.execv(sys.executable, [sys.executable, "-m", "acphost", "tui", str(workspace), *args])
    seen = b""
    reaped = False
    try:
        deadline = 30.0
        loop_end = _now() + deadline
        while b"connected" not in seen or shown not in seen:  # the start screen: agent up
            if _now() > loop_end:
                raise AssertionError(f"the TUI did not start: {seen[-500:]!r}")
            seen += _read(fd)
        os.write(fd, keys)
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                reaped = True
                return os.waitstatus_to_exitcode(status)
            if _now() > loop_end:
                raise AssertionError("the TUI did not quit")
            _read(fd)
    finally:
        if not reaped:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


def _now() -> float:
    return time.monotonic()


def _read(fd: int) -> bytes:
    ready_fds, _, _ = select.select([fd], [], [], 0.05)
    if not ready_fds:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""
