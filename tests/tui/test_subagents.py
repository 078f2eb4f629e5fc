"""Subagents as a session tree in the TUI: cards in the parent, a screen in full, cancel.

Driven with real key presses against the real demo agent (its ``subagent``
keyword runs a child session) and, for what the demo does not do (a child
asking for permission, hostile titles), the scripted agent.
"""

from __future__ import annotations

import pytest
from textual.widgets._collapsible import CollapsibleTitle

from acphost.cli._main import tui_parser
from acphost.cli._parser import command_line
from acphost.tui import AcpApp
from acphost.tui._permission import PermissionScreen
from acphost.tui._subagent_screen import SubagentScreen
from acphost.tui._subagents import InterMessageLine, SubagentCard
from acphost.tui._toolcard import ToolCard
from acphost.tui._transcript import StreamingMarkdown

from .conftest import SIZE, answer, demo_spec, ready, screen_text, send, wait_for

WIDE = (100, 30)


def cards(app) -> list[SubagentCard]:
    return list(app.active_view.transcript.query_children(SubagentCard))


def card_text(card: SubagentCard) -> str:
    """What the card's child transcript holds: its messages' text."""
    return " ".join(md.source for md in card.query(StreamingMarkdown))


def lines(app) -> list[str]:
    transcript = app.active_view.transcript
    return [str(line.render()) for line in transcript.query_children(InterMessageLine)]


async def focus(pilot, widget) -> None:
    widget.focus()
    await wait_for(pilot, lambda: pilot.app.focused is widget)


def sent(app, method: str) -> list[dict]:
    return [
        r.payload.get("params", {})
        for r in app.protocol.records
        if r.direction == "send" and r.method == method and isinstance(r.payload, dict)
    ]


async def test_card_streams_then_folds_and_toggles_with_enter_and_click(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "subagent find it")
        [card] = cards(app)
        view = app.active_view
        child = view.session.subagents[0]
        await wait_for(pilot, lambda: "idle (end_turn)" in card.title)
        await view.transcript.settled()
        # The child's own transcript, inside the card: its text, its tool call, its usage.
        assert "Working on: find it" in card_text(card)
        [tool] = card.body.query(ToolCard)
        assert tool.call.status == "completed"
        assert card.title.startswith("🤖 helper 1 · answers one question · ✓ idle (end_turn)")
        assert "ctx 120/200k" in card.title
        assert child.id == card.session_id
        # The messages between the sessions, in the parent's transcript.
        assert lines(app) == ["→ helper 1: find it", "← helper 1: Done: find it"]
        # Folded once the child is idle; Enter on its title unfolds and folds it.
        assert card.collapsed
        title = card.query_one(CollapsibleTitle)
        await focus(pilot, title)
        await pilot.press("enter")
        assert not card.collapsed
        await pilot.press("enter")
        assert card.collapsed
        await pilot.click(title)
        assert not card.collapsed
        await pilot.pause()
        assert "Working on: find it" in screen_text(app)


async def test_card_opens_in_full_and_back_with_o_f5_and_a_click(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "subagent find it")
        [card] = cards(app)
        await wait_for(pilot, lambda: "idle (end_turn)" in card.title)
        main = app.screen
        await focus(pilot, card.query_one(CollapsibleTitle))
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        screen = app.screen
        await wait_for(pilot, lambda: "Working on: find it" in screen_text(app))
        text = screen_text(app)
        assert "🤖 helper 1 · answers one question · ✓ idle (end_turn)" in text
        assert "read-only: a subagent of the session" in text
        assert "← parent: find it" in text
        assert "Look it up" in text
        assert [c.call.status for c in screen.transcript.query(ToolCard)] == ["completed"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main)
        # F5 opens the only subagent; so does a click on the card's open line.
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main)
        await focus(pilot, card.query_one(CollapsibleTitle))
        await pilot.press("enter")  # unfold: the open line shows
        await pilot.pause()
        await pilot.click("SubagentCard OpenLine")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main)


