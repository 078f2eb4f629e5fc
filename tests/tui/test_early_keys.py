"""Keys pressed before the first session opens: the app says it is still
connecting, never that the agent has no modes or options (they come with the session)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from acphost.tui import AcpApp
from acphost.tui._dialogs import PickerScreen
from acphost.tui._model import ConnectionState

from .conftest import SIZE, demo_spec, wait_for

# The demo agent, once a line can be read from the FIFO named in its
# environment: the test holds the connection there, with no clock involved.
_GATED = (
    "import os, runpy;"
    "open(os.environ['GATE']).readline();"
    "runpy.run_module('acphost.agents.demo', run_name='__main__')"
)


def _release(gate) -> bool:
    """Let the gated agent go on; False while it has not opened the FIFO yet."""
    try:
        fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO until a reader is there
    except OSError:
        return False
    os.write(fd, b"go\n")
    os.close(fd)
    return True


def _said(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_f2_and_f3_while_connecting_say_so_then_open_the_pickers(tmp_path, workspace):
    """F2 right after start said "this agent offers no modes" while the status
    bar showed the mode a moment later: the session was not open yet."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    spec = demo_spec(tmp_path, GATE=str(gate))
    spec = replace(spec, command=sys.executable, args=("-c", _GATED))
    app = AcpApp(spec, str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connection is ConnectionState.CONNECTING)
        await pilot.press("f2")
        await wait_for(pilot, lambda: _said(app))
        await pilot.press("f3")
        await wait_for(pilot, lambda: len(_said(app)) == 2)
        assert _said(app) == ["still connecting: no session is open yet"] * 2
        assert not isinstance(app.screen, PickerScreen)
        await wait_for(pilot, lambda: _release(gate))  # the agent starts now
        await wait_for(pilot, lambda: app.active_view is not None, timeout=20)
        await wait_for(pilot, lambda: app.status_info.mode)  # the status bar shows the mode...
        await pilot.press("f2")  # ...and F2 offers it
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert not any("offers no" in m for m in _said(app))
