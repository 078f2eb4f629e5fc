"""Shared fixtures: every frame any in-process client sends is schema-validated."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from acphost.rpc import _core
from tests.support.frames import FrameChecker

DEMO = [sys.executable, "-m", "acphost.agents.demo"]
TESTS = Path(__file__).parent


@pytest.fixture(autouse=True)
def validate_client_frames(monkeypatch, request):
    """Wrap every RpcCore's tap with a schema check of what the client sends.

    Fake agents in tests therefore never use RpcCore: they speak raw JSON.
    """
    checkers: list[FrameChecker] = []
    # Unit tests of the JSON-RPC core send frames in no protocol order on purpose.
    ignore = frozenset({"initialize-first"}) if request.node.get_closest_marker("unordered_frames") else frozenset()
    original = _core.RpcCore.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        checker = FrameChecker(ignore)
        checkers.append(checker)
        inner = self.tap

        def tap(direction, line):
            checker(direction, line)
            if inner is not None:
                inner(direction, line)

        self.tap = tap

    monkeypatch.setattr(_core.RpcCore, "__init__", init)
    yield checkers
    errors = [e for c in checkers for e in c.errors]
    assert not errors, "client frames that break the schema:\n" + "\n".join(errors)


@pytest.fixture(autouse=True)
def isolated_state_home(monkeypatch, tmp_path_factory):
    """Keep the demo agent's sessions (saved in the XDG state home by default) per test."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state-home")))


@pytest.fixture
def demo_argv():
    return list(DEMO)


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return Path(os.path.realpath(ws))
