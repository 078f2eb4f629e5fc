"""The sending half of the JSON-RPC core: request ids, pending tables, outgoing frames.

:class:`~acphost.rpc.RpcCore` extends it with the receiving half; nothing
here is used on its own.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from ..errors import InternalError, LocalProtocolError, RequestError
from ._events import RequestId
from ._taps import FrameTap

__all__ = ["CANCEL_REQUEST", "Outgoing", "encode", "valid_id"]

logger = logging.getLogger("acphost.rpc")

#: The wire name of the protocol-level cancellation notification (schema
#: ``CancelRequestNotification``, ``x-method: $/cancel_request``).
CANCEL_REQUEST = "$/cancel_request"

_dumps = orjson.dumps
#: id-less error replies (to unparsable frames) sent at most this many times:
#: a peer that floods garbage and never reads must not grow our output buffer.
_MAX_NULL_ID_ERRORS = 100


class Outgoing:
    """Request ids, the tables of pending requests both ways, and the frames to send."""

    def __init__(self, tap: FrameTap | None) -> None:
        self.tap = tap
        self._next_id = 0
        self._pending: dict[RequestId, str] = {}
        self._inbound: set[RequestId] = set()
        # Requests we gave up on: their late answers are dropped quietly.
        self._abandoned: dict[RequestId, None] = {}
        self._out: list[bytes] = []
        self._null_id_errors = 0
        self._tap_failures = 0

    def _reply_error(self, rid: RequestId, error: RequestError) -> None:
        if rid is None:
            if self._null_id_errors >= _MAX_NULL_ID_ERRORS:
                return
            self._null_id_errors += 1
        self._push(encode({"jsonrpc": "2.0", "id": rid, "error": error.to_wire()}))

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
        line = encode(frame)  # before any bookkeeping: a bad frame leaves no trace
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
        self._push(encode(frame))

    def send_result(self, request_id: RequestId, result: Any) -> None:
        """Answer the peer's request with a result.

        Args:
            request_id: the id of the peer's request.
            result: a JSON-serialisable value.

        Raises:
            LocalProtocolError: no request with this id awaits an answer, or
                the result cannot be encoded as JSON.

        """
        line = encode({"jsonrpc": "2.0", "id": request_id, "result": result})
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
            line = encode({"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()})
        except LocalProtocolError:  # e.g. a message quoting a non-UTF-8 file name
            generic = InternalError("Internal error in the client").to_wire()
            line = encode({"jsonrpc": "2.0", "id": request_id, "error": generic})
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


def encode(frame: dict[str, Any]) -> bytes:
    """Serialise one frame; a value JSON cannot carry is our mistake."""
    try:
        return _dumps(frame)
    except TypeError as exc:  # e.g. a str with lone surrogates, or a non-JSON value
        raise LocalProtocolError(
            f"cannot send {frame.get('method') or 'a response'}: not valid JSON ({exc}); "
            "strings must be valid Unicode"
        ) from None


def valid_id(rid: Any) -> bool:
    """Whether ``rid`` may be a JSON-RPC id here (a string, an integer or null)."""
    t = type(rid)
    return t is int or t is str or rid is None
