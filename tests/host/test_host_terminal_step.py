"""A terminal whose step between fork and exec fails never runs (acphost._child)."""

from __future__ import annotations

import sys

import pytest

from acphost import _child
from acphost.errors import InternalError
from acphost.host import TerminalManager

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)


async def test_a_failing_step_runs_no_command(monkeypatch, workspace, ws_dir):
    monkeypatch.setattr(_child, "_prctl", lambda: lambda *args: -1)
    manager = TerminalManager(kill_grace=0.5)
    try:
        with pytest.raises(InternalError, match="could not be tied to the host's life"):
            await manager.create("s", workspace, "touch ran")
    finally:
        await manager.close()
    assert not (ws_dir / "ran").exists()
