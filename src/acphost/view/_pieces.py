"""What each session update shows, as typed pieces: the one step every face styles.

:class:`Viewer` turns one update (already applied to the session state) into
pieces; :func:`stored_pieces` turns one event of a stored turn (plain data,
as the history keeps it) into the same pieces. The faces (the CLI's plain and
terminal renderers, the TUI's transcript, the history's transcripts and
exports) map pieces to styles or widgets; none of them looks at the wire
update's class. A new kind of update is taught here, in :meth:`Viewer.pieces`
(and, when the history records it, in :func:`stored_pieces`).

Pieces carry the agent's strings exactly as sent: each face makes them safe at
its own edge (the terminal sanitiser, Markdown or HTML escaping), so piped
output stays exact and the history stays searchable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import schema as s
from .._difftext import hunk_lines
from ..client import TerminalReport, terminal_report
from ..content import block_text
from ..host import DEFAULT_OUTPUT_BYTE_LIMIT
from ._media import Media, annotations_text, media_line, media_of
from ._subagents import (
    InterMessage,
    SubagentCard,
    message_piece,
    stored_subagent,
    subagent_card,
    wire_text,
)

if TYPE_CHECKING:
    from ..client import SessionState, ToolCallState

__all__ = [
    "STREAMED",
    "Compaction",
    "Diff",
    "MediaPiece",
    "Notice",
    "Piece",
    "Plan",
    "PlanChange",
    "PlanItem",
    "Setting",
    "Terminal",
    "Text",
    "Thought",
    "ToolCard",
    "Unknown",
    "Usage",
    "Viewer",
    "block_text",
    "plan_changes",
    "stored_pieces",
    "stored_tool",
    "update_text",
]


#: The one update class a face may take without viewing it, on its hot path:
#: a chunk of the agent's message, whose text is its ``.text`` and whose
#: message is its ``message_id`` (what :meth:`Viewer.pieces` makes a
#: :class:`Text` of). A flood of them then costs no call per chunk.
STREAMED = s.AgentMessageChunk


@dataclass(frozen=True, slots=True)
class Text:
    """A run of message text (Markdown, as the agent or the user wrote it).

    Attributes:
        text: the text of this chunk (or of a whole stored message).
        message_id: the message it belongs to (None: not sent; it continues
            the message being written).
        role: ``agent`` or ``user``.
        notes: the block's annotations in words (``for user · priority 0.8``), or "".

    """

    text: str
    message_id: str | None = None
    role: str = "agent"
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Thought:
    """A run of the agent's thoughts (plain text).

    Attributes:
        text: the text of this chunk.
        message_id: the thought message it belongs to, if sent.
        notes: the block's annotations in words, or "".

    """

    text: str
    message_id: str | None = None
    notes: str = ""


@dataclass(frozen=True, slots=True)
class ToolCard:
    """A tool call as it stands after an update.

    Attributes:
        call_id: the agent's id for the call.
        title: its title (``""``: none sent).
        name: the agent's own tool name, where it adds something to the title.
        kind: ``read``, ``edit``, ``execute``... (``""``: not sent).
        status: its status (``pending`` when none was sent).
        locations: ``path`` or ``path:line`` for each place it touches.
        changed: the call started or its status changed with this update
            (a line-oriented face prints a line only then).

    """

    call_id: str
    title: str
    name: str
    kind: str
    status: str
    locations: tuple[str, ...] = ()
    changed: bool = True


@dataclass(frozen=True, slots=True)
class Terminal:
    """A terminal a tool call shows.

    A terminal the host created (``terminal/create``) keeps its output with
    the host's terminals; a terminal the agent ran itself (``agent_run``)
    reports its output and exit only in the tool call's ``_meta``, and the
    piece carries them (the session state keeps them:
    :attr:`acphost.client.ToolCallState.terminals`).

    Attributes:
        call_id: the tool call.
        terminal_id: the terminal.
        agent_run: the agent ran it itself; the fields below are its report.
        cwd: where it ran, as the agent says (``""``: not sent).
        added: the output this update appended (``""``: none).
        output: all the output kept, on the piece of the update that
            reported its exit (``""`` before: follow ``added``).
        truncated: older output was dropped to stay within the host's limit.
        exit_text: ``exit code N`` or ``killed by SIG`` once it ended, else ``""``.
        ended: this update reported its exit (a line-oriented face prints
            the output then, once).

    """

    call_id: str
    terminal_id: str
    agent_run: bool = False
    cwd: str = ""
    added: str = ""
    output: str = ""
    truncated: bool = False
    exit_text: str = ""
    ended: bool = False


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One entry of a plan.

    Attributes:
        content: what the step is.
        status: ``pending``, ``in_progress``, ``completed`` (or as sent).
        priority: ``high``, ``medium``, ``low`` (or as sent).

    """

    content: str
    status: str
    priority: str = "medium"


