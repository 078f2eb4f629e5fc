"""A message as it streams: Markdown fed chunk by chunk, and the agent's thoughts.

Chunks arrive synchronously from the session listener, possibly thousands a
second. :class:`StreamingMarkdown` only appends them to a list; one drain task
per message hands the accumulated text to ``Markdown.append`` (which re-parses
from the last top-level block only), so a burst of chunks costs one render,
never one per chunk. Text is made inert (:mod:`acphost.tui._safe`) as it is
fed; the Markdown widget never parses Textual markup.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.widgets import Static

from ._safe import AgentMarkdown, InertCollapsible, agent_text, sanitize

__all__ = ["FRAME_SECONDS", "StreamingMarkdown", "ThoughtBlock"]

#: The shortest time between two appends to one message (30 updates a second).
FRAME_SECONDS = 1 / 30

# Headings are text, not links: the theme's heading colours read as links.
_MARKDOWN_CSS = """
    StreamingMarkdown { margin: 0; padding: 0 1; }
    StreamingMarkdown MarkdownHeader {
        color: $text; background: transparent; text-style: bold; margin: 1 0 0 0;
    }
    StreamingMarkdown MarkdownH1 { content-align: left top; text-style: bold underline; }
    StreamingMarkdown MarkdownH3, StreamingMarkdown MarkdownH4,
    StreamingMarkdown MarkdownH5, StreamingMarkdown MarkdownH6 { text-style: bold italic; }
    StreamingMarkdown > MarkdownBlock:first-child { margin-top: 0; }
    StreamingMarkdown > MarkdownBlock:last-child { margin-bottom: 0; }
"""


class StreamingMarkdown(AgentMarkdown):
    """A Markdown widget fed chunk by chunk without a render per chunk."""

    DEFAULT_CSS = _MARKDOWN_CSS

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
        """Queue a fragment (already inert); it shows at the next drain."""
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


class ThoughtBlock(InertCollapsible):
    """The agent's reasoning: dimmed, collapsible, expanded while it streams."""

    DEFAULT_CSS = """
    ThoughtBlock { padding: 0; margin: 0; border: none; background: transparent; }
    ThoughtBlock Static { color: $text-muted; text-style: italic; padding: 0 1; }
    ThoughtBlock CollapsibleTitle { padding: 0 1; }
    """

    def __init__(self, first: str = "") -> None:
        self._body = Static(agent_text(first), classes="thought-text")
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
        self._body.update(agent_text("".join(self._parts)))

    def finish(self) -> None:
        """The thought ended: show it all, collapse it under a summary title."""
        self._flush()
        text = sanitize(" ".join("".join(self._parts).split()))
        self.title = f"💭 {text[:60]}{'…' if len(text) > 60 else ''}"
        self.collapsed = True
