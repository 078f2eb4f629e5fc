"""Configured secrets an agent streams split across message chunks.

The redactor looks at one frame at a time, so an agent that sends a
configured value in pieces (``"...sk-live-12"`` then ``"34abcd..."``, each
an ``agent_message_chunk``) would leave both halves in a trace, to be joined
by anyone who reads it. :class:`ChunkCarry` sits in front of the writer and
looks at the text of consecutive chunks of one session and kind (ACP
``ContentChunk`` updates: ``agent_message_chunk``, ``agent_thought_chunk``,
``user_message_chunk``; and ACP v2's ``terminal_output_chunk`` of one
terminal, its base64 ``data`` read as the text of the bytes it encodes) as
the one stream they are:

* a configured value (in any spelling the redactor knows) found across
  chunks is replaced: the chunk where it starts shows ``[REDACTED]``, the
  others lose their part of it;
* a chunk whose text ends with the beginning of a configured value is held
  back, with every frame after it (the trace keeps wire order), until the
  next chunk of that stream shows whether the value goes on, or until the
  stream ends: any other update of that session, a response from the agent
  (the turn's end), :data:`MAX_HELD` frames, or the writer's close.

So at most the frames behind one unfinished prefix wait in memory, and a
crash loses only those. Nothing else about a frame changes.
"""

from __future__ import annotations

import base64
import binascii
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..redact import Literals, Overlaps

__all__ = ["MAX_HELD", "ChunkCarry", "Entry", "output_data", "output_text"]

#: The most frames held back behind an unfinished prefix before all are written.
MAX_HELD = 1024

_CHUNKS = frozenset({"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"})
# The stream key of a v2 terminal's output chunks: this, then the terminal id.
_TERMINAL = "terminal_output_chunk:"


def output_text(data: str) -> str | None:
    """The text of base64 terminal output (schema ``TerminalOutputChunk``), or None if no base64.

    Bytes that are no UTF-8 are kept as lone surrogates (``surrogateescape``),
    so :func:`output_data` gives back the very bytes where the text is unchanged.
    """
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "surrogateescape")


def output_data(text: str) -> str:
    """Terminal output text (from :func:`output_text`) as base64 again."""
    return base64.b64encode(text.encode("utf-8", "surrogateescape")).decode("ascii")


@dataclass(slots=True)
class Entry:
    """One frame on its way to the trace.

    Attributes:
        direction: ``outgoing`` or ``incoming``.
        stamp: when it passed (ISO 8601), taken on arrival, not on writing.
        raw: its bytes as on the wire (stripped).
        frame: the decoded frame (when ``parsed``).
        parsed: ``raw`` is JSON.
        record: a record already encoded (a protocol violation), written as is.
        key: a text chunk's stream: its session id and kind (for terminal
            output, ``terminal_output_chunk:`` and the terminal id).
        text: a text chunk's text, as it will be written.
        changed: ``text`` differs from the frame's (re-encode before writing).
        held: it must wait for the chunks after it.

    """

    direction: str
    stamp: str
    raw: bytes = b""
    frame: Any = None
    parsed: bool = False
    record: bytes | None = None
    key: tuple[str, str] | None = None
    text: str = ""
    changed: bool = False
    held: bool = False

    def final_frame(self) -> Any:
        """The frame to write: the decoded one, with its chunk text replaced if it changed."""
        if not self.changed:
            return self.frame
        params = self.frame["params"]
        update = params["update"]
        if self.key is not None and self.key[1].startswith(_TERMINAL):
            replaced = {**update, "data": output_data(self.text)}
        else:
            replaced = {**update, "content": {**update["content"], "text": self.text}}
        return {**self.frame, "params": {**params, "update": replaced}}


def chunk_of(frame: Any) -> tuple[tuple[str, str], str] | None:
    """``((session id, kind), text)`` of a text chunk notification, else None.

    A v2 terminal's output chunk is ``((session id, "terminal_output_chunk:"
    + terminal id), the text of its bytes)``.
    """
    if not isinstance(frame, dict) or frame.get("method") != "session/update":
        return None
    params = frame.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
        return None
    update = params.get("update")
    if not isinstance(update, dict):
        return None
    kind = update.get("sessionUpdate")
    if kind == "terminal_output_chunk":
        data, terminal = update.get("data"), update.get("terminalId")
        text = output_text(data) if isinstance(data, str) else None
        if text is None or not isinstance(terminal, str):
            return None
        return (params["sessionId"], _TERMINAL + terminal), text
    if not isinstance(kind, str) or kind not in _CHUNKS:  # a list would not hash
        return None
    content = update.get("content")
    if not isinstance(content, dict) or content.get("type") != "text":
        return None
    text = content.get("text")
    if not isinstance(text, str):
        return None
    return (params["sessionId"], kind), text


