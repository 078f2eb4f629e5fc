"""The sans-I/O JSON-RPC 2.0 core: bytes in, events and bytes out.

It never touches a socket, a pipe or an event loop (STYLE.md, "Sans-I/O
core"), in the manner of websockets' ``protocol.py``: feed what the peer sent
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
exact bytes, from inside that batch.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from .._errors import (
    InternalError,
    InvalidRequest,
    LocalProtocolError,
    NotAnAcpAgent,
    ParseError,
    RemoteProtocolError,
    RequestError,
)
from ._events import (
    CancelRequested,
    ErrorResponse,
    Event,
    Notification,
    ProtocolViolation,
    Request,
    RequestId,
    Response,
)
from ._taps import FrameTap, taps_for

__all__ = [
    "CANCEL_REQUEST",
    "DEFAULT_MAX_LINE_BYTES",
    "NOT_ACP_BYTES",
    "NOT_ACP_LINES",
    "FrameTap",
    "ProtocolViolation",
    "RpcCore",
]

logger = logging.getLogger("acphost.rpc")

#: The wire name of the protocol-level cancellation notification (schema
#: ``CancelRequestNotification``, ``x-method: $/cancel_request``).
CANCEL_REQUEST = "$/cancel_request"

#: Default cap on one frame. Agents embed whole files in diffs and tool
#: output, so this is generous; a larger frame is reported and skipped.
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

#: A peer that writes this many bad lines, or this many bytes of them, before
#: its first JSON-RPC message is not an ACP agent (a banner line or two is
#: forgiven; ``yes`` or a shell script's chatter is not).
NOT_ACP_LINES = 10
NOT_ACP_BYTES = 64 * 1024

_loads = orjson.loads
_dumps = orjson.dumps
_JSONDecodeError = orjson.JSONDecodeError
_EXCERPT = 200
_QUOTE = 120
#: id-less error replies (to unparsable frames) sent at most this many times:
#: a peer that floods garbage and never reads must not grow our output buffer.
_MAX_NULL_ID_ERRORS = 100
#: When the first line of a chunk is longer than this, its lines are parsed from
#: views of the chunk rather than split off as copies (for long lines, the
#: copies cost more than the views).
_LONG_LINE = 1024


class RpcCore:
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

    Attributes:
        failure: set when the peer is beyond help (it does not speak JSON-RPC
            at all); the core then ignores its input. Close the connection
            and report this error.

    """

    def __init__(
        self, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, tap: FrameTap | None = None
    ) -> None:
        if max_line_bytes < 64:
            raise ValueError("max_line_bytes must be at least 64")
        self.max_line_bytes = max_line_bytes
        self.tap = taps_for(self, tap)
        self.failure: RemoteProtocolError | None = None
        self.eof = False
        self._next_id = 0
        self._pending: dict[RequestId, str] = {}
        self._inbound: set[RequestId] = set()
        # Requests we gave up on: their late answers are dropped quietly.
        self._abandoned: dict[RequestId, None] = {}
        self._partial = bytearray()
        self._discarding = False
        self._events: list[Event | dict[str, Any]] = []
        self._out: list[bytes] = []
        # Until the peer's first JSON-RPC message: how much junk it wrote.
        self._greeted = False
        self._junk_lines = 0
        self._junk_bytes = 0
        self._junk_first = b""
        self._null_id_errors = 0
        self._tap_failures = 0

    # -- receiving ---------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed bytes read from the peer; then call :meth:`events_received`.

        Args:
            data: any chunk of the byte stream; lines may be split anywhere.

        """
        if not data or self.failure is not None:
            return
        start = 0
        if self._partial or self._discarding:
            nl = data.find(b"\n")
            if nl < 0:
                self._extend_partial(data)
                return
            self._extend_partial(data[:nl])
            if self._discarding:
                self._discarding = False
                self._report_oversized(bytes(self._partial[:_EXCERPT]))
            else:
                self._receive_lines((bytes(self._partial),))
            self._partial.clear()
            start = nl + 1
        end = data.rfind(b"\n", start) + 1  # just past the last complete line, or 0
        if end > start and self.failure is None:
            if end - start > self.max_line_bytes:
                # One of these lines may be too long: measure each.
                self._receive_measured(data[start : end - 1].split(b"\n"))
            elif data.find(b"\n", start) - start > _LONG_LINE:
                # Long frames (diffs, file contents): parse views, copy nothing.
                # (bytes.split and bytes.count walk byte by byte; find is memchr.)
                self._receive_lines(_views(data, start, end))
            else:
                lines = data.split(b"\n")  # not data[start:]: no copy of the chunk
                if start:
                    del lines[0]
                lines.pop()
                self._receive_lines(lines)
        rest = max(start, end)
        if rest < len(data) and self.failure is None:
            self._extend_partial(data[rest:])

    def _receive_lines(self, lines: Iterable[bytes | memoryview]) -> None:
        # The one path every frame takes. A flood of session updates is what
        # it is tuned for: each well-formed notification is queued as its
        # parsed frame, a dict, in place of a Notification (see _take_events).
        # Anything else takes the general path, with the frame already parsed.
        # No line here is longer than max_line_bytes.
        append = self._events.append
        loads = _loads
        tap = self.tap
        for line in lines:
            try:
                msg = loads(line)
            except _JSONDecodeError as exc:
                self._receive_junk(line, exc)
                if self.failure is not None:
                    return
                continue
            if tap is not None:
                try:
                    tap("receive", line if type(line) is bytes else bytes(line))
                except Exception:
                    self._tap_failed()
            if type(msg) is dict and "id" not in msg:
                method = msg.get("method")
                if type(method) is str and method != CANCEL_REQUEST:
                    params = msg.get("params")
                    if params is None or type(params) is dict or type(params) is list:
                        append(msg)
                        continue
            self._receive_message(msg, line)

    def _receive_measured(self, lines: list[bytes]) -> None:
        limit = self.max_line_bytes
        for line in lines:
            if len(line) > limit:
                self._report_oversized(line[:_EXCERPT])
            else:
                self._receive_lines((line,))
            if self.failure is not None:
                return

    def _extend_partial(self, chunk: bytes) -> None:
        if self._discarding:
            return
        self._partial += chunk
        if len(self._partial) > self.max_line_bytes:
            # Keep an excerpt for the report, drop the rest until the next newline.
            del self._partial[_EXCERPT:]
            self._discarding = True
        elif not self._greeted and self._junk_bytes + len(self._partial) > NOT_ACP_BYTES:
            # A long first line that cannot be a JSON object is junk already.
            head = bytes(self._partial[:_EXCERPT]).lstrip()
            if not head.startswith(b"{") and not self._note_greeting(self._events):
                self._junk_bytes += len(self._partial)
                self._junk_first = self._junk_first or head
                self._fail_not_acp()

    def receive_eof(self) -> None:
        """Tell the core the peer closed its output. A partial last line is parsed."""
        if self._partial and not self._discarding and self.failure is None:
            self._receive_lines((bytes(self._partial),))
        self._partial.clear()
        self._discarding = False
        self.eof = True

    def events_received(self) -> list[Event]:
        """Return and forget the events parsed so far, in wire order."""
        return [
            Notification(ev["method"], ev.get("params")) if isinstance(ev, dict) else ev
            for ev in self._take_events()
        ]

    def _take_events(self) -> list[Event | dict[str, Any]]:
        """:meth:`events_received` for the driver: notifications may stay frames.

        A dict is a valid notification frame (``method`` a string, ``params``
        absent, an object or an array), standing for ``Notification(method,
        params)``: building a frozen dataclass per frame would cost a tenth of
        the whole session-update path.
        """
        events, self._events = self._events, []
        if not self._greeted:
            self._note_greeting(events)
        return events

    def _note_greeting(self, events: list[Event | dict[str, Any]]) -> bool:
        # Notifications on the batched path do not mark the greeting one by
        # one (that would cost every frame a store); look for them here.
        for ev in events:
            if type(ev) is not ProtocolViolation:
                self._greeted = True
                break
        return self._greeted

    # -- what is wrong with a line -------------------------------------------

    def _receive_junk(self, line: bytes | memoryview, exc: ValueError) -> None:
        line = bytes(line)
        if not line.strip():
            return  # blank lines between frames are harmless
        self._violation(f"malformed JSON: {exc}", line)
        self._reply_error(None, ParseError("Parse error: the frame is not valid JSON"))

    def _report_oversized(self, excerpt: bytes) -> None:
        self._violation(
            f"skipped a frame longer than the {self.max_line_bytes}-byte limit "
            "(raise max_line_bytes if the agent legitimately sends frames this big)",
            excerpt,
            size=self.max_line_bytes + 1,
        )

    def _violation(self, message: str, line: bytes | memoryview, size: int = 0) -> None:
        excerpt = bytes(line[:_EXCERPT])
        self._events.append(ProtocolViolation(message, excerpt))
        if self._greeted or self._note_greeting(self._events):
            return
        self._junk_lines += 1
        self._junk_bytes += size or len(line)
        self._junk_first = self._junk_first or excerpt
        if self._junk_lines >= NOT_ACP_LINES or self._junk_bytes >= NOT_ACP_BYTES:
            self._fail_not_acp()

    def _fail_not_acp(self) -> None:
        shown = self._junk_quote()
        lines = self._junk_lines or 1
        self.failure = NotAnAcpAgent(
            "this does not look like an ACP agent: before any JSON-RPC message it wrote "
            f"{lines} line{'s' if lines != 1 else ''} ({self._junk_bytes} bytes) that "
            f'{"are" if lines != 1 else "is"} not JSON-RPC, the first: "{shown}". An ACP '
            "agent writes only JSON-RPC messages, one per line, to its stdout: check the "
            "agent command (many agents need a flag or a separate adapter to speak ACP).",
            first_line=shown,
        )
        self._partial.clear()
        self._discarding = False

    def _not_acp_hint(self) -> str:
        """After end of stream: a sentence when the peer only ever wrote junk, else ``""``."""
        if self._greeted or not self._junk_first:
            return ""
        return (
            "this does not look like an ACP agent: it wrote no JSON-RPC message, "
            f'only output like "{self._junk_quote()}"'
        )

    def _junk_quote(self) -> str:
        from ..safetext import sanitize_line  # noqa: PLC0415 - only for these reports

        shown = sanitize_line(self._junk_first.decode("utf-8", "backslashreplace"))
        return shown[:_QUOTE] + ("..." if len(shown) > _QUOTE else "")

    # -- the general path ----------------------------------------------------

    def _receive_message(self, msg: Any, line: bytes | memoryview) -> None:
        if type(msg) is not dict:
            self._violation("a frame must be a JSON object (batches are not used by ACP)", line)
            self._reply_error(None, InvalidRequest("Invalid request: expected a JSON-RPC object"))
            return
        method = msg.get("method")
        if method is not None:
            self._receive_call(msg, method, line)
        elif "result" in msg or "error" in msg:
            self._receive_response(msg, line)
        else:
            self._violation("a frame with neither method nor result/error", line)
            self._reply_invalid(msg, "Invalid request: no method, result or error")

    def _receive_call(self, msg: dict[str, Any], method: Any, line: bytes | memoryview) -> None:
        if type(method) is not str:
            self._violation("method is not a string", line)
            self._reply_invalid(msg, "Invalid request: method must be a string")
            return
        params = msg.get("params")
        if params is not None and type(params) not in (dict, list):
            self._violation(f"{method}: params must be an object", line)
            self._reply_invalid(msg, "Invalid request: params must be an object")
            return
        self._greeted = True
        if "id" not in msg:
            if method == CANCEL_REQUEST:
                rid = params.get("requestId") if type(params) is dict else None
                if _valid_id(rid) and rid in self._inbound:
                    self._events.append(CancelRequested(rid))
                return
            self._events.append(Notification(method, params))
            return
        rid = msg["id"]
        if not _valid_id(rid):
            self._violation(f"{method}: id must be a string, an integer or null", line)
            self._reply_error(
                None, InvalidRequest("Invalid request: id must be a string, an integer or null")
            )
            return
        if rid in self._inbound:
            self._violation(f"{method}: id {rid!r} is already in use by a pending request", line)
            self._reply_error(
                rid,
                InvalidRequest(
                    f"Invalid request: id {rid!r} is already in use by a pending request"
                ),
            )
            return
        self._inbound.add(rid)
        self._events.append(Request(rid, method, params))

    def _receive_response(self, msg: dict[str, Any], line: bytes | memoryview) -> None:
        rid = msg.get("id")
        method = self._pending.pop(rid, None) if _valid_id(rid) else None
        if method is None:
            if _valid_id(rid) and self._abandoned.pop(rid, False) is None:
                self._greeted = True
                return  # the late answer to a request we abandoned
            self._violation(f"a response for an unknown request id {rid!r}", line)
            return
        self._greeted = True
        if "error" in msg:
            self._events.append(ErrorResponse(rid, method, RequestError.from_wire(msg["error"])))
        else:
            self._events.append(Response(rid, method, msg["result"]))

    def _reply_invalid(self, msg: dict[str, Any], text: str) -> None:
        # Notifications are never answered (JSON-RPC 2.0 §4.1), even when broken.
        if "id" in msg and _valid_id(msg["id"]) and msg["id"] not in self._inbound:
            self._reply_error(msg["id"], InvalidRequest(text))

    def _reply_error(self, rid: RequestId, error: RequestError) -> None:
        if rid is None:
            if self._null_id_errors >= _MAX_NULL_ID_ERRORS:
                return
            self._null_id_errors += 1
        self._push(_encode({"jsonrpc": "2.0", "id": rid, "error": error.to_wire()}))

    # -- sending -------------------------------------------------------------

    def send_request(self, method: str, params: Any = None) -> int:
        """Queue a request and return its id; the answer arrives as an event.

        Args:
            method: the wire method name.
            params: a JSON-serialisable object, or ``None`` to omit ``params``.

        Returns:
            The request's id.

        Raises:
            LocalProtocolError: the frame cannot be encoded as JSON (nothing
                was queued).

        """
        rid = self._next_id
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            frame["params"] = params
        line = _encode(frame)  # before any bookkeeping: a bad frame leaves no trace
        self._next_id += 1
        self._pending[rid] = method
        self._push(line)
        return rid

    def send_notification(self, method: str, params: Any = None) -> None:
        """Queue a notification.

        Args:
            method: the wire method name.
            params: a JSON-serialisable object, or ``None`` to omit ``params``.

        Raises:
            LocalProtocolError: the frame cannot be encoded as JSON.

        """
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            frame["params"] = params
        self._push(_encode(frame))

    def send_result(self, request_id: RequestId, result: Any) -> None:
        """Answer the peer's request with a result.

        Args:
            request_id: the id of the peer's request.
            result: a JSON-serialisable value.

        Raises:
            LocalProtocolError: no request with this id awaits an answer, or
                the result cannot be encoded as JSON.

        """
        line = _encode({"jsonrpc": "2.0", "id": request_id, "result": result})
        self._answer(request_id)
        self._push(line)

    def send_error(self, request_id: RequestId, error: RequestError) -> None:
        """Answer the peer's request with an error.

        Args:
            request_id: the id of the peer's request.
            error: the error to answer with.

        Raises:
            LocalProtocolError: no request with this id awaits an answer.

        """
        try:
            line = _encode({"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()})
        except LocalProtocolError:  # e.g. a message quoting a non-UTF-8 file name
            generic = InternalError("Internal error in the client").to_wire()
            line = _encode({"jsonrpc": "2.0", "id": request_id, "error": generic})
        self._answer(request_id)
        self._push(line)

    def abandon_request(self, request_id: RequestId, *, notify: bool = True) -> None:
        """Stop waiting for our request; tell the peer with ``$/cancel_request``.

        A late answer to it is then dropped without a violation (the peer may
        well answer -32800, as ACP asks).

        Args:
            request_id: the id :meth:`send_request` returned.
            notify: False only forgets it (used when the connection is gone).

        """
        if self._pending.pop(request_id, None) is not None:
            self._abandoned[request_id] = None
            if len(self._abandoned) > 1024:  # agents that never answer: keep it bounded
                del self._abandoned[next(iter(self._abandoned))]
            if notify:
                self.send_notification(CANCEL_REQUEST, {"requestId": request_id})

    def forget_all_pending(self) -> list[RequestId]:
        """Forget every outstanding request of ours and return their ids."""
        ids = list(self._pending)
        self._pending.clear()
        return ids

    @property
    def pending_requests(self) -> dict[RequestId, str]:
        """Our requests still awaiting an answer: id → method (a copy)."""
        return dict(self._pending)

    def _answer(self, request_id: RequestId) -> None:
        try:
            self._inbound.remove(request_id)
        except KeyError:
            raise LocalProtocolError(
                f"no request with id {request_id!r} awaits an answer "
                "(each request gets exactly one response)"
            ) from None

    def _push(self, line: bytes) -> None:
        if self.tap is not None:
            try:
                self.tap("send", line)
            except Exception:
                self._tap_failed()
        self._out.append(line)

    def _tap_failed(self) -> None:
        # An observer must never change what happens to the frame (nor can a
        # frame that trips it take the connection down): log, and go on.
        self._tap_failures += 1
        if self._tap_failures == 1:
            logger.exception("a frame tap failed; the frame was processed all the same")

    def data_to_send(self) -> bytes:
        """Return and forget the bytes to write to the peer (newline-framed)."""
        if not self._out:
            return b""
        out = b"\n".join(self._out) + b"\n"
        self._out.clear()
        return out


def _views(data: bytes, start: int, end: int) -> Iterator[memoryview]:
    """The lines of ``data[start:end]`` (which ends with a newline), as views."""
    view = memoryview(data)
    find = data.find
    while start < end:
        nl = find(b"\n", start, end)
        yield view[start:nl]
        start = nl + 1


def _encode(frame: dict[str, Any]) -> bytes:
    try:
        return _dumps(frame)
    except TypeError as exc:  # e.g. a str with lone surrogates, or a non-JSON value
        raise LocalProtocolError(
            f"cannot send {frame.get('method') or 'a response'}: not valid JSON ({exc}); "
            "strings must be valid Unicode"
        ) from None


def _valid_id(rid: Any) -> bool:
    t = type(rid)
    return t is int or t is str or rid is None
