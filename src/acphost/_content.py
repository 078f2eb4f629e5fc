"""Helpers that build prompt content blocks (ACP "Content").

Strings become text blocks; paths and URLs become ``resource_link`` blocks
with absolute ``file://`` URIs and a best-effort mimeType; files can also be
embedded (``resource``) or sent as images and audio.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Union
from urllib.parse import unquote, urlparse

from . import schema as s

__all__ = [
    "PromptInput",
    "audio",
    "embedded_resource",
    "image",
    "path_to_uri",
    "resource_link",
    "text",
    "to_blocks",
]

PromptInput = Union[str, s.ContentBlock, Sequence[Union[str, s.ContentBlock]]]


def text(value: str) -> s.TextContentBlock:
    """A text block (all agents accept text)."""
    return s.TextContentBlock(text=value)


def path_to_uri(path: str | os.PathLike[str], *, base: str | os.PathLike[str] | None = None) -> str:
    """Return the absolute ``file://`` URI of a path (relative to ``base`` or the cwd).

    ``~`` is expanded; the path is made absolute but symlinks are not resolved.
    """
    p = Path(os.path.expanduser(os.fspath(path)))
    if not p.is_absolute():
        p = Path(base if base is not None else os.getcwd()) / p
    return Path(os.path.normpath(p)).as_uri()


def _guess_mime(name: str) -> str | None:
    import mimetypes  # noqa: PLC0415 - reads the system MIME tables; only links need it

    mime, _ = mimetypes.guess_type(name, strict=False)
    if mime is None and name.endswith((".py", ".pyi")):
        mime = "text/x-python"
    return mime


def resource_link(
    target: str | os.PathLike[str],
    *,
    name: str | None = None,
    mime_type: str | None = None,
    base: str | os.PathLike[str] | None = None,
) -> s.ResourceLinkContentBlock:
    """A ``resource_link`` block for a file path or a URL.

    Args:
        target: a path (relative ones resolve against ``base`` or the cwd)
            or a URL (``https://…``, ``file://…``).
        name: the display name (default: the file or URL's last segment).
        mime_type: the MIME type (default: guessed from the name).
        base: the directory relative paths are resolved against.

    """
    raw = os.fspath(target)
    parsed = urlparse(raw)
    if parsed.scheme and len(parsed.scheme) > 1:  # a URL, not a drive letter
        uri = raw
        segment = unquote(parsed.path.rstrip("/").rsplit("/", 1)[-1]) or parsed.netloc or raw
        size = None
        if parsed.scheme == "file":
            size = _size(unquote(parsed.path))
    else:
        uri = path_to_uri(raw, base=base)
        segment = os.path.basename(os.path.normpath(raw)) or raw
        size = _size(unquote(urlparse(uri).path))
    return s.ResourceLinkContentBlock(
        uri=uri,
        name=name or segment,
        mime_type=mime_type or _guess_mime(segment),
        size=size,
    )


def _size(path: str) -> int | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if not os.path.isdir(path) else None


def embedded_resource(
    path: str | os.PathLike[str],
    *,
    mime_type: str | None = None,
    base: str | os.PathLike[str] | None = None,
) -> s.EmbeddedResourceContentBlock:
    """Embed a file's content (needs the agent's ``embeddedContext`` capability).

    UTF-8 files are embedded as text, anything else as a base64 blob.

    Raises:
        OSError: the file cannot be read.

    """
    uri = path_to_uri(path, base=base)
    file_path = unquote(urlparse(uri).path)
    data = Path(file_path).read_bytes()
    mime = mime_type or _guess_mime(file_path)
    resource: s.EmbeddedResourceResource
    try:
        resource = s.TextResourceContents(uri=uri, text=data.decode("utf-8"), mime_type=mime)
    except UnicodeDecodeError:
        resource = s.BlobResourceContents(
            uri=uri, blob=_b64(data).decode("ascii"), mime_type=mime
        )
    return s.EmbeddedResourceContentBlock(resource=resource)


def _b64(data: bytes) -> bytes:
    import base64  # noqa: PLC0415 - only media and blobs need it

    return base64.b64encode(data)


def _media(path_or_data: str | os.PathLike[str] | bytes, mime_type: str | None) -> tuple[str, str]:
    if isinstance(path_or_data, bytes):
        if mime_type is None:
            raise ValueError("pass mime_type= with raw bytes")
        return _b64(path_or_data).decode("ascii"), mime_type
    name = os.fspath(path_or_data)
    mime = mime_type or _guess_mime(name)
    if mime is None:
        raise ValueError(f"cannot guess the MIME type of {name!r}; pass mime_type=")
    return _b64(Path(name).read_bytes()).decode("ascii"), mime


def image(
    path_or_data: str | os.PathLike[str] | bytes, *, mime_type: str | None = None
) -> s.ImageContentBlock:
    """An image block from a file or raw bytes (needs the ``image`` capability)."""
    data, mime = _media(path_or_data, mime_type)
    return s.ImageContentBlock(data=data, mime_type=mime)


def audio(
    path_or_data: str | os.PathLike[str] | bytes, *, mime_type: str | None = None
) -> s.AudioContentBlock:
    """An audio block from a file or raw bytes (needs the ``audio`` capability)."""
    data, mime = _media(path_or_data, mime_type)
    return s.AudioContentBlock(data=data, mime_type=mime)


def to_blocks(content: PromptInput) -> list[s.ContentBlock]:
    """Normalise prompt input to a list of content blocks (strings become text).

    Raises:
        ValueError: the prompt is empty.
        TypeError: an item is neither a string nor a content block.

    """
    items: Sequence[str | s.ContentBlock]
    items = [content] if isinstance(content, str) or not isinstance(content, Sequence) else content
    blocks: list[s.ContentBlock] = []
    for item in items:
        if isinstance(item, str):
            blocks.append(text(item))
        elif isinstance(item, _BLOCK_TYPES):
            blocks.append(item)
        else:
            raise TypeError(
                f"a prompt item must be a str or a content block, not {type(item).__name__}"
            )
    if not blocks:
        raise ValueError("a prompt needs at least one content block")
    return blocks


_BLOCK_TYPES = (
    s.TextContentBlock,
    s.ImageContentBlock,
    s.AudioContentBlock,
    s.ResourceLinkContentBlock,
    s.EmbeddedResourceContentBlock,
)
