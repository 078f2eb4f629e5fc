"""The CLI renderers, rendering into a StringIO (a Rich console for the terminal one)."""

from __future__ import annotations

import io
import os

import pytest
from rich.console import Console

from acphost import schema as s
from acphost.cli._batch_view import RichView, make_view
from acphost.cli._edge import Edge, is_styled_terminal, is_terminal
from acphost.cli._lines import (
    compaction_line,
    describe,
    notice_line,
    tool_line,
)
from acphost.cli._live import RichRenderer, block_end
from acphost.cli._render import PlainRenderer
from acphost.client import SessionState, ToolCallState
from tests.cli.terminal import screen

EVIL = "\x1b]52;c;ZXZpbA==\x07\rX\u202eY"


def chunk(text, message_id=None):
    return s.AgentMessageChunk(content=s.TextContentBlock(text=text), message_id=message_id)


def thought(text):
    return s.AgentThoughtChunk(content=s.TextContentBlock(text=text))


def tool_start(title="Read", kind="read", **kw):
    return s.ToolCallStart(tool_call_id="t1", title=title, kind=kind, status="pending", **kw)


def feed(renderer, state, updates):
    for u in updates:
        state.apply(u)
        renderer.update(u)
    renderer.close()


def plain(updates, **kw):
    out = io.StringIO()
    state = SessionState()
    feed(PlainRenderer(out, state, **kw), state, updates)
    return out.getvalue()


@pytest.fixture(autouse=True)
def capable_terminal(monkeypatch):
    """The terminal these tests mean (rich reads ``TERM``), not the runner's.

    On ``TERM=dumb`` rich cannot move the cursor, so a redrawn live display
    would be appended again; acphost never renders with rich there
    (``test_only_a_terminal_that_can_redraw_is_styled``).
    """
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in (
        "NO_COLOR",
        "FORCE_COLOR",
        "COLUMNS",
        "LINES",
        "TTY_COMPATIBLE",
        "TTY_INTERACTIVE",
    ):
        monkeypatch.delenv(name, raising=False)


def rich(updates, *, width=60, height=20, interval=0.0):
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        height=height,
        force_terminal=True,
        color_system=None,
        markup=False,
        emoji=False,
        highlight=False,
    )
    state = SessionState()
    feed(RichRenderer(console, state, interval=interval), state, updates)
    return out.getvalue()


# -- plain text ---------------------------------------------------------------------


def test_plain_tags_start_their_own_line_and_text_streams():
    out = plain(
        [
            chunk("Hello "),
            chunk("world"),
            s.PlanUpdate(entries=[s.PlanEntry(content="Look", priority="high", status="pending")]),
            tool_start(locations=[s.ToolCallLocation(path="/a.py", line=3)]),
            s.ToolCallProgress(
                tool_call_id="t1",
                status="completed",
                content=[s.DiffToolCallContent(path="/a.py", old_text="a\n", new_text="b\n")],
            ),
            s.AvailableCommandsUpdate(
                available_commands=[s.AvailableCommand(name="help", description="h")]
            ),
            chunk("bye"),
        ]
    )
    assert out == (
        "Hello world\n"
        "[plan]\n  · Look (high)\n"
        "[tool] Read (read) pending @ /a.py:3\n"
        "[tool] Read (read) completed @ /a.py:3\n"
        "[diff] /a.py\n@@ -1 +1 @@\n-a\n+b\n"
        "bye\n"  # the commands are session state: --list-commands shows them
    )


def test_plain_thoughts_are_prefixed_lines():
    out = plain([thought("first li"), thought("ne\nsecond\n"), chunk("answer")])
    assert out == "[thought] first line\n[thought] second\nanswer\n"


def test_simple_separates_consecutive_messages_with_a_blank_line():
    out = plain(
        [
            chunk("one."),
            tool_start(),
            chunk("two\n"),
            chunk("three", message_id="m2"),
            chunk(" more", message_id="m2"),
            thought("hidden"),
        ],
        simple=True,
    )
    assert out == "one.\n\ntwo\n\nthree more\n"


def test_plain_is_exact_when_piped_and_escaped_on_a_terminal():
    updates = [chunk("a" + EVIL + "\r"), chunk("\nb")]
    assert plain(updates) == "a" + EVIL + "\r\nb\n"
    shown = plain(updates, terminal=True)
    assert "\x1b" not in shown and "\u202e" not in shown
    # The CRLF split across chunks stays one line end.
    assert shown == "a\\x1b]52;c;ZXZpbA==\\x07\\rX<U+202E>Y\nb\n"


class CountingOut(io.StringIO):
    """A stdout that counts its writes and flushes."""

    def __init__(self):
        super().__init__()
        self.writes = 0
        self.flushes = 0

    def write(self, text):
        self.writes += 1
        return super().write(text)

    def flush(self):
        self.flushes += 1