async def test_background_child_streams_into_its_card_after_the_turn_ended(make_app):
    """A child that goes on after its parent's prompt answered keeps streaming into its
    card; the status bar counts it while it runs."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        view = app.active_view
        seen: list[tuple[str, str, bool]] = []

        def record(owner, update) -> None:
            kind = str(getattr(update, "session_update", ""))
            seen.append((owner.id, kind, view.session.turn is None))

        view.session.add_listener(record, subagents=True)
        await send(pilot, "subagent background wait 2 find it")
        [card] = cards(app)
        child = view.session.subagents[0]
        await wait_for(pilot, lambda: "idle (end_turn)" in card.title)
        await view.transcript.settled()
        after_turn = [kind for sid, kind, no_turn in seen if sid == child.id and no_turn]
        assert "tool_call_update" in after_turn  # the child's own update, after the turn
        assert "usage_update" in after_turn
        assert "Working on: find it" in card_text(card)
        [tool] = card.body.query(ToolCard)
        assert tool.call.status == "completed"
        assert "ctx 120/200k" in card.title
        assert lines(app)[-1] == "← helper 1: Done: find it"
        await wait_for(pilot, lambda: "subagent" not in screen_text(app).splitlines()[-2])


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_the_cancel_key_reaches_a_child_waiting_after_the_turn(make_app, key):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        view = app.active_view
        await send(pilot, "subagent background wait 30 x")
        [card] = cards(app)
        child = view.session.subagents[0]
        await wait_for(pilot, lambda: card.body.query(ToolCard))
        assert child.running and not card.collapsed  # expanded while it works
        await pilot.pause()
        assert "◐ 1 subagent running (Esc cancels)" in screen_text(app)
        await pilot.press(key)
        await wait_for(pilot, lambda: "idle (cancelled)" in card.title)
        assert {"sessionId": child.id} in sent(app, "session/cancel")
        assert card.title.startswith("🤖 helper 1 · answers one question · ⊘ idle (cancelled)")
        assert card.collapsed
        await pilot.pause()
        text = screen_text(app)
        assert "subagent running" not in text
        assert "⊘ idle (cancelled)" in text
        # Nothing more to cancel: a second Ctrl+C asks before quitting, as ever.
        await pilot.press("ctrl+c")
        assert app.is_running


async def test_a_child_opened_in_full_while_it_runs_follows_it(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "subagent background wait 30 x")
        [card] = cards(app)
        await wait_for(pilot, lambda: card.body.query(ToolCard))
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        screen = app.screen
        await wait_for(pilot, lambda: "Working on: x" in screen_text(app))
        assert "◐ running" in screen_text(app)
        await pilot.press("ctrl+c")  # the app's cancel works from the screen too
        await wait_for(pilot, lambda: "⊘ idle (cancelled)" in screen_text(app))
        assert app.screen is screen


async def test_no_subagents_shows_the_agents_fallback_tool_card(tmp_path, workspace):
    app = AcpApp(demo_spec(tmp_path), str(workspace), subagents=False)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        [init] = sent(app, "initialize")
        assert "subagents" not in init["clientCapabilities"]
        await send(pilot, "subagent find it")
        transcript = app.active_view.transcript
        assert not transcript.query(SubagentCard)
        [tool] = transcript.query(ToolCard)
        assert tool.call.title == "helper: find it"
        assert tool.call.status == "completed"
        await pilot.press("f5")
        assert not isinstance(app.screen, SubagentScreen)


def test_tui_parser_takes_no_subagents_and_a_served_page_keeps_it():
    parser = tui_parser()
    args = parser.parse_args(["--no-subagents", "--serve"])
    assert args.subagents is False
    assert parser.parse_args([]).subagents is True
    page = command_line(parser, args, frozenset({"serve", "host", "port"}))
    assert "--no-subagents" in page
    assert parser.parse_args(page).subagents is False


async def test_the_app_advertises_subagents_by_default(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        [init] = sent(app, "initialize")
        assert init["clientCapabilities"]["subagents"] == {}


def _child_script(title: str = "helper", text: str = "") -> dict:
    child = "{sid}:c1"
    return {
        "prompts": {
            "go": [
                {
                    "update": {
                        "sessionUpdate": "subagent_update",
                        "sessionId": child,
                        "title": title,
                        "description": "reviews the change",
                        "state": {"state": "running"},
                    }
                },
                {
                    "notify": "session/update",
                    "params": {
                        "sessionId": child,
                        "update": {
                            "sessionUpdate": "tool_call",
                            "toolCallId": "t1",
                            "title": "Delete build/",
                            "kind": "delete",
                            "status": "pending",
                        },
                    },
                },
                {
                    "request": "session/request_permission",
                    "params": {
                        "sessionId": child,
                        "toolCall": {"toolCallId": "t1"},
                        "options": [
                            {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                        ],
                    },
                },
                {"say_response": True},
                {
                    "update": {
                        "sessionUpdate": "session_message",
                        "messageId": "m1",
                        "senderSessionId": child,
                        "recipientSessionId": "{sid}",
                        "content": [{"type": "text", "text": text or "ok"}],
                    }
                },
            ]
        }
    }


async def test_a_childs_permission_request_shows_and_names_the_subagent(scripted):
    """A permission request on a child's session id (no session of the client) still
    shows, says which subagent asks, and previews the child's tool call."""
    app = scripted(_child_script())
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "go", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        assert screen.session_label == "subagent helper"
        assert screen.call is not None and screen.call.title == "Delete build/"
        assert "subagent helper" in screen_text(app)
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await view.transcript.settled()
        assert '"optionId": "yes"' in "".join(view.transcript.sources())


