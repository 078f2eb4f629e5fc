"""Helpers that build prompt content blocks (ACP "Content").

Strings become text blocks; paths and URLs become ``resource_link`` blocks
with absolute ``file://`` URIs and a best-effort mimeType; files can also be
embedded (``resource``) or sent as images and audio.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Union
from urllib.parse import unquote, urlparse

from . import schema as s

__all__ = [
    "Mention",
    "PromptInput",
    "audio",
    "block_text",
    "embedded_resource",
    "find_mentions",
    "image",
    "path_to_uri",
    "prompt_with_mentions",
    "resource_link",
    "text",
    "to_blocks",
]

PromptInput = Union[str, s.ContentBlock, Sequence[Union[str, s.ContentBlock]]]


def block_text(block: s.ContentBlock) -> str:
    """A block as message text: a text block's text, a link's or resource's URI, else ``""``.

    Args:
        block: any content block (an image or audio block has no text).

    Returns:
        The text that block contributes to a message.

    """
    if isinstance(block, s.TextContentBlock):
        return block.text
    if isinstance(block, s.ResourceLinkContentBlock):
        return block.uri
    if isinstance(block, s.EmbeddedResourceContentBlock):
        return block.resource.uri
    return ""


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
        resource = s.BlobResourceContents(uri=uri, blob=_b64(data).decode("ascii"), mime_type=mime)
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


# -- @ mentions ------------------------------------------------------------------
#
# ``@`` mentions in a prompt become ``resource_link`` blocks.
#
# ``@path``, ``@"path with spaces"``, ``@~/notes.md`` and ``@https://…`` are
# recognised at the start of the prompt or after whitespace (so
# ``me@example.com`` is not a mention). The prompt text is kept intact; one
# link block per distinct mention follows it. Relative paths resolve against
# the session cwd into absolute ``file://`` URIs. A bare ``@word`` that names
# no existing file is left as text (``@everyone``); a quoted one always links.

_MENTION = re.compile(r'(?:(?<=\s)|^)@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]+))')
_TRAILING = ".,;:!?)]}'"


class Mention:
    """One mention: the target as written and what it resolves to.

    Attributes:
        text: the mention as written, without ``@``.
        target: an absolute path or a URL.
        is_url: whether ``target`` is a URL.

    """

    __slots__ = ("is_url", "target", "text")

    def __init__(self, text: str, target: str, is_url: bool) -> None:
        self.text = text
        self.target = target
        self.is_url = is_url

    def __repr__(self) -> str:
        return f"Mention({self.text!r} -> {self.target!r})"


def find_mentions(prompt: str, cwd: str) -> list[Mention]:
    """Return the distinct mentions of ``prompt``, in order of appearance.

    Args:
        prompt: the prompt text.
        cwd: the directory relative paths are resolved against.

    """
    found: list[Mention] = []
    seen: set[str] = set()
    for match in _MENTION.finditer(prompt):
        quoted = match.group("quoted")
        text = quoted if quoted is not None else match.group("bare").rstrip(_TRAILING)
        if not text:
            continue
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", text):
            target, is_url = text, True
        else:
            path = os.path.expanduser(text)
            if not os.path.isabs(path):
                path = os.path.join(cwd, path)
            path = os.path.normpath(path)
            if quoted is None and not os.path.exists(path):
                continue
            target, is_url = path, False
        if target not in seen:
            seen.add(target)
            found.append(Mention(text, target, is_url))
    return found


def prompt_with_mentions(prompt: str, cwd: str) -> list[s.ContentBlock]:
    """The prompt text as a text block, then one ``resource_link`` per ``@`` mention.

    Args:
        prompt: the prompt as the user typed it (kept intact).
        cwd: the directory relative mentions resolve against.

    Returns:
        The blocks to send with :meth:`acphost.Session.prompt`.

    """
    blocks: list[s.ContentBlock] = [s.TextContentBlock(text=prompt)]
    blocks.extend(resource_link(m.target) for m in find_mentions(prompt, cwd))
    return blocks
