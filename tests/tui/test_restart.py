"""After an agent crash, ``r`` restarts: the tabs and transcripts stay, each session goes on.

Regression: the restart cleared every tab; typing then said "no session yet".
"""

from __future__ import annotations

from acphost.tui._dialogs import CrashScreen
from acphost.tui._model import ConnectionState
from acphost.tui._notes import Marker

from .conftest import SIZE, answer, ready, send, transcript_source, wait_for

CRASH = {"crash": [{"stderr": "boom: \x1b[31mred\x1b[0m [bold]x[/bold]\n"}, {"exit": 7}]}
ECHO = {
    "echo": [
        {
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "echoed"},
            }
        }
    ]
}


async def crash_and_restart(pilot, prompt: str = "crash") -> None:
    app = pilot.app
    await send(pilot, prompt, wait=False)
    await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
    await answer(pilot, "r")
    await wait_for(
        pilot,
        lambda: (
            app.connection is ConnectionState.CONNECTED
            and app.active_view is not None
            and list(app.active_view.transcript.query(Marker))
        ),
    )


async def test_restart_reloads_the_session_below_the_old_transcript(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo before the crash")
        view = app.active_view
        old_id = view.session.id
        await crash_and_restart(pilot)
        assert app.active_view is view  # the same tab, the same transcript
        assert view.session.id == old_id  # the demo can load sessions: reloaded
        marker = view.transcript.query_one(Marker)
        assert "session reloaded" in str(marker.render())
        assert (
            transcript_source(app).count("before the crash") == 2
        )  # prompt and echo, not replayed
        await send(pilot, "echo after")
        assert "after" in view.session.state.last_agent_text()
        sources = transcript_source(app)
        assert sources.index("before the crash") < sources.index("echo after")


async def test_restart_resumes_when_the_agent_can_only_resume(scripted):
    script = {
        "capabilities": {"sessionCapabilities": {"resume": {}}},
        "prompts": {**CRASH, **ECHO},
    }
    app = scripted(script)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        old_id = app.active_view.session.id
        await crash_and_restart(pilot)
        view = app.active_view
        assert view.session.id == old_id
        assert "session resumed" in str(view.transcript.query_one(Marker).render())
        assert any(f.get("method") == "session/resume" for f in app.agent_log())


async def test_restart_opens_a_new_session_when_the_agent_cannot_reload(scripted):
    app = scripted({"prompts": {**CRASH, **ECHO}})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        view = app.active_view
        await crash_and_restart(pilot)
        assert app.active_view is view
        assert "new session" in str(view.transcript.query_one(Marker).render())
        assert "crash" in transcript_source(app)  # the old prompt is still there
        await send(pilot, "echo again")
        assert view.session.state.last_agent_text() == "echoed"


async def test_crash_report_shows_stderr_inert(scripted):
    app = scripted({"prompts": CRASH})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "crash", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        shown = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "code 7" in shown
        assert "\\x1b[31mred" in shown and "[bold]x[/bold]" in shown
        assert "\x1b" not in shown
