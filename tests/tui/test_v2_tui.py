"""The TUI on ``--protocol 2`` with real key presses, against the real demo agent.

The app is the one ``acphost tui --protocol 2`` runs (its own parser); the
demo agent is a real subprocess speaking v2. A prompt typed key by key
streams into the transcript, the status line says ``ACP 2``, the agent's
permission request (v2 ``subject``, ``requires_action``) is a dialog answered
by a key, and a file written through the acphost MCP tool after that dialog
lands in the workspace.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acphost.cli._main import tui_parser
from acphost.history import HistoryStore
from acphost.tui import AcpApp, tui_app
from acphost.tui._history_screen import HistoryScreen
from acphost.tui._model import ProtocolInfo
from acphost.tui._past import PastSessionScreen
from acphost.tui._permission import PermissionScreen
from acphost.tui._status import StatusBar
from acphost.tui._subagents import InterMessageLine, SubagentCard
from acphost.tui._transcript import StreamingMarkdown

from .conftest import (
    answer,
    demo_spec,
    ready,
    screen_text,
    send,
    sent_methods,
    transcript_source,
    wait_for,
)

WIDE = (120, 30)


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """An empty home of the test's own, the demo fast, no settings from outside."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    return tmp_path


def v2_app(workspace: Path, *flags: str):
    argv = ["-a", "demo", "--protocol", "2", "--no-sandbox", "--cwd", str(workspace), *flags]
    return tui_app(tui_parser().parse_args(argv))


async def type_prompt(pilot, text: str) -> None:
    """Type ``text`` key by key into the prompt and press Enter."""
    from acphost.tui._composer import PromptArea

    pilot.app.query_one(PromptArea).focus()
    keys = ["space" if c == " " else c for c in text]
    await pilot.press(*keys, "enter")


async def test_a_typed_prompt_streams_and_the_status_line_says_acp_2(
    home, workspace, history_store
):
    app = v2_app(workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        assert app.agreed == ProtocolInfo(2, 2)
        status = app.query_one(StatusBar).render().plain
        assert "ACP 2" in status
        view = app.active_view
        view.stop_reason = ""
        await type_prompt(pilot, "stream 5")
        # The reply grows chunk by chunk, then the idle state_update ends the turn.
        await wait_for(pilot, lambda: view.stop_reason == "end_turn" and not view.busy)
        await view.transcript.settled()
        reply = transcript_source(app).split("stream 5", 1)[1]
        # Five chunks of one v2 message (one messageId): one reply, in order.
        chunks = [f"chunk {n}/5" for n in range(1, 6)]
        assert [line for line in reply.splitlines() if line.strip() in chunks] == chunks
        view.stop_reason = ""
        await type_prompt(pilot, "echo typed on v2")
        await wait_for(pilot, lambda: view.stop_reason == "end_turn" and not view.busy)
        await view.transcript.settled()
        assert "typed on v2" in transcript_source(app).split("echo typed on v2", 1)[1]
    with HistoryStore.open(str(history_store)) as store:
        (summary,) = store.list_sessions()
        record = store.get(summary.id)
    assert record.protocol == 2 and len(record.turns) == 2


@pytest.mark.parametrize(("key", "chose"), [("y", "allow_once"), ("n", "reject_once")])
async def test_a_v2_permission_request_is_a_dialog_answered_by_a_key(home, workspace, key, chose):
    app = v2_app(workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        view = app.active_view
        view.stop_reason = ""
        await type_prompt(pilot, "permission")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, key)
        await wait_for(pilot, lambda: view.stop_reason == "end_turn" and not view.busy)
        await view.transcript.settled()
        assert f"You chose {chose}." in transcript_source(app)


async def test_a_write_through_the_mcp_tool_asks_and_lands_in_the_workspace(home, workspace):
    app = v2_app(workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        view = app.active_view
        view.stop_reason = ""
        await type_prompt(pilot, "write notes.txt typed")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await answer(pilot, "y")
        await wait_for(pilot, lambda: view.stop_reason == "end_turn" and not view.busy)
        await view.transcript.settled()
        assert (workspace / "notes.txt").read_text() == "typed"
        assert f"Wrote 5 characters to {workspace / 'notes.txt'}." in transcript_source(app)


async def test_a_failed_v2_turn_says_the_agents_error_as_on_v1(home, workspace):
    """The idle that ends a failed v2 turn carries the error (schema ErrorStopReason):
    the transcript says it, as for v1's error answer, not only "stopped: error"."""
    app = v2_app(workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        view = app.active_view
        view.stop_reason = ""
        await type_prompt(pilot, "error")
        await wait_for(pilot, lambda: view.stop_reason and not view.busy)
        await view.transcript.settled()
        shown = screen_text(app)
        assert "the agent answered an error: Internal error (JSON-RPC error -32603)" in shown


async def test_a_v2_session_reopened_from_the_history_is_resumed_with_its_replay(
    tmp_path, home, workspace
):
    """Ctrl+O, the recorded session, r: v2 has no session/load; the session is
    resumed with ``replayFrom`` and its turns are shown again."""
    spec = replace(demo_spec(tmp_path), protocol=2)
    first = AcpApp(spec, str(workspace))
    async with first.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "echo before the reopen")
    app = AcpApp(spec, str(workspace))
    async with app.run_test(size=WIDE) as pilot:
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
        assert app.agreed == ProtocolInfo(2, 2)
        methods = sent_methods(app)
        assert "session/load" not in methods and methods.count("session/resume") == 1
        (resume,) = [
            r
            for r in app.protocol.records
            if r.direction == "send" and r.method == "session/resume"
        ]
        assert resume.payload["params"]["replayFrom"] == {"type": "start"}
        source = transcript_source(app)
        assert (
            "echo before the reopen" in source
            and "before the reopen" in source.split("echo before the reopen", 1)[1]
        )


async def test_a_v2_subagent_is_a_card_with_its_own_transcript(home, workspace):
    """Subagents are baseline in v2: the child streams into its card in the parent."""
    app = v2_app(workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        view = app.active_view
        view.stop_reason = ""
        await type_prompt(pilot, "subagent find it")
        await wait_for(pilot, lambda: view.stop_reason == "end_turn" and not view.busy)
        [card] = list(view.transcript.query_children(SubagentCard))
        await wait_for(pilot, lambda: "idle (end_turn)" in card.title)
        await view.transcript.settled()
        assert card.title.startswith("🤖 helper 1 · answers one question · ✓ idle (end_turn)")
        assert "Working on: find it" in " ".join(m.source for m in card.query(StreamingMarkdown))
        shown = [str(x.render()) for x in view.transcript.query_children(InterMessageLine)]
        assert shown == ["→ helper 1: find it", "← helper 1: Done: find it"]
