"""The transcript follows the newest output until the user scrolls up (120x35)."""

from __future__ import annotations

from textual.widgets import Static

from .conftest import ready, screen_text, send, wait_for

WIDE = (120, 35)


async def test_the_transcript_follows_new_output_once_it_overflows(make_app):
    """The view stopped at the prompt that first overflowed the pane (Z11 of 16):
    Textual sends no Resize when only the content grows, and only a Resize
    started following."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        for i in range(1, 17):
            await send(pilot, f"echo Z{i}")
            await wait_for(pilot, lambda i=i: f" Z{i} " in screen_text(app))
        transcript = app.active_view.transcript
        assert transcript.max_scroll_y > 0  # it did overflow


async def test_scrolled_up_stays_put_and_follows_again_at_the_end(make_app):
    """Scrolled up, the view stays where the user put it while output arrives;
    back at the end, it follows again."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        for i in range(1, 15):
            await send(pilot, f"echo Z{i}")
        transcript = app.active_view.transcript
        await wait_for(pilot, lambda: " Z14 " in screen_text(app))
        await pilot.press("shift+tab")  # from the prompt to the transcript
        assert app.focused is transcript
        await pilot.press("pageup")
        await wait_for(pilot, lambda: " Z14 " not in screen_text(app))
        where = transcript.scroll_y
        await send(pilot, "echo Z15")
        assert transcript.scroll_y == where
        assert " Z15 " not in screen_text(app)
        await pilot.press("shift+tab")
        assert app.focused is transcript
        await pilot.press("end")
        await wait_for(pilot, lambda: " Z15 " in screen_text(app))
        await send(pilot, "echo Z16")
        await wait_for(pilot, lambda: " Z16 " in screen_text(app))


async def test_a_conversation_that_fits_again_is_shown_from_its_top(make_app):
    """A block that overflowed the pane, then settled shorter, left the view
    anchored and scrolled past the conversation's start (a blank line at the top)."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        transcript = app.active_view.transcript
        tall = Static("\n".join(f"line {n}" for n in range(60)))
        await transcript.mount(tall)  # as a streaming block that overflowed the pane
        await wait_for(pilot, lambda: transcript.is_anchored and "line 59" in screen_text(app))
        await tall.remove()  # and settled shorter
        await wait_for(pilot, lambda: not transcript.is_anchored)
        await wait_for(pilot, lambda: "acphost · Agent Client Protocol" in screen_text(app))
        assert transcript.scroll_y == 0
