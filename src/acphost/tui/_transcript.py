"""The chat transcript: streaming Markdown, thoughts, tool cards, notices.

Chunks arrive synchronously from the session listener, possibly thousands a
second. :class:`StreamingMarkdown` only appends them to a list; one drain task
per message hands the accumulated text to ``Markdown.append`` (which re-parses
from the last top-level block only), so a burst of chunks costs one render,
never one per chunk.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from .. import schema as s
from ..client import SessionState
from ._model import TerminalBuffers
from ._toolcard import ToolCard

__all__ = ["StreamingMarkdown", "ThoughtBlock", "Transcript", "block_markdown"]

#: The shortest time between two appends to one message (30 updates a second).
FRAME_SECONDS = 1 / 30


def block_markdown(block: s.ContentBlock) -> str:
    """Markdown for one content block: text as is, links as links, media as a tag."""
    if isinstance(block, s.TextContentBlock):
        return block.text
    if isinstance(block, s.ResourceLinkContentBlock):
        label = (block.title or block.name or block.uri).replace("]", "\\]")
        return f"[🔗 {label}]({block.uri})"
    if isinstance(block, s.EmbeddedResourceContentBlock):
        uri = block.resource.uri
        return f"[📎 {uri}]({uri})"
    if isinstance(block, s.ImageContentBlock):
        return f"*[image {block.mime_type}]*"
    if isinstance(block, s.AudioContentBlock):
        return f"*[audio {block.mime_type}]*"
    return f"*[{getattr(block, 'type', 'unknown')} content]*"


class StreamingMarkdown(Markdown):
    """A Markdown widget fed chunk by chunk without a render per chunk."""

    DEFAULT_CSS = """
    StreamingMarkdown { margin: 0; padding: 0 1; }
    StreamingMarkdown.-user { background: $boost; border-left: wide $primary; }
    """

    def __init__(self, first: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pending: list[str] = [first] if first else []
        self._drain_task: asyncio.Task[None] | None = None
        self._ready = False  # set in on_mount (is_mounted is still False there)
        self.chunks = 0
        self.appends = 0
        self.text_length = 0

    def on_mount(self) -> None:
        """Start showing what was fed before mounting."""
        self._ready = True
        self._kick()

    def feed(self, text: str) -> None:
        """Queue a fragment; it shows at the next drain (coalesced with others)."""
        if not text:
            return
        self.chunks += 1
        self.text_length += len(text)
        self._pending.append(text)
        self._kick()

    def _kick(self) -> None:
        if self._ready and self._pending and (self._drain_task is None or self._drain_task.done()):
            self._drain_task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            started = loop.time()
            text = "".join(self._pending)
            self._pending.clear()
            self.appends += 1
            await self.append(text)
            # Let chunks accumulate for a frame: each append re-lays out the
            # message, so fewer, larger appends keep a fast stream linear.
            rest = FRAME_SECONDS - (loop.time() - started)
            if rest > 0 and self._pending:
                await asyncio.sleep(rest)

    async def settled(self) -> None:
        """Wait until everything fed so far is shown (tests and benchmarks)."""
        while self._pending or (self._drain_task is not None and not self._drain_task.done()):
            task = self._drain_task
            if task is not None and not task.done():
                await task
            else:
                self._kick()
                await asyncio.sleep(0)


class ThoughtBlock(Collapsible):
    """The agent's reasoning: dimmed, collapsible, expanded while it streams."""

    DEFAULT_CSS = """
    ThoughtBlock { padding: 0; margin: 0; border: none; background: transparent; }
    ThoughtBlock Static { color: $text-muted; text-style: italic; padding: 0 1; }
    """

    def __init__(self, first: str = "") -> None:
        self._body = Static(Text(first), classes="thought-text")
        super().__init__(self._body, title="💭 thinking…", collapsed=False)
        self._parts = [first]
        self._scheduled = False

    def feed(self, text: str) -> None:
        """Add thought text; the view refreshes at most 20 times a second."""
        self._parts.append(text)
        if not self._scheduled:
            self._scheduled = True
            self.set_timer(0.05, self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        self._body.update(Text("".join(self._parts)))

    def finish(self) -> None:
        """The thought ended: show it all, collapse it under a summary title."""
        self._flush()
        text = "".join(self._parts).strip().replace("\n", " ")
        self.title = f"💭 {text[:60]}{'…' if len(text) > 60 else ''}"
        self.collapsed = True


class Notice(Static):
    """A one-line note in the transcript (stop reasons, errors, session events)."""

    DEFAULT_CSS = """
    Notice { color: $text-muted; padding: 0 1; margin: 0 0 1 0; }
    Notice.-error { color: $error; }
    Notice.-warning { color: $warning; }
    """


class Transcript(VerticalScroll):
    """The conversation of one session, in wire order.

    Args:
        state: the session state (tool calls are read from it, merged).
        cwd: the session's workspace, for relative locations.
        terminals: live terminal output.

    """

    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 0; scrollbar-size-vertical: 1; }
    Transcript > StreamingMarkdown { margin: 0 0 1 0; }
    """

    def __init__(
        self, state: SessionState, cwd: str, terminals: TerminalBuffers, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.state = state
        self.cwd = cwd
        self.terminals = terminals
        self.cards: dict[str, ToolCard] = {}
        self._current: Widget | None = None
        self._current_role: str | None = None
        self._current_mid: str | None = None

    def on_mount(self) -> None:
        """Follow the end of the conversation until the user scrolls up."""
        self.anchor()

    def _append(self, widget: Widget) -> None:
        self._end_thought()
        self.mount(widget)

    def _end_thought(self) -> None:
        if isinstance(self._current, ThoughtBlock):
            self._current.finish()

    def add_user(self, blocks: list[s.ContentBlock]) -> None:
        """Show the user's own prompt (agents do not echo it)."""
        text = "\n\n".join(block_markdown(b) for b in blocks)
        self._append(StreamingMarkdown(text, classes="-user"))
        self._current = None
        self._current_role = None

    def add_notice(self, text: str, level: str = "") -> Notice:
        """Show a note; ``level`` is ``""``, ``"warning"`` or ``"error"``."""
        notice = Notice(Text(text), classes=f"-{level}" if level else "")
        self._append(notice)
        self._current = None
        self._current_role = None
        return notice

    def on_update(self, update: s.SessionUpdate) -> None:
        """Show one session update (called in wire order, after the state applied it)."""
        if isinstance(update, (s.AgentMessageChunk, s.UserMessageChunk, s.AgentThoughtChunk)):
            self._chunk(update)
        elif isinstance(update, (s.ToolCallStart, s.ToolCallProgress)):
            self._tool(update.tool_call_id)
        elif isinstance(update, s.UnknownSessionUpdate):
            self.add_notice(f"(ignored an unknown update: {update.kind or '?'})")

    def _chunk(
        self, update: s.AgentMessageChunk | s.UserMessageChunk | s.AgentThoughtChunk
    ) -> None:
        role = update.session_update
        text = block_markdown(update.content)
        current = self._current
        same = (
            current is not None
            and self._current_role == role
            and (update.message_id is None or update.message_id == self._current_mid)
        )
        if same and isinstance(current, (StreamingMarkdown, ThoughtBlock)):
            current.feed(text)
            return
        widget: StreamingMarkdown | ThoughtBlock
        if isinstance(update, s.AgentThoughtChunk):
            widget = ThoughtBlock(text)
        else:
            widget = StreamingMarkdown(
                text, classes="-user" if isinstance(update, s.UserMessageChunk) else ""
            )
        self._append(widget)
        self._current = widget
        self._current_role = role
        self._current_mid = update.message_id

    def _tool(self, tool_call_id: str) -> None:
        card = self.cards.get(tool_call_id)
        call = self.state.tool_calls.get(tool_call_id)
        if call is None:
            return
        if card is None or card.call is not call:
            card = ToolCard(call, self.cwd, self.terminals)
            self.cards[tool_call_id] = card
            self._append(card)
            self._current = None
            self._current_role = None
        else:
            card.refresh_call()

    def refresh_cards(self) -> None:
        """Re-read every card (after a cancel marked calls cancelled)."""
        for card in self.cards.values():
            card.refresh_call()

    def end_turn(self) -> None:
        """The turn ended: collapse a streaming thought, start fresh blocks next time."""
        self._end_thought()
        self._current = None
        self._current_role = None

    def streams(self) -> list[StreamingMarkdown]:
        """The message widgets, oldest first."""
        return list(self.query(StreamingMarkdown))

    async def settled(self) -> None:
        """Wait until every streamed chunk is shown."""
        for md in self.streams():
            await md.settled()
