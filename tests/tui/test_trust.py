"""Nothing the agent sends is markup or a terminal control in any widget.

A hostile agent puts Rich/Textual markup (``[bold red]``, ``[@click=app.quit]``),
escape sequences (clipboard write, screen clear, title change), a carriage
return and a right-to-left override in every field the TUI shows; each must
appear literally, controls as visible escapes.
"""

from __future__ import annotations

import sys

from textual.widgets import Tab

from acphost.tui._permission import PermissionScreen
from acphost.tui._protocol_log import ProtocolLogScreen

from .conftest import answer, ready, screen_text, send, wait_for

EVIL = "[bold red]MARKUP[/] [@click=app.quit]CLICK[/] \x1b]52;c;ZXZpbA==\x07\x1b[2J\rCR\u202eRTL"
PRINTER = f"import sys; sys.stdout.write({EVIL!r})"


def evil(tag: str) -> str:
    return f"{tag}:{EVIL}"


def text(tag: str) -> dict:
    return {"type": "text", "text": evil(tag)}


HOSTILE = {
    "agentInfo": {"name": evil("name"), "version": "1\x1b[2J"},
    "prompts": {
        "go": [
            {"update": {"sessionUpdate": "session_info_update", "title": evil("title")}},
            {"update": {"sessionUpdate": "agent_thought_chunk", "content": text("thought")}},
            {
                "update": {
                    "sessionUpdate": "plan",
                    "entries": [{"content": evil("plan"), "priority": "high", "status": "pending"}],
                }
            },
            {
                "update": {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": [{"name": evil("cmd"), "description": evil("desc")}],
                }
            },
            {
                "update": {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "t1",
                    "title": evil("tooltitle"),
                    "kind": "edit",
                    "status": "in_progress",
                    "locations": [{"path": "/ws/" + evil("loc")}],
                    "rawInput": {"x": evil("raw")},
                    "content": [
                        {"type": "content", "content": text("toolcontent")},
                        {
                            "type": "diff",
                            "path": "/ws/" + evil("diffpath"),
                            "oldText": "a\n",
                            "newText": evil("diffnew") + "\n",
                        },
                    ],
                }
            },
            {
                "request": "terminal/create",
                "params": {
                    "sessionId": "{sid}",
                    "command": sys.executable,
                    "args": ["-c", PRINTER],
                },
            },
            {
                "update": {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "t2",
                    "title": "run",
                    "kind": "execute",
                    "status": "in_progress",
                    "content": [{"type": "terminal", "terminalId": "{last.terminalId}"}],
                }
            },
            {
                "request": "session/request_permission",
                "params": {
                    "sessionId": "{sid}",
                    "toolCall": {"toolCallId": "t3", "title": evil("permtitle"), "kind": "execute"},
                    "options": [
                        {"optionId": "y", "name": evil("optname"), "kind": "allow_once"},
                        {"optionId": "n", "name": "No", "kind": "reject_once"},
                    ],
                },
            },
            {"update": {"sessionUpdate": "agent_message_chunk", "content": text("message")}},
        ]
    },
}


def assert_inert(shown: str, *tags: str) -> None:
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    for tag in tags:
        assert f"{tag}:[bold red]MARKUP[/] [@click=app.quit]CLICK[/]" in shown, tag
    if tags:
        assert "\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\rCR<U+202E>RTL" in shown


async def test_hostile_text_is_shown_literally_everywhere(scripted):
    app = scripted(HOSTILE, write=True)
    async with app.run_test(size=(250, 100)) as pilot:
        await ready(pilot)
        await send(pilot, "go", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert app.screen.request.operation == "terminal_create"
        await answer(pilot, "a")  # run the printer
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, PermissionScreen)
                and app.screen.request.title != app.screen.request.command
            ),
        )
        # the agent's own permission request, over the transcript
        assert_inert(screen_text(app), "permtitle", "optname")
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        term = view.transcript.query_one("TerminalView")
        await wait_for(pilot, lambda: app.terminals.get(term.terminal_id).exit_text)
        await pilot.pause(0.2)
        for collapsible in view.transcript.query("Collapsible"):
            collapsible.collapsed = False  # the thought and the raw input
        await pilot.pause(0.1)
        shown = screen_text(app)
        assert_inert(shown, "message", "thought", "plan", "tooltitle", "toolcontent", "raw")
        # one-line fields: the newline-free ones and the diff
        assert "diffnew:[bold red]MARKUP[/]" in shown and "loc:[bold red]MARKUP" in shown
        assert "name:[bold red]MARKUP" in shown  # the agent's name in the status bar
        tab = next(iter(app.query(Tab)))
        assert "title:[bold" in str(tab.label) and "\x1b" not in str(tab.label)
        assert_inert("\n".join(term.lines))
        assert "\\x1b]52" in "\n".join(term.lines)
        assert app.is_running  # [@click=app.quit] was never an action
        # the slash-command menu
        area = app.query_one("PromptArea")
        area.focus()
        await pilot.press("slash")
        await wait_for(pilot, lambda: area.completing)
        assert_inert(screen_text(app), "cmd", "desc")
        await pilot.press("escape")
        # the protocol log, with the frame that carried the message
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProtocolLogScreen))
        await pilot.press("slash", *"message:")
        await pilot.press("enter")
        await pilot.pause(0.3)
        log_shown = screen_text(app)
        assert "\x1b" not in log_shown and "agent_message_chunk" in log_shown
