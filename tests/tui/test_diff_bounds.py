"""Diffs and tool cards stay true and bounded whatever the agent sends.

Lines are split on ``\\n`` only; a diff is drawn up to a cap; inputs too large
to compare are summarised, not compared (``difflib`` is quadratic at worst);
a flood of updates to one tool call redraws its card once per frame; an
update for a card no longer on screen is ignored.
"""

from __future__ import annotations

import logging

from acphost import schema as s
from acphost.tui._diff import (
    MAX_INPUT_LINES,
    MAX_SHOWN_LINES,
    diff_lines,
    diff_text,
    split_lines,
)
from acphost.tui._toolcard import DiffView, ToolCard

from .conftest import SIZE, ready, screen_text, send, wait_for

ODD_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def diff(old: str | None, new: str) -> s.DiffToolCallContent:
    return s.DiffToolCallContent(path="/ws/f.txt", old_text=old, new_text=new)


def test_lines_are_split_on_newline_only():
    text = f"one{ODD_BREAKS}still one\ntwo\n"
    assert split_lines(text) == [f"one{ODD_BREAKS}still one", "two"]
    assert split_lines("a\nb") == ["a", "b"] and split_lines("") == []
    lines = diff_lines(diff("a\x0bb\nsame\n", "a\x0bc\nsame\n"))
    assert lines == ["@@ -1,2 +1,2 @@", "-a\x0bb", "+a\x0bc", " same"]
    shown = diff_text(diff("a\u2028b\n", "a\u2028c\n")).plain
    assert shown.count("\n") == 2  # header, one deletion, one addition: three lines


def test_a_long_diff_is_cut_with_the_number_left_out():
    new = "".join(f"line {i}\n" for i in range(1000))
    lines = diff_lines(diff(None, new))
    assert len(lines) == 1001 and lines[0] == "@@ -0,0 +1,1000 @@"
    shown = diff_text(diff(None, new)).plain.split("\n")
    assert len(shown) == MAX_SHOWN_LINES + 1
    assert shown[-1] == f"… {1001 - MAX_SHOWN_LINES} more lines"


def test_inputs_too_large_to_compare_are_summarised():
    # A few hundred distinct values, each a little under difflib's "popular"
    # threshold: the worst case for its matcher.
    half = MAX_INPUT_LINES // 2 + 1
    old = "".join(f"{(i * 7) % 211}\n" for i in range(half))
    new = "".join(f"{(i * 11) % 211}\n" for i in range(half))
    (summary,) = diff_lines(diff(old, new))
    assert summary.startswith(f"(too large to compare: {half:,} lines before, {half:,} after")


HUGE = "".join(f"{(i * 7) % 211}\n" for i in range(30_000))
FLOOD = 2_000


def tool_call(call_id: str, **fields) -> dict:
    return {"update": {"sessionUpdate": "tool_call", "toolCallId": call_id, **fields}}


def progress(call_id: str, **fields) -> dict:
    return {"update": {"sessionUpdate": "tool_call_update", "toolCallId": call_id, **fields}}


SCRIPT = {
    "prompts": {
        "huge": [
            tool_call(
                "big",
                title="Rewrite",
                kind="edit",
                status="completed",
                content=[
                    {"type": "diff", "path": "/ws/big.txt", "oldText": HUGE, "newText": HUGE[::-1]}
                ],
            )
        ],
        "flood": [
            tool_call("f1", title="step 0", kind="execute", status="in_progress"),
            *[progress("f1", title=f"step {i}") for i in range(1, FLOOD)],
            progress("f1", status="completed"),
        ],
        "one": [tool_call("gone", title="soon removed", kind="read", status="in_progress")],
        "two": [progress("gone", title="after removal", status="completed")],
    }
}


async def test_a_huge_diff_is_summarised_in_its_card(scripted):
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "huge")
        view = app.active_view.transcript.query_one(DiffView)
        assert view.diff_text.startswith("(too large to compare: 30,000 lines before")
        assert "too large to compare" in screen_text(app)


async def test_a_flood_of_updates_redraws_the_card_once_a_frame(scripted, monkeypatch):
    redraws: list[str] = []
    original = ToolCard.redraw

    def counting(card: ToolCard) -> None:
        redraws.append(card.call.tool_call_id)
        original(card)

    monkeypatch.setattr(ToolCard, "redraw", counting)
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "flood")
        card = app.active_view.transcript.cards["f1"]
        await wait_for(pilot, lambda: "step 1999" in str(card.header_text()))
        await wait_for(pilot, lambda: "completed" in str(card.query_one(".tool-header").render()))
        assert "step 1999" in str(card.query_one(".tool-header").render())
        # Coalesced: far fewer redraws than updates (one per frame that had any).
        assert redraws.count("f1") * 10 < FLOOD
        # However many ask within one frame, one redraw follows.
        before = len(redraws)
        for _ in range(1000):
            card.refresh_call()
        await wait_for(pilot, lambda: len(redraws) > before)
        await pilot.pause(0.1)
        assert len(redraws) == before + 1


async def test_an_update_for_a_removed_card_is_ignored(scripted, caplog):
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        transcript = app.active_view.transcript
        card = transcript.cards["gone"]
        await card.remove()
        with caplog.at_level(logging.ERROR):
            await send(pilot, "two")
        assert app.active_view.session.state.tool_calls["gone"].status == "completed"
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert app.is_running
