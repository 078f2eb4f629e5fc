"""Content blocks a terminal cannot show as text, and the files a prompt mentions.

ACP content (``ContentBlock``) is text, image, audio, a resource link or an
embedded resource, each with optional annotations (audience, priority, last
modified). Text goes to the Markdown view; everything else becomes a
placeholder card saying what it is (type, MIME type, size, name), as the RAT
guide's "Content Rendering" asks of a terminal client. A prompt's file
mentions (``resource_link`` blocks) show as chips under the prompt text.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlparse

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from .. import schema as s
from ..view import media_of
from ._safe import AgentMarkdown, agent_line, agent_markdown

__all__ = [
    "MediaCard",
    "UserBubble",
    "block_card_text",
    "block_markdown",
    "is_card",
    "mention_label",
]

_ICONS = {"image": "🖼", "audio": "🔊", "resource_link": "🔗", "resource": "📎"}


def block_markdown(block: s.ContentBlock) -> str:
    """The Markdown a text block contributes to a message (``""`` for other blocks)."""
    return block.text if isinstance(block, s.TextContentBlock) else ""


def is_card(block: s.ContentBlock) -> bool:
    """Whether a block shows as a card rather than as message text."""
    return not isinstance(block, s.TextContentBlock)


def block_card_text(block: s.ContentBlock) -> Text:
    """One or two lines for a non-text block: what it is, its size and name, annotations."""
    media = media_of(block)
    kind = media.kind if media is not None else "text"
    line = Text(f"{_ICONS.get(kind, '◇')} {kind}", style="bold")
    if media is None:
        return line
    if media.name:
        line.append(" ")
        line.append_text(agent_line(media.name, "bold"))
    for detail in media.details:
        line.append(" · ", style="dim")
        line.append_text(agent_line(detail, "dim"))
    if media.notes:
        line.append("\n")
        line.append_text(agent_line(media.notes, "dim italic"))
    return line


class MediaCard(Static):
    """A placeholder card for an image, audio, a resource or an unknown block."""

    DEFAULT_CSS = """
    MediaCard {
        height: auto;
        padding: 0 1;
        margin: 0;
        border-left: wide $secondary;
        color: $text;
    }
    """

    def __init__(self, block: s.ContentBlock, **kwargs: Any) -> None:
        super().__init__(block_card_text(block), **kwargs)
        self.block = block


def mention_label(block: s.ResourceLinkContentBlock, cwd: str) -> str:
    """A file chip's label: the path relative to the workspace, else the name or URI."""
    parsed = urlparse(block.uri)
    if parsed.scheme == "file":
        path = unquote(parsed.path)
        rel = os.path.relpath(path, cwd) if os.path.isabs(path) else path
        return path if rel.startswith("..") else rel
    return block.title or block.name or block.uri


class UserBubble(Vertical):
    """The user's prompt: its text, then a chip for each mentioned file or resource."""

    DEFAULT_CSS = """
    UserBubble {
        height: auto;
        padding: 0 1;
        margin: 0;
        background: $boost;
        border-left: wide $primary;
    }
    UserBubble Markdown { padding: 0; margin: 0; }
    UserBubble Markdown > MarkdownBlock:last-child { margin-bottom: 0; }
    UserBubble .chips { height: auto; color: $text; }
    """

    def __init__(self, blocks: list[s.ContentBlock], cwd: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.blocks = blocks
        self.cwd = cwd

    @property
    def source(self) -> str:
        """The prompt's text (what Markdown shows)."""
        return "\n\n".join(b.text for b in self.blocks if isinstance(b, s.TextContentBlock))

    def compose(self) -> ComposeResult:
        """Text, chips, then cards for other media."""
        if self.source:
            yield AgentMarkdown(agent_markdown(self.source))
        chips = Text()
        for block in self.blocks:
            if isinstance(block, s.ResourceLinkContentBlock):
                if chips:
                    chips.append(" ")
                chips.append_text(agent_line(f" 📄 {mention_label(block, self.cwd)} ", "reverse"))
        if chips:
            yield Static(chips, classes="chips")
        for block in self.blocks:
            if is_card(block) and not isinstance(block, s.ResourceLinkContentBlock):
                yield MediaCard(block)
