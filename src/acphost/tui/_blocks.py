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
from ._safe import AgentMarkdown, agent_line, agent_markdown, clip

__all__ = [
    "MediaCard",
    "UserBubble",
    "annotations_text",
    "block_card_text",
    "block_markdown",
    "human_size",
    "is_card",
    "mention_label",
]

_ICONS = {"image": "🖼", "audio": "🔊", "resource_link": "🔗", "resource": "📎"}


def human_size(n: int) -> str:
    """``532 B``, ``12.3 KB``, ``4.1 MB``."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _b64_size(data: str) -> int:
    """The decoded size of base64 ``data``, without decoding it."""
    stripped = data.rstrip("=")
    return len(stripped) * 3 // 4


def block_markdown(block: s.ContentBlock) -> str:
    """The Markdown a text block contributes to a message (``""`` for other blocks)."""
    return block.text if isinstance(block, s.TextContentBlock) else ""


def is_card(block: s.ContentBlock) -> bool:
    """Whether a block shows as a card rather than as message text."""
    return not isinstance(block, s.TextContentBlock)


def annotations_text(annotations: s.Annotations | None) -> str:
    """``for user · priority 0.8 · modified 2025-01-01`` (``""`` without annotations)."""
    if annotations is None:
        return ""
    parts = []
    if annotations.audience:
        parts.append("for " + ", ".join(annotations.audience))
    if annotations.priority is not None:
        parts.append(f"priority {annotations.priority:g}")
    if annotations.last_modified:
        parts.append(f"modified {annotations.last_modified}")
    return " · ".join(parts)


def _uri_name(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return os.path.basename(unquote(parsed.path)) or uri
    return uri


def block_card_text(block: s.ContentBlock) -> Text:
    """One or two lines for a non-text block: what it is, its size and name, annotations."""
    kind = str(getattr(block, "type", "") or "content")
    head = Text(f"{_ICONS.get(kind, '◇')} {kind}", style="bold")
    details: list[str] = []
    name = ""
    if isinstance(block, (s.ImageContentBlock, s.AudioContentBlock)):
        details += [block.mime_type, human_size(_b64_size(block.data))]
        name = getattr(block, "uri", None) or ""
    elif isinstance(block, s.ResourceLinkContentBlock):
        if block.mime_type:
            details.append(block.mime_type)
        if block.size is not None:
            details.append(human_size(block.size))
        name = block.title or block.name
        if name != block.uri:
            details.append(block.uri)
    elif isinstance(block, s.EmbeddedResourceContentBlock):
        res = block.resource
        if res.mime_type:
            details.append(res.mime_type)
        if isinstance(res, s.TextResourceContents):
            details.append(f"{len(res.text)} characters")
        else:
            details.append(human_size(_b64_size(res.blob)))
        name = res.uri
    elif isinstance(block, s.UnknownContentBlock):
        details.append("unknown content type: shown as a placeholder")
    line = head
    if name:
        line.append(" ")
        line.append_text(agent_line(clip(name, 80), "bold"))
    for detail in details:
        line.append(" · ", style="dim")
        line.append_text(agent_line(clip(detail, 80), "dim"))
    notes = annotations_text(getattr(block, "annotations", None))
    if notes:
        line.append("\n")
        line.append_text(agent_line(notes, "dim italic"))
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
