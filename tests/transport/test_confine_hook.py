"""The spawn's confine hook: it runs in the child before the program; failing, nothing runs."""

from __future__ import annotations

import sys

import pytest

from acphost.errors import AgentStartError
from acphost.transport import StdioTransport


def _refuse() -> None:
    raise OSError("no sandbox for you")


async def test_a_failing_confine_hook_means_no_agent_never_an_unconfined_one(tmp_path):
    marker = tmp_path / "ran"
    argv = [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    with pytest.raises(AgentStartError, match="in its sandbox"):
        await StdioTransport.spawn(argv, confine=_refuse)
    assert not marker.exists()


async def test_the_hook_runs_in_the_child_before_the_program(tmp_path):
    import os

    marker = tmp_path / "hook"

    def hook() -> None:
        # In the child: the parent's process is not the one running this.
        os.close(os.open(marker, os.O_CREAT | os.O_WRONLY, 0o600))

    code = f"import os,sys; sys.exit(0 if os.path.exists({str(marker)!r}) else 3)"
    transport = await StdioTransport.spawn([sys.executable, "-c", code], confine=hook)
    info = await transport.exit_info(30)
    await transport.close()
    assert info.returncode == 0
