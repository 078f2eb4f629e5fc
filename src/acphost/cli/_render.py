"""Rendering a turn's updates as text (``-o text`` piped, ``-o simple``).

Rendering is kept apart from data (after rich and Textual): the
renderers read typed updates and the session state, never frames. What an
update shows is decided once, as lines, in :mod:`._lines`;
:class:`PlainRenderer` writes them as text, the terminal renderer
(``_live.RichRenderer``) styles the same lines.

The assistant's text streams as is. Thoughts stream as ``[thought] `` lines
(``-o text`` only). ``-o simple`` writes the assistant's text alone, with a
blank line between consecutive messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from .. import schema as s
from .. import view as v
from ._edge import ChunkCleaner, Edge, before_stderr, stderr_redacted, warn
from ._lines import THOUGHT_PREFIX, TREE_PIECES, ChildLines, Line, lines_of

if TYPE_CHECKING:
    from ..client import SessionState, Subagent

__all__ = ["PlainRenderer", "Renderer", "make_renderer"]

_STREAMED = v.STREAMED

#: ``call_soon``-like: run the callback once the event loop is idle.
Defer = Callable[[Callable[[], None]], object]


class Renderer(Protocol):
    """Shows one turn's updates as they arrive."""

    def update(self, update: s.SessionUpdate) -> None:
        """Show one update."""
        ...

    def child(self, child: Subagent, update: s.SessionUpdate) -> None:
        """Show one update of a subagent's child session, attributed to it."""
        ...

    def note(self, message: str) -> None:
        """Say ``acphost: message`` on stderr, after what was already shown of the turn."""
        ...

    def close(self) -> None:
        """The turn ended: finish the output (final newline, stop live displays)."""
        ...


class PlainRenderer:
    """Tagged plain text; see the module docstring.

    Args:
        out: where to write (stdout).
        state: the session state, for tool-call titles on partial updates.
        simple: write only the assistant's text.
        terminal: ``out`` is a terminal: agent text is sanitised.
        defer: schedules a flush for when the event loop is idle: the text
            of a burst of chunks is joined and written with one ``write``
            and one ``flush`` per turn of the loop; None writes and flushes
            after every update.
        err: where ``stderr`` lines go.
        on_closed: called once when the reader of ``out`` went away (a
            deferred flush met a broken pipe or a closed file).
        on_error: called once with the error when a deferred flush could not
            write (a full disk, an I/O error); None raises it from the flush.
            Nothing more is written after either.

    """

    def __init__(
        self,
        out: TextIO,
        state: SessionState,
        *,
        simple: bool = False,
        terminal: bool = False,
        defer: Defer | None = None,
        err: TextIO | None = None,
        on_closed: Callable[[], None] | None = None,
        on_error: Callable[[OSError], None] | None = None,
    ) -> None:
        self.out = out
        self._on_closed = on_closed
        self._on_error = on_error
        self._pending: list[str] = []  # written at the next flush
        self._gone = False  # a flush failed: the output is dropped from now on
        self.err = err
        self.state = state
        self.simple = simple
        self.edge = Edge(terminal)
        self._clean = ChunkCleaner(self.edge)
        self._defer = defer
        self._flush_scheduled = False
        self._tail = "\n"  # the last text written (not empty): where the cursor is
        # A chunk of the streaming message goes straight to the pending text
        # (piped output is exact, so there is nothing to clean).
        self._exact_batches = defer is not None and not terminal
        self._stream: str | None = None  # "agent" or "thought" while one streams
        self._message_id: str | None = None
        self._gap = False  # a blank line is due before the next message
        self._viewer = v.Viewer(state)
        self._children: ChildLines | None = None  # made at a subagent's first update

    # -- writing ---------------------------------------------------------------

    def _write(self, text: str) -> None:
        if not text:
            return
        self._tail = text
        if self._defer is None:
            if not self._gone:
                self.out.write(text)
                self.out.flush()
            return
        # Joined and written once per turn of the event loop: a flood of
        # small chunks then costs one write and one system call per read of
        # the pipe, not one per chunk (the bytes are the same).
        self._pending.append(text)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self._defer(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        pending = self._pending
        if self._gone:
            pending.clear()
            return
        try:
            if pending:
                text = "".join(pending)
                pending.clear()
                self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError):
            # The reader went away (`acphost ... | head`): the run stops quietly.
            self._gone = True
            on_closed, self._on_closed = self._on_closed, None
            if on_closed is not None:
                on_closed()
        except OSError as exc:
            # A full disk, an I/O error: in a deferred flush there is no
            # caller to raise to (the event loop would only log it), so the
            # run is told once and stops.
            self._gone = True
            on_error, self._on_error = self._on_error, None
            if on_error is None:
                raise
            on_error(exc)

    def _at_line_start(self) -> bool:
        return self._tail[-1] == "\n"

    def _newline(self) -> None:
        if not self._at_line_start():
            self._write("\n")

    def _end_stream(self) -> None:
        if self._stream is not None:
            self._write(self._clean.flush())
            self._newline()
            self._stream = None

    def _lines(self, lines: list[Line]) -> None:
        out = [line.text for line in lines if not line.stderr]
        if out:
            self._end_stream()
            self._write("\n".join(out) + "\n")
        for line in lines:
            if line.stderr and self.err is not None:
                self._flush()
                before_stderr()
                self.err.write(stderr_redacted(line.text) + "\n")
                self.err.flush()

    # -- updates ---------------------------------------------------------------

    def update(self, update: s.SessionUpdate) -> None:
        """Show one update."""
        if type(update) is _STREAMED and self._stream == "agent":
            # The hot path: one more chunk of the message being written.
            text = update.text
            mid = update.message_id
            if text and (mid is None or mid == self._message_id):
                if self._exact_batches:  # what _write would do, inline
                    self._pending.append(text)
                    self._tail = text
                    if not self._flush_scheduled:
                        self._flush_scheduled = True
                        self._defer(self._flush)  # type: ignore[misc]
                    return
                self._write(self._clean.feed(text))
                return
        pieces = self._viewer.pieces(update)
        if len(pieces) == 1:
            piece = pieces[0]
            if isinstance(piece, v.Text):
                if piece.role == "agent":
                    self._message(piece.text, piece.message_id)
                return
            if isinstance(piece, v.Thought):
                if not self.simple:
                    self._thought(piece.text)
                return
            if isinstance(piece, v.MediaPiece) and piece.role != "tool":
                # A block of a message: a line of the transcript (-o text),
                # not the assistant's text (-o simple); the user's own are not shown.
                if not self.simple and piece.role != "user":
                    self._lines(lines_of(piece, self.edge))
                return
        if pieces and isinstance(pieces[0], TREE_PIECES):
            # The session tree's own lines (a tree update gives only these);
            # -o simple writes only the assistant's text.
            if not self.simple:
                self._lines(self._tree().parent(pieces))
            return
        lines = [line for piece in pieces for line in lines_of(piece, self.edge)]
        if self.simple:
            # What the transcript would show between two runs of message text
            # (a tool call, a plan) ends the first message; usage reports do not.
            if self._stream == "agent" and any(not line.stderr for line in lines):
                self._write(self._clean.flush())
                self._stream = None
                self._gap = True
            # Only the assistant's text on stdout; notices still reach stderr.
            self._lines([line for line in lines if line.stderr])
        elif lines:
            self._lines(lines)

    def _message(self, text: str, mid: str | None) -> None:
        if not text:
            return
        if self._stream == "agent":
            if mid is not None and mid != self._message_id:
                self._write(self._clean.flush())
                self._gap = True
        else:
            self._end_stream()
        if self._gap:
            self._write("\n" if self._at_line_start() else "\n\n")
            self._gap = False
        self._stream = "agent"
        self._message_id = mid
        self._write(self._clean.feed(text))

    def _thought(self, text: str) -> None:
        if not text:
            return
        if self._stream != "thought":
            self._end_stream()
            self._stream = "thought"
        start = self._at_line_start()
        pieces: list[str] = []
        for i, part in enumerate(self._clean.feed(text).split("\n")):
            if i:
                pieces.append("\n")
                start = True
            if part:
                if start:
                    pieces.append(THOUGHT_PREFIX)
                pieces.append(part)
                start = False
        self._write("".join(pieces))

    def note(self, message: str) -> None:
        """Say ``acphost: message`` on stderr, after what was already shown of the turn.

        The text still waiting for its deferred flush is written first; on a
        terminal the line being written is ended, so the note gets a line of
        its own below it (piped output stays the agent's exact text).
        """
        if self.edge.terminal and self._stream is not None and not self._at_line_start():
            self._write("\n")
        self._flush()
        warn(message, stream=self.err)

    def child(self, child: Subagent, update: s.SessionUpdate) -> None:
        """Show one update of a subagent's child session: lines tagged ``[label]``.

        Not in ``-o simple``, which writes only the assistant's own text.
        """
        if self.simple:
            return
        lines = self._tree().lines(child, update)
        if lines:
            self._lines(lines)

    def _tree(self) -> ChildLines:
        if self._children is None:
            self._children = ChildLines(self.edge)
        return self._children

    def close(self) -> None:
        """End with a newline when text was written, and flush."""
        self._end_stream()
        if self._children is not None:
            self._lines(self._children.flush())
        self._flush()


