"""Content blocks that are not text, as placeholders every face shows alike.

A message, a prompt or a tool call may carry images, audio, embedded
resources and resource links; no face draws them inline, so each shows what
the block is: its kind, name, MIME type, size and annotations. One function
decides that here, for the TUI's cards, the CLI's ``[image]`` lines and the
history's transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import schema as s

__all__ = ["Media", "annotations_text", "human_size", "media_line", "media_of"]

#: A name or detail longer than this is cut (an agent's URI may be megabytes).
_CLIP = 80


@dataclass(frozen=True, slots=True)
class Media:
    """What a non-text content block is, for a placeholder.

    Attributes:
        kind: the block's ``type`` (``image``, ``audio``, ``resource``,
            ``resource_link``, or an unknown type as sent).
        name: what names it (a URI's file name, a title), cut; may be empty.
        details: MIME type, size, URI... in the order shown, each cut.
        notes: its annotations in words (``for user · priority 0.8``), or "".

    """

    kind: str
    name: str
    details: tuple[str, ...]
    notes: str


def human_size(n: int) -> str:
    """``532 B``, ``12.3 KB``, ``4.1 MB``."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _b64_size(data: str) -> int:
    """The decoded size of base64 ``data``, without decoding it."""
    return len(data.rstrip("=")) * 3 // 4


def _clip(text: str) -> str:
    return text if len(text) <= _CLIP else text[: _CLIP - 1] + "…"


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


def media_of(block: s.ContentBlock) -> Media | None:
    """The placeholder of a content block; None for a text block (it is message text).

    Args:
        block: a decoded content block (of a message, a prompt or a tool call).

    Returns:
        What the block is, or None when it is text.

    """
    if isinstance(block, s.TextContentBlock):
        return None
    if isinstance(block, s.UnknownContentBlock):
        kind = block.kind or "content"
    else:
        kind = str(getattr(block, "type", "") or "content")
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
    else:
        details.append("unknown content type: shown as a placeholder")
    return Media(
        kind=kind,
        name=_clip(name),
        details=tuple(_clip(d) for d in details if d),
        notes=annotations_text(getattr(block, "annotations", None)),
    )


def media_line(media: Media) -> str:
    """The placeholder on one line: ``[image] shot.png · image/png · 1.2 KB``."""
    shown = " · ".join(part for part in (media.name, *media.details) if part)
    line = f"[{media.kind}] {shown}" if shown else f"[{media.kind}]"
    if media.notes:
        line += f" ({media.notes})"
    return line