class Loop:
    """``call_soon`` without a loop: callbacks run when the test says the loop is idle."""

    def __init__(self):
        self.ready = []

    def call_soon(self, callback):
        self.ready.append(callback)

    def idle(self):
        ready, self.ready = self.ready, []
        for callback in ready:
            callback()


MIXED = [
    thought("pondering\nmore "),
    thought("thoughts"),
    chunk("Hello "),
    chunk("wor"),
    chunk("ld\r"),
    chunk("\nnext", message_id="m1"),
    chunk(" line", message_id="m1"),
    chunk("other", message_id="m2"),
    tool_start(locations=[s.ToolCallLocation(path="/a.py", line=3)]),
    s.Notice(severity="warning", title="slow " + EVIL),
    chunk("after " + EVIL),
    s.ToolCallProgress(
        tool_call_id="t1",
        status="completed",
        content=[s.DiffToolCallContent(path="/a.py", old_text="a\n", new_text="b\n")],
    ),
    s.PlanUpdate(entries=[s.PlanEntry(content="Look", priority="high", status="pending")]),
    chunk("bye"),
]


@pytest.mark.parametrize("simple", [False, True])
@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("burst", [1, 2, 3, 100])
def test_batched_writes_are_byte_identical_to_writing_each_update(simple, terminal, burst):
    """Chunks written once per turn of the loop: the same bytes, on stdout and stderr."""
    updates = MIXED * 3
    out, err = io.StringIO(), io.StringIO()
    state = SessionState()
    feed(PlainRenderer(out, state, simple=simple, terminal=terminal, err=err), state, updates)

    batched, batched_err = CountingOut(), io.StringIO()
    loop = Loop()
    state = SessionState()
    renderer = PlainRenderer(
        batched, state, simple=simple, terminal=terminal, defer=loop.call_soon, err=batched_err
    )
    for i, update in enumerate(updates):
        state.apply(update)
        renderer.update(update)
        if i % burst == burst - 1:
            loop.idle()
    renderer.close()
    loop.idle()
    assert batched.getvalue() == out.getvalue()
    assert batched_err.getvalue() == err.getvalue()
    assert batched.getvalue() and err.getvalue().count("[notice]") == 3


def test_a_burst_of_chunks_costs_one_write_and_one_flush():
    out = CountingOut()
    loop = Loop()
    state = SessionState()
    renderer = PlainRenderer(out, state, defer=loop.call_soon)
    for i in range(1000):
        renderer.update(chunk(f"{i} "))
    assert out.writes == 0 and len(loop.ready) == 1
    loop.idle()
    assert (out.writes, out.flushes) == (1, 1)
    assert out.getvalue() == "".join(f"{i} " for i in range(1000))


class FullDisk(io.StringIO):
    def flush(self):
        raise OSError(28, "No space left on device")


def test_a_failed_deferred_flush_is_reported_once_and_nothing_more_is_written():
    errors = []
    loop = Loop()
    state = SessionState()
    out = FullDisk()
    renderer = PlainRenderer(out, state, defer=loop.call_soon, on_error=errors.append)
    renderer.update(chunk("one"))
    loop.idle()
    renderer.update(chunk("two"))
    loop.idle()
    renderer.close()
    assert [e.errno for e in errors] == [28]
    assert out.getvalue() == "one"  # what the failed flush held; nothing after it


# -- the terminal ---------------------------------------------------------------------


def test_terminal_renders_markdown_and_prints_each_block_once():
    text = "# Title\n\nSome **bold** words.\n\n- one\n- two\n\n```py\nx = 1\n```\n\nThe end."
    updates = [chunk(text[i : i + 3]) for i in range(0, len(text), 3)]
    out = rich(updates)
    lines = [line.strip() for line in screen(out, cols=60)]
    for expected in ("Title", "Some bold words.", "• one", "• two", "x = 1", "The end."):
        assert lines.count(expected) == 1, (expected, lines)
    assert "**" not in "".join(lines) and "```" not in "".join(lines)


def test_terminal_output_grows_linearly_with_the_stream():
    # Redrawing after every chunk (interval 0) is the worst case.
    small = len(rich([chunk(f"word{i} ") for i in range(400)]))
    large = len(rich([chunk(f"word{i} ") for i in range(1600)]))
    assert large < 5 * small  # quadratic would be 16x


def test_terminal_giant_paragraph_and_code_block_show_every_piece_once():
    words = [chunk(f"w{i} ") for i in range(3000)]
    shown = " ".join(screen(rich(words), cols=60)).split()
    assert shown == [f"w{i}" for i in range(3000)]
    code = [chunk("```\n")] + [chunk(f"line {i}\n") for i in range(1500)] + [chunk("```\n")]
    lines = [line.strip() for line in screen(rich(code), cols=60) if line.strip()]
    assert lines == [f"line {i}" for i in range(1500)]


