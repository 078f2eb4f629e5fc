"""Fixtures for the interop suite: the pinned agents, the fake model, isolation.

The agents are installed once per session (``install.ensure``). When node, npm
or the npm registry is unavailable every test that needs an agent is skipped
with that reason: an explicit skip, never a silent pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.interop import install
from tests.interop.agents import AGENTS, Agent
from tests.interop.fake_model import FakeModel


@pytest.fixture(scope="session")
def agents_root() -> Path:
    """The install root of the pinned agents (installing them on first use)."""
    try:
        return install.ensure()
    except install.Unavailable as exc:
        pytest.skip(f"interop agents unavailable: {exc}")


@pytest.fixture(params=sorted(AGENTS))
def agent(request) -> Agent:
    return AGENTS[request.param]


@pytest.fixture
def model():
    # The server is also every agent's proxy: anything not for 127.0.0.1 is
    # refused there and recorded in fake.blocked() (Claude Code still tries a
    # CONNECT to api.anthropic.com:443, its metrics opt-out check).
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def home(tmp_path, agent) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    agent.prepare_home(h)
    return h


@pytest.fixture
def ws(tmp_path) -> Path:
    w = tmp_path / "ws"
    w.mkdir()
    (w / "notes.txt").write_text("line one\nline two\n")
    return Path(os.path.realpath(w))


@pytest.fixture
def outside(tmp_path) -> Path:
    o = tmp_path / "outside"
    o.mkdir()
    (o / "keep.txt").write_text("untouched\n")
    return Path(os.path.realpath(o))


def na(agent: Agent, feature: str) -> None:
    """Skip with the agent's precise reason when it has no such feature."""
    reason = agent.na.get(feature)
    if reason is not None:
        pytest.skip(f"not applicable: {reason}")
