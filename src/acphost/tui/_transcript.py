"""The chat transcript: messages, thoughts, tool cards, media cards, notices, subagents.

Messages and thoughts stream into the widgets of :mod:`acphost.tui._streaming`
(one render per frame, never one per chunk), made inert as they are fed.

The session tree: a subagent's card (:mod:`acphost.tui._subagents`) holds a
:class:`ChildTranscript`, the same feed over the child's own state, so a
child's text, thoughts and tool cards look as the parent's do. Every
transcript of one tree shares ``routes``, by which the session view hands
each child's updates to its card; a card shows the child's state when it is
mounted, so nothing streamed before it was on screen is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from .. import schema as s
from .. import view as v
from ..client import SessionState
from ..view import annotations_text
from ._blocks import MediaCard, UserBubble, block_markdown, is_card
from ._model import format_usage
from ._notes import CompactionBlock, Marker, Notice
from ._safe import agent_line, agent_markdown, agent_text
from ._streaming import StreamingMarkdown, ThoughtBlock
from ._subagents import InterMessageLine, SubagentCard
from ._terminals import TerminalBuffers
from ._toolcard import ToolCard

__all__ = ["ChildTranscript", "StreamingMarkdown", "ThoughtBlock", "Transcript", "TranscriptFeed"]

# The feed is a mixin of containers: a Widget for the type checker only, or
# its class attributes (``can_focus``...) would hide the container's.
if TYPE_CHECKING:
    _Container = Widget
else:
    _Container = object


class TranscriptFeed(_Container):
    """What turns one session's updates into transcript widgets, in wire order.

    A part of :class:`Transcript` (the scrolling pane of a session) and of
    :class:`ChildTranscript` (a subagent's transcript inside its card); it
    adds widgets to whichever container it is part of.

    Args:
        state: the session state (tool calls are read from it, merged).
        cwd: the session's workspace, for relative locations and file chips.
        terminals: live terminal output.
        routes: where each subagent's updates go, by child session id, shared
            by every transcript of one tree (a card's transcript adds itself).

    """

    def __init__(
        self,
        state: SessionState,
        cwd: str,
        terminals: TerminalBuffers,
        *,
        routes: dict[str, TranscriptFeed] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.state = state
        self._viewer: v.Viewer | None = None
        self.cwd = cwd
        self.terminals = terminals
        self.cards: dict[str, ToolCard] = {}
        self.routes: dict[str, TranscriptFeed] = {} if routes is None else routes
        self.subagents: dict[str, SubagentCard] = {}
        self._messages: dict[str, InterMessageLine] = {}
        #: The session that announced this one (a child's transcript): its
        #: messages name it "parent".
        self.parent_id: str | None = None
        #: The session id of this transcript's session, once known (its
        #: children's messages name it "parent").
        self.owner_id: str | None = None
        #: The card this transcript is the body of (a subagent's).
        self.card: SubagentCard | None = None
        self._current: Widget | None = None
        self._current_role: str | None = None
        self._current_mid: str | None = None
        self._compactions: dict[str, CompactionBlock] = {}

    def _append(self, widget: Widget) -> None:
        self._end_thought()
        self.mount(widget)

    def _end_thought(self) -> None:
        if isinstance(self._current, ThoughtBlock):
            self._current.finish()

    def _break(self) -> None:
        self._current = None
        self._current_role = None

    def add_user(self, blocks: list[s.ContentBlock]) -> UserBubble:
        """Show the user's own prompt (agents do not echo it): text, then file chips."""
        bubble = UserBubble(blocks, self.cwd)
        self._append(bubble)
        self._break()
        return bubble

    def add_notice(self, text: str, level: str = "") -> Notice:
        """Show a note (inert); ``level`` is ``""``, ``"warning"`` or ``"error"``."""
        notice = Notice(agent_text(text), classes=f"-{level}" if level else "")
        self._append(notice)
        self._break()
        return notice

    def add_marker(self, text: str) -> Marker:
        """Draw a labelled rule: what is above belongs to an earlier connection or session."""
        marker = Marker(Text(f"──── {text} ────"))
        self._append(marker)
        self._break()
        return marker

    def add_media(self, block: s.ContentBlock) -> MediaCard:
        """A placeholder card for a block a terminal cannot show as text."""
        card = MediaCard(block)
        self._append(card)
        self._break()
        return card

    def on_update(self, update: s.SessionUpdate) -> None:
        """Show one session update (called in wire order, after the state applied it)."""
        viewer = self._viewer
        if viewer is None or viewer.state is not self.state:
            viewer = self._viewer = v.Viewer(self.state)
        for piece in viewer.pieces(update):
            if isinstance(piece, v.Text):
                self._text(piece.role, piece.text, piece.message_id, piece.notes)
            elif isinstance(piece, v.Thought):
                self._text("thought", piece.text, piece.message_id, piece.notes)
            elif isinstance(piece, v.MediaPiece) and piece.block is not None:
                block = piece.block
                if piece.role == "user":
                    self.add_user([block])
                elif piece.role == "agent":
                    self.add_media(block)
                elif piece.role == "thought":  # thoughts are words: a block's URI, if any
                    notes = annotations_text(getattr(block, "annotations", None))
                    self._text("thought", v.block_text(block), None, notes)
            elif isinstance(piece, v.ToolCard):
                self._tool(piece.call_id)
            elif isinstance(piece, v.Notice):
                self.show_agent_notice(piece.severity, piece.text)
            elif isinstance(piece, v.Compaction):
                self.show_state_compaction(piece.compaction_id)
            elif isinstance(piece, v.SubagentCard):
                self._subagent(piece)
            elif isinstance(piece, v.InterMessage):
                self._message(piece)
            elif isinstance(piece, v.Usage) and self.card is not None:
                self.card.show_usage(format_usage(self.state.usage))
            elif isinstance(piece, v.Unknown):
                self.add_notice(
                    f"(ignored an update of a kind this version does not know: {piece.kind})"
                )

    def _text(self, role: str, raw: str, message_id: str | None, notes: str) -> None:
        text = agent_markdown(raw)
        current = self._current
        same = (
            current is not None
            and self._current_role == role
            and (message_id is None or message_id == self._current_mid)
        )
        if same and isinstance(current, (StreamingMarkdown, ThoughtBlock)):
            current.feed(text)
        else:
            widget: StreamingMarkdown | ThoughtBlock
            if role == "thought":
                widget = ThoughtBlock(text)
            elif role == "user":
                widget = StreamingMarkdown(text, classes="-user")
            else:
                widget = StreamingMarkdown(text)
            self._append(widget)
            self._current = widget
            self._current_role = role
            self._current_mid = message_id
        if notes:
            self.mount(Static(agent_line(f"↳ {notes}"), classes="annotation"))

    def _tool(self, tool_call_id: str) -> None:
        card = self.cards.get(tool_call_id)
        call = self.state.tool_calls.get(tool_call_id)
        if call is None:
            return
        if card is None or card.call is not call:
            card = ToolCard(call, self.cwd, self.terminals)
            self.cards[tool_call_id] = card
            self._append(card)
            self._break()
        else:
            card.refresh_call()

    def _subagent(self, piece: v.SubagentCard) -> None:
        card = self.subagents.get(piece.session_id)
        if card is not None:
            card.show(piece)
            body = card.body
            if piece.changed and isinstance(body, TranscriptFeed):
                body.refresh_cards()  # calls a cancel closed show it
                if piece.activity == "idle":
                    body.end_turn()  # its work ended: a streaming thought folds
            return
        child = self.state.subagents.get(piece.session_id)
        if child is None:
            return
        body = ChildTranscript(child.state, self.cwd, self.terminals, routes=self.routes)
        body.parent_id = self.owner_id
        card = SubagentCard(piece, body, running=child.running)
        body.card = card
        self.subagents[piece.session_id] = card
        # A child nested too deep (or whose id the client refused) gets no
        # updates of its own: its card shows what its parent says of it.
        self.routes.setdefault(piece.session_id, body)
        self._append(card)
        self._break()

    def _message(self, piece: v.InterMessage) -> None:
        peer = "parent" if self.parent_id and piece.peer == self.parent_id else piece.peer
        line = self._messages.get(piece.message_id)
        if line is not None:
            line.show(piece, peer)
            return
        line = self._messages[piece.message_id] = InterMessageLine(piece, peer)
        self._append(line)
        self._break()

    def show_state_compaction(self, compaction_id: str) -> None:
        """Show a compaction as the session state has it now (its marker, the first time)."""
        # The session state owns the patch rules; the block shows its result.
        compaction = self.state.compactions.get(compaction_id)
        if compaction is not None:
            self.show_compaction(
                compaction_id,
                compaction.status or "",
                summary=compaction.summary_text,
                error=compaction.error or "",
            )

    def show_agent_notice(self, severity: str, title: str) -> None:
        """The agent's notice: a toast for information, inline for warnings and errors."""
        if severity in ("warning", "error"):
            mark = "⚠" if severity == "warning" else "✗"
            self.add_notice(f"{mark} {title}", severity)
        else:
            self.notify(agent_line(title).plain, markup=False, timeout=6)

    def show_compaction(
        self,
        compaction_id: str,
        status: str,
        *,
        summary: str = "",
        error: str = "",
    ) -> CompactionBlock:
        """The agent compacted its context: a marker with the summary, collapsed.

        The marker stays where the compaction first appeared; later calls for
        the same id show its current status and whole summary.
        """
        block = self._compactions.get(compaction_id)
        if block is None:
            block = self._compactions[compaction_id] = CompactionBlock()
            self._append(block)
            self._break()
        block.add_summary(summary, replace=True)
        if status:
            block.set_status(status, error)
        return block

    def refresh_cards(self) -> None:
        """Re-read every card, the subagents' too (after a cancel marked calls cancelled)."""
        for card in self.cards.values():
            card.refresh_call()
        for child in self.subagents.values():
            if isinstance(child.body, TranscriptFeed):
                child.body.refresh_cards()

    def end_turn(self) -> None:
        """The turn ended: collapse a streaming thought, start fresh blocks next time."""
        self._end_thought()
        self._break()

    def rebind(self, state: SessionState) -> None:
        """Follow another session's state from here on (after a restart)."""
        self.state = state
        self.cards = {}
        self.subagents = {}
        self._messages = {}
        self.routes.clear()  # the old session's children send no more
        self._break()

    def show_state(self, *, live: bool = False) -> None:
        """Show what the state holds now: messages, and what happened among them.

        A tool call's, compaction's, subagent's or message between sessions'
        ``position`` is the number of messages before it, so its widget sits
        where it was shown live; the sort is stable, so those at one place
        keep their arrival order (compactions, tool calls, subagents, then
        messages between sessions).

        Args:
            live: the session goes on streaming (a child's card mounted, or
                opened in full, mid-turn): the next chunk of its last message
                joins that message's block instead of starting a new one.

        """
        state = self.state
        marks: list[tuple[int, Callable[[str], None], str]] = [
            *(
                (c.position, self.show_state_compaction, c.compaction_id)
                for c in state.compactions.values()
            ),
            *((c.position, self._state_call, c.tool_call_id) for c in state.tool_calls.values()),
            *((c.position, self._state_subagent, sid) for sid, c in state.subagents.items()),
            *((m.position, self._state_message, mid) for mid, m in state.session_messages.items()),
        ]
        marks.sort(key=lambda mark: mark[0])
        at = 0
        last: Widget | None = None
        for index, msg in enumerate(state.messages):
            while at < len(marks) and marks[at][0] <= index:
                _, show, key = marks[at]
                show(key)
                at += 1
            last = None
            if msg.role == "user":
                self.add_user(list(msg.content))
                continue
            text = agent_markdown("".join(block_markdown(b) for b in msg.content))
            if text:
                widget = ThoughtBlock(text) if msg.role == "thought" else StreamingMarkdown(text)
                self.mount(widget)
                if isinstance(widget, ThoughtBlock) and not live:
                    widget.collapsed = True
                last = widget
            for block in msg.content:
                if is_card(block):
                    self.mount(MediaCard(block))
                    last = None
        for _, show, key in marks[at:]:
            show(key)
            last = None
        if live and last is not None:
            msg = state.messages[-1]
            self._current, self._current_role, self._current_mid = last, msg.role, msg.message_id
        else:
            self.end_turn()
        if self.card is not None and state.usage is not None:
            self.card.show_usage(format_usage(state.usage))

    def _state_call(self, call_id: str) -> None:
        self.on_update(s.ToolCallProgress(tool_call_id=call_id))

    def _state_subagent(self, session_id: str) -> None:
        piece = v.subagent_card(self.state, session_id, {})
        if piece is not None:
            self._subagent(piece)

    def _state_message(self, message_id: str) -> None:
        piece = v.message_piece(self.state, message_id, None)
        if piece is not None:
            self._message(piece)

    def streams(self) -> list[StreamingMarkdown]:
        """The message widgets, oldest first."""
        return list(self.query(StreamingMarkdown))

    def sources(self) -> list[str]:
        """The Markdown source of every message, user prompts included, oldest first."""
        out = []
        for widget in self.query("StreamingMarkdown, UserBubble"):
            if isinstance(widget, (StreamingMarkdown, UserBubble)):
                out.append(widget.source)
        return out

    async def settled(self) -> None:
        """Wait until every streamed chunk is shown."""
        for md in self.streams():
            await md.settled()


class Transcript(TranscriptFeed, VerticalScroll):
    """The conversation of one session, in wire order, in a pane that follows its end.

    Args:
        state: the session state (tool calls are read from it, merged).
        cwd: the session's workspace, for relative locations and file chips.
        terminals: live terminal output.
        routes: see :class:`TranscriptFeed`.

    """

    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 0; scrollbar-size-vertical: 1; }
    Transcript > * { margin: 0; }
    Transcript .annotation { color: $text-muted; text-style: italic; padding: 0 1; }
    """

    # Following the newest output is Textual's anchor: the layout keeps an
    # anchored view at its end, a scroll by the user releases it, and a scroll
    # back to the end takes it up again (``Widget.release_anchor``,
    # ``_check_anchor``). The transcript is anchored only while its content
    # overflows: Textual scrolls an anchored view to its end even when that end
    # is above the first line, so a short conversation would start below the
    # top of the pane, or sit at its bottom.
    #
    # A growing transcript changes its virtual size, not its size, and Textual
    # sends ``Resize`` only when a widget's region changes: the virtual size is
    # watched as well, or following never starts when a conversation first
    # overflows a pane that keeps its size.

    def on_resize(self, event: events.Resize) -> None:
        """The pane changed size: follow the end if the conversation overflows it now."""
        self._follow_if_overflowing()

    def watch_virtual_size(self) -> None:
        """The content grew or shrank: decide again whether to follow its end."""
        # Called inside the layout pass, before the container size is updated:
        # decide once the pass is over.
        self.call_later(self._follow_if_overflowing)

    def _follow_if_overflowing(self) -> None:
        overflows = self.virtual_size.height > self.scrollable_content_region.height
        if overflows and not self.is_anchored:
            self.anchor()
        elif not overflows and self.is_anchored:
            # It fits again (a streamed block settled shorter): shown from its top.
            self.anchor(False)
            self.scroll_target_y = self.scroll_y = 0


class ChildTranscript(TranscriptFeed, Vertical):
    """A subagent's own transcript, inside its card in the parent's transcript.

    It shows the child's state once mounted (what streamed before its card
    was on screen), then its updates as they come: one that arrives before
    is in the state already, and ignored here.
    """

    DEFAULT_CSS = """
    ChildTranscript { height: auto; padding: 0; }
    ChildTranscript > * { margin: 0; }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ready = False

    def on_mount(self) -> None:
        """Show what the child did so far, then follow it."""
        self._ready = True
        self.show_state(live=True)

    def on_update(self, update: s.SessionUpdate) -> None:
        """Show one of the child's updates (once mounted; the state has the earlier ones)."""
        if self._ready:
            super().on_update(update)