@dataclass(frozen=True, slots=True)
class PlanChange:
    """What one plan update changed in one entry.

    Attributes:
        what: ``added``, ``status`` (its status changed) or ``removed``.
        item: the entry as it is now (as it was, for ``removed``).
        before: its previous status, for ``status``.

    """

    what: str
    item: PlanItem
    before: str = ""


@dataclass(frozen=True, slots=True)
class Plan:
    """The agent's plan (each update replaces it whole, per ACP "Agent Plan").

    Attributes:
        entries: the whole plan.
        changes: what changed since the previous plan of the same session
            (every entry ``added`` for the first one).
        first: this is the first plan the viewer has seen.

    """

    entries: tuple[PlanItem, ...]
    changes: tuple[PlanChange, ...]
    first: bool = True


@dataclass(frozen=True, slots=True)
class Diff:
    """A file edit of a tool call.

    Attributes:
        path: the file.
        old_text: its text before (None: a new file).
        new_text: its text after.
        call_id: the tool call it belongs to (``""``: not known).

    """

    path: str
    old_text: str | None
    new_text: str
    call_id: str = ""

    def lines(self) -> list[str]:
        """The unified diff's lines, without the file header (bounded in time)."""
        return hunk_lines(self.old_text, self.new_text)


@dataclass(frozen=True, slots=True)
class Notice:
    """A notice from the agent (schema ``Notice``): beside the transcript, not in it.

    Attributes:
        severity: ``info``, ``warning``, ``error`` (or as sent).
        title: its title.
        description: its details (``""``: none).

    """

    severity: str
    title: str
    description: str = ""

    @property
    def text(self) -> str:
        """``title``, or ``title: description``."""
        return f"{self.title}: {self.description}" if self.description else self.title


@dataclass(frozen=True, slots=True)
class Usage:
    """The context window's use (schema ``UsageUpdate``).

    Attributes:
        used: tokens in the context.
        size: the window's size.
        cost: ``amount currency`` when the agent sent a cost, else ``""``.

    """

    used: int
    size: int
    cost: str = ""

    @property
    def text(self) -> str:
        """``used/size``."""
        return f"{self.used}/{self.size}"


@dataclass(frozen=True, slots=True)
class Compaction:
    """A compaction of the agent's context, when its status changes.

    Attributes:
        compaction_id: which compaction.
        status: ``in_progress``, ``completed``, ``failed``, ``cancelled`` (or as sent).
        error: why it failed (``""``: not sent).
        changed: its status changed with this update (a summary streamed
            into it changes only what the session state holds).

    """

    compaction_id: str
    status: str
    error: str = ""
    changed: bool = True

    @property
    def text(self) -> str:
        """``status``, or ``status: error``."""
        return f"{self.status}: {self.error}" if self.error else self.status


@dataclass(frozen=True, slots=True)
class MediaPiece:
    """A content block that is not text, as its placeholder.

    Attributes:
        line: the placeholder on one line (:func:`acphost.view.media_line`).
        role: whose block: ``agent``, ``user``, ``thought`` or ``tool``.
        media: what the block is (None for a stored one: its line is kept).
        block: the content block itself, for a face that draws a card from
            its fields (a file chip from a link); None for a stored one.

    """

    line: str
    role: str = "agent"
    media: Media | None = None
    block: s.ContentBlock | None = None


