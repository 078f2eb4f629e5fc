"""The permission dialog says when a command runs what the agent can write, as ``--ask`` does.

``npm test`` runs the scripts of ``package.json``, ``./tool`` is a program in
the workspace: while the agent may write files, allowing either allows any
command. The command line's question ends with that note; the dialog shows
the same line (:func:`acphost.host.workspace_code_note`), inert: the agent's
program name in it is never markup nor a terminal escape.
"""

from __future__ import annotations

from acphost.cli._ask import question_lines
from acphost.tui._permission import PermissionScreen

from .conftest import SIZE, answer, ready, screen_text, send, wait_for


def _create(command: str, args: list[str]) -> dict:
    return {
        "request": "terminal/create",
        "params": {"sessionId": "{sid}", "command": command, "args": args},
    }


async def _shown_then_rejected(scripted, command: str, args: list[str]) -> str:
    app = scripted({"prompts": {"run": [_create(command, args), {"say_response": True}]}})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "run", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        shown = str(screen.query_one(".perm-what").render())
        assert shown == "\n".join(question_lines(screen.request))  # the --ask rows, note too
        assert "note: " in screen_text(app)
        await answer(pilot, "r")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        assert not any(
            f.get("method") == "terminal/create" and "result" in f for f in app.agent_log()
        )
        return shown


async def test_the_dialog_notes_that_npm_test_runs_the_agents_scripts(scripted):
    shown = await _shown_then_rejected(scripted, "npm", ["test"])
    assert shown.splitlines()[-1] == (
        "note: npm runs the scripts of package.json, which the agent can write: "
        "while it may write files, allowing this allows any command"
    )


async def test_the_note_quoting_the_agents_program_stays_inert(scripted):
    """``./[bold red]x[/]\\x1b]0;owned\\x07`` is shown as written, escape made visible."""
    shown = await _shown_then_rejected(scripted, "./[bold red]x[/]\x1b]0;owned\x07", ["go"])
    last = shown.splitlines()[-1]
    assert last.startswith("note: ./[bold red]x[/]\\x1b]0;owned\\x07 is a program in the workspace")
    assert "\x1b" not in shown