def _session_of(frame: Any) -> str | None:
    if isinstance(frame, dict) and frame.get("method") == "session/update":
        params = frame.get("params")
        if isinstance(params, dict) and isinstance(params.get("sessionId"), str):
            return str(params["sessionId"])
    return None


class ChunkCarry:
    """Orders frames for the trace, redacting configured values split across chunks.

    Feed every frame to :meth:`push` in wire order and write what it returns,
    in order; call :meth:`drain` at the end and write that too.

    Args:
        secrets: the configured values, in every spelling to look for
            (:attr:`Redactor.secrets`).
        replacement: what a value becomes (``[REDACTED]``).

    """

    def __init__(self, secrets: Iterable[str], replacement: str) -> None:
        spellings = sorted(set(secrets), key=len, reverse=True)
        self._literals = Literals(spellings)
        self._overlaps = Overlaps(spellings)
        self._replacement = replacement
        self._queue: deque[Entry] = deque()
        self._runs: dict[tuple[str, str], list[Entry]] = {}

    def push(self, entry: Entry) -> list[Entry]:
        """Take the next frame; return the frames that may be written now, in order."""
        found = chunk_of(entry.frame) if entry.direction == "incoming" else None
        self._queue.append(entry)
        if found is not None:
            entry.key, entry.text = found
            run = self._runs.setdefault(entry.key, [])
            run.append(entry)
            self._scan(run)
            if not run:
                del self._runs[entry.key]
        elif entry.direction == "incoming":
            self._end_streams(entry.frame)
        if len(self._queue) > MAX_HELD:
            return self.drain()
        return self._release()

    def drain(self) -> list[Entry]:
        """Every frame still held, in order (the stream is over: the writer closes)."""
        for run in self._runs.values():
            for held in run:
                held.held = False
        self._runs.clear()
        out = list(self._queue)
        self._queue.clear()
        return out

    def _end_streams(self, frame: Any) -> None:
        """A frame that is not a chunk ends the chunk streams it concerns."""
        session = _session_of(frame)
        if session is None and not (isinstance(frame, dict) and "method" in frame):
            ended = list(self._runs)  # a response (a turn's end) or unreadable: all of them
        else:
            ended = [key for key in self._runs if key[0] == session]
        for key in ended:
            for held in self._runs.pop(key):
                held.held = False

    def _release(self) -> list[Entry]:
        out = []
        while self._queue and not self._queue[0].held:
            out.append(self._queue.popleft())
        return out

    def _scan(self, run: list[Entry]) -> None:
        """Redact values across the run's texts; hold the chunks a value could still span."""
        combined = "".join(e.text for e in run)
        matches = list(self._literals.spans(combined))
        if matches:
            self._cut(run, matches)
            combined = "".join(e.text for e in run)
        # Every value still to come starts at or after the longest suffix that
        # is the beginning of one (linear in the text, whatever the values
        # repeat: see :mod:`._overlap`): the chunks wholly before it are final.
        hold_from = len(combined) - self._overlaps.begins(combined, proper=True)
        end = 0
        keep = 0
        for index, e in enumerate(run):
            end += len(e.text)
            e.held = end > hold_from
            if not e.held:
                keep = index + 1
        del run[:keep]

    def _cut(self, run: list[Entry], matches: list[tuple[int, int]]) -> None:
        start = 0
        for e in run:
            stop = start + len(e.text)
            pieces = []
            at = start
            for m_start, m_end in matches:
                if m_end <= start or m_start >= stop:
                    continue
                pieces.append(e.text[at - start : max(m_start, start) - start])
                if m_start >= start:  # the chunk where the value starts shows it went
                    pieces.append(self._replacement)
                at = min(m_end, stop)
            if pieces:
                pieces.append(e.text[at - start :])
                e.text = "".join(pieces)
                e.changed = True
            start = stop