@dataclass(frozen=True, slots=True)
class Setting:
    """A change of the session's settings: commands, mode, options, title.

    Faces that show the session's state read it from the state; a transcript
    shows none of these (they arrive at the agent's timing, not the turn's).

    Attributes:
        kind: the update's ``sessionUpdate`` value.
        text: the change in words (``mode: code``, ``title: ...``).

    """

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Unknown:
    """An update of a kind this version does not know.

    Attributes:
        kind: its ``sessionUpdate`` value, as sent.

    """

    kind: str


#: Any piece.
Piece = (
    Text
    | Thought
    | ToolCard
    | Terminal
    | Plan
    | Diff
    | Notice
    | Usage
    | Compaction
    | MediaPiece
    | Setting
    | Unknown
    | SubagentCard
    | InterMessage
)


def plan_changes(before: Sequence[PlanItem], after: Sequence[PlanItem]) -> tuple[PlanChange, ...]:
    """What turned ``before`` into ``after``: entries added, whose status changed, removed.

    Entries are matched by their content (the plan has no ids): the first
    unmatched entry of the same content, so repeated entries pair in order.
    """
    left: dict[str, list[PlanItem]] = {}
    for item in before:
        left.setdefault(item.content, []).append(item)
    changes: list[PlanChange] = []
    for item in after:
        olds = left.get(item.content)
        if not olds:
            changes.append(PlanChange("added", item))
            continue
        old = olds.pop(0)
        if old.status != item.status:
            changes.append(PlanChange("status", item, old.status))
    changes.extend(PlanChange("removed", old) for olds in left.values() for old in olds)
    return tuple(changes)


def _items(entries: Sequence[Any]) -> tuple[PlanItem, ...]:
    return tuple(
        PlanItem(str(e.content), str(e.status), str(e.priority or "medium")) for e in entries
    )


def _where(call: ToolCallState) -> tuple[str, ...]:
    return tuple(
        loc.path + (f":{loc.line}" if loc.line is not None else "") for loc in call.locations
    )


