"""The terminal renderer (``-o text`` on a TTY): Markdown streamed in linear time.

A streamed message is Markdown, and Markdown cannot be rendered piece by
piece: a later chunk can turn a line into a heading or close a code block.
Re-rendering the whole message for every chunk costs time quadratic in its
length, and a live display taller than the screen leaves copies of itself
in the scrollback. So the message is split as it grows:

- **finished blocks** (everything before a blank line, outside code
  fences; a closed fence) are rendered and printed once, above the live
  region, and never touched again;
- the **open block** (the paragraph, list or code block still being
  written) is re-rendered in a live region of at most the screen's height;
  its lines that scroll out of that region are printed for good as they go.
  Redraws are spaced by at least ``interval`` seconds and by four times the
  time the last one took, so however long one block grows, redrawing takes
  at most a fifth of the time: the stream is never slowed more than that.
- a **plain paragraph** (lines of words without Markdown syntax, each
  shown as one line: a log, a line-per-chunk stream) is not re-rendered
  whole: its lines that scroll out of the region are printed straight
  from the source and leave the open block, so a paragraph of any length
  costs what its last screenful costs (:meth:`_Stream.commit_plain`).

Agent text is
sanitised before it is parsed (so no escape sequence survives into the
output), parsed as Markdown with hyperlinks off (a link shows its target)
and never as Rich markup.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from .. import view as v
from ._edge import ChunkCleaner, Edge, is_held, markdown_class, set_stderr_hook, warn
from ._lines import THOUGHT_PREFIX, TREE_PIECES, ChildLines, Line, lines_of

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.segment import Segment

    from .. import schema as s
    from ..client import SessionState, Subagent

__all__ = ["LiveRegion", "RichRenderer", "block_end"]

# Redraws are spaced by at least this many times the last one's duration.
_SPACING = 4.0

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")

# A line of a paragraph that Markdown shows as it is: it starts with a letter
# (so it starts no block: no list, heading, quote, fence, rule, table, HTML,
# indented code, setext underline; CommonMark "Blocks and inlines") and holds
# no character that opens an inline construct, an escape or an entity (code
# spans, emphasis, strikethrough, links, images, autolinks, tables' pipes), so
# nothing written after it can change how it reads, but a setext underline,
# which turns the whole paragraph into a heading (only lines already scrolled
# out of the region are committed, as any block's are).
_PLAIN = re.compile(r"[^\W\d_][^\x00-\x1f\x7f\\`*_\[\]!<>&~|]*")

#: ``loop.call_later``: run a callback after a delay.
CallLater = Callable[[float, Callable[[], None]], object]


def block_end(src: str) -> int:
    """Where the finished Markdown blocks of ``src`` end (0: none is finished).

    A block is finished when a line that is neither blank nor indented
    follows a blank line (an indented one continues a list item), or when a
    code fence closes.

    Args:
        src: the Markdown received so far.

    Returns:
        The offset after the last finished block.

    """
    end = 0
    fence = False
    marker = ""
    blank = False
    pos = 0
    n = len(src)
    while pos < n:
        nl = src.find("\n", pos)
        complete = nl >= 0
        line = src[pos : nl if complete else n]
        if fence:
            if complete:
                m = _FENCE.match(line)
                closes = m and m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker)
                if m and closes and not line[m.end() :].strip():
                    fence = False
                    end = nl + 1
        elif not line.strip():
            blank = complete or blank
        else:
            if blank and line[0] not in " \t":
                end = pos
            blank = False
            m = _FENCE.match(line)
            if m and complete and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
                fence, marker = True, m.group(1)
        if not complete:
            break
        pos = nl + 1
    return end


class LiveRegion:
    """The bottom lines of the terminal, redrawn in place.

    Every line of the region ends with a newline, so the cursor waits at
    the start of the line below it: whatever the terminal echoes there
    (``^C``, keys typed ahead) cannot wrap into the region, and erasing
    clears that line, then each region line upwards. Everything printed for
    good goes through :meth:`emit`, which erases the region first.

    Args:
        console: the Rich console writing to the terminal.

    """

    def __init__(self, console: Console) -> None:
        from rich.control import Control  # noqa: PLC0415 - rich loads only for a TTY
        from rich.segment import Segment, Segments  # noqa: PLC0415

        self._control = Control
        self._segment = Segment
        self._segments = Segments
        self.console = console
        self.height = 0

    @property
    def room(self) -> int:
        """How many lines the region may take (the screen less one)."""
        return max(1, self.console.height - 1)

    def _erase(self) -> None:
        if self.height:
            from rich.segment import ControlType  # noqa: PLC0415

            codes: list[Any] = [(ControlType.CARRIAGE_RETURN,), (ControlType.ERASE_IN_LINE, 2)]
            codes += [(ControlType.CURSOR_UP, 1), (ControlType.ERASE_IN_LINE, 2)] * self.height
            self.console.control(self._control(*codes))
            self.height = 0

    def erase(self) -> None:
        """Remove the region from the screen (it is drawn again by the next :meth:`show`)."""
        with self.console:
            self._erase()

    def _write(self, lines: list[list[Segment]]) -> None:
        segments: list[Segment] = []
        newline = self._segment.line()
        for line in lines:
            segments.extend(line)
            segments.append(newline)
        if segments:
            self.console.print(self._segments(segments), end="", crop=False, soft_wrap=True)

    def show(self, lines: list[list[Segment]]) -> None:
        """Replace the region's content with (the last screenful of) ``lines``."""
        lines = lines[-self.room :]
        with self.console:
            self._erase()
            self._write(lines)
            self.height = len(lines)

    def emit(self, lines: list[list[Segment]]) -> None:
        """Print ``lines`` for good, above the region."""
        if not lines:
            return
        with self.console:
            self._erase()
            self._write(lines)


