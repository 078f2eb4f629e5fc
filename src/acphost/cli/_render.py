"""Rendering a turn's updates as text (``-o text`` piped, ``-o simple``).

Rendering is kept apart from data (after rich and Textual): the
renderers read typed updates and the session state, never frames.

What an update shows is decided once, in :func:`describe`, as tagged
:class:`Line` items (``[plan]``, ``[tool]``, ``[diff]``, ``[output]``, and for stderr
``[notice]`` and ``[compaction]``);
:class:`PlainRenderer` writes them as text, the terminal renderer
(``_live.RichRenderer``) styles the same lines. A new kind of update is one
entry in ``_DESCRIBERS``.

The assistant's text streams as is. Thoughts stream as ``[thought] `` lines
(``-o text`` only). ``-o simple`` writes the assistant's text alone, with a
blank line between consecutive messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol, TextIO

from .. import schema as s
from .. import view as v
from ._edge import ChunkCleaner, Edge, before_stderr, stderr_redacted, warn

if TYPE_CHECKING:
    from ..client import SessionState, Subagent, ToolCallState

__all__ = [
    "THOUGHT_PREFIX",
    "ChildLines",
    "Line",
    "PlainRenderer",
    "Renderer",
    "compaction_line",
    "describe",
    "diff_lines",
    "lines_of",
    "notice_line",
    "plan_lines",
    "tool_line",
]

_STATUS_MARK = {"completed": "✓", "in_progress": "→", "pending": "·"}
#: What starts each line of the agent's thoughts.
THOUGHT_PREFIX = "[thought] "

_STREAMED = v.STREAMED

#: ``call_soon``-like: run the callback once the event loop is idle.
Defer = Callable[[Callable[[], None]], object]


class Line(NamedTuple):
    """One line of output, already cleaned for its output.

    Attributes:
        text: the line, without a newline.
        style: a Rich style for terminals (ignored in plain text).
        stderr: the line belongs on stderr (notices), not in the transcript.

    """

    text: str
    style: str | None = None
    stderr: bool = False


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


def plan_lines(entries: list[s.PlanEntry], edge: Edge) -> list[Line]:
    """One line per plan entry: a status mark, the entry, its priority when high."""
    return _plan_items(tuple(v.PlanItem(e.content, e.status, e.priority) for e in entries), edge)


def diff_lines(diff: s.DiffToolCallContent) -> list[str]:
    """A unified diff of one ``diff`` content item (``oldText`` may be absent: a new file).

    The ``---``/``+++`` header is left out: it repeats the path the ``[diff]``
    line already shows. Bounded in time (:func:`acphost._difftext.hunk_lines`).
    """
    return v.Diff(diff.path, diff.old_text, diff.new_text).lines()


def _diff_style(line: str) -> str | None:
    if line.startswith("@@"):
        return "cyan"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return None


def _diff_block(item: v.Diff, edge: Edge) -> list[Line]:
    lines = [Line(f"[diff] {edge.field(item.path)}", "bold")]
    lines.extend(Line(edge.text(d), _diff_style(d)) for d in item.lines())
    return lines


def tool_line(call: ToolCallState, status: str | None, edge: Edge) -> Line:
    """``[tool] TITLE (KIND) STATUS @ LOCATIONS`` for one tool call.

    Args:
        call: the merged tool call.
        status: the status this update reports (else the call's).
        edge: how agent text is cleaned for the output.

    Returns:
        The line, coloured by status.

    """
    where = tuple(
        loc.path + (f":{loc.line}" if loc.line is not None else "") for loc in call.locations
    )
    card = v.ToolCard(
        call.tool_call_id,
        call.title or "",
        call.shown_name or "",
        call.kind or "",
        status or call.status or "pending",
        where,
    )
    return _card_line(card, edge)


#: stderr is treated as a terminal always: its lines are one line each, controls visible.
_STDERR = Edge(terminal=True)


def notice_line(severity: str, text: str, edge: Edge = _STDERR) -> Line:
    """``[notice] SEVERITY: TITLE[: DESCRIPTION]``, one line for stderr.

    Notices are not part of the transcript (schema ``Notice``): they go to
    stderr, which is cleaned as a terminal whatever ``edge`` says about stdout.
    """
    style = {"error": "bold red", "warning": "yellow"}.get(severity, "dim")
    clean = _STDERR.field
    return Line(f"[notice] {clean(edge.field(severity))}: {clean(text)}", style, stderr=True)


def compaction_line(status: str, edge: Edge = _STDERR, error: str | None = None) -> Line:
    """``[compaction] started|completed|failed[: ERROR]|cancelled``, one line for stderr.

    The agent compacted its context (schema ``CompactionUpdate``): a fact
    about the session, not part of the answer, so it goes beside the notices.
    """
    shown = {"in_progress": "started"}.get(status, status)
    clean = _STDERR.field
    text = f"[compaction] {clean(edge.field(shown))}"
    if error:
        text += f": {clean(error)}"
    return Line(text, "bold red" if status == "failed" else "dim", stderr=True)


def _plan(piece: v.Plan, edge: Edge) -> list[Line]:
    if piece.first:
        return [Line("[plan]", "bold"), *_plan_items(piece.entries, edge)]
    # A plan update replaces the plan whole (ACP "Agent Plan"); the whole plan
    # was printed once, so what changed is what is new to the reader.
    lines = []
    for change in piece.changes:
        item = change.item
        if change.what == "removed":
            lines.append(Line(f"  - {edge.field(item.content)} (removed)", "dim"))
        else:
            (line,) = _plan_items((item,), edge)
            note = " (added)" if change.what == "added" else ""
            lines.append(Line(line.text + note, line.style))
    return [Line("[plan]", "bold"), *lines] if lines else []


def _plan_items(items: tuple[v.PlanItem, ...], edge: Edge) -> list[Line]:
    lines = []
    for e in items:
        mark = _STATUS_MARK.get(e.status, "?")
        prio = " (high)" if e.priority == "high" else ""
        lines.append(Line(f"  {mark} {edge.field(e.content)}{prio}", "cyan"))
    return lines


def _card_line(card: v.ToolCard, edge: Edge) -> Line:
    title = edge.field(card.title) if card.title else "(untitled)"
    if card.name:
        title = f"{edge.field(card.name)}: {title}"
    kind = edge.field(card.kind) if card.kind else "other"
    text = f"[tool] {title} ({kind}) {edge.field(card.status)}"
    if card.locations:
        text += " @ " + ", ".join(edge.field(where) for where in card.locations)
    colour = {"completed": "green", "failed": "red"}.get(card.status, "yellow")
    return Line(text, colour)


def _reported_output(piece: v.Terminal, edge: Edge) -> list[Line]:
    """``[output] exit code N``, then the output's lines: a terminal the agent ran itself.

    Printed once, when the agent reports the exit (its output arrives in
    pieces that need not end on a line), after the tool line of that update.
    """
    head = f"[output] {edge.field(piece.exit_text)}"
    if piece.truncated:
        head += ", earlier output dropped"
    text = piece.output[:-1] if piece.output.endswith("\n") else piece.output
    lines = [Line(head, "dim")]
    if text:
        lines.extend(Line(edge.text(line)) for line in text.split("\n"))
    return lines


def _tagged(tag: str, text: str, edge: Edge, style: str | None = None) -> list[Line]:
    return [Line(tag + edge.text(part), style) for part in text.split("\n")]


def tree_lines(piece: v.SubagentCard | v.InterMessage, edge: Edge) -> list[Line]:
    """The lines a piece of the tree shows in the parent's output (none when unchanged)."""
    if isinstance(piece, v.SubagentCard):
        if not piece.changed:
            return []
        head = f"[subagent] {edge.field(piece.label)}: {edge.field(piece.status)}"
        if piece.description and piece.description != piece.label and piece.activity == "running":
            head += f" — {edge.field(piece.description)}"
        return [Line(head, "magenta")]
    text = piece.added
    if not text:
        return []
    arrow = "→" if piece.outgoing else "←"
    return _tagged(f"[subagent] {arrow} {edge.field(piece.peer)}: ", text, edge, "magenta")


def lines_of(piece: v.Piece, edge: Edge) -> list[Line]:
    """The lines one piece shows (message text and thoughts stream instead: none).

    Args:
        piece: a piece of the view model.
        edge: how agent text is cleaned for the output.

    Returns:
        The lines, cleaned for the output (``stderr`` ones for stderr).

    """
    if isinstance(piece, v.ToolCard):
        return [_card_line(piece, edge)] if piece.changed else []
    if isinstance(piece, v.Diff):
        return _diff_block(piece, edge)
    if isinstance(piece, v.MediaPiece):
        return [Line(edge.text(piece.line), "dim")]
    if isinstance(piece, v.Plan):
        return _plan(piece, edge)
    if isinstance(piece, v.Notice):
        return [notice_line(piece.severity, piece.text, edge)]
    if isinstance(piece, v.Compaction):
        return [compaction_line(piece.status, edge, piece.error)] if piece.changed else []
    if isinstance(piece, v.Terminal):
        return _reported_output(piece, edge) if piece.ended else []
    if isinstance(piece, (v.SubagentCard, v.InterMessage)):
        return tree_lines(piece, edge)
    # Usage, settings, the host's terminals and unknown kinds are not part of the text.
    # The agent's slash commands are session state, not part of the answer: an
    # available_commands_update may arrive before the turn or during it, as the
    # agent's timing goes, so printing it would make the same run's output differ
    # from one run to the next. --list-commands lists them (waiting for them).
    return []


def describe(
    update: s.SessionUpdate, state: SessionState, edge: Edge, viewer: v.Viewer | None = None
) -> list[Line]:
    """The lines an update shows; empty for updates the transcript does not show.

    Args:
        update: the update (already applied to ``state``).
        state: the session state (tool calls merged from all their updates).
        edge: how agent text is cleaned for the output.
        viewer: the session's viewer (what was shown already: the last
            plan, each compaction's status); None views this update alone.

    Returns:
        The lines, cleaned for the output (``stderr`` ones for stderr).

    """
    pieces = (viewer or v.Viewer(state)).pieces(update)
    return [line for piece in pieces for line in lines_of(piece, edge)]


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
        lines = [line for piece in pieces for line in lines_of(piece, self.edge)]
        if self._children is not None and any(isinstance(p, v.SubagentCard) for p in pieces):
            # A child ended (or changed): its last partial line comes before.
            lines = [
                *(
                    ln
                    for p in pieces
                    if isinstance(p, v.SubagentCard)
                    for ln in self._children.flush(p.session_id)
                ),
                *lines,
            ]
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
        warn(message)

    def child(self, child: Subagent, update: s.SessionUpdate) -> None:
        """Show one update of a subagent's child session: lines tagged ``[label]``.

        Not in ``-o simple``, which writes only the assistant's own text.
        """
        if self.simple:
            return
        if self._children is None:
            self._children = ChildLines(self.edge)
        lines = self._children.lines(child, update)
        if lines:
            self._lines(lines)

    def close(self) -> None:
        """End with a newline when text was written, and flush."""
        self._end_stream()
        if self._children is not None:
            self._lines(self._children.flush())
        self._flush()


# -- subagents ------------------------------------------------------------------------
# A child's own updates are viewed with a viewer of the child's state and each
# line is tagged with its label (``[helper 1] ...``). A child's message text
# streams in chunks that need not end on a line: it is kept until a line is
# complete, so that the lines of two children (and the parent's text) never
# interleave within a line.


class ChildLines:
    """The lines of each subagent's own updates, attributed (see the module docstring).

    Args:
        edge: how agent text is cleaned for the output.

    """

    def __init__(self, edge: Edge) -> None:
        self.edge = edge
        self._viewers: dict[str, v.Viewer] = {}
        self._partial: dict[str, tuple[str, str]] = {}  # id -> (tag, text not yet a line)

    def lines(self, child: Subagent, update: s.SessionUpdate) -> list[Line]:
        """The lines one update of ``child`` (a :class:`~acphost.client.Subagent`) shows."""
        viewer = self._viewers.get(child.id)
        if viewer is None:
            viewer = self._viewers[child.id] = v.Viewer(child.state)
        tag = f"[{self.edge.field(child.label)}] "
        out: list[Line] = []
        for piece in viewer.pieces(update):
            if isinstance(piece, v.Text):
                if piece.role == "agent":
                    out.extend(self._feed(child.id, tag, piece.text))
                continue
            if isinstance(piece, (v.Thought, v.InterMessage)):
                # Its thoughts stay inside it; the messages it exchanges are
                # shown once, on the parent's side.
                continue
            shown = (
                tree_lines(piece, self.edge)
                if isinstance(piece, v.SubagentCard)
                else lines_of(piece, self.edge)
            )
            if shown:
                out.extend(self.flush(child.id))
                out.extend(Line(tag + line.text, line.style, line.stderr) for line in shown)
        return out

    def _feed(self, child_id: str, tag: str, text: str) -> list[Line]:
        _, before = self._partial.get(child_id, (tag, ""))
        text = before + text
        *done, rest = text.split("\n")
        self._partial[child_id] = (tag, rest)
        return [Line(tag + self.edge.text(line)) for line in done]

    def flush(self, child_id: str | None = None) -> list[Line]:
        """The text of a child (or of every child) not yet on a line of its own, as lines."""
        ids = [child_id] if child_id is not None else list(self._partial)
        out: list[Line] = []
        for cid in ids:
            tag, rest = self._partial.pop(cid, ("", ""))
            if rest:
                out.append(Line(tag + self.edge.text(rest)))
        return out