def make_renderer(
    out: TextIO,
    err: TextIO,
    state: SessionState,
    *,
    output: str,
    styled: bool,
    terminal: bool,
    defer: Defer,
    call_later: Any,
    on_closed: Callable[[], None],
    on_error: Callable[[OSError], None],
    width: int | None = None,
    height: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> Renderer:
    """The renderer of a turn for one output: styled on a capable terminal, else plain.

    Args:
        out: the turn's stdout.
        err: its stderr.
        state: the session's state.
        output: ``text`` or ``simple``.
        styled: ``out`` is a terminal acphost styles (``-o text`` only).
        terminal: ``out`` is a terminal (agent text is sanitised).
        defer: the loop's ``call_soon``.
        call_later: the loop's ``call_later``, for redraws.
        on_closed: called when the reader of ``out`` went away.
        on_error: called when ``out`` could not be written.
        width: the terminal's columns, when ``out`` is not this process's own.
        height: its lines, likewise.
        environ: the variables of the terminal's process (``TERM``,
            ``NO_COLOR``...), when not this process's.

    """
    if styled:
        from rich.console import Console  # noqa: PLC0415 - rich loads only for a TTY

        from ._live import RichRenderer  # noqa: PLC0415

        extra: dict[str, Any] = {} if environ is None else {"_environ": dict(environ)}
        console = Console(
            file=out,
            markup=False,
            emoji=False,
            highlight=False,
            width=width,
            height=height,
            **extra,
        )
        return RichRenderer(console, state, call_later=call_later, err=err)
    return PlainRenderer(
        out,
        state,
        simple=output == "simple",
        terminal=terminal,
        defer=defer,
        err=err,
        on_closed=on_closed,
        on_error=on_error,
    )
