"""The terminal renderer's open block: a long plain paragraph costs what its last screen costs.

The renderer redraws the open Markdown block as it grows; a paragraph of
thousands of lines (the demo's ``flood``, a log, a line-per-chunk stream)
must not be rendered whole at every redraw, and what it prints must be what
rendering the whole message at once prints.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from acphost import schema as s
from acphost.cli import _live
from acphost.cli._edge import agent_markdown
from acphost.client import SessionState
from tests.cli.terminal import screen

WIDTH, HEIGHT = 40, 10


class _StoppedClock:
    """A clock that never moves: the renderer redraws after every chunk (its worst case)."""

    @staticmethod
    def monotonic() -> float:
        return 0.0


@pytest.fixture(autouse=True)
def every_chunk_redraws(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(_live, "time", _StoppedClock)


def console(out: io.StringIO) -> Console:
    return Console(
        file=out,
        width=WIDTH,
        height=HEIGHT,
        force_terminal=True,
        color_system="truecolor",
        markup=False,
        emoji=False,
        highlight=False,
    )


def stream(parts: list[str]) -> str:
    out = io.StringIO()
    state = SessionState()
    renderer = _live.RichRenderer(console(out), state, interval=0.0)
    for part in parts:
        update = s.AgentMessageChunk(content=s.TextContentBlock(text=part))
        state.apply(update)
        renderer.update(update)
    renderer.close()
    return out.getvalue()


def at_once(text: str) -> list[str]:
    out = io.StringIO()
    console(out).print(agent_markdown(text))
    return screen(out.getvalue(), cols=WIDTH)


def test_a_long_plain_paragraph_is_not_rendered_whole_at_each_redraw(monkeypatch):
    rendered = []
    render = _live._Stream._render

    def counting(self, src):
        lines = render(self, src)
        rendered.append(len(lines))
        return lines

    monkeypatch.setattr(_live._Stream, "_render", counting)
    n = 300
    shown = screen(stream([f"flood {i}\n" for i in range(n)]), cols=WIDTH)
    assert [line.rstrip() for line in shown if line.strip()] == [f"flood {i}" for i in range(n)]
    # One redraw per chunk, each of at most a screenful (rendering the
    # whole paragraph each time would be n * n / 2 lines).
    assert sum(rendered) < 2 * HEIGHT * n


@pytest.mark.parametrize("size", [7, 64])
def test_a_streamed_paragraph_shows_what_rendering_it_at_once_shows(size):
    text = (
        "An *intro* paragraph.\n\n"
        + "".join(f"flood {i} ça 表\n" for i in range(40))
        + "a line far too long to fit in forty columns, which wraps onto the next one\n"
        + "".join(f"more {i}\n" for i in range(30))
        + "\n"
        + "".join(f"then {i}\n" for i in range(30))
        + "a *star* that closes later\n"
        + "".join(f"inside {i}\n" for i in range(20))
        + "here* and\n"
        + "".join(f"after {i}\n" for i in range(20))
        + "\nList<String> and <b>tags</b>\n\n"
        + "".join(f"last {i}\n" for i in range(25))
        + "The end."
    )
    parts = [text[i : i + size] for i in range(0, len(text), size)]
    assert screen(stream(parts), cols=WIDTH) == at_once(text)


def test_a_paragraph_that_becomes_a_list_keeps_the_list():
    # A list interrupts a paragraph; the lines after it continue the item
    # (lazy continuation), so they are not committed as plain lines.
    text = (
        "".join(f"p{i}\n" for i in range(20))
        + "- item\n"
        + "".join(f"lazy{i}\n" for i in range(20))
    )
    parts = [text[i : i + 5] for i in range(0, len(text), 5)]
    assert screen(stream(parts), cols=WIDTH) == at_once(text)
