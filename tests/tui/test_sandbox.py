"""The TUI's OS sandbox: ``--sandbox`` / ``--no-sandbox`` reach the run, and the screen says how.

Through the parser, the app and the real demo agent: the flags go from
``acphost tui``'s parser to the run the app opens, for the named agent and
for one picked on the start screen; the status line and the start screen say
whether the agent is confined and how (mechanism, ABI, writable roots,
denied paths), or that it runs unconfined and why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acphost.cli._main import tui_parser
from acphost.cli._parser import command_line
from acphost.host import sandbox_support
from acphost.tui import AcpApp, tui_app
from acphost.tui._dialogs import CrashScreen
from acphost.tui._model import ConnectionState, SandboxInfo, StatusInfo, fit_parts
from acphost.tui._status import StatusBar

from .conftest import SIZE, demo_spec, ready, screen_text, wait_for

ABI, WHY = sandbox_support()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
WIDE = (120, 30)  # the start screen's rows unwrapped


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """An empty home of the test's own (the workspace shows as ``~/ws``), the demo fast."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    monkeypatch.setenv("ACPHOST_DEMO_SEED", "tui-tests")
    return tmp_path


def app_for(*argv: str):
    """The app ``acphost tui ARGV`` runs (parsed by the TUI's own parser)."""
    return tui_app(tui_parser().parse_args(list(argv)))


def status_line(app) -> str:
    return app.query_one(StatusBar).render().plain


