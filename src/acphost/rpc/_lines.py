"""Lines as the core handles them, and the typed decoders it may be given."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Union

__all__ = ["BlockDecoder", "Line", "NotificationDecoder"]

#: How much of a bad line a violation quotes.
_EXCERPT = 200
#: When the first line of a chunk is longer than this, its lines are parsed from
#: views of the chunk rather than split off as copies (for long lines, the
#: copies cost more than the views).
_LONG_LINE = 1024


class _Oversized:
    """Stands in the line list for a line over the limit (orjson rejects it as input)."""

    __slots__ = ("excerpt",)

    def __init__(self, excerpt: bytes) -> None:
        self.excerpt = excerpt


Line = Union[bytes, memoryview, _Oversized]
#: Decodes one whole line as a notification of a known shape, to a tuple; raises
#: for anything else (any exception: the line then takes the general path).
NotificationDecoder = Callable[[Union[bytes, memoryview]], tuple[Any, ...]]
#: Decodes a block of whole lines (blank ones skipped) the same way, all or
#: nothing: it raises unless every line is such a notification.
BlockDecoder = Callable[[memoryview], list[tuple[Any, ...]]]


def _views(data: bytes, start: int, end: int) -> Iterator[memoryview]:
    """The lines of ``data[start:end]`` (which ends with a newline), as views."""
    view = memoryview(data)
    find = data.find
    while start < end:
        nl = find(b"\n", start, end)
        yield view[start:nl]
        start = nl + 1
