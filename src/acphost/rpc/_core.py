"""The sans-I/O JSON-RPC 2.0 core: bytes in, events and bytes out.

It never touches a socket, a pipe or an event loop, in the manner of
websockets' ``protocol.py``: feed what the peer sent
to :meth:`RpcCore.receive_data`, then take :meth:`RpcCore.events_received`
and send :meth:`RpcCore.data_to_send`. The core owns request ids, the table
of pending requests, frame validation, the error replies that JSON-RPC makes
mandatory (-32700 for bad JSON, -32600 for a bad request object) and the
bookkeeping of ``$/cancel_request``.

ACP frames are newline-delimited JSON (ACP "Transports": "messages are
delimited by newlines and MUST NOT contain embedded newlines"; "the agent
MUST NOT write anything to its stdout that is not a valid ACP message").

There is one receiving path, whatever is attached: every chunk is split and
parsed as a batch, and a tap sees each frame that parsed as JSON, with its
exact bytes, from inside that batch. A driver may give a typed decoder for the
notifications that stream (``decode_notification``): each line is offered to
it first, and whatever it refuses takes the general path.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, Union

import orjson

from ..errors import InvalidRequest, ParseError, RemoteProtocolError, RequestError
from ._events import (
    CancelRequested,
    ErrorResponse,
    Event,
    Notification,
    ProtocolViolation,
    Request,
    Response,
)
from ._lines import (
    _EXCERPT,
    _LONG_LINE,
    BlockDecoder,
    Line,
    NotificationDecoder,
    _Oversized,
    _views,
)
from ._outgoing import CANCEL_REQUEST, Outgoing, valid_id
from ._prelude import Prelude
from ._taps import FrameTap, deliver_block, taps_for

__all__ = [
    "CANCEL_REQUEST",
    "DEFAULT_MAX_LINE_BYTES",
    "BlockDecoder",
    "FrameTap",
    "NotificationDecoder",
    "ProtocolViolation",
    "RpcCore",
]

logger = logging.getLogger("acphost.rpc")

#: What the core hands its driver: an event, a notification frame (a dict), a
#: line a typed decoder read (a tuple) or a block it read (a list of tuples).
Received = Union[Event, dict[str, Any], tuple[Any, ...], list[tuple[Any, ...]]]

#: Default cap on one frame. Agents embed whole files in diffs and tool
#: output, so this is generous; a larger frame is reported and skipped.
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_NO_ID = object()
_BLANK = frozenset(" \t\n\r")
# How much of a frame that is not JSON is searched for its id.
_ID_SCAN = 64 * 1024


def _response_id(line: bytes | memoryview) -> object:
    """The ``id`` of a broken frame that is a response, or ``_NO_ID``.

    The frame's top-level members are read in order with the lenient
    standard decoder (it takes ``NaN`` and ``Infinity``) until one cannot be
    read. It is a response when ``result`` or ``error`` was reached (its value
    may be the broken part) and no ``method`` was seen; the ``id`` must have
    been read whole. Nested ``id`` keys never count.
    """
    import json  # noqa: PLC0415 - only for frames that are not JSON

    text = bytes(line[:_ID_SCAN]).decode("utf-8", "replace")
    decoder = json.JSONDecoder()

    def space(i: int) -> int:
        while text[i : i + 1] in _BLANK:
            i += 1
        return i

    keys: set[str] = set()
    rid: object = _NO_ID
    i = space(0)
    if text[i : i + 1] != "{":
        return _NO_ID
    try:
        while True:
            i = space(i + 1)
            if text[i : i + 1] != '"':
                break
            key, i = decoder.raw_decode(text, i)
            i = space(i)
            if text[i : i + 1] != ":":
                break
            keys.add(str(key))
            value, i = decoder.raw_decode(text, space(i + 1))
            if key == "id":
                rid = value
            i = space(i)
            if text[i : i + 1] != ",":
                break
    except (ValueError, RecursionError):  # the broken part, or nesting too deep to read
        pass
    if "method" in keys or not keys & {"result", "error"}:
        return _NO_ID
    return rid


class RpcCore(Outgoing):
    """One side of a JSON-RPC 2.0 connection, without I/O.

    Args:
        max_line_bytes: frames longer than this are skipped and reported as a
            :class:`ProtocolViolation`; the connection survives.
        tap: called with ``("receive", line)`` for every received line that
            is valid JSON and ``("send", line)`` for every line queued, with
            the exact bytes (no trailing newline), in wire order. Lines that
            are not JSON never reach it (they become violations). Keep it
            fast: it runs inline. If it raises, the error is logged and the
            frame is processed all the same. Taps of an active
            :func:`~acphost.rpc.tap_all_cores` block run after it.
        decode_notification: once the peer has greeted, each line is first
            given to it; a line it decodes is an event of its own, the tuple
            it returns (in wire order with the others; taps see the line as
            usual). It must refuse (raise) whatever is not a notification it
            fully understands, requests and responses included: those lines
            then take the general path. The driver hands such tuples to the
            layer that gave the decoder.
        decode_notifications: the same for a block of lines, all or nothing:
            each chunk's complete lines (more than one, none over the limit)
            are given to it first, and when it decodes them all, the list it
            returns is one event (one read's worth, held at once); when it
            raises, the lines are offered one by one as above.

    Attributes:
        failure: set when the peer is beyond help (it does not speak JSON-RPC
            at all, see :class:`~acphost.NotAnAcpAgent`); the core then
            ignores its input. Close the connection and report this error.

    """

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        tap: FrameTap | None = None,
        decode_notification: NotificationDecoder | None = None,
        decode_notifications: BlockDecoder | None = None,
    ) -> None:
        if max_line_bytes < 64:
            raise ValueError("max_line_bytes must be at least 64")
        super().__init__(None)
        self.max_line_bytes = max_line_bytes
        self.tap = taps_for(tap)
        self.decode_notification = decode_notification
        self.decode_notifications = decode_notifications
        self.failure: RemoteProtocolError | None = None
        self.eof = False
        self._partial = bytearray()
        self._discarding = False
        self._events: list[Received] = []
        # Until the peer's first JSON-RPC message: the junk it wrote before.
        self._prelude: Prelude | None = Prelude()

    # -- receiving ---------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed bytes read from the peer; then call :meth:`events_received`.

        Args:
            data: any chunk of the byte stream; lines may be split anywhere.

        """
        self._events.extend(self._parse(data))

    def receive_eof(self) -> None:
        """Tell the core the peer closed its output. A partial last line is parsed."""
        if self._partial and not self._discarding and self.failure is None:
            self._events.extend(self._parse_lines((bytes(self._partial),)))
        self._partial.clear()
        self._discarding = False
        self.eof = True

    def events_received(self) -> list[Event | tuple[Any, ...]]:
        """Return and forget the events parsed so far, in wire order.

        A tuple is what a typed decoder made of a line (only with one).
        """
        events: list[Event | tuple[Any, ...]] = []
        for ev in self._take_events():
            if type(ev) is dict:
                events.append(Notification(ev["method"], ev.get("params")))
            elif type(ev) is list:
                events += ev
            else:
                events.append(ev)  # type: ignore[arg-type]
        return events

    def _take_events(self) -> list[Received]:
        """:meth:`events_received` for the driver: notifications may stay frames.

        A dict is a valid notification frame (``method`` a string, ``params``
        absent, an object or an array), standing for ``Notification(method,
        params)``: building a frozen dataclass per frame would cost a tenth of
        the whole session-update path. A list is a block the block decoder
        read: its tuples, in order.
        """
        events, self._events = self._events, []
        return events

    def _parse(self, data: bytes) -> Iterator[Received]:
        """Frame one chunk; return its events, parsed one by one as they are taken.

        :meth:`receive_data` takes them all at once; the driver takes them one
        at a time and handles each before the next line is parsed, so a chunk
        of frames is never held as objects all at once (but for a block the
        typed block decoder read whole). The iterator must be exhausted before
        the next chunk is given.
        """
        if not data or self.failure is not None:
            return iter(())
        first: bytes | _Oversized | None = None
        start = 0
        if self._partial or self._discarding:
            nl = data.find(b"\n")
            if nl < 0:
                self._extend_partial(data)
                return iter(())
            self._extend_partial(data[:nl])
            first = _Oversized(bytes(self._partial)) if self._discarding else bytes(self._partial)
            self._discarding = False
            self._partial.clear()
            start = nl + 1
        end = data.rfind(b"\n", start) + 1  # just past the last complete line, or 0
        lines: Iterable[Line] = ()
        if end > start:
            block = self.decode_notifications
            if (
                block is not None
                and self._prelude is None
                and end - start <= self.max_line_bytes
                and data.find(b"\n", start) < end - 1  # more than one line
            ):
                try:
                    decoded = block(memoryview(data)[start:end])
                except Exception:  # not all of them: line by line, as below
                    pass
                else:
                    if end < len(data):
                        self._extend_partial(data[end:])
                    if first is None and self.tap is None:
                        return iter((decoded,))
                    return self._decoded_block(first, data, start, end, decoded)
            if end - start > self.max_line_bytes:
                # One of these lines may be too long: measure each.
                limit = self.max_line_bytes
                lines = [
                    _Oversized(line[:_EXCERPT]) if len(line) > limit else line
                    for line in data[start : end - 1].split(b"\n")
                ]
            elif data.find(b"\n", start) - start > _LONG_LINE:
                # Long frames (diffs, file contents): parse views, copy nothing.
                # (bytes.split and bytes.count walk byte by byte; find is memchr.)
                lines = _views(data, start, end)
            else:
                split = data.split(b"\n")  # not data[start:]: no copy of the chunk
                if start:
                    del split[0]
                split.pop()
                lines = split
        if first is not None:
            lines = chain((first,), lines)
        return self._parse_lines(lines, data[max(start, end) :])

    def _decoded_block(
        self,
        first: bytes | _Oversized | None,
        data: bytes,
        start: int,
        end: int,
        decoded: list[tuple[Any, ...]],
    ) -> Iterator[Received]:
        # The line completing the previous chunk first, then the block's lines
        # for the tap (every one a frame but the blank ones), then its events.
        if first is not None:
            yield from self._parse_lines((first,))
        if self.tap is not None:
            try:
                deliver_block(self.tap, data[start:end])
            except Exception:
                self._tap_failed()
        yield decoded

    def _parse_lines(self, lines: Iterable[Line], tail: bytes = b"") -> Iterator[Received]:
        # The one path every line takes. A flood of session updates is what it
        # is tuned for: once the peer has greeted, each line is offered to the
        # typed decoder, and each other well-formed notification is handed
        # over as its parsed frame, a dict, in place of a Notification (see
        # _take_events). Anything else takes the general path, with the frame
        # already parsed.
        loads = _loads
        tap = self.tap
        fast = self._prelude is None
        typed = self.decode_notification if fast else None
        for line in lines:
            if typed is not None:
                try:
                    decoded = typed(line)  # type: ignore[arg-type]  # _Oversized fails here
                except Exception:  # not one it knows: the general path says what it is
                    pass
                else:
                    if tap is not None:
                        self._tap_received(tap, line)  # type: ignore[arg-type]
                    yield decoded
                    continue
            try:
                msg = loads(line)  # type: ignore[arg-type]  # _Oversized fails here
            except _JSONDecodeError as exc:
                bad = self._junk(line, exc)
                if bad is not None:
                    yield bad
                    if self.failure is not None:
                        return
                    failed = self._broken_response(line, exc)
                    if failed is not None:
                        yield failed
                continue
            if tap is not None:
                self._tap_received(tap, line)  # type: ignore[arg-type]
            if fast and type(msg) is dict and "id" not in msg:
                method = msg.get("method")
                if type(method) is str and method != CANCEL_REQUEST:
                    params = msg.get("params")
                    if params is None or type(params) is dict or type(params) is list:
                        yield msg
                        continue
            ev = self._message(msg, line)  # type: ignore[arg-type]
            if ev is not None:
                yield ev
                if self.failure is not None:
                    return
            fast = self._prelude is None
            typed = self.decode_notification if fast else None
        if tail:  # the start of the next line, kept until its newline arrives
            self._extend_partial(tail)

    def _tap_received(self, tap: FrameTap, line: bytes | memoryview) -> None:
        try:
            tap("receive", line if type(line) is bytes else bytes(line))
        except Exception:
            self._tap_failed()

    def _extend_partial(self, chunk: bytes) -> None:
        if self._discarding:
            return
        self._partial += chunk
        if len(self._partial) > self.max_line_bytes:
            # Keep an excerpt for the report, drop the rest until the next newline.
            del self._partial[_EXCERPT:]
            self._discarding = True
        elif self._prelude is not None:
            failure = self._prelude.unfinished(self._partial)
            if failure is not None:
                self._fail(failure)

    # -- what is wrong with a line -------------------------------------------

    def _junk(self, line: Line, exc: ValueError) -> ProtocolViolation | None:
        if isinstance(line, _Oversized):
            return self._violation(
                f"skipped a frame longer than the {self.max_line_bytes}-byte limit "
                "(raise max_line_bytes if the agent legitimately sends frames this big)",
                line.excerpt,
                size=self.max_line_bytes + 1,
            )
        line = bytes(line)
        if not line.strip():
            return None  # blank lines between frames are harmless
        bad = self._violation(f"malformed JSON: {exc}", line)
        self._reply_error(None, ParseError("Parse error: the frame is not valid JSON"))
        return bad

    def _broken_response(self, line: Line, exc: ValueError) -> ErrorResponse | None:
        """Fail the pending request a frame that is not JSON answers, if its id can be read.

        A response whose result holds ``NaN`` (not JSON: RFC 8259 §6) or that
        is over the line limit cannot be decoded, but it is plainly the
        answer: left pending, the request (a turn's ``session/prompt``) would
        wait forever. Only the invalid path pays for this.
        """
        oversized = isinstance(line, _Oversized)
        head = line.excerpt if isinstance(line, _Oversized) else line
        rid = _response_id(head)
        if rid is _NO_ID or not valid_id(rid) or rid not in self._pending:
            return None
        method = self._pending.pop(rid)
        self._prelude = None
        what = (
            f"is longer than the {self.max_line_bytes}-byte line limit"
            if oversized
            else f"is not valid JSON ({exc})"
        )
        error = RemoteProtocolError(f"the agent's response to {method} {what}")
        return ErrorResponse(rid, method, error)

    def _violation(
        self, message: str, line: bytes | memoryview, size: int = 0
    ) -> ProtocolViolation:
        excerpt = bytes(line[:_EXCERPT])
        size = size or len(line)
        if self._prelude is not None:
            failure = self._prelude.junk(excerpt, size)
            if failure is not None:
                self._fail(failure)
        return ProtocolViolation(message, excerpt, cut=size > len(excerpt))

    def _fail(self, failure: RemoteProtocolError) -> None:
        self.failure = failure
        self._partial.clear()
        self._discarding = False

    def _not_acp_hint(self) -> str:
        """After end of stream: a sentence when the peer only ever wrote junk, else ``""``."""
        return self._prelude.hint() if self._prelude is not None else ""

    # -- the general path ----------------------------------------------------

    def _message(self, msg: Any, line: bytes | memoryview) -> Event | None:
        if type(msg) is not dict:
            bad = self._violation("a frame must be a JSON object (ACP sends no batches)", line)
            self._reply_error(None, InvalidRequest("Invalid request: expected a JSON-RPC object"))
            return bad
        method = msg.get("method")
        if method is not None:
            return self._call(msg, method, line)
        if "result" in msg or "error" in msg:
            return self._response(msg, line)
        self._reply_invalid(msg, "Invalid request: no method, result or error")
        return self._violation("a frame with neither method nor result/error", line)

    def _call(self, msg: dict[str, Any], method: Any, line: bytes | memoryview) -> Event | None:
        if type(method) is not str:
            self._reply_invalid(msg, "Invalid request: method must be a string")
            return self._violation("method is not a string", line)
        params = msg.get("params")
        if params is not None and type(params) not in (dict, list):
            self._reply_invalid(msg, "Invalid request: params must be an object")
            return self._violation(f"{method}: params must be an object", line)
        if "id" not in msg:
            self._prelude = None
            if method == CANCEL_REQUEST:
                rid = params.get("requestId") if type(params) is dict else None
                return CancelRequested(rid) if valid_id(rid) and rid in self._inbound else None
            return Notification(method, params)
        rid = msg["id"]
        if not valid_id(rid):
            text = "id must be a string, an integer or null"
            self._reply_error(None, InvalidRequest(f"Invalid request: {text}"))
            return self._violation(f"{method}: {text}", line)
        if rid in self._inbound:
            text = f"id {rid!r} is already in use by a pending request"
            self._reply_error(rid, InvalidRequest(f"Invalid request: {text}"))
            return self._violation(f"{method}: {text}", line)
        self._prelude = None
        self._inbound.add(rid)
        return Request(rid, method, params)

    def _response(self, msg: dict[str, Any], line: bytes | memoryview) -> Event | None:
        rid = msg.get("id")
        method = self._pending.pop(rid, None) if valid_id(rid) else None
        if method is None:
            if valid_id(rid) and self._abandoned.pop(rid, False) is None:
                self._prelude = None
                return None  # the late answer to a request we abandoned
            return self._violation(f"a response for an unknown request id {rid!r}", line)
        self._prelude = None
        if "error" in msg:
            return ErrorResponse(rid, method, RequestError.from_wire(msg["error"]))
        return Response(rid, method, msg["result"])

    def _reply_invalid(self, msg: dict[str, Any], text: str) -> None:
        # Notifications are never answered (JSON-RPC 2.0 §4.1), even when broken.
        if "id" in msg and valid_id(msg["id"]) and msg["id"] not in self._inbound:
            self._reply_error(msg["id"], InvalidRequest(text))
