"""Recording every frame of a connection as a JSONL trace.

One line per frame, in the JSONL trace format acphost's fixtures use: the
frame's own members plus ``direction`` (``outgoing`` = client→agent,
``incoming`` = agent→client, from the host's side) and ``timestamp`` (UTC,
ISO 8601). Secrets are redacted before anything reaches the disk; a frame
with nothing to redact is written byte for byte as it was on the wire. A
configured value the agent streams split across message chunks is redacted
across them (:mod:`._carry`): a chunk that ends with the start of one waits,
with the frames behind it, until the next chunk of its stream shows whether
the value goes on.

ACP v2 sends a terminal's output as base64 (``terminal_update``'s
``output.data``, ``terminal_output_chunk``'s ``data``: schema
``TerminalOutput``, ``TerminalOutputChunk``), where no pattern can see a
secret a command printed: that output is decoded, redacted as text and
encoded again before the frame is redacted as usual; a configured value
split across a terminal's output chunks is joined by :mod:`._carry`.

A line the JSON-RPC reader refuses (not JSON, invalid UTF-8, a lone
surrogate, ``1e999``, nesting past its limit) is kept as ``{"direction": …,
"unparsed": "<text>"}`` so the trace shows exactly what went wrong. Nothing a
frame holds, and no failure of the disk, raises into the connection: a write
error is logged once and recording stops.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import datetime, timezone
from typing import IO, Any

import orjson

from .._outfile import open_output_fd
from ..redact import REDACTED, Redactor, encode_json
from ..rpc import ProtocolViolation
from ..safetext import CUT
from ._carry import ChunkCarry, Entry, output_data, output_text

__all__ = ["TraceWriter"]

logger = logging.getLogger("acphost.trace")

_OWN_KEYS = frozenset({"direction", "timestamp"})


def _redact_base64(data: str, redact_text: Callable[[str], str]) -> str | None:
    """``data`` (base64) with secrets in the bytes it encodes redacted, or None when unchanged.

    Only the redacted spans change (see :func:`._carry.output_text`). Data
    that is no base64 is left to the frame's own redaction, as text.
    """
    text = output_text(data)
    if text is None:
        return None
    redacted = redact_text(text)
    if redacted is text or redacted == text:
        return None
    return output_data(redacted)


def _redact_terminal_output(frame: Any, redact_text: Callable[[str], str]) -> Any:
    """The frame with its v2 base64 terminal output redacted (``frame`` itself when unchanged)."""
    if not isinstance(frame, dict) or frame.get("method") != "session/update":
        return frame
    params = frame.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(params, dict) or not isinstance(update, dict):
        return frame
    kind = update.get("sessionUpdate")
    holder = update if kind == "terminal_output_chunk" else None
    if kind == "terminal_update":
        holder = update.get("output")  # TerminalOutput: {data}
    data = holder.get("data") if isinstance(holder, dict) else None
    redacted = _redact_base64(data, redact_text) if isinstance(data, str) else None
    if redacted is None or not isinstance(holder, dict):
        return frame
    replaced = {**holder, "data": redacted}
    if holder is not update:
        replaced = {**update, "output": replaced}
    return {**frame, "params": {**params, "update": replaced}}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class TraceWriter:
    """A frame tap that appends redacted frames to a JSONL file.

    Use it as ``tap=`` of the client (or pass it as ``trace=`` to
    :meth:`AcpClient.start`). Constructing it with a path opens the file at
    once and safely (see :func:`acphost.host.open_output`): do it before the agent starts,
    so an unwritable path fails early. Each line is written with one system
    call on the kept descriptor, so a crash loses at most the frame being
    written.

    Args:
        target: a path (created or emptied, mode 0600) or an open text file.
        redactor: the redaction rules; build one from the run's
            configuration (:meth:`Redactor.from_config`) so configured values
            are redacted too. Default: patterns only.

    Raises:
        OutputFileError: the path cannot be opened safely (a symbolic link,
            a directory, a FIFO, another file's hard link, no permission).

    """

    def __init__(
        self, target: str | os.PathLike[str] | IO[str], *, redactor: Redactor | None = None
    ) -> None:
        self._fd: int | None = None
        self._file: IO[str] | None = None
        if isinstance(target, (str, os.PathLike)):
            self._fd = open_output_fd(target, append=False)
            self.name = os.fspath(target)
        else:
            self._file = target
            self.name = str(getattr(target, "name", "<stream>"))
        self._redactor = redactor or Redactor()
        # Without configured values there is nothing to join across chunks.
        secrets = self._redactor.secrets
        self._carry = ChunkCarry(secrets, REDACTED) if secrets else None
        self.closed = False
        self.frames = 0
        #: The error that stopped recording, if one did.
        self.error: OSError | None = None

    def __call__(self, direction: str, line: bytes) -> None:
        """Record one frame (the client's tap signature: ``"send"``/``"receive"``)."""
        if self.closed:
            return
        entry = Entry("outgoing" if direction == "send" else "incoming", _now(), line.strip())
        try:
            entry.frame = orjson.loads(entry.raw)
            entry.parsed = True
        except orjson.JSONDecodeError:
            pass  # recorded as "unparsed"
        self._push(entry)

    def record_violation(self, violation: ProtocolViolation) -> None:
        """Record a line the agent sent that is not a frame (taps only see frames).

        It becomes an ``unparsed`` record holding the start of the line,
        redacted, so the trace shows exactly what went wrong.
        """
        if self.closed:
            return
        text = violation.excerpt.decode("utf-8", "backslashreplace")
        # Cut before it could be redacted: marked, for the redactor (safetext.CUT).
        text = self._redactor.redact_text(text + CUT if violation.cut else text)
        record = (
            b'","unparsed":'
            + orjson.dumps(text)
            + b',"violation":'
            + orjson.dumps(violation.message)
            + b"}\n"
        )
        self._push(Entry("incoming", _now(), record=record))

    def _push(self, entry: Entry) -> None:
        ready = [entry]
        if self._carry is not None:
            try:
                ready = self._carry.push(entry)
            except Exception:  # a bug here must never cost the connection
                logger.exception("could not order a frame in the trace %s", self.name)
                held, self._carry = self._carry.drain(), None
                ready = held if any(e is entry for e in held) else [*held, entry]
        self._write_all(ready)

    def _write_all(self, entries: list[Entry]) -> None:
        for entry in entries:
            if self.closed:
                return
            head = (
                b'{"direction":"' + entry.direction.encode() + b'","timestamp":"'
                + entry.stamp.encode()
            )  # fmt: skip
            if entry.record is not None:
                self._write(head + entry.record)
                continue
            try:
                data = self._record(head + b'"', entry)
            except Exception:  # a bug here must cost one frame, never the connection
                logger.exception("could not record a frame in the trace %s", self.name)
                continue
            self._write(data)

    def _record(self, head: bytes, entry: Entry) -> bytes:
        raw = entry.raw
        if not entry.parsed:
            text = self._redactor.redact_text(raw.decode("utf-8", "backslashreplace"))
            return head + b',"unparsed":' + orjson.dumps(text) + b"}\n"
        frame = entry.final_frame()
        rewritten = entry.changed
        # A byte search keeps other frames' path as it was: the kind is spelt
        # out, or escaped (a JSON string escapes a letter only as \uXXXX).
        if b"terminal_" in raw or b"\\u" in raw:
            decoded = _redact_terminal_output(frame, self._redactor.redact_text)
            rewritten = rewritten or decoded is not frame
            frame = decoded
        if rewritten:
            redacted, changed = self._redactor.redact_frame(frame), True
        else:
            redacted, changed = self._redactor.redact_parsed(raw, frame)
        if isinstance(redacted, dict) and not changed and not (_OWN_KEYS & redacted.keys()):
            # The frame's own bytes (the empty object has no member to follow a comma).
            return head + (b"," + raw[1:] if redacted else b"}") + b"\n"
        if isinstance(redacted, dict):
            body = {k: v for k, v in redacted.items() if k not in _OWN_KEYS}
            encoded = encode_json(body)
            if encoded is not None:
                return head + (b"," + encoded[1:] if body else b"}") + b"\n"
        else:
            encoded = encode_json(redacted)
            if encoded is not None:
                return head + b',"frame":' + encoded + b"}\n"
        # Nested deeper than the JSON writers go: the line, redacted as text.
        text = self._redactor.redact_text(raw.decode("utf-8"))
        return head + b',"unparsed":' + orjson.dumps(text) + b"}\n"

    def _write(self, data: bytes) -> None:
        try:
            if self._fd is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view) :]
            elif self._file is not None:
                self._file.write(data.decode("utf-8"))
                self._file.flush()
        except (OSError, ValueError) as exc:
            self.error = exc if isinstance(exc, OSError) else OSError(str(exc))
            logger.error(
                "the trace %s stopped after %d frames: %s",
                self.name,
                self.frames,
                getattr(exc, "strerror", None) or exc,
            )
            self.close()
            return
        self.frames += 1

    def close(self) -> None:
        """Write the frames still held, flush and close the file (if this writer opened it)."""
        if self.closed:
            return
        if self._carry is not None:
            self._write_all(self._carry.drain())
        if self.closed:  # the writes failed
            return
        self.closed = True
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
        elif self._file is not None:
            try:  # noqa: SIM105 - a stream the caller owns may be closed already
                self._file.flush()
            except (OSError, ValueError):
                pass
