"""What each piece of a turn shows as lines of text: the one description every renderer writes.

What an update shows is decided once, here, as tagged :class:`Line` items
(``[plan]``, ``[tool]``, ``[diff]``, ``[output]``, ``[subagent]``, and for
stderr ``[notice]`` and ``[compaction]``), from the view model's pieces
(:func:`lines_of`, :func:`describe`). :class:`~._render.PlainRenderer`
writes them as text, the terminal renderer (``_live.RichRenderer``) styles
the same lines. :class:`ChildLines` gives the session tree's lines: each
subagent's own, tagged with its label, and the parent's card and message lines.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, NamedTuple

from .. import schema as s
from .. import view as v
from ._edge import Edge

if TYPE_CHECKING:
    from ..client import SessionState, Subagent, ToolCallState

__all__ = [
    "HELD_LINE_CHARS",
    "THOUGHT_PREFIX",
    "TREE_PIECES",
    "ChildLines",
    "Line",
    "compaction_line",
    "describe",
    "diff_lines",
    "lines_of",
    "notice_line",
    "plan_lines",
    "tool_line",
    "tree_lines",
]

_STATUS_MARK = {"completed": "✓", "in_progress": "→", "pending": "·"}
#: What starts each line of the agent's thoughts.
THOUGHT_PREFIX = "[thought] "


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


#: The most characters of one line kept back while it is not complete: past
#: it, what is held is written as a line (a child that never ends a line
#: costs no more than one held line, and is never quadratic).
HELD_LINE_CHARS = 64 * 1024

#: The pieces of the session tree as the parent's stream carries them.
TREE_PIECES = (v.SubagentCard, v.InterMessage)


class _Held:
    """A line being written in pieces: its tag, style and the parts so far."""

    __slots__ = ("parts", "size", "style", "tag")

    def __init__(self, tag: str, style: str | None) -> None:
        self.tag = tag
        self.style = style
        self.parts: list[str] = []
        self.size = 0


class ChildLines:
    """The lines of the session tree: each subagent's own, tagged, and the parent's.

    Args:
        edge: how agent text is cleaned for the output.

    """

    def __init__(self, edge: Edge) -> None:
        self.edge = edge
        self._viewers: dict[str, v.Viewer] = {}
        self._held: dict[Hashable, _Held] = {}  # a child's or a message's partial line

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
                    out.extend(self._feed(child.id, tag, piece.text, None))
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

    def parent(self, pieces: list[v.Piece]) -> list[Line]:
        """The lines of the tree's pieces in the parent's stream.

        A card comes after the child's last held text; a streamed message's
        chunks are held until a line is complete, like a child's text.
        """
        out: list[Line] = []
        for piece in pieces:
            if isinstance(piece, v.SubagentCard):
                out.extend(self.flush(piece.session_id))
                out.extend(tree_lines(piece, self.edge))
            elif isinstance(piece, v.InterMessage):
                key = ("message", piece.message_id)
                if piece.chunk:
                    arrow = "→" if piece.outgoing else "←"
                    tag = f"[subagent] {arrow} {self.edge.field(piece.peer)}: "
                    out.extend(self._feed(key, tag, piece.added, "magenta"))
                else:
                    out.extend(self.flush(key))
                    out.extend(tree_lines(piece, self.edge))
        return out

    def _feed(self, key: Hashable, tag: str, text: str, style: str | None) -> list[Line]:
        held = self._held.get(key)
        if held is None:
            held = self._held[key] = _Held(tag, style)
        out: list[Line] = []
        if "\n" in text:
            first, *middle, rest = text.split("\n")
            held.parts.append(first)
            out.append(self._line(held, "".join(held.parts)))
            out.extend(self._line(held, line) for line in middle)
            held.parts = [rest] if rest else []
            held.size = len(rest)
        elif text:
            held.parts.append(text)
            held.size += len(text)
        if held.size >= HELD_LINE_CHARS:
            out.append(self._line(held, "".join(held.parts)))
            held.parts, held.size = [], 0
        return out

    def _line(self, held: _Held, text: str) -> Line:
        return Line(held.tag + self.edge.text(text), held.style)

    def flush(self, key: Hashable | None = None) -> list[Line]:
        """The text held for a child or a message (or all), as lines."""
        keys = [key] if key is not None else list(self._held)
        out: list[Line] = []
        for k in keys:
            held = self._held.pop(k, None)
            if held is not None and held.parts:
                out.append(self._line(held, "".join(held.parts)))
        return out
