"""The TUI's sessions get the agent's system prompt (its settings entry, or ``--system-prompt``).

The demo agent, a real subprocess, answers ``system`` with the system prompt
its session was opened with.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from acphost.tui import AcpApp
from acphost.tui import _system_prompt as with_flags

from .conftest import demo_spec, ready, send, sent_methods, wait_for


async def test_a_new_session_gets_the_agents_system_prompt(tmp_path, workspace):
    spec = replace(demo_spec(tmp_path), system_prompt="speak like a pirate")
    args = argparse.Namespace(system_prompt=None, system_prompt_mode="override")
    app = AcpApp(with_flags(args)(spec), str(workspace))
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "system")
        text = app.active_view.session.state.last_agent_text()
        assert text == "system prompt (override): speak like a pirate"


async def test_an_agent_that_cannot_take_it_opens_no_session_and_says_why(tmp_path, workspace):
    spec = replace(demo_spec(tmp_path, ACPHOST_DEMO_SYSTEM_PROMPT="none"), system_prompt="x")
    app = AcpApp(spec, str(workspace))
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_for(
            pilot,
            lambda: any(
                "does not support a system prompt" in n.message for n in app._notifications
            ),
        )
        assert app.active_view is None
        assert sent_methods(app) == ["initialize"]


def test_an_unreadable_system_prompt_file_is_a_usage_error(capsys, monkeypatch, tmp_path):
    from acphost.tui import run_tui

    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    args = argparse.Namespace(
        agent=None, settings=None, cwd=str(tmp_path), verbose=0, init_timeout=5.0,
        system_prompt=f"@{tmp_path}/missing.md", system_prompt_mode=None,
    )  # fmt: skip
    assert run_tui(args) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "the --system-prompt file" in line and "missing.md does not exist" in line
