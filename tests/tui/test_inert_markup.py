"""Widgets that parse a string as markup never get the agent's text as a string.

Checkbox, radio button and selection labels, Collapsible titles (thoughts,
compactions) and the history list's titles show ``[bold red]x[/]`` and
``[@click=app.quit]y[/]`` as those characters; clicking them runs nothing.
A stray ``[/]`` (invalid markup) is text too, not an exception.
"""

from __future__ import annotations

from textual.widgets import Checkbox, RadioButton, SelectionList
from textual.widgets._collapsible import CollapsibleTitle

from acphost.tui._elicit import FormScreen
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._notes import CompactionBlock
from acphost.tui._transcript import ThoughtBlock

from .conftest import ready, screen_text, send, transcript_source, wait_for

RED = "[bold red]x[/]"
CLICK = "[@click=app.quit]y[/]"
BROKEN = "[/] [b"

FORM_SCHEMA = {
    "type": "object",
    "title": CLICK,
    "properties": {
        "sure": {"type": "boolean", "title": RED},
        "pick": {
            "type": "string",
            "title": CLICK,
            "oneOf": [{"const": "one", "title": CLICK}, {"const": "two", "title": BROKEN}],
        },
        "many": {
            "type": "array",
            "title": "many",
            "items": {"anyOf": [{"const": "m1", "title": CLICK}, {"const": "m2", "title": RED}]},
        },
    },
}

SCRIPT = {
    "capabilities": {"loadSession": True, "sessionCapabilities": {"list": {}}},
    "sessions": [{"sessionId": "old-1", "cwd": "/tmp", "title": f"{CLICK} {RED}"}],
    "prompts": {
        "form": [
            {
                "request": "elicitation/create",
                "params": {
                    "sessionId": "{sid}",
                    "mode": "form",
                    "message": f"{RED} {CLICK}",
                    "requestedSchema": FORM_SCHEMA,
                },
            },
            {"say_response": True},
        ],
        "notes": [
            {
                "update": {
                    "sessionUpdate": "agent_thought_chunk",
                    "content": {"type": "text", "text": f"{CLICK} {BROKEN} {RED}"},
                }
            },
            {
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "done"},
                }
            },
            {
                "update": {
                    "sessionUpdate": "compaction_update",
                    "compactionId": "c1",
                    "status": "failed",
                    "error": f"{CLICK} {BROKEN}",
                }
            },
        ],
    },
}


def label_of(widget) -> str:
    return str(widget.label)


async def test_form_labels_are_literal_and_clicking_them_runs_nothing(scripted):
    app = scripted(SCRIPT)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "form", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
        screen = app.screen
        assert label_of(screen.query_one(Checkbox)) == RED
        assert [label_of(b) for b in screen.query(RadioButton)] == [CLICK, BROKEN]
        many = screen.query_one(SelectionList)
        assert [str(many.get_option_at_index(i).prompt) for i in range(2)] == [CLICK, RED]
        text = screen_text(app)
        assert CLICK in text and RED in text and BROKEN in text
        await wait_for(pilot, lambda: screen.armed and app.focused is not None)
        await pilot.click(RadioButton)  # the first: its label is a would-be action
        await pilot.click(Checkbox)
        assert app.is_running and app.screen is screen
        await wait_for(pilot, lambda: screen.query(RadioButton).first().value)
        await pilot.press("ctrl+s")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        answer = transcript_source(app)
        assert '"pick": "one"' in answer and '"sure": true' in answer
        assert app.is_running


async def test_thought_and_compaction_titles_are_literal(scripted):
    app = scripted(SCRIPT)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "notes")
        transcript = app.active_view.transcript
        thought = transcript.query_one(ThoughtBlock)
        await wait_for(pilot, lambda: thought.collapsed)
        title = thought.query_one(CollapsibleTitle)
        assert str(title.label) == f"💭 {CLICK} {BROKEN} {RED}"
        compaction = transcript.query_one(CompactionBlock)
        shown = str(compaction.query_one(CollapsibleTitle).label)
        assert shown.endswith(f"failed: {CLICK} {BROKEN}")
        await pilot.click(title)  # toggles the thought; the title's "action" never runs
        await wait_for(pilot, lambda: not thought.collapsed)
        assert app.is_running
        text = screen_text(app)
        assert CLICK in text


async def test_history_titles_are_literal(scripted):
    app = scripted(SCRIPT)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_for(pilot, lambda: f"{CLICK} {RED}" in screen_text(app))
        assert app.is_running