class Viewer:
    """Turns one session's updates into pieces, in wire order.

    It remembers what the pieces need across updates: the last plan (for
    what changed), each compaction's status (a compaction is patched by
    several updates; only a change of status is a piece) and which agent-run
    terminals' exits were shown (an exit is shown once).

    Args:
        state: the session state; each update is applied to it before it is
            viewed (tool calls are merged from all their updates there).

    """

    __slots__ = ("_children", "_compactions", "_ended", "_plan", "state")

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self._children: dict[str, tuple[str, str]] = {}  # each subagent's shown activity
        self._plan: tuple[PlanItem, ...] | None = None
        self._compactions: dict[str, str] = {}
        self._ended: set[tuple[str, str]] = set()  # agent-run terminals whose exit was shown

    def pieces(self, update: s.SessionUpdate) -> list[Piece]:
        """The pieces one update shows (empty when it shows nothing).

        Message and thought chunks give their text as :class:`Text` and
        :class:`Thought` (the faces' hot paths stream the text of the chunk
        being written without coming here).
        """
        if isinstance(update, (s.AgentMessageChunk, s.UserMessageChunk)):
            role = "user" if isinstance(update, s.UserMessageChunk) else "agent"
            block = update.content
            if isinstance(block, s.TextContentBlock):
                notes = annotations_text(block.annotations) if block.annotations else ""
                return [Text(block.text, update.message_id, role, notes)]
            return _media(block, role)
        if isinstance(update, s.AgentThoughtChunk):
            block = update.content
            if isinstance(block, s.TextContentBlock):
                notes = annotations_text(block.annotations) if block.annotations else ""
                return [Thought(block.text, update.message_id, notes)]
            return _media(block, "thought")
        if isinstance(update, (s.ToolCallStart, s.ToolCallProgress)):
            return self._tool(update)
        if isinstance(update, s.PlanUpdate):
            entries = _items(update.entries)
            first = self._plan is None
            changes = plan_changes(self._plan or (), entries)
            self._plan = entries
            return [Plan(entries, changes, first)]
        if isinstance(update, s.Notice):
            return [Notice(update.severity, update.title, update.description or "")]
        if isinstance(update, (s.CompactionUpdate, s.CompactionSummaryChunk)):
            return self._compaction(update)
        if isinstance(update, s.UsageUpdate):
            cost = update.cost
            shown = f"{cost.amount:g} {cost.currency}" if cost is not None else ""
            return [Usage(update.used, update.size, shown)]
        if isinstance(update, s.UnknownSessionUpdate):
            return [Unknown(update.kind)]
        kind = str(getattr(update, "session_update", ""))
        if kind in _TREE:
            return self._tree(kind, update)
        return [Setting(kind, update_text(update))]

    def _tree(self, kind: str, update: Any) -> list[Piece]:
        # The session tree's updates (classes of the unstable schema, which
        # the view does not import: told apart by their wire kind).
        piece: Piece | None
        if kind == "subagent_update":
            piece = subagent_card(self.state, update.session_id, self._children)
        else:
            # What this update adds, from the update itself: a session that
            # keeps no message content (the command line) still shows it.
            content = update.content
            if kind == "session_message_chunk":
                added = wire_text((content,))
            else:
                added = wire_text(content) if isinstance(content, list) else ""
            chunk = kind == "session_message_chunk"
            piece = message_piece(self.state, update.message_id, added, chunk=chunk)
        return [piece] if piece is not None else []

    def _tool(self, update: s.ToolCallStart | s.ToolCallProgress) -> list[Piece]:
        out: list[Piece] = []
        call = self.state.tool_calls.get(update.tool_call_id)
        if call is not None:
            changed = isinstance(update, s.ToolCallStart) or update.status is not None
            out.append(
                ToolCard(
                    call.tool_call_id,
                    call.title or "",
                    call.shown_name or "",
                    call.kind or "",
                    update.status or call.status or "pending",
                    _where(call),
                    changed,
                )
            )
        report = terminal_report(update.meta) if update.meta else None
        # A terminal the agent runs itself reports in _meta, mostly in
        # updates that list no content: one piece per terminal it names.
        named: list[str] = []
        for item in update.content or ():
            if isinstance(item, s.DiffToolCallContent):
                out.append(Diff(item.path, item.old_text, item.new_text, update.tool_call_id))
            elif isinstance(item, s.TerminalToolCallContent):
                named.append(item.terminal_id)
            elif isinstance(item, s.ContentToolCallContent):
                out.extend(_media(item.content, "tool"))
        if report is not None:
            named.extend(
                tid
                for tid in (report.announced, report.output_of, report.exit_of)
                if tid and call is not None and tid in call.terminals
            )
        for tid in dict.fromkeys(named):
            out.append(self._terminal(update.tool_call_id, tid, call, report))
        return out

    def _terminal(
        self,
        call_id: str,
        terminal_id: str,
        call: ToolCallState | None,
        report: TerminalReport | None,
    ) -> Terminal:
        run = call.terminals.get(terminal_id) if call is not None else None
        if run is None:
            return Terminal(call_id, terminal_id)
        added = ""
        ended = False
        if report is not None:
            if report.output_of == terminal_id:
                added = report.data[-DEFAULT_OUTPUT_BYTE_LIMIT:]
            # The session state may be ahead of the update being viewed (it
            # applies a read's worth of updates at once), but it takes no
            # output after the exit: at the exit, its output is the whole.
            key = (call_id, terminal_id)
            if report.exit_of == terminal_id and run.exited and key not in self._ended:
                self._ended.add(key)
                ended = True
        return Terminal(
            call_id,
            terminal_id,
            agent_run=True,
            cwd=run.cwd or "",
            added=added,
            output=run.output if ended else "",
            truncated=run.truncated,
            exit_text=(run.exit_text or "") if ended or run.exited else "",
            ended=ended,
        )

    def _compaction(self, update: s.CompactionUpdate | s.CompactionSummaryChunk) -> list[Piece]:
        cid = update.compaction_id
        if isinstance(update, s.CompactionUpdate):
            changed = self._compactions.get(cid) != update.status
            self._compactions[cid] = update.status
            error = update.error if isinstance(update.error, str) else ""
            return [Compaction(cid, update.status, error, changed)]
        compaction = self.state.compactions.get(cid)
        status = (compaction.status if compaction is not None else None) or ""
        error = (compaction.error if compaction is not None else None) or ""
        return [Compaction(cid, status, error, changed=False)]