async def test_a_childs_title_and_messages_are_shown_as_written(scripted):
    """Agent text in a card title or a message between sessions is never markup, and
    its terminal controls show visibly."""
    hostile = "[@click=app.quit]boom[/] [bold]x"
    app = scripted(_child_script(title=hostile, text="\x1b[31mred [link=x]y[/link]"))
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "go", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        await pilot.pause()
        [card] = cards(app)
        assert card.title.startswith(f"🤖 {hostile} · reviews the change")
        text = screen_text(app)
        assert hostile in text
        assert f"← {hostile}: \\x1b[31mred [link=x]y[/link]" in text
        await pilot.click(card.query_one(CollapsibleTitle))
        assert app.is_running


def _state_with_a_child():
    """A parent's state that already holds a child (a loaded session, or a card shown late):
    a prompt, the child announced after it, its instruction, the child's own work, a reply."""
    from acphost import schema as s
    from acphost.client import SessionState
    from acphost.schema import unstable as u

    def update(raw):
        return s.decode_session_update(raw)

    state = SessionState()
    state.apply(update({"sessionUpdate": "user_message_chunk", "content": _text("look")}))
    state.apply(
        u.decode_session_update(
            {
                "sessionUpdate": "subagent_update",
                "sessionId": "c1",
                "title": "helper",
                "state": {"state": "idle", "stopReason": "end_turn"},
            }
        )
    )
    state.apply(
        u.decode_session_update(
            {
                "sessionUpdate": "session_message",
                "messageId": "m1",
                "recipientSessionId": "c1",
                "content": [_text("find it")],
            }
        )
    )
    child = state.subagents["c1"].state
    child.apply(update({"sessionUpdate": "agent_message_chunk", "content": _text("Found it.")}))
    child.apply(update({"sessionUpdate": "usage_update", "used": 5, "size": 100}))
    state.apply(update({"sessionUpdate": "agent_message_chunk", "content": _text("All done.")}))
    return state


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


async def test_a_state_shown_after_the_fact_has_its_children_in_place():
    """A transcript shown from a state (a loaded session, a card or screen opened late)
    puts each child's card where it was announced, with what the child streamed."""
    from textual.app import App

    from acphost.tui._terminals import TerminalBuffers
    from acphost.tui._transcript import Transcript

    state = _state_with_a_child()
    transcript = Transcript(state, "/", TerminalBuffers())

    class One(App):
        def compose(self):
            yield transcript

    async with One().run_test(size=WIDE) as pilot:
        transcript.show_state()
        await pilot.pause()
        [card] = transcript.query_children(SubagentCard)
        order = [type(w).__name__ for w in transcript.children]
        assert order == ["UserBubble", "SubagentCard", "InterMessageLine", "StreamingMarkdown"]
        await wait_for(pilot, lambda: "Found it." in card_text(card))
        assert card.collapsed  # idle: folded
        assert card.title == "🤖 helper · ✓ idle (end_turn) · ctx 5/100 5%"
        assert [str(x.render()) for x in transcript.query_children(InterMessageLine)] == [
            "→ helper: find it"
        ]