def test_terminal_never_interprets_agent_text():
    out = rich([chunk("[bold red]not markup[/bold red] " + EVIL), thought("t " + EVIL)])
    assert "\x1b]52" not in out and "\u202e" not in out
    shown = "\n".join(screen(out, cols=60))
    assert "[bold red]not markup[/bold red]" in shown
    assert "[thought] t \\x1b]52;c;ZXZpbA==\\x07\\rX<U+202E>Y" in shown


def test_terminal_links_show_their_target():
    shown = "\n".join(screen(rich([chunk("see [docs](https://evil.example/x)")]), cols=60))
    assert "https://evil.example/x" in shown


def test_terminal_tags_match_the_piped_tags():
    updates = [thought("why"), chunk("hi"), tool_start(), s.PlanUpdate(entries=[])]
    shown = [line.rstrip() for line in screen(rich(updates), cols=60) if line.strip()]
    assert shown == [line for line in plain(updates).splitlines() if line]


# -- what updates show ----------------------------------------------------------------


def test_notice_compaction_and_tool_name_lines():
    edge = Edge(terminal=True)
    line = notice_line("warning", "quota " + EVIL, edge)
    assert line.stderr and line.text.startswith("[notice] warning: quota \\x1b]52")
    assert compaction_line("in_progress", edge).text == "[compaction] started"
    assert compaction_line("failed", edge).text == "[compaction] failed"
    call = ToolCallState("t", title="Edit a.py", kind="edit", name="fs")
    assert tool_line(call, "completed", edge).text == "[tool] fs: Edit a.py (edit) completed"
    same = ToolCallState("t", title="a.py", kind="edit", name="Edit")  # the kind says it
    assert tool_line(same, "completed", edge).text == "[tool] a.py (edit) completed"


def test_describe_ignores_updates_the_transcript_does_not_show():
    state = SessionState()
    assert describe(s.CurrentModeUpdate(current_mode_id="code"), state, Edge(False)) == []


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("one paragraph still open", 0),
        ("first\n\nsecond", 7),
        ("first\n\n", 0),
        ("- a\n\n  still a\n", 0),
        ("```py\nx\n\ny\n", 0),
        ("```py\nx\n```\nafter", 12),
        ("a\n\n```\ncode\n\nmore", 3),
        ("~~~\n```\n~~~\n", 12),
    ],
)
def test_block_end(src, expected):
    assert block_end(src) == expected


# -- which terminal is styled -----------------------------------------------------------


@pytest.fixture
def pty_stream():
    """A real terminal (the slave side of a pty) as a text stream."""
    master, slave = os.openpty()
    stream = open(slave, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    yield stream
    stream.close()
    os.close(master)


@pytest.mark.parametrize(
    ("term", "styled"),
    [
        ("xterm-256color", True),
        ("screen", True),
        ("dumb", False),
        ("DUMB", False),
        ("unknown", False),  # rich takes it as dumb: it would not move the cursor
        ("", False),
        (None, False),  # no TERM at all: nothing says the terminal understands escapes
    ],
)
def test_only_a_terminal_that_can_redraw_is_styled(monkeypatch, pty_stream, term, styled):
    monkeypatch.delenv("TERM", raising=False)
    if term is not None:
        monkeypatch.setenv("TERM", term)
    assert is_terminal(pty_stream)
    assert is_styled_terminal(pty_stream) is styled
    # The other faces take the same decision: batch progress, history tables.
    assert isinstance(make_view(pty_stream), RichView) is styled
    assert not is_styled_terminal(io.StringIO())  # a pipe or a file never is


def test_terminal_shows_text_in_angle_brackets():
    """Markdown's inline and block HTML is text on a terminal: it used to vanish
    (``List<String>`` read ``List``, a ``<div>`` line was dropped)."""
    updates = [chunk("A List<String> and <b>x</b>.\n\n<div>hi</div>\n\nend")]
    shown = "\n".join(screen(rich(updates), cols=60))
    assert "List<String>" in shown
    assert "<b>x</b>" in shown
    assert "<div>hi</div>" in shown
    assert "end" in shown


def test_a_finished_message_shows_text_in_angle_brackets():
    from acphost.cli._edge import agent_markdown

    out = io.StringIO()
    console = Console(file=out, width=60, force_terminal=True, color_system=None)
    console.print(agent_markdown("<span>a</span> Map<K, V>"))
    assert "<span>a</span> Map<K, V>" in out.getvalue()


def test_media_blocks_are_placeholder_lines_piped_and_on_a_terminal():
    """An image, audio or resource in a message printed as a blank line."""
    image = s.AgentMessageChunk(
        content=s.ImageContentBlock(data="AAAA", mime_type="image/png", uri="file:///a.png")
    )
    updates = [chunk("look:\n"), image, chunk("done")]
    expected = "[image] file:///a.png · image/png · 3 B"
    assert expected in plain(updates).splitlines()
    assert expected in [line.rstrip() for line in screen(rich(updates), cols=60)]
    assert "[image]" not in plain(updates, simple=True)
