"""What a new user sees: start screen, tab names, keys, chips, cards, notices, the log."""

from __future__ import annotations

import base64
import itertools

from textual.widgets import Tab

from acphost import schema as s
from acphost.config import AgentSpec
from acphost.tui import AcpApp
from acphost.tui._blocks import MediaCard, UserBubble, block_card_text
from acphost.tui._keys import APP_KEYS, KeysScreen
from acphost.tui._notes import CompactionBlock, Notice
from acphost.tui._protocol_log import ProtocolLogScreen
from acphost.tui._start import StartPanel
from acphost.tui._toolcard import DiffView, TerminalView

from .conftest import SIZE, answer, demo_spec, ready, screen_text, send, wait_for

PNG = base64.b64encode(b"\x89PNG" + b"\0" * 2044).decode()


async def test_start_screen_says_agent_state_workspace_keys_and_the_demo_hint(make_app, workspace):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        shown = screen_text(app)
        for expected in (
            "acphost demo agent",
            "0.1.0",
            "● connected",
            "no login needed",
            "F1 all keys",
            "^Q quit",
            "type tour",
        ):
            assert expected in shown, expected
        start = app.active_view.transcript.query_one(StartPanel)
        assert start.info.workspace.endswith("ws")


async def test_several_agents_configured_the_start_screen_picks_one(tmp_path, workspace):
    demo = demo_spec(tmp_path)
    other = AgentSpec(name="other", command="/nonexistent/agent", source="settings")
    app = AcpApp(demo, str(workspace), choices=[other, demo])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.client is None  # nothing starts before the user picks
        shown = screen_text(app)
        assert "Pick an agent" in shown and "other" in shown and "demo" in shown
        await pilot.press("down", "enter")
        await ready(pilot)
        assert app.spec is demo and app.client is not None


async def test_tabs_are_named_by_the_first_prompt_then_the_session_title(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        tab = next(iter(app.query(Tab)))
        assert "new session" in str(tab.label)
        await send(pilot, "echo the first words of a long first prompt")
        assert str(tab.label).startswith("1 echo the first words")
        await send(pilot, "title Parser refactor")
        assert str(tab.label) == "1 Parser refactor"


async def test_f1_lists_the_app_keys_before_the_editor_keys(make_app):
    app = make_app()
    async with app.run_test(size=(100, 60)) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, KeysScreen))
        shown = screen_text(app)
        app_part, _, editor_part = shown.partition("Editing")
        for keys, what in APP_KEYS:  # the app's keys, all before the editor's
            assert keys.split(" ")[0] in app_part and " ".join(what.split()[:3]) in app_part
        assert app_part.index("send the prompt") < app_part.index("cancel the running turn")
        assert "cursor word left" in editor_part
        assert "Ctrl+C " not in editor_part  # Ctrl+C cancels: it is not the editor's copy
        await pilot.press("f1")
        await wait_for(pilot, lambda: not isinstance(app.screen, KeysScreen))


async def test_a_mentioned_file_shows_as_a_chip(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo look at @src/helpers.py please")
        bubble = app.active_view.transcript.query_one(UserBubble)
        chips = str(bubble.query_one(".chips").render())
        assert "📄 src/helpers.py" in chips
        assert "](file://" not in screen_text(app)  # not a raw Markdown link


async def test_terminal_card_puts_the_command_on_its_own_line(make_app):
    app = make_app()
    app.write = True
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "terminal echo out-put", wait=False)
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PermissionScreen")
        await answer(pilot, "a")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        term = view.transcript.query_one(TerminalView)
        await wait_for(pilot, lambda: term.lines)
        assert str(term.query_one(".term-command").render()) == "$ echo out-put"
        assert term.lines[0] == "out-put"  # flush left, below the command
        assert term.output.styles.padding.left == 0


async def test_diff_hunk_header_is_not_coloured_as_a_deletion(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "diff")
        text = app.active_view.transcript.query_one(DiffView).render()
        styles = {line.plain[:1]: str(line.spans[0].style) for line in text.split("\n")}
        assert "red" in styles["-"] and "green" in styles["+"]
        assert "red" not in styles["@"] and "blue" in styles["@"]


