"""The protocol log's model: every frame, correlated by id, redacted, filterable.

Fed by the client's ``tap`` (``(direction, line)`` for each frame); read by
:class:`~acphost.tui._protocol_log.ProtocolLogScreen`. No Textual here.
Secrets go through the one redactor (:class:`acphost.trace.Redactor`) before
a frame is kept; a frame that cannot be decoded or is nested too deeply to
walk is kept as (capped) text, never a traceback.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..redact import Redactor
from ._model import words_match

__all__ = ["FrameRecord", "ProtocolLog", "frame_matches", "update_kind"]

#: The longest text kept of a line that is not a JSON object.
MAX_INVALID_TEXT = 64 * 1024


@dataclass(slots=True)
class FrameRecord:
    """One frame seen on the wire.

    Attributes:
        seq: position in the log, from 1.
        time: wall-clock seconds (``time.time()``) when it was seen.
        direction: ``"send"`` (to the agent) or ``"receive"``.
        kind: ``request``, ``response``, ``error``, ``notification`` or ``invalid``.
        method: the method (for responses, the method of the request answered).
        id: the JSON-RPC id, for requests and responses.
        payload: the decoded frame, secrets redacted (the raw text when not JSON).
        size: the frame's length in bytes.
        latency: for a response, seconds since its request.
        peer: the seq of the correlated request or response.
        detail: what a notification carries: the ``sessionUpdate`` kind of a
            ``session/update`` (``agent_message_chunk``, ``tool_call``...).

    """

    seq: int
    time: float
    direction: str
    kind: str
    method: str
    id: Any
    payload: Any
    size: int
    latency: float | None = None
    peer: int | None = None
    detail: str = ""

    @property
    def arrow(self) -> str:
        """``→`` for frames sent to the agent, ``←`` for frames received."""
        return "→" if self.direction == "send" else "←"

    def clock(self) -> str:
        """The local time as ``HH:MM:SS.mmm``."""
        local = time.localtime(self.time)
        return time.strftime("%H:%M:%S", local) + f".{int(self.time * 1000) % 1000:03d}"

    def as_json(self, *, indent: int | None = 2, ascii_only: bool = False) -> str:
        """The (redacted) frame as JSON text, for copying."""
        if isinstance(self.payload, str):
            return self.payload
        try:
            return json.dumps(self.payload, indent=indent, ensure_ascii=ascii_only)
        except (ValueError, RecursionError):
            return repr(self.payload)[:MAX_INVALID_TEXT]

    def copy_text(self, *, indent: int | None = 2) -> str:
        """:meth:`as_json`, encodable for the clipboard (lone surrogates escaped)."""
        text = self.as_json(indent=indent)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = self.as_json(indent=indent, ascii_only=True)
            text = text.encode("utf-8", "backslashreplace").decode("utf-8")
        return text

    def haystack(self) -> str:
        """What a filter searches: direction, kind, method, id and the frame."""
        ident = f"#{self.id}" if self.id is not None else ""
        dirn = "send out >" if self.direction == "send" else "receive recv in <"
        body = self.as_json(indent=None)
        return f"{dirn} {self.kind} {self.method} {self.detail} {ident} {body}".lower()


class ProtocolLog:
    """A bounded log of frames with request/response correlation by id.

    Feed it from the client's ``tap``; listeners hear each new record.

    Args:
        limit: the number of frames kept (older ones are dropped).
        redactor: what removes secrets from a frame (the host's one
            :class:`~acphost.trace.Redactor`, which knows the configured values).

    """

    def __init__(self, limit: int = 20_000, redactor: Callable[[Any], Any] | None = None) -> None:
        self.redactor: Callable[[Any], Any] = redactor or Redactor()
        self.records: deque[FrameRecord] = deque(maxlen=limit)
        self._seq = 0
        # (direction of the request, id) -> the request's record
        self._open: dict[tuple[str, str], FrameRecord] = {}
        self._listeners: list[Callable[[FrameRecord], None]] = []

    def __len__(self) -> int:
        return len(self.records)

    def add_listener(self, listener: Callable[[FrameRecord], None]) -> Callable[[], None]:
        """Call ``listener(record)`` for each new frame; returns the remover."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def record(self, direction: str, line: bytes, now: float | None = None) -> FrameRecord:
        """Log one frame (a ``tap`` callback: ``direction`` is ``send`` or ``receive``)."""
        self._seq += 1
        stamp = time.time() if now is None else now
        rec: FrameRecord | None = None
        try:
            frame = json.loads(line)
            if isinstance(frame, dict):
                rec = self._classify(frame, direction, stamp, len(line))
        except (ValueError, RecursionError):
            pass  # not JSON, or nested too deeply to decode or walk: kept as text
        if rec is None:
            # Redacted whole, then cut: a secret cut in two is not recognised.
            text = self.redactor(line.decode("utf-8", "replace"))
            if len(text) > MAX_INVALID_TEXT:
                text = text[:MAX_INVALID_TEXT] + f"… ({len(line)} bytes)"
            rec = FrameRecord(self._seq, stamp, direction, "invalid", "", None, text, len(line))
        self.records.append(rec)
        for listener in list(self._listeners):
            listener(rec)
        return rec

    def _classify(
        self, frame: dict[str, Any], direction: str, stamp: float, size: int
    ) -> FrameRecord:
        ident = frame.get("id")
        method = frame.get("method")
        payload = self.redactor(frame)
        if isinstance(method, str):
            kind = "notification" if ident is None else "request"
            rec = FrameRecord(self._seq, stamp, direction, kind, method, ident, payload, size)
            rec.detail = update_kind(frame)
            if ident is not None:
                self._open[(direction, json.dumps(ident))] = rec
                if len(self._open) > 10_000:  # never answered: do not grow forever
                    self._open.pop(next(iter(self._open)))
            return rec
        kind = "error" if "error" in frame else "response"
        other = "receive" if direction == "send" else "send"
        request = self._open.pop((other, json.dumps(ident)), None)
        rec = FrameRecord(
            self._seq,
            stamp,
            direction,
            kind,
            request.method if request is not None else "",
            ident,
            payload,
            size,
        )
        if request is not None:
            rec.latency = stamp - request.time
            rec.peer = request.seq
            request.peer = rec.seq
        return rec

    def find(self, seq: int | None) -> FrameRecord | None:
        """The record with this seq, if still kept."""
        if seq is None or not self.records:
            return None
        index = seq - self.records[0].seq
        if 0 <= index < len(self.records):
            rec = self.records[index]
            return rec if rec.seq == seq else None
        return None

    def filter(self, query: str) -> list[FrameRecord]:
        """The records matching every word of ``query`` (see :func:`frame_matches`)."""
        return [r for r in self.records if frame_matches(r, query)]


def frame_matches(record: FrameRecord, query: str) -> bool:
    """Whether a record matches a filter: each word must occur, ``-word`` must not.

    The words are searched in the direction (``send``/``>``, ``receive``/``<``),
    the kind, the method, ``#id`` and the frame's JSON, case-insensitively.
    """
    return not query.split() or words_match(record.haystack(), query)


def update_kind(frame: dict[str, Any]) -> str:
    """The ``sessionUpdate`` kind of a ``session/update`` frame (``""`` for other frames)."""
    if frame.get("method") != "session/update":
        return ""
    params = frame.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return kind if isinstance(kind, str) else ""
