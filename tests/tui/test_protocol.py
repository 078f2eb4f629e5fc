"""The TUI's protocol choice: ``--protocol`` and ``--mcp-tools`` reach the run; the screen says it.

Through the parser, the app and the real demo agent: the choice goes from
``acphost tui``'s parser (or the settings) to the run the app opens, for the
named agent and for one picked on the start screen; the start screen says
the version agreed and what was asked, the status line says it when it is
not the default (protocol 1, asked and agreed), and the history records it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acphost.cli._main import tui_parser
from acphost.cli._parser import command_line
from acphost.history import HistoryStore
from acphost.tui import tui_app
from acphost.tui._dialogs import CrashScreen
from acphost.tui._model import ConnectionState, ProtocolInfo, StartInfo, StatusInfo
from acphost.tui._start import start_text
from acphost.tui._status import StatusBar

from .conftest import SIZE, ready, screen_text, wait_for

WIDE = (120, 30)


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """An empty home of the test's own, the demo fast, no settings from outside."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    return tmp_path


def app_for(*argv: str):
    """The app ``acphost tui ARGV`` runs (parsed by the TUI's own parser)."""
    return tui_app(tui_parser().parse_args(list(argv)))


def status_line(app) -> str:
    return app.query_one(StatusBar).render().plain


def test_the_tui_parser_takes_the_protocol_flags_and_served_pages_keep_them():
    parser = tui_parser()
    args = parser.parse_args([])
    assert (args.protocol, args.mcp_tools) == (None, None)
    assert parser.parse_args(["--protocol", "auto"]).protocol == "auto"
    assert parser.parse_args(["--protocol", "2", "--mcp-tools"]).mcp_tools is True
    serving = frozenset({"serve", "host", "port"})
    for flags in (["--protocol=2"], ["--protocol=auto", "--mcp-tools"], ["--no-mcp-tools"]):
        args = parser.parse_args(["--serve", *flags, "--port", "9000"])
        assert command_line(parser, args, serving) == flags
        assert parser.parse_args(command_line(parser, args, serving)) == parser.parse_args(flags)


async def test_protocol_1_is_asked_agreed_shown_on_the_start_screen_and_recorded(
    home, workspace, history_store
):
    app = app_for("-a", "demo", "--protocol", "1", "--no-sandbox", "--cwd", str(workspace))
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        run = app._client_context
        assert run.options.protocol == 1 and run.options.mcp_tools is False
        assert app.agreed == ProtocolInfo(1, 1)
        assert "state ● connected · no login needed · protocol 1 (asked: 1)" in screen_text(app)
        # The default is not news: the status line leaves it out.
        assert "ACP" not in status_line(app)
        session_id = app.active_view.session.id
    with HistoryStore.open(str(history_store)) as store:
        (summary,) = store.list_sessions()
        record = store.get(summary.id)
    assert (record.agent_session_id, record.protocol) == (session_id, 1)


async def test_the_settings_protocol_2_is_agreed_shown_and_recorded(home, workspace, history_store):
    # Asked for 2 by the settings' top level: agreed, on the start screen and
    # (not the default) on the status line, and in the history.
    settings = home / "s.json"
    settings.write_text(json.dumps({"protocol": 2, "agent_servers": {}}))
    app = app_for(
        "-a", "demo", "--settings", str(settings), "--no-sandbox", "--cwd", str(workspace)
    )
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        assert app.spec.protocol == 2 and app._client_context.options.protocol == 2
        assert app.agreed == ProtocolInfo(2, 2)
        assert "protocol 2 (asked: 2)" in screen_text(app)
        assert "ACP 2" in status_line(app)
    with HistoryStore.open(str(history_store)) as store:
        (summary,) = store.list_sessions()
        assert store.get(summary.id).protocol == 2


async def test_auto_against_a_v1_only_agent_says_it_fell_back(home, workspace):
    entry = {
        "command": sys.executable,
        "args": ["-m", "acphost.agents.demo"],
        "env": {"ACPHOST_DEMO_PROTOCOL": "1"},
    }
    settings = home / "v1.json"
    settings.write_text(json.dumps({"agent_servers": {"old": entry}}))
    app = app_for(
        "-a",
        "old",
        "--settings",
        str(settings),
        "--protocol",
        "auto",
        "--no-sandbox",
        "--cwd",
        str(workspace),
    )
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        assert app.agreed == ProtocolInfo(1, "auto")
        assert "protocol 1 (asked: auto)" in screen_text(app)
        assert "ACP 1 (asked auto)" in status_line(app)
        assert not isinstance(app.screen, CrashScreen)


async def test_an_agent_picked_on_the_start_screen_asks_for_the_flags_protocol(home, workspace):
    entry = {"command": sys.executable, "args": ["-m", "acphost.agents.demo"], "protocol": 2}
    settings = home / "two.json"
    settings.write_text(json.dumps({"agent_servers": {"first": entry, "second": entry}}))
    app = app_for(
        "--settings", str(settings), "--protocol", "1", "--no-sandbox", "--cwd", str(workspace)
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-picker")
        await pilot.press("down", "enter")
        await ready(pilot)
        assert app.spec.name == "second"
        assert app._client_context.options.protocol == 1  # the flag wins over its entry
        assert app.agreed == ProtocolInfo(1, 1)


def test_the_status_line_says_the_protocol_unless_it_is_the_default():
    info = StatusInfo(agent="demo", mode="Ask", title="a title")
    info.connection = ConnectionState.CONNECTED
    info.protocol = ProtocolInfo(1, 1)
    assert [t for t, _ in info.parts()] == ["● demo", "Ask", "a title"]
    for agreed, asked, short in (
        (2, 2, "ACP 2"),
        (2, "auto", "ACP 2"),
        (1, "auto", "ACP 1 (asked auto)"),
    ):
        info.protocol = ProtocolInfo(agreed, asked)
        assert [t for t, _ in info.parts()] == ["● demo", "Ask", short, "a title"]


def test_the_start_screen_says_the_version_agreed_and_what_was_asked():
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None)
    console.print(start_text(StartInfo(agent="demo", protocol=ProtocolInfo(2, "auto"))))
    assert "protocol 2 (asked: auto)" in console.export_text()
    console.print(start_text(StartInfo(agent="demo")))
    assert console.export_text().count("protocol") == 0  # not connected: nothing agreed yet
