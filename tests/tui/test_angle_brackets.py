"""Text in angle brackets is shown as written, in the user's prompt and in the agent's answer.

Markdown allows inline HTML; the transcript's Markdown widget does not draw it, so
``List<String>`` read ``List`` and ``<div>hi</div>`` read ``hi``. Agent and user text
is never HTML to us: the transcript shows it as characters.
"""

from __future__ import annotations

from .conftest import ready, screen_text, send

TEXT = "echo List<String> and <div>hi</div> and <b>x</b>"


async def test_angle_brackets_are_shown_as_text(make_app):
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, TEXT)
        # Below the tab bar, whose label is the prompt's first words.
        screen = "\n".join(screen_text(app).splitlines()[1:])
    # Once in the user's prompt, once in the agent's echo.
    assert screen.count("List<String>") == 2, screen
    assert screen.count("<div>hi</div>") == 2, screen
    assert screen.count("<b>x</b>") == 2, screen