async def test_a_recorded_subagent_shows_as_a_folded_card_with_its_answer():
    """A past session's stored subagent (the history's ``subagent`` event) is a card
    with its answer, folded, and offers no way to open a session that is gone."""
    from textual.app import App

    from acphost.client import SessionState
    from acphost.history import TurnRecord
    from acphost.tui._past import _mounted, _turn_widgets
    from acphost.tui._terminals import TerminalBuffers
    from acphost.tui._transcript import Transcript

    event = {
        "kind": "subagent",
        "id": "c1",
        "label": "[b]helper[/b]",
        "description": "reviews",
        "activity": "idle",
        "stop_reason": "end_turn",
        "text": "All **good**.",
    }
    turn = TurnRecord(1, "2026-01-01T00:00:00Z", "go", events=(event,), complete=True)
    transcript = Transcript(SessionState(), "/", TerminalBuffers())

    class One(App):
        def compose(self):
            yield transcript

    async with One().run_test(size=WIDE) as pilot:
        await _mounted(transcript, _turn_widgets(turn, "/", TerminalBuffers()))
        await pilot.pause()
        [card] = transcript.query(SubagentCard)
        assert card.collapsed and not card.live
        assert card.title == "🤖 [b]helper[/b] · reviews · ✓ idle (end_turn)"
        assert "All **good**." in card_text(card)
        assert not card.query("OpenLine")


def test_run_tui_hands_no_subagents_to_the_app(monkeypatch, workspace):
    import acphost.tui as tui

    made = {}

    class Fake:
        def __init__(self, spec, cwd, **kwargs):
            made.update(kwargs)
            self.redactor = None

        def run(self):
            return 0

    monkeypatch.setattr(tui, "AcpApp", Fake)
    monkeypatch.setattr(tui, "_logging_into", lambda app: _nothing())
    args = tui_parser().parse_args(["--no-subagents", str(workspace)])
    args.cwd = args.path
    assert tui.run_tui(args) == 0
    assert made["subagents"] is False


def _nothing():
    from contextlib import nullcontext

    return nullcontext()


def test_the_status_line_counts_running_subagents_and_says_esc_cancels_only_when_it_can():
    from acphost.tui._model import ConnectionState, StatusInfo

    info = StatusInfo(agent="demo", connection=ConnectionState.CONNECTED, stop_reason="end_turn")
    assert not [text for text, _ in info.parts() if "subagent" in text]
    info.subagents, info.subagents_cancellable = 2, True
    assert "◐ 2 subagents running (Esc cancels)" in [text for text, _ in info.parts()]
    info.busy = True  # Esc cancels the turn (and they with it): said once, by the turn
    assert "◐ 2 subagents running" in [text for text, _ in info.parts()]
    info.busy, info.subagents, info.subagents_cancellable = False, 1, False
    assert "◐ 1 subagent running" in [text for text, _ in info.parts()]


def _on(session_id: str, update: dict) -> dict:
    return {"notify": "session/update", "params": {"sessionId": session_id, "update": update}}


NESTED = {
    "prompts": {
        "nest": [
            {
                "update": {
                    "sessionUpdate": "subagent_update",
                    "sessionId": "{sid}:outer",
                    "title": "outer",
                    "state": {"state": "running"},
                }
            },
            _on(
                "{sid}:outer",
                {
                    "sessionUpdate": "subagent_update",
                    "sessionId": "{sid}:inner",
                    "title": "inner",
                    "state": {"state": "running"},
                },
            ),
            _on(
                "{sid}:inner",
                {"sessionUpdate": "agent_message_chunk", "content": _text("deep text")},
            ),
            _on(
                "{sid}:outer",
                {"sessionUpdate": "agent_message_chunk", "content": _text("outer text")},
            ),
        ]
    }
}


async def test_a_childs_child_nests_in_its_card_and_opens_from_the_f5_list(scripted):
    from acphost.tui._dialogs import PickerScreen

    app = scripted(NESTED)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "nest")
        [outer] = cards(app)
        await wait_for(pilot, lambda: outer.body.query(SubagentCard))
        [inner] = outer.body.query(SubagentCard)
        assert inner.title.startswith("🤖 inner · ◐ running")
        await wait_for(pilot, lambda: "deep text" in card_text(inner))
        await wait_for(pilot, lambda: "outer text" in card_text(outer))
        assert app.status_info.subagents == 2
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("2")
        await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen))
        await wait_for(pilot, lambda: "deep text" in screen_text(app))
        assert "read-only: a subagent of the subagent outer" in screen_text(app)