class _Stream:
    """One streamed message (Markdown) or thought (plain lines) on the terminal."""

    def __init__(self, region: LiveRegion, markdown: bool, *, gap: bool = False) -> None:
        self.region = region
        self.console = region.console
        self.markdown = markdown
        self.pending: list[str] = []
        self.src = ""  # the open block's source
        self.printed = 0  # lines of the open block already printed for good
        # Finished blocks printed; a message after another starts as if one
        # was, so a blank line parts them.
        self.blocks = 1 if gap else 0
        # The open block's start was committed (a plain paragraph's lines):
        # what is left continues it, without a blank line before.
        self.continued = False
        self.plain = 0  # leading lines of the open block known to be plain
        self.mixed = False  # the open block is not a plain paragraph
        if markdown:
            self._markdown = markdown_class()
        else:
            from rich.text import Text  # noqa: PLC0415

            self._text = Text
        from rich.segment import Segment  # noqa: PLC0415

        self._segment = Segment

    def _render(self, src: str) -> list[list[Segment]]:
        renderable: RenderableType
        if self.markdown:
            renderable = self._markdown(src, hyperlinks=False)
        else:
            text = "\n".join(THOUGHT_PREFIX + part for part in src.rstrip("\n").split("\n"))
            renderable = self._text(text, style="dim italic")
        lines = self.console.render_lines(renderable, self.console.options, pad=False)
        if self.markdown and self.blocks and not self.continued and lines and lines[0]:
            # A blank line between blocks, as one render of the whole would have.
            lines.insert(0, [])
        return lines

    def _finish(self, src: str) -> None:
        """Print a finished block (less its lines already printed)."""
        lines = self._render(src)
        self.region.emit(lines[self.printed :])
        self.printed = 0
        self.blocks += 1
        self.continued = self.mixed = False
        self.plain = 0

    def commit_plain(self, src: str, keep: int) -> str:
        """Print the lines of a plain paragraph that scrolled out; return the rest of ``src``.

        While every line of the open block is plain (``_PLAIN``) and fits
        the width, its Markdown rendering is its lines as they are, one
        each, padded to the width (rich's left-justified paragraph): the
        lines but the last ``keep`` complete ones (the region's room; one
        at the end, so that what is left starts with a line known to be
        plain) are printed from the source and leave the block, which then
        continues from the first line kept.
        Each line is checked once. The first line that is not plain ends
        this for the block (what follows it may depend on it: a list's
        lazy continuation, a span); the rest is rendered whole, as always.
        """
        if self.mixed:
            return src
        lines = src.split("\n")
        cut = len(lines) - 1 - keep  # complete lines that scrolled out
        if cut <= 0:
            return src
        from rich.cells import cell_len  # noqa: PLC0415 - rich loads only for a TTY

        width = self.console.width
        while self.plain < cut:
            line = lines[self.plain]
            fits = len(line) <= width if line.isascii() else cell_len(line) <= width
            if not (fits and _PLAIN.fullmatch(line) and not line[-1].isspace()):
                # What follows is read in the paragraph's context: the block
                # goes on from the last plain line, and is rendered whole.
                self.mixed = True
                cut = self.plain - 1
                break
            self.plain += 1
        if cut <= 0:
            return src
        lead = 1 if self.blocks and not self.continued else 0
        out: list[list[Segment]] = [[]] if lead and not self.printed else []
        out.extend(
            [self._segment(line + " " * (width - cell_len(line)))]
            for line in lines[max(0, self.printed - lead) : cut]
        )
        self.region.emit(out)
        self.printed = max(0, self.printed - lead - cut)
        self.plain -= cut
        self.continued = True
        return "\n".join(lines[cut:])

    def refresh(self, *, final: bool = False) -> None:
        """Take in what arrived, print what is finished, redraw the open block."""
        if self.pending:
            self.src += "".join(self.pending)
            self.pending.clear()
        src = self.src
        if final:
            if self.markdown:
                src = self.commit_plain(src, 1)
            if src.strip():
                self._finish(src)
            self.src = ""
            self.region.erase()
            return
        cut = block_end(src) if self.markdown else src.rfind("\n") + 1
        if cut:
            self._finish(src[:cut])
            src = self.src = src[cut:]
        if self.markdown:
            src = self.src = self.commit_plain(src, self.region.room)
        if not src:
            self.region.show([])
            return
        lines = self._render(src)
        stable = len(lines) - self.region.room
        if stable > self.printed:
            self.region.emit(lines[self.printed : stable])
            self.printed = stable
        self.region.show(lines[self.printed :])


