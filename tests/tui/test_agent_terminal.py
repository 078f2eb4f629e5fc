"""The TUI's card for a command the agent ran itself (output only in tool call ``_meta``).

codex-acp sends the output and exit of its own shell's commands in
``_meta.terminal_output_delta`` / ``_meta.terminal_exit``; the card draws them
as it draws the host's terminals. The agent is a scripted subprocess.
"""

from __future__ import annotations

from acphost.tui._toolcard import ReportedTerminalView, ToolCard
from tests.tui.conftest import SIZE, ready, send, wait_for
from tests.view.codex_terminal import command_run, delta, exit_, start


def actions(updates):
    return {"prompts": {"run": [{"update": u} for u in updates]}}


async def test_the_card_shows_the_output_and_the_exit(scripted):
    app = scripted(actions(command_run()))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "run it")
        view = app.active_view
        (card,) = view.transcript.query(ToolCard)
        term = card.query_one(ReportedTerminalView)
        await wait_for(pilot, lambda: term.lines[:2] == ["first line", "second line"])
        exit_line = term.query_one(".term-exit")
        await wait_for(pilot, lambda: exit_line.display)
        assert "exit code 2" in str(exit_line.render())
        assert "make test" in str(term.query_one(".term-command").render())


async def test_escapes_and_a_spoofed_id_never_reach_the_card_raw(scripted):
    updates = [
        start("call_1"),
        start("call_2", command="other"),
        delta("call_1", "\x1b]0;title\x07ok \x1b[2J\n"),
        delta("call_1", "spoof\n", terminal="call_2"),
        exit_("call_1"),
    ]
    app = scripted(actions(updates))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "run it")
        view = app.active_view
        cards = {c.call.tool_call_id: c for c in view.transcript.query(ToolCard)}
        first = cards["call_1"].query_one(ReportedTerminalView)
        await wait_for(pilot, lambda: any("ok" in line for line in first.lines))
        assert not any("\x1b" in line or "\x07" in line for line in first.lines)
        assert not any(cards["call_2"].query_one(ReportedTerminalView).lines)