#: The ``sessionUpdate`` kinds of the session tree (see ``_subagents``).
_TREE = frozenset(("subagent_update", "session_message", "session_message_chunk"))


def _media(block: s.ContentBlock, role: str) -> list[Piece]:
    media = media_of(block)
    if media is None:
        return []
    return [MediaPiece(media_line(media), role, media, block)]


def update_text(update: s.SessionUpdate) -> str:
    """An update as one short line of plain text (logs, line-oriented output).

    A chunk gives its text (``""`` when not text), a tool call its title (else
    its status), a plan its entries (one per line), a usage report
    ``used/size``, a notice ``title[: description]``, a compaction
    ``status[: error]``, the others what they set; an unknown kind, its kind.
    """
    if isinstance(
        update,
        (s.AgentMessageChunk, s.UserMessageChunk, s.AgentThoughtChunk, s.CompactionSummaryChunk),
    ):
        return update.text
    if isinstance(update, (s.ToolCallStart, s.ToolCallProgress)):
        return update.title or update.status or ""
    if isinstance(update, s.PlanUpdate):
        return "\n".join(entry.content for entry in update.entries)
    if isinstance(update, s.AvailableCommandsUpdate):
        return ", ".join(command.name for command in update.available_commands)
    if isinstance(update, s.CurrentModeUpdate):
        return update.current_mode_id
    if isinstance(update, s.ConfigOptionUpdate):
        parts = []
        for option in update.config_options:
            value = getattr(option, "current_value", None)
            if value is True or value is False:
                value = "on" if value else "off"
            parts.append(f"{getattr(option, 'name', '?')}={value}")
        return ", ".join(parts)
    if isinstance(update, s.SessionInfoUpdate):
        return update.title if isinstance(update.title, str) else ""
    if isinstance(update, s.UsageUpdate):
        return f"{update.used}/{update.size}"
    if isinstance(update, s.Notice):
        return f"{update.title}: {update.description}" if update.description else update.title
    if isinstance(update, s.CompactionUpdate):
        error = update.error
        return f"{update.status}: {error}" if isinstance(error, str) and error else update.status
    if isinstance(update, s.UnknownSessionUpdate):
        return update.kind
    return ""


def stored_tool(
    call_id: str,
    title: str,
    kind: str | None,
    status: str | None,
    *,
    name: str | None = None,
    locations: Sequence[Mapping[str, Any]] = (),
) -> ToolCard:
    """A stored tool call (the history's plain fields) as a :class:`ToolCard`."""
    where = tuple(
        str(loc.get("path", "")) + (f":{loc['line']}" if loc.get("line") is not None else "")
        for loc in locations
    )
    return ToolCard(call_id, title or "", name or "", kind or "", status or "pending", where)


def stored_pieces(event: Mapping[str, Any]) -> list[Piece]:
    """One event of a stored turn (``{"kind": ..., ...}``, as the history keeps it) as pieces.

    ``text`` and ``thought`` give a :class:`Text` or :class:`Thought` (the whole
    run), ``media`` a :class:`MediaPiece` (its line), ``plan`` a :class:`Plan`
    (its changes are not known here: none), ``subagent`` a
    :class:`~acphost.view.SubagentCard` (see :func:`~acphost.view.stored_subagent`).
    A ``tool`` event names a tool
    call (``{"kind": "tool", "id"}``): the caller has the call's record and
    makes its card with :func:`stored_tool`; it gives no piece here.
    """
    kind = event.get("kind")
    text = event.get("text")
    if kind == "text" and text:
        return [Text(str(text))]
    if kind == "thought" and text:
        return [Thought(str(text))]
    if kind == "media" and text:
        return [MediaPiece(str(text))]
    if kind == "plan":
        entries = tuple(
            PlanItem(
                str(e.get("content", "")),
                str(e.get("status", "")),
                str(e.get("priority") or "medium"),
            )
            for e in event.get("entries") or ()
            if isinstance(e, Mapping)
        )
        return [Plan(entries, ())]
    if kind == "subagent" and isinstance(event.get("id"), str):
        return [stored_subagent(event)]
    return []
