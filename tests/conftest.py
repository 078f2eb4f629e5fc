"""Shared fixtures: every frame any in-process client sends is schema-validated."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from acphost.rpc import tap_all_cores
from tests.support.frames import FrameChecker

DEMO = [sys.executable, "-m", "acphost.agents.demo"]
TESTS = Path(__file__).parent


def pytest_addoption(parser):
    parser.addoption(
        "--snapshot-update",
        action="store_true",
        help="write the TUI's snapshots (tests/tui/snapshots) instead of comparing them",
    )


@pytest.fixture(autouse=True)
def validate_client_frames(request):
    """Check every frame any in-process RpcCore sends against the schema.

    Each core gets a FrameChecker tap through the public ``tap_all_cores``
    hook: taps run on the same batched path as everything else, so the tests
    exercise the code production runs. The checker follows both directions
    (a response is checked against the request it answers) and keeps only
    what the client broke. Fake agents in tests therefore never use RpcCore:
    they speak raw JSON.
    """
    checkers: list[FrameChecker] = []
    # Unit tests of the JSON-RPC core send frames in no protocol order on purpose.
    unordered = request.node.get_closest_marker("unordered_frames") is not None
    ignore = frozenset({"initialize-first"}) if unordered else frozenset()

    def attach():
        checker = FrameChecker(ignore)
        checkers.append(checker)
        return checker

    with tap_all_cores(attach):
        yield checkers
    errors = [e for c in checkers for e in c.errors]
    assert not errors, "client frames that break the schema:\n" + "\n".join(errors)


#: What describes the runner's terminal and locale; a test that needs a terminal
#: sets the one it means (``TERM=xterm-256color`` for a capable one, a pty's size).
_RUNNER_TERMINAL = (
    "COLUMNS",
    "LINES",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
)


@pytest.fixture(autouse=True)
def bare_user(monkeypatch, tmp_path_factory):
    """Each test starts as a new user on an unknown terminal, whoever runs the suite.

    HOME and the XDG folders are the test's own, empty (the demo agent saves
    its sessions in the state home, the command line its history in the data
    home, settings and trust live in the config home): a developer's
    ``~/.config/acphost/settings.json`` or trust store never picks the agent a
    test talks to. No ``ACPHOST_*`` variable of the runner's shell reaches a
    test. The terminal is ``TERM=dumb`` with no size, colour or locale
    settings, as in CI (``.ci/run``), so a test that depends on the runner's
    terminal fails on every machine, not only on some.
    """
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_DATA_HOME", ".local/share"),
    ):
        (home / sub).mkdir(parents=True)
        monkeypatch.setenv(var, str(home / sub))
    for name in [n for n in os.environ if n.startswith("ACPHOST_")]:
        monkeypatch.delenv(name)
    for name in _RUNNER_TERMINAL:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "dumb")


@pytest.fixture
def demo_argv():
    return list(DEMO)


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return Path(os.path.realpath(ws))
