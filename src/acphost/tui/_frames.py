"""The protocol log's model: every frame, correlated by id, redacted, filterable.

Fed by the client's ``tap`` (``(direction, line)`` for each frame); read by
:class:`~acphost.tui._protocol_log.ProtocolLogScreen`. No Textual here.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["REDACTED", "FrameRecord", "ProtocolLog", "frame_matches", "redact"]

_SECRET_KEY = re.compile(
    r"(token|secret|passw(or)?d|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key)",
    re.IGNORECASE,
)
REDACTED = "«redacted»"


def redact(value: Any) -> Any:
    """Return a copy of a JSON value with secrets replaced by ``«redacted»``.

    Keys that name a secret (token, password, api key, authorization...) are
    masked, and so are ``{"name": ..., "value": ...}`` pairs whose name does
    (the ``EnvVariable`` and ``HttpHeader`` shapes of MCP server entries).
    """
    if isinstance(value, dict):
        name = value.get("name")
        out: dict[str, Any] = {}
        for key, item in value.items():
            if (_SECRET_KEY.search(str(key)) and isinstance(item, (str, int, float))) or (
                key == "value"
                and isinstance(name, str)
                and _SECRET_KEY.search(name)
                and isinstance(item, str)
            ):
                out[key] = REDACTED
            else:
                out[key] = redact(item)
        return out
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


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

    @property
    def arrow(self) -> str:
        """``→`` for frames sent to the agent, ``←`` for frames received."""
        return "→" if self.direction == "send" else "←"

    def clock(self) -> str:
        """The local time as ``HH:MM:SS.mmm``."""
        local = time.localtime(self.time)
        return time.strftime("%H:%M:%S", local) + f".{int(self.time * 1000) % 1000:03d}"

    def as_json(self, *, indent: int | None = 2) -> str:
        """The (redacted) frame as JSON text, for copying."""
        if isinstance(self.payload, str):
            return self.payload
        return json.dumps(self.payload, indent=indent, ensure_ascii=False)

    def haystack(self) -> str:
        """What a filter searches: direction, kind, method, id and the frame."""
        ident = f"#{self.id}" if self.id is not None else ""
        dirn = "send out >" if self.direction == "send" else "receive recv in <"
        return f"{dirn} {self.kind} {self.method} {ident} {self.as_json(indent=None)}".lower()


class ProtocolLog:
    """A bounded log of frames with request/response correlation by id.

    Feed it from the client's ``tap``; listeners hear each new record.

    Args:
        limit: the number of frames kept (older ones are dropped).

    """

    def __init__(self, limit: int = 20_000) -> None:
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
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        if not isinstance(frame, dict):
            rec = FrameRecord(
                self._seq,
                stamp,
                direction,
                "invalid",
                "",
                None,
                line.decode("utf-8", "replace"),
                len(line),
            )
        else:
            rec = self._classify(frame, direction, stamp, len(line))
        self.records.append(rec)
        for listener in list(self._listeners):
            listener(rec)
        return rec

    def _classify(
        self, frame: dict[str, Any], direction: str, stamp: float, size: int
    ) -> FrameRecord:
        ident = frame.get("id")
        method = frame.get("method")
        payload = redact(frame)
        if isinstance(method, str):
            kind = "notification" if ident is None else "request"
            rec = FrameRecord(self._seq, stamp, direction, kind, method, ident, payload, size)
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
    words = query.lower().split()
    if not words:
        return True
    hay = record.haystack()
    for word in words:
        if word.startswith("-") and len(word) > 1:
            if word[1:] in hay:
                return False
        elif word not in hay:
            return False
    return True
