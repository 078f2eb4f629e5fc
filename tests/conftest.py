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


@pytest.fixture(autouse=True)
def isolated_state_home(monkeypatch, tmp_path_factory):
    """Keep the demo agent's sessions (saved in the XDG state home by default) and
    the history the command line records (in the XDG data home) per test."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state-home")))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))


@pytest.fixture
def demo_argv():
    return list(DEMO)


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return Path(os.path.realpath(ws))
