"""A session reopened from the local history (Ctrl+O, then r: ``session/load``)
shows what it showed live: its compaction markers in place, and its name on the tab."""

from __future__ import annotations

from textual.widgets import Tab

from acphost.tui import AcpApp
from acphost.tui._blocks import UserBubble
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._notes import CompactionBlock
from acphost.tui._past import PastSessionScreen
from acphost.tui._toolcard import ToolCard
from acphost.tui._transcript import StreamingMarkdown

from .conftest import SIZE, demo_spec, ready, send, sent_methods, wait_for


async def _record(tmp_path, workspace, *prompts: str) -> tuple[str, list[str]]:
    """Record a session of ``prompts``; return its tab label and compaction summaries, live."""
    first = AcpApp(demo_spec(tmp_path), str(workspace))
    async with first.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for prompt in prompts:
            await send(pilot, prompt)
        live = first.active_view
        live_label = live.label
        live_summaries = [c.summary_text for c in live.session.state.compactions.values()]
    return live_label, live_summaries


async def _reopen(pilot):
    """Ctrl+O, the recorded session, Enter, r: its view once the replay is shown."""
    app = pilot.app
    await ready(pilot)
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
    screen = app.screen
    for _ in range(30):
        row = screen.highlighted
        if row is not None and row.source == "local":
            break
        await pilot.press("down")
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, PastSessionScreen))
    await pilot.press("r")
    await wait_for(pilot, lambda: len(app.views()) == 2)
    view = app.active_view
    await view.transcript.settled()
    await pilot.pause()
    assert "session/load" in sent_methods(app)
    return view


async def test_a_reloaded_session_shows_its_compaction_where_it_happened(tmp_path, workspace):
    """The agent replayed a compaction_update and the state held it, but the
    reloaded transcript showed only the messages: no marker, no summary."""
    _, summaries = await _record(tmp_path, workspace, "echo before", "compact", "echo after")
    assert summaries and summaries[0].startswith("Summary: ")
    app = AcpApp(demo_spec(tmp_path), str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        view = await _reopen(pilot)
        shown = [
            w
            for w in view.transcript.children
            if isinstance(w, (UserBubble, StreamingMarkdown, CompactionBlock))
        ]
        kinds = [
            "compaction" if isinstance(w, CompactionBlock) else w.source.strip() for w in shown
        ]
        at = kinds.index("compaction")
        assert kinds[at - 1] == "compact"  # after the prompt that compacted, before its reply
        assert kinds[at + 1].startswith("Compacted ")
        assert kinds.count("compaction") == 1
        block = view.transcript.query_one(CompactionBlock)
        assert block.collapsed  # collapsible, collapsed, as live
        assert block.title.startswith("⟲ context compacted")
        assert "".join(block.parts) == summaries[0]


async def test_a_reopened_session_is_named_on_its_tab(tmp_path, workspace):
    """A session reopened from the history was named "new session" until a
    prompt was sent, though its first prompt was in the replayed history."""
    label, _ = await _record(tmp_path, workspace, "echo remembered words", "echo more")
    assert "remembered words" in label
    app = AcpApp(demo_spec(tmp_path), str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        view = await _reopen(pilot)
        assert view.label == label
        tabs = [str(t.label) for t in app.query(Tab)]
        assert f"2 {label}" in tabs


async def test_a_reopened_session_with_a_title_is_named_by_it(tmp_path, workspace):
    """The title the agent replays on session/load names the tab, before any prompt."""
    label, _ = await _record(tmp_path, workspace, "echo first", "title Alpha notes")
    assert label == "Alpha notes"
    app = AcpApp(demo_spec(tmp_path), str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        view = await _reopen(pilot)
        assert view.label == "Alpha notes"
        assert "2 Alpha notes" in [str(t.label) for t in app.query(Tab)]


def _text(text: str, kind: str = "agent_message_chunk") -> dict:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


async def test_a_loaded_session_shows_its_tool_calls_where_they_happened(scripted, workspace):
    """Replayed tool calls were all drawn after the last message: each card now
    sits among the messages where the agent sent it."""
    app = scripted(
        {
            "capabilities": {"loadSession": True, "sessionCapabilities": {"list": {}}},
            "sessions": [{"sessionId": "old-1", "cwd": str(workspace), "title": "earlier work"}],
            "load_replay": [
                _text("look at the code", "user_message_chunk"),
                _text("first answer"),
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "t1",
                    "title": "Reading main.py",
                    "kind": "read",
                    "status": "completed",
                },
                _text("second answer"),
                _text("and now tests", "user_message_chunk"),
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "t2",
                    "title": "Running tests",
                    "kind": "execute",
                    "status": "completed",
                },
            ],
        }
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"earlier")
        await wait_for(
            pilot,
            lambda: app.screen.highlighted is not None and app.screen.highlighted.value == "old-1",
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.active_view.session.id == "old-1")
        view = app.active_view
        await view.transcript.settled()
        order = []
        for w in view.transcript.children:
            if isinstance(w, ToolCard):
                order.append(w.call.title)
            elif isinstance(w, (UserBubble, StreamingMarkdown)):
                order.append(w.source.strip())
        assert order == [
            "look at the code",
            "first answer",
            "Reading main.py",
            "second answer",
            "and now tests",
            "Running tests",
        ], order
