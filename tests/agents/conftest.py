"""Fixtures for the demo agent's wire tests: agents on real pipes, frames validated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _raw_client import RawClient
from _raw_v2 import RawV2Client


@pytest.fixture
def state_home(tmp_path: Path) -> Path:
    """The XDG state home of the agents a test starts: where sessions persist by default."""
    return tmp_path / "state-home"


@pytest.fixture
def make_client(state_home: Path) -> Iterator[Any]:
    clients: list[RawClient] = []

    def make(**env: str) -> RawClient:
        client = RawClient({"XDG_STATE_HOME": str(state_home), **env})
        clients.append(client)
        return client

    yield make
    for client in clients:
        if client.proc.poll() is None:
            client.close()
    for client in clients:
        # Every frame the agent sent validates, except the deliberate unknown variant
        # and the frames a test marked as off-schema on purpose.
        invalid = [
            (frame, errors)
            for frame, errors in client.invalid
            if frame.get("params", {}).get("update", {}).get("sessionUpdate") != "future_variant"
            and frame not in client.expected_invalid
        ]
        assert not invalid, invalid


@pytest.fixture
def client(make_client: Any) -> RawClient:
    c: RawClient = make_client()
    c.initialize()
    return c


@pytest.fixture
def make_v2(state_home: Path) -> Iterator[Any]:
    """Start demo agents spoken to over ACP v2; every frame they send must be valid v2."""
    clients: list[RawV2Client] = []

    def make(command: list[str] | None = None, **env: str) -> RawV2Client:
        client = RawV2Client({"XDG_STATE_HOME": str(state_home), **env}, command)
        clients.append(client)
        return client

    yield make
    for client in clients:
        if client.proc.poll() is None:
            client.close()
    for client in clients:
        invalid = [pair for pair in client.invalid if pair[0] not in client.expected_invalid]
        assert not invalid, invalid


@pytest.fixture
def v2(make_v2: Any) -> RawV2Client:
    c: RawV2Client = make_v2()
    c.initialize()
    return c
