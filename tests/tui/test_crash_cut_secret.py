"""The TUI's crash screen shows no piece of a long credential the agent printed on one stderr line.

The transport cuts such a line at 4 KiB before anything redacts it; the
crash screen showed the value's first 4 KiB. A real agent over real pipes.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from acphost.config import AgentSpec
from acphost.safetext import CUT
from acphost.tui import AcpApp
from acphost.tui._dialogs import CrashScreen

from .conftest import SIZE, ready, send, wait_for

SECRET = "".join(random.Random(7).choices("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", k=10_000))


def pieces_of(text: str) -> set[str]:
    grams = {SECRET[i : i + 16] for i in range(len(SECRET) - 15)}
    return {text[i : i + 16] for i in range(len(text) - 15)} & grams


async def test_the_crash_screen_shows_no_piece_of_a_long_credential(tmp_path, workspace):
    script = tmp_path / "crash.json"
    script.write_text(
        json.dumps({"prompts": {"boom": [{"stderr": f"fatal: key {SECRET}\n"}, {"exit": 3}]}})
    )
    spec = AgentSpec(
        name="scripted",
        command=sys.executable,
        args=(str(Path(__file__).parent / "scripted_agent.py"),),
        env={"SCRIPTED_AGENT_SCRIPT": str(script), "SERVICE_SECRET": SECRET},
        source="tests",
    )
    app = AcpApp(spec, str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "boom", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        tail = app.screen.stderr_tail
        assert f"fatal: key [REDACTED]{CUT}" in tail
        assert pieces_of(tail) == set()
