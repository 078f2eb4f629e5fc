"""JSON-RPC 2.0 framing for the demo agent: one compact object per line.

The reader thread feeds responses in with :meth:`Wire.receive_response`; any
thread may send. Requests the agent sends wait on a :class:`Reply`, which the
matching response fills in by id. A reply can also be *interrupted* (the turn
that waits for it was cancelled) or *closed* (stdin reached EOF).
"""

from __future__ import annotations

import sys
import threading

from ._codec import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Protocol

    Json = dict[str, Any]

    class Shaper(Protocol):
        """Rewrites outgoing frames for the negotiated version (``_v2.Shaper``)."""

        def notification(self, method: str, params: Json) -> list[Json]: ...
        def request(self, method: str, params: Json) -> tuple[Json, list[Json], list[Json]]: ...


# JSON-RPC and ACP error codes (schema `ErrorCode`).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
AUTH_REQUIRED = -32000
NOT_FOUND = -32002


class RpcError(Exception):
    """Answer the current request with this JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Reply:
    """What became of one request the agent sent to the client."""

    __slots__ = ("after", "done", "error", "interrupted", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: Json | None = None
        self.interrupted = False
        #: Frames to send once the client answers, before the waiting turn goes on.
        self.after: list[Json] = []

    def wait(self) -> Reply:
        """Block until a response, an interruption or the end of input; return self."""
        self.done.wait()
        return self


class Wire:
    """Thread-safe line writer plus the table of the agent's outstanding requests."""

    def __init__(self, out: BinaryIO, debug: bool) -> None:
        self._out = out
        self._debug = debug
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: dict[object, Reply] = {}
        self._counter = 0
        self._closed = False
        #: The v1 -> v2 shaper once ``initialize`` negotiated version 2, else ``None``.
        self.v2: Shaper | None = None

    @property
    def debug(self) -> bool:
        """Whether debug lines go to stderr (``ACPHOST_DEMO_DEBUG``)."""
        return self._debug

    def log(self, text: str) -> None:
        """Write a debug line to stderr when ``ACPHOST_DEMO_DEBUG`` is set."""
        if self._debug:
            sys.stderr.write(f"acphost-demo: {text}\n")
            sys.stderr.flush()

    def send(self, message: Json) -> None:
        """Write one frame and flush; a closed stdout is ignored (the client left)."""
        line = dumps({"jsonrpc": "2.0", **message})
        self.log(f"-> {line}")
        data = line.encode("utf-8", "surrogatepass") + b"\n"
        with self._write_lock:
            try:
                self._out.write(data)
                self._out.flush()
            except (BrokenPipeError, ValueError, OSError):
                self._closed = True

    def respond(self, request_id: object, result: Json) -> None:
        """Answer a client request with ``result``, echoing its id unchanged."""
        self.send({"id": request_id, "result": result})

    def fail(self, request_id: object, code: int, message: str, data: Any = None) -> None:
        """Answer a client request with a JSON-RPC error object."""
        error: Json = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"id": request_id, "error": error})

    def notify(self, method: str, params: Json) -> None:
        """Send a notification to the client (reshaped for v2 when negotiated)."""
        if self.v2 is not None:
            for frame in self.v2.notification(method, params):
                self.send(frame)
            return
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Json, *, string_id: bool) -> Reply:
        """Send a request to the client and return the :class:`Reply` to wait on.

        Args:
            method: The wire method name.
            params: Its params object.
            string_id: Use a string id (``"demo-7"``) rather than an integer;
                JSON-RPC allows both and clients must echo either back.

        """
        reply = Reply()
        before: list[Json] = []
        if self.v2 is not None:
            params, before, reply.after = self.v2.request(method, params)
        with self._lock:
            self._counter += 1
            request_id: object = f"demo-{self._counter}" if string_id else self._counter
            if self._closed:
                reply.error = {"code": -32603, "message": "connection closed"}
                reply.done.set()
                return reply
            self._pending[request_id] = reply
        for frame in before:
            self.send(frame)
        self.send({"id": request_id, "method": method, "params": params})
        return reply

    def receive_response(self, message: Json) -> None:
        """Match a response from the client to the request it answers; drop strays."""
        with self._lock:
            reply = self._pending.pop(message.get("id"), None)
        if reply is None:
            self.log(f"ignoring response to unknown id {message.get('id')!r}")
            return
        error = message.get("error")
        if isinstance(error, dict):
            reply.error = error
        elif "result" in message:
            reply.result = message["result"]
        else:
            reply.error = {"code": -32603, "message": "malformed response"}
        for frame in reply.after:
            self.send(frame)
        reply.done.set()

    def interrupt(self, reply: Reply) -> None:
        """Stop waiting for ``reply``: its turn was cancelled. A late answer is dropped."""
        with self._lock:
            for key, value in list(self._pending.items()):
                if value is reply:
                    del self._pending[key]
            if reply.done.is_set():
                return
            reply.interrupted = True
        reply.done.set()

    def close(self) -> None:
        """Stdin ended: fail every outstanding request so no turn waits forever."""
        with self._lock:
            self._closed = True
            pending = list(self._pending.values())
            self._pending.clear()
        for reply in pending:
            if not reply.done.is_set():
                reply.error = {"code": -32603, "message": "connection closed"}
                reply.done.set()