class RichRenderer:
    """Styled, incremental output of a turn on a terminal; see the module docstring.

    Args:
        console: a ``rich.console.Console`` on the terminal.
        state: the session state.
        call_later: schedules the deferred redraw of a quiet stream (the
            event loop's ``call_later``); None redraws only as updates arrive.
        interval: the least time between two redraws of the open block.
        err: where ``stderr`` lines (notices) go.

    """

    def __init__(
        self,
        console: Console,
        state: SessionState,
        *,
        call_later: CallLater | None = None,
        interval: float = 0.05,
        err: TextIO | None = None,
    ) -> None:
        from rich.text import Text  # noqa: PLC0415 - rich loads only for a TTY

        self._text = Text
        self.console = console
        self.state = state
        self.edge = Edge(terminal=True)
        self.err = err
        self.region = LiveRegion(console)
        self._call_later = call_later
        self._interval = interval
        self._next = 0.0  # no redraw before this time
        self._timer: Any = None
        self._stream: _Stream | None = None
        self._kind: str | None = None
        self._clean = ChunkCleaner(self.edge)
        self._viewer = v.Viewer(state)
        self._message_id: str | None = None
        self._children: ChildLines | None = None  # made at a subagent's first update
        set_stderr_hook(self.region.erase)

    # -- streams -----------------------------------------------------------------

    def _append(self, kind: str, text: str, *, gap: bool = False) -> None:
        if self._kind != kind:
            self._end_stream()
            self._kind = kind
            self._stream = _Stream(self.region, markdown=kind == "agent", gap=gap)
        assert self._stream is not None
        self._stream.pending.append(self._clean.feed(text))
        now = time.monotonic()
        if now >= self._next:
            self._redraw()
        elif self._timer is None and self._call_later is not None:
            self._timer = self._call_later(self._next - now, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._redraw()

    def _redraw(self) -> None:
        if is_held():  # a question is on the terminal: try again later
            if self._timer is None and self._call_later is not None:
                self._timer = self._call_later(max(self._interval, 0.1), self._on_timer)
            return
        started = time.monotonic()
        if self._stream is not None:
            self._stream.refresh()
        now = time.monotonic()
        self._next = now + max(self._interval, _SPACING * (now - started))

    def _end_stream(self) -> None:
        if self._stream is not None:
            self._stream.pending.append(self._clean.flush())
            self._stream.refresh(final=True)
            self._stream = None
            self._kind = None

    # -- updates ------------------------------------------------------------------

    def update(self, update: s.SessionUpdate) -> None:
        """Show one update."""
        pieces = self._viewer.pieces(update)
        if len(pieces) == 1:
            piece = pieces[0]
            # Text streams; a block of other content (an image...) is a line.
            if isinstance(piece, v.Text):
                if piece.role == "agent" and piece.text:
                    mid = piece.message_id
                    gap = False
                    if mid is not None and mid != self._message_id and self._kind == "agent":
                        # A new message: its own Markdown, after a blank line,
                        # as the agent sent them apart (never one paragraph).
                        self._end_stream()
                        gap = True
                    if mid is not None:
                        self._message_id = mid
                    self._append("agent", piece.text, gap=gap)
                return
            if isinstance(piece, v.Thought):
                if piece.text:
                    self._append("thought", piece.text)
                return
            if isinstance(piece, v.MediaPiece) and piece.role == "user":
                return
        if pieces and isinstance(pieces[0], TREE_PIECES):
            lines = self._tree().parent(pieces)  # the session tree's own lines
        else:
            lines = [line for piece in pieces for line in lines_of(piece, self.edge)]
        if not lines:
            return
        if all(line.stderr for line in lines):
            # Beside the transcript (notices): the open block stays open.
            self.show(lines)
            if self._stream is not None:
                self._redraw()
            return
        self._end_stream()
        self.show(lines)

    def show(self, lines: list[Line]) -> None:
        """Print tagged lines (styled; ``stderr`` ones on stderr, plain)."""
        self.region.erase()
        for line in lines:
            if line.stderr:
                if self.err is not None:
                    self.err.write(line.text + "\n")
                    self.err.flush()
            else:
                self.console.print(self._text(line.text, style=line.style or ""), crop=False)

    def child(self, child: Subagent, update: s.SessionUpdate) -> None:
        """Show one update of a subagent's child session: lines tagged ``[label]``."""
        lines = self._tree().lines(child, update)
        if lines:
            self._end_stream()
            self.show(lines)

    def _tree(self) -> ChildLines:
        if self._children is None:
            self._children = ChildLines(self.edge)
        return self._children

    def note(self, message: str) -> None:
        """Say ``acphost: message`` on stderr, below the text already streamed.

        The open block is printed for good first (the live region would
        otherwise be erased for the note and drawn again below it); the
        message goes on after it as a new block.
        """
        self._end_stream()
        warn(message, stream=self.err)

    def close(self) -> None:
        """Print what is still open and leave the terminal as a plain transcript."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._end_stream()
        if self._children is not None:
            rest = self._children.flush()
            if rest:
                self.show(rest)
        set_stderr_hook(None)
