"""The asyncio driver of the JSON-RPC core.

One reader task pulls chunks from the transport, feeds the core and handles
its events **synchronously, in wire order** (websockets'
``asyncio/connection.py``):

- responses resolve the caller's future;
- notifications go to ``on_notification``, which may return an awaitable:
  the reader awaits it before the next event. That is how a full update
  queue pauses reading — lossless backpressure, nothing dropped or reordered.
  Those the core's typed decoders read go to ``on_decoded`` instead, the
  same way, or a chunk's worth at once to ``on_decoded_block``;
- only requests from the peer get their own task, so a slow permission
  prompt never stalls the stream; at most ``max_concurrent_requests`` run at
  once, and beyond that reading pauses until one finishes (backpressure:
  nothing is dropped, and memory stays bounded whatever the peer sends).

When the stream ends, every pending request fails at once with
:class:`~acphost.AgentExited` carrying the exit status and stderr tail; when
the peer turns out not to speak JSON-RPC at all, with the core's
:class:`~acphost.NotAnAcpAgent`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ..errors import (
    AcpError,
    AcpTimeout,
    AgentExited,
    InternalError,
    LocalProtocolError,
    RequestCancelled,
    RequestError,
    UsageError,
)
from ..safetext import CUT
from ..transport import Transport
from ._core import DEFAULT_MAX_LINE_BYTES, BlockDecoder, NotificationDecoder, RpcCore
from ._events import (
    CancelRequested,
    ErrorResponse,
    Notification,
    ProtocolViolation,
    Request,
    RequestId,
    Response,
)
from ._taps import FrameTap

__all__ = [
    "BlockHandler",
    "Connection",
    "DecodedHandler",
    "NotificationHandler",
    "RequestHandler",
]

logger = logging.getLogger("acphost.rpc")

RequestHandler = Callable[[str, Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], "Awaitable[None] | None"]
DecodedHandler = Callable[[tuple[Any, ...]], "Awaitable[None] | None"]
BlockHandler = Callable[[list[tuple[Any, ...]]], Awaitable[None]]

_EXIT_WAIT = 2.0
#: Requests from the peer served at once; more wait, unread, in the pipe.
DEFAULT_MAX_CONCURRENT_REQUESTS = 64
#: Protocol violations logged per connection; the rest are only counted.
_LOGGED_VIOLATIONS = 5


class Connection:
    """A JSON-RPC connection over a :class:`~acphost.transport.Transport`.

    Args:
        transport: the byte stream to the peer.
        on_request: ``async (method, params) -> result`` for the peer's
            requests; raise :class:`~acphost.RequestError` to answer an error
            (:class:`~acphost.MethodNotFound` for unknown methods). Other
            exceptions answer -32603 without their text.
        on_notification: ``(method, params) -> None | awaitable`` called in
            wire order; an awaitable returned pauses reading until it is done.
        max_line_bytes: the largest frame accepted.
        tap: sees every valid frame's exact bytes in both directions.
        on_violation: called for every malformed frame the peer sent (the
            log gets only the first few).
        max_concurrent_requests: how many of the peer's requests are served
            at once; beyond that, reading pauses until one is answered.
        decode_notification: the core's typed decoder (see
            :class:`~acphost.rpc.RpcCore`); what it decodes goes to
            ``on_decoded``, in wire order, as notifications go to
            ``on_notification`` (an awaitable returned pauses reading).
        decode_notifications: the core's block decoder (the same, a chunk's
            lines at once; see :class:`~acphost.rpc.RpcCore`).
        on_decoded: ``(decoded) -> None | awaitable``; required with a decoder.
        on_decoded_block: ``async (block)``, given what the block decoder read
            of a chunk, to handle in order (awaiting what ``on_decoded`` would
            have returned); without it, each goes to ``on_decoded``.

    Raises:
        ValueError: ``max_concurrent_requests`` is below 1 (or
            ``max_line_bytes`` below 64), or a decoder comes without
            ``on_decoded``.

    """

    def __init__(
        self,
        transport: Transport,
        *,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        tap: FrameTap | None = None,
        on_violation: Callable[[ProtocolViolation], None] | None = None,
        max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT_REQUESTS,
        decode_notification: NotificationDecoder | None = None,
        decode_notifications: BlockDecoder | None = None,
        on_decoded: DecodedHandler | None = None,
        on_decoded_block: BlockHandler | None = None,
    ) -> None:
        if max_concurrent_requests < 1:
            raise ValueError("max_concurrent_requests must be at least 1")
        if (decode_notification or decode_notifications) is not None and on_decoded is None:
            raise ValueError("a notification decoder needs on_decoded")
        self.transport = transport
        self.core = RpcCore(
            max_line_bytes=max_line_bytes,
            tap=tap,
            decode_notification=decode_notification,
            decode_notifications=decode_notifications,
        )
        self._on_request = on_request
        self._on_notification = on_notification
        self._on_decoded = on_decoded
        self._on_decoded_block = on_decoded_block
        self._on_violation = on_violation
        self._futures: dict[RequestId, asyncio.Future[Any]] = {}
        self._on_response: dict[RequestId, Callable[[Any], None]] = {}
        self._handlers: dict[RequestId, asyncio.Task[None]] = {}
        self._max_handlers = max_concurrent_requests
        self._slot: asyncio.Future[None] | None = None
        self._violations = 0
        # Violations before the peer's first message: logged once it greets,
        # left to the NotAnAcpAgent report when it never does.
        self._held: list[ProtocolViolation] = []
        #: How many times reading paused because every request slot was busy.
        self.request_cap_hits = 0
        self._reader: asyncio.Task[None] | None = None
        self._closed_error: AcpError | None = None
        self._closing = False
        self.closed = asyncio.get_running_loop().create_future()

    def start(self) -> None:
        """Start reading. Call once, right after construction."""
        if self._reader is not None:
            raise UsageError("Connection.start() was already called")
        self._reader = asyncio.get_running_loop().create_task(
            self._read_loop(), name="acphost.rpc.reader"
        )

    @property
    def is_closed(self) -> bool:
        """True once the stream ended or :meth:`close` was called."""
        return self._closed_error is not None

    @property
    def requests_in_flight(self) -> int:
        """How many of the peer's requests are being served right now."""
        return len(self._handlers)

    @property
    def closed_error(self) -> AcpError | None:
        """Why the connection ended (usually :class:`~acphost.AgentExited`), or None."""
        return self._closed_error

    # -- sending -----------------------------------------------------------------

    def _flush(self) -> None:
        data = self.core.data_to_send()
        if data:
            try:
                self.transport.send(data)
            except ConnectionError:
                logger.debug("dropped %d bytes: the peer's input is closed", len(data))

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | None = None,
        on_response: Callable[[Any], None] | None = None,
    ) -> Any:
        """Send a request and wait for its result.

        Args:
            method: the wire method name.
            params: JSON-serialisable params (``None`` to omit).
            timeout: seconds to wait; ``None`` waits as long as the peer lives.
            on_response: called with the result inside the reader, in wire
                order, before any later frame is handled (a future's own
                callbacks run later, after frames that followed the response).

        Returns:
            The ``result`` member of the response.

        Raises:
            RequestError: the peer answered an error (the subclass for its code).
            AgentExited: the peer ended before answering.
            AcpTimeout: no answer within ``timeout`` (the request is then
                abandoned with ``$/cancel_request``).

        """
        if self._closed_error is not None:
            raise self._closed_error
        rid = self.core.send_request(method, params)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[rid] = fut
        if on_response is not None:
            self._on_response[rid] = on_response
        self._flush()
        try:
            with contextlib.suppress(ConnectionError):  # the reader reports the exit
                await self.transport.drain()
            if timeout is None:
                return await fut
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except asyncio.TimeoutError:
            self._abandon(rid)
            hint = self.core._not_acp_hint()  # a program that printed a line or two, then idles
            raise AcpTimeout(
                f"the agent did not answer {method} within {timeout:g} s"
                + (f"; {hint}" if hint else ""),
                self.transport.stderr_tail(),
            ) from None
        except asyncio.CancelledError:
            # The host gave up on it: tell the agent (ACP "$/cancel_request").
            self._abandon(rid)
            raise
        finally:
            self._futures.pop(rid, None)
            self._on_response.pop(rid, None)

    def _abandon(self, rid: RequestId) -> None:
        if self._closed_error is None:
            self.core.abandon_request(rid)
            self._flush()
        fut = self._futures.pop(rid, None)
        if fut is not None and not fut.done():
            fut.cancel()

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification now (no answer is expected).

        Raises:
            AgentExited: the connection is closed.

        """
        if self._closed_error is not None:
            raise self._closed_error
        self.core.send_notification(method, params)
        self._flush()

    # -- receiving -----------------------------------------------------------------

    async def _read_loop(self) -> None:
        core = self.core
        receive = self.transport.receive
        try:
            while core.failure is None:
                data = await receive()
                if not data:
                    core.receive_eof()
                    await self._dispatch(core._take_events())
                    break
                # Each frame is parsed, then handled, before the next is parsed.
                await self._dispatch(core._parse(data))
        except asyncio.CancelledError:
            self._finish(self._closed_error or AgentExited(None, "", "the connection was closed"))
            raise
        except Exception as exc:
            logger.exception("the JSON-RPC reader failed")
            self._finish(AgentExited(None, self.transport.stderr_tail(), f"reader failed: {exc}"))
            return
        if core.failure is not None:
            # Not a JSON-RPC peer: stop reading it and fail everything now.
            self._finish(core.failure)
            return
        if self._closing:
            self._finish(AgentExited(None, "", "the connection was closed"))
            return
        info = await self.transport.exit_info(_EXIT_WAIT)
        exited = AgentExited(info.returncode, info.stderr_tail)
        hint = core._not_acp_hint()
        if hint:
            exited = AgentExited(info.returncode, info.stderr_tail, f"{exited.message}; {hint}")
        self._finish(exited)

    async def _dispatch(self, events: Iterable[Any]) -> None:
        futures = self._futures
        on_notification = self._on_notification
        on_decoded = self._on_decoded
        for ev in events:
            cls = type(ev)
            if cls is list:  # what the block decoder made of a chunk
                await self._decoded_block(ev)
            elif cls is tuple:  # what the typed decoder made of a notification
                waiter = on_decoded(ev)  # type: ignore[misc]  # set with the decoder
                if waiter is not None:
                    await waiter
            elif cls is dict:  # a notification, handed over as its frame (RpcCore._parse)
                waiter = on_notification(ev["method"], ev.get("params"))
                if waiter is not None:
                    await waiter
            elif cls is Response:
                callback = self._on_response.pop(ev.id, None)
                if callback is not None:
                    callback(ev.result)
                fut = futures.get(ev.id)
                if fut is not None and not fut.done():
                    fut.set_result(ev.result)
            elif cls is ErrorResponse:
                fut = futures.get(ev.id)
                if fut is not None and not fut.done():
                    fut.set_exception(ev.error)
            elif cls is Request:
                if len(self._handlers) >= self._max_handlers:
                    await self._wait_for_slot()
                task = asyncio.get_running_loop().create_task(
                    self._serve(ev), name=f"acphost.rpc.request {ev.method}"
                )
                self._handlers[ev.id] = task
            elif cls is CancelRequested:
                handler = self._handlers.get(ev.id)
                if handler is not None:
                    handler.cancel()
            elif cls is Notification:
                waiter = on_notification(ev.method, ev.params)
                if waiter is not None:
                    await waiter
            elif cls is ProtocolViolation:
                self._violation(ev)
        if self._held and self.core._prelude is None:
            self._log_held()
        self._flush()

    async def _decoded_block(self, block: list[tuple[Any, ...]]) -> None:
        if self._on_decoded_block is not None:
            await self._on_decoded_block(block)
            return
        on_decoded = self._on_decoded
        for ev in block:
            waiter = on_decoded(ev)  # type: ignore[misc]  # set with the decoder
            if waiter is not None:
                await waiter

    async def _wait_for_slot(self) -> None:
        # Every slot is busy: stop reading (the peer's further frames wait in
        # the pipe, and the peer blocks once it is full) until one frees up.
        self.request_cap_hits += 1
        self._flush()
        loop = asyncio.get_running_loop()
        while len(self._handlers) >= self._max_handlers:
            self._slot = loop.create_future()
            try:
                await self._slot
            finally:
                self._slot = None

    def _violation(self, ev: ProtocolViolation) -> None:
        if self._on_violation is not None:
            self._on_violation(ev)
        self._held.append(ev)
        if self.core._prelude is None:
            self._log_held()

    def _log_held(self) -> None:
        for ev in self._held:
            self._log_violation(ev)
        self._held.clear()

    def _log_violation(self, ev: ProtocolViolation) -> None:
        self._violations += 1
        if self._violations <= _LOGGED_VIOLATIONS:
            # repr() of the excerpt: the peer's bytes never reach a terminal raw.
            # A cut is marked inside the quotes, right after the last byte
            # kept, for the redactor of the log lines (safetext.CUT).
            shown = repr(ev.excerpt)
            if ev.cut:
                shown = shown[:-1] + CUT + shown[-1]
            logger.warning("agent protocol violation: %s: %s", ev.message, shown)
            if self._violations == _LOGGED_VIOLATIONS:
                logger.warning("further protocol violations of this agent are only counted")

    async def _serve(self, req: Request) -> None:
        core = self.core
        try:
            try:
                result = await self._on_request(req.method, req.params)
            except asyncio.CancelledError:
                if self._closed_error is not None:
                    return  # shutting down: nobody is listening
                # ACP "$/cancel_request": answer the cancelled request with -32800.
                core.send_error(req.id, RequestCancelled("Request cancelled"))
            except RequestError as exc:
                core.send_error(req.id, exc)
            except Exception:
                logger.exception("handler for %s failed", req.method)
                core.send_error(req.id, InternalError("Internal error in the client"))
            else:
                try:
                    core.send_result(req.id, result)
                except LocalProtocolError:
                    logger.exception("the result of %s cannot be sent", req.method)
                    core.send_error(req.id, InternalError("Internal error in the client"))
            if self._closed_error is None:
                self._flush()
                with contextlib.suppress(ConnectionError):
                    await self.transport.drain()
        finally:
            self._handlers.pop(req.id, None)
            slot = self._slot
            if slot is not None and not slot.done():
                slot.set_result(None)

    def _finish(self, error: AcpError) -> None:
        if self._closed_error is not None:
            return
        self._closed_error = error
        self.core.forget_all_pending()
        for fut in self._futures.values():
            if not fut.done():
                fut.set_exception(error)
        self._futures.clear()
        for task in list(self._handlers.values()):
            task.cancel()
        if self._violations > _LOGGED_VIOLATIONS:
            logger.warning(
                "the agent committed %d protocol violations in all (%d logged)",
                self._violations,
                _LOGGED_VIOLATIONS,
            )
        if not self.closed.done():
            self.closed.set_result(error)

    async def close(self) -> None:
        """Close the transport, stop reading and fail what is still pending."""
        self._closing = True
        await self.transport.close()
        reader = self._reader
        if reader is not None and not reader.done():
            # Waiting for a request slot, nothing more will be served: stop now.
            # Otherwise let it read to the end of the stream, for a while.
            if self._slot is None:
                await asyncio.wait([reader], timeout=3.0)
            if not reader.done():
                reader.cancel()
                await asyncio.wait([reader])
        self._finish(AgentExited(None, "", "the connection was closed"))
        handlers = list(self._handlers.values())
        if handlers:
            await asyncio.gather(*handlers, return_exceptions=True)
