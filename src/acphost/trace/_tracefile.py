"""Reading a JSONL trace file: one frame a line, bounded, whatever the file holds.

Lines are read as bytes with the live reader's size cap
(:data:`~acphost.rpc._core.DEFAULT_MAX_LINE_BYTES`), so a huge line costs
bounded memory, and decoded by the same JSON parser as the live reader, so
what it refuses (invalid UTF-8, lone surrogates, ``1e999``, nesting past its
limit) a trace check refuses too. A line that cannot be read is reported
with its number and the reading goes on. The file is opened by
:func:`acphost.config.open_input`: a FIFO or a device (``/dev/zero`` has
no end) is refused before anything is read.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

import orjson

from ..config import InputFileError, open_input
from ..rpc import DEFAULT_MAX_LINE_BYTES
from ._validate import Direction

__all__ = ["read_trace"]

_CHUNK = 1 << 20


def _lines(path: str, max_line_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """``(number, line)``; ``line`` is None for a line longer than the cap (skipped)."""
    try:
        opened = open_input(path, what="trace file")
    except InputFileError as exc:
        # Callers report an unreadable trace as an OSError (exit 2 for validate).
        raise OSError(errno.ENOENT if exc.missing else errno.EINVAL, str(exc), path) from None
    with opened as f:
        number = 0
        while True:
            line = f.readline(max_line_bytes + 1)
            if not line:
                return
            number += 1
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                while True:  # drop the rest of this line, a chunk at a time
                    rest = f.readline(_CHUNK)
                    if not rest or rest.endswith(b"\n"):
                        break
                yield number, None
                continue
            yield number, line


def read_trace(
    path: str, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[tuple[int, Direction | None, Any]]:
    """Yield ``(line, direction, frame)`` for each line of a JSONL trace.

    Lines in the recorder's format (frame members plus ``direction``) and in
    the wrapped form ``{"direction": ..., "frame": {...}}`` are both read.
    ``direction`` is None for a line that cannot be read; ``frame`` is then
    the reason (it may quote the file: sanitise it before showing it).

    Args:
        path: the trace file.
        max_line_bytes: longer lines are skipped and reported.

    Raises:
        OSError: the file cannot be opened or read.

    """
    for number, raw in _lines(path, max_line_bytes):
        if raw is None:
            yield number, None, f"a line longer than the {max_line_bytes}-byte limit"
            continue
        if not raw.strip():
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            yield number, None, f"not JSON ({exc.msg})"
            continue
        if not isinstance(record, dict) or record.get("direction") not in (
            "outgoing",
            "incoming",
        ):
            yield number, None, "no direction (outgoing or incoming)"
            continue
        direction: Direction = record["direction"]
        if "unparsed" in record:
            yield number, None, f"a frame that was not JSON: {str(record['unparsed'])[:100]}"
            continue
        if "frame" in record:
            yield number, direction, record["frame"]
        else:
            yield (
                number,
                direction,
                {k: v for k, v in record.items() if k not in ("direction", "timestamp")},
            )
