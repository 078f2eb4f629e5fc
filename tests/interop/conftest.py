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
from tests.interop.agents import AGENTS, MARK, Agent
from tests.interop.fake_model import FakeModel
from tests.support.waiting import eventually_sync


@pytest.fixture(scope="session")
def npm_root() -> Path:
    """The install root of the pinned npm agents (installing them on first use)."""
    try:
        return install.ensure()
    except install.Unavailable as exc:
        pytest.skip(f"interop agents unavailable: {exc}")


@pytest.fixture(scope="session")
def pypi_roots() -> dict[str, Path | str]:
    """Each Python agent's virtual environment, or why it is unavailable (installed once)."""
    out: dict[str, Path | str] = {}
    for name in install.pypi_agents():
        try:
            out[name] = install.ensure_pypi(name)
        except install.Unavailable as exc:
            out[name] = str(exc)
    return out


@pytest.fixture
def agents_root(request, agent) -> Path:
    """Where this agent is installed: the npm root, or its own virtual environment."""
    if not agent.pypi:
        return request.getfixturevalue("npm_root")
    root = request.getfixturevalue("pypi_roots")[agent.name]
    if isinstance(root, str):
        pytest.skip(f"interop agent {agent.name} unavailable: {root}")
    return root


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
def home(tmp_path, agent, model) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    agent.prepare_home(h, model)
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


def known_defect(request, agent: Agent, feature: str) -> None:
    """Mark the test a strict xfail when the agent shows a known defect of acphost there.

    Strict: the day acphost is fixed the test passes, the xfail fails, and the
    mark must go.
    """
    reason = agent.defects.get(feature)
    if reason is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def survivors(home: Path) -> list[str]:
    """Live processes started for the agent whose ``HOME`` is ``home`` (by its marker).

    Every process the agent starts inherits ``ACPHOST_INTEROP_RUN``; a zombie
    or a process we may not read has no readable environment and is not counted.
    """
    needle = f"{MARK}={home}".encode() + b"\0"
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if needle in environ:
            command = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{pid}: {command[:200]}")
    return found


def assert_no_survivors(home: Path) -> None:
    """No process of the agent's run is left once acphost is done with it.

    Polled with a deadline: the kernel reaps a killed group's members shortly
    after acphost returns.
    """
    if not os.path.isdir("/proc"):
        return
    try:
        eventually_sync(lambda: not survivors(home), timeout=10, what="the agent's processes exit")
    except AssertionError:
        raise AssertionError(f"processes outlived the run: {survivors(home)}") from None