def no_new_privs(pid: int) -> str:
    """The agent's ``NoNewPrivs`` (the sandbox sets it before the Landlock ruleset)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("NoNewPrivs:"):
            return line.split(":", 1)[1].strip()
    return ""


# -- the parser ------------------------------------------------------------------------


def test_the_tui_parser_takes_the_sandbox_flags_and_served_pages_keep_them():
    parser = tui_parser()
    assert parser.parse_args([]).sandbox is None
    assert parser.parse_args(["--sandbox"]).sandbox is True
    assert parser.parse_args(["--no-sandbox"]).sandbox is False
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["--sandbox", "--no-sandbox"])
    assert exited.value.code == 2
    # Each served page runs `acphost tui` with the options less the serving ones.
    serving = frozenset({"serve", "host", "port"})
    for flag in ("--sandbox", "--no-sandbox"):
        args = parser.parse_args(["--serve", flag, "--port", "9000"])
        assert command_line(parser, args, serving) == [flag]


def test_sandbox_asked_for_where_it_cannot_be_had_is_one_line_and_exit_2(tmp_path, home):
    # No Landlock on this "system": refused before any screen, served or not.
    code = (
        "import sys\n"
        "from acphost.host import _landlock\n"
        "_landlock.abi_version = lambda: 0\n"
        "from acphost.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    (tmp_path / "ws").mkdir()
    for extra in ((), ("--serve", "--port", "1")):
        done = subprocess.run(
            [sys.executable, "-c", code, "tui", "-a", "demo", "--sandbox", *extra, "ws"],
            cwd=tmp_path,
            env={**os.environ, "TERM": "dumb"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1, done.stderr
        assert "--sandbox" in done.stderr and "Landlock" in done.stderr


# -- the screen --------------------------------------------------------------------------


@needs_landlock
async def test_the_status_and_start_screen_say_how_the_agent_is_confined(home, workspace):
    (home / ".ssh").mkdir()
    app = app_for("-a", "demo", "--cwd", str(workspace))
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        run = app._client_context
        sandbox = run.confinement
        assert sandbox is not None and run.unconfined is None
        assert no_new_privs(run.pid) == "1"
        assert f"sandbox: landlock {ABI}" in status_line(app)
        screen = screen_text(app)
        assert f"sandbox landlock (ABI {ABI}): the agent and every process it starts" in screen
        # Writable roots: the workspace first, the run's private temp folder by what it is.
        assert "writes ~/ws, " in screen and "private temp ($TMPDIR)" in screen
        assert sandbox.temp not in screen
        # Denied paths: the user's keys and acphost's own state, each on the screen.
        assert {"~/.ssh", "~/.local/state/acphost"} <= set(app.sandbox.deny)
        assert "no reads " in screen
        for denied in app.sandbox.deny:
            assert denied in screen


async def test_no_sandbox_shows_unconfined_and_why(home, workspace):
    app = app_for("-a", "demo", "--no-sandbox", "--cwd", str(workspace))
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        run = app._client_context
        assert run.confinement is None
        assert run.unconfined == "the OS sandbox is off for this run"
        assert "unconfined" in status_line(app)
        assert (
            "sandbox none: the agent runs unconfined (the OS sandbox is off for this run)"
            in screen_text(app)
        )


async def test_no_landlock_by_default_shows_unconfined_and_the_kernels_reason(
    home, workspace, monkeypatch
):
    from acphost.host import _landlock

    monkeypatch.setattr(_landlock, "abi_version", lambda: 0)
    app = app_for("-a", "demo", "--cwd", str(workspace))
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        run = app._client_context
        assert run.confinement is None and "Landlock" in run.unconfined
        assert "unconfined" in status_line(app)
        screen = screen_text(app)
        assert "sandbox none: the agent runs unconfined (this Linux kernel offers no Landlock" in (
            screen
        )


def _two_agents(home: Path) -> Path:
    state = home / "demo-state"
    state.mkdir()
    entry = {
        "command": sys.executable,
        "args": ["-m", "acphost.agents.demo"],
        "env": {"ACPHOST_DEMO_STATE_DIR": str(state)},
        "sandbox": {"write": [str(state)]},
    }
    settings = home / "two.json"
    settings.write_text(json.dumps({"agent_servers": {"first": entry, "second": entry}}))
    return settings


@pytest.mark.parametrize(
    ("flags", "confined"),
    [
        ((), True),
        (("--sandbox",), True),
        (("--no-sandbox",), False),
    ],
)
async def test_an_agent_picked_on_the_start_screen_honours_the_flag(
    home, workspace, flags, confined
):
    if confined and ABI == 0:
        pytest.skip(f"no Landlock here: {WHY}")
    settings = _two_agents(home)
    app = app_for("--settings", str(settings), *flags, "--cwd", str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-picker")
        await pilot.press("down", "enter")
        await ready(pilot)
        assert app.spec.name == "second"
        run = app._client_context
        assert (run.confinement is not None) is confined
        if confined:
            assert no_new_privs(run.pid) == "1"
            assert f"sandbox: landlock {ABI}" in status_line(app)
        else:
            assert run.unconfined == "the OS sandbox is off for this run"
            assert "unconfined" in status_line(app)


async def test_an_agent_that_insists_where_there_is_no_sandbox_is_refused_in_the_crash_dialog(
    tmp_path, workspace, monkeypatch
):
    # Its settings entry says "sandbox": true; this "system" has no Landlock.
    # The run refuses it before the spawn: the app says why, never hangs connecting.
    from acphost.host import _landlock

    monkeypatch.setattr(_landlock, "abi_version", lambda: 0)
    app = AcpApp(replace(demo_spec(tmp_path), sandbox=True), str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        assert app.screen.message.startswith("could not start 'demo': cannot run the agent in a")
        assert "Landlock" in app.screen.message
        assert app.connection is ConnectionState.CRASHED
        assert app._client_context is None and app.sandbox is None


# -- the status line's part ----------------------------------------------------------------


class _Confined:
    mechanism = "landlock"
    abi = 5
    temp = "/tmp/acphost-agent-x1"

    def __init__(self, home: str) -> None:
        self.write = (f"{home}/ws", "/srv/data", self.temp)
        self.deny = (f"{home}/.ssh", f"{home}/.local/state/acphost")

    def views(self) -> list[str]:
        return [
            "other terminals: private (a /dev/pts of its own)",
            "sockets by path: hidden in ~/.ssh",
        ]


def test_the_sandbox_is_a_detail_when_confined_and_a_warning_when_not(home):
    confined = SandboxInfo.of(_Confined(str(home)), None)  # type: ignore[arg-type]
    assert confined.short == "sandbox: landlock 5"
    assert confined.write == ("~/ws", "/srv/data", "private temp ($TMPDIR)")
    assert confined.rows() == [
        ("sandbox", "landlock (ABI 5): the agent and every process it starts"),
        ("writes", "~/ws, /srv/data, private temp ($TMPDIR)"),
        ("no reads", "~/.ssh, ~/.local/state/acphost"),
        # The private view's two lines, as -v and doctor say them.
        ("other terminals", "private (a /dev/pts of its own)"),
        ("sockets by path", "hidden in ~/.ssh"),
    ]
    info = StatusInfo(agent="demo", mode="Ask", usage="ctx 1/200k 0%", title="a title")
    info.sandbox = confined
    texts = [text for text, _ in info.parts()]
    assert texts[-2:] == ["sandbox: landlock 5", "a title"]  # after usage, before the title
    # Narrow: the detail goes first, never the agent's state.
    assert [t for t, _ in fit_parts(info.parts(), 40)] == [texts[0], "Ask", "ctx 1/200k 0%"]

    info.sandbox = SandboxInfo.of(None, "the OS sandbox is off for this run")
    texts = [text for text, _ in info.parts()]
    assert texts[1] == "unconfined"  # right after the agent: a warning
    assert ("unconfined", "unconfined") in fit_parts(info.parts(), 30)
    assert info.sandbox.rows() == [
        ("sandbox", "none: the agent runs unconfined (the OS sandbox is off for this run)")
    ]