async def test_headings_are_not_styled_as_links(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "tour")
        heading = app.active_view.transcript.query("MarkdownHeader").first()
        link_colour = app.current_theme.primary
        assert heading.styles.color.hex.lower() != link_colour.lower()
        assert heading.styles.margin.top <= 1


async def test_blocks_follow_each_other_without_blank_rows(make_app):
    app = make_app()
    async with app.run_test(size=(80, 60)) as pilot:
        await ready(pilot)
        await send(pilot, "tour")
        widgets = list(app.active_view.transcript.children)
        for above, below in itertools.pairwise(widgets):
            if above.display and below.display:
                assert below.region.y == above.region.bottom, (above, below)


async def test_protocol_log_shows_each_update_kind(make_app):
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "plan")
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProtocolLogScreen))
        await pilot.press("slash", *"plan")
        await pilot.pause(0.2)
        details = [r.detail for r in app.screen._shown if r.method == "session/update"]
        assert details.count("plan") >= 3  # the plan is replaced whole on each update
        assert " plan " in screen_text(app)


def test_media_cards_say_type_size_and_name():
    image = s.ImageContentBlock(
        data=PNG,
        mime_type="image/png",
        uri="file:///ws/shot.png",
        annotations=s.Annotations(audience=["user"], priority=0.5),
    )
    assert block_card_text(image).plain == (
        "🖼 image file:///ws/shot.png · image/png · 2.0 KB\nfor user · priority 0.5"
    )
    audio = s.AudioContentBlock(data=PNG[:400], mime_type="audio/wav")
    assert block_card_text(audio).plain == "🔊 audio · audio/wav · 300 B"
    link = s.ResourceLinkContentBlock(
        name="notes.md", uri="file:///ws/notes.md", mime_type="text/markdown", size=2048
    )
    assert block_card_text(link).plain == (
        "🔗 resource_link notes.md · text/markdown · 2.0 KB · file:///ws/notes.md"
    )
    embedded = s.EmbeddedResourceContentBlock(
        resource=s.TextResourceContents(
            uri="file:///ws/a.py", text="x = 1\n", mime_type="text/x-python"
        )
    )
    assert (
        block_card_text(embedded).plain
        == "📎 resource file:///ws/a.py · text/x-python · 6 characters"
    )


MEDIA = {
    "prompts": {
        "media": [
            {
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "Here:"},
                }
            },
            {
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "image", "data": PNG, "mimeType": "image/png"},
                }
            },
            {
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {
                        "type": "resource_link",
                        "name": "notes.md",
                        "uri": "file:///ws/notes.md",
                    },
                }
            },
            {
                "update": {
                    "sessionUpdate": "notice",
                    "severity": "warning",
                    "title": "Rate limited: retrying",
                }
            },
            {
                "update": {
                    "sessionUpdate": "notice",
                    "severity": "info",
                    "title": "Indexed 12 files",
                }
            },
            {
                "update": {
                    "sessionUpdate": "compaction_update",
                    "compactionId": "c1",
                    "status": "in_progress",
                }
            },
            {
                "update": {
                    "sessionUpdate": "compaction_summary_chunk",
                    "compactionId": "c1",
                    "content": {"type": "text", "text": "We refactored the parser."},
                }
            },
            {
                "update": {
                    "sessionUpdate": "compaction_update",
                    "compactionId": "c1",
                    "status": "completed",
                }
            },
        ]
    }
}


async def test_media_notices_and_compaction_in_the_transcript(scripted):
    app = scripted(MEDIA)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "media")
        transcript = app.active_view.transcript
        cards = [str(c.render()) for c in transcript.query(MediaCard)]
        assert cards[0].startswith("🖼 image · image/png · 2.0 KB")
        assert cards[1].startswith("🔗 resource_link notes.md")
        notices = [str(n.render()) for n in transcript.query(Notice)]
        assert "⚠ Rate limited: retrying" in notices  # inline: a warning
        assert not any("Indexed" in n for n in notices)  # a toast: information
        block = transcript.query_one(CompactionBlock)
        assert block.title.startswith("⟲ context compacted")
        assert block.collapsed and "".join(block.parts) == "We refactored the parser."
