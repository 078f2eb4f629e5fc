"""MCP's "Streamable HTTP" transport, the server side, as much of it as a tools server needs.

The client POSTs one JSON-RPC message per request to the endpoint; a request
is answered ``200`` with ``application/json`` (the server may choose JSON
over an event stream: MCP 2025-06-18 "Transports", "Sending Messages to the
Server"), a notification or response ``202 Accepted``. This server sends no
requests or notifications of its own, so ``GET`` (the server-to-client
stream) is answered ``405 Method Not Allowed``, which the transport allows.

Every request must carry the session's token as ``Authorization: Bearer``
(compared in constant time; ``401`` otherwise) and a loopback ``Host`` (and
``Origin``, when sent): a web page that resolves its own name to 127.0.0.1
(DNS rebinding) is refused ``403`` (MCP "Transports", "Security Warning":
servers "MUST validate the Origin header"). Heads (:data:`MAX_HEAD_BYTES`,
``431`` past it) and bodies (``413``) are bounded; a new connection has a
short deadline for its first request head, and holds a slot of the owner's
smaller pool for connections not yet authenticated until that request's
token is checked (``admit``).
HTTP/1.1 only, keep-alive, ``Content-Length`` bodies (no chunked uploads:
``411``/``501``), the standard library's streams only.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ._mcp import SUPPORTED_VERSIONS

__all__ = ["MAX_HEAD_BYTES", "HttpEndpoint", "HttpRequest", "parse_head", "serve_http"]

logger = logging.getLogger("acphost.host.mcp")

#: The largest request line and headers taken (the blank line that ends them aside).
MAX_HEAD_BYTES = 16 << 10
#: How long an authenticated idle keep-alive connection, or a slow body, is waited for.
_IDLE_TIMEOUT = 120.0
_PATH = "/mcp"
# RFC 9110 section 5.6.2: a method or a header name is a "token".
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

_REASONS = {
    200: "OK",
    202: "Accepted",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    431: "Request Header Fields Too Large",
    501: "Not Implemented",
    503: "Service Unavailable",
}


class HttpError(Exception):
    """A request refused with an HTTP status; the connection is closed after the answer."""

    def __init__(self, status: int, text: str, headers: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.headers = headers


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """A request's head: method, target and headers (names lower-cased, in order)."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]

    def header(self, name: str) -> str | None:
        """The one value of header ``name``; ``None`` when absent.

        Raises:
            HttpError: 400, the header is given twice.

        """
        values = [v for k, v in self.headers if k == name]
        if len(values) > 1:
            raise HttpError(400, f"the {name} header is given more than once")
        return values[0] if values else None


def parse_head(head: bytes) -> HttpRequest:
    """Parse a request line and headers (without the blank line that ends them).

    Raises:
        HttpError: 400, malformed; 501, not HTTP/1.1.

    """
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        raise HttpError(400, "the request head is not ASCII") from None
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or not parts[1]:
        raise HttpError(400, "malformed request line")
    method, target, version = parts
    if version != "HTTP/1.1":
        raise HttpError(501, "only HTTP/1.1 is served")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.fullmatch(name):
            raise HttpError(400, "malformed header line")
        headers.append((name.lower(), value.strip(" \t")))
    return HttpRequest(method, target, tuple(headers))


@dataclass
class HttpEndpoint:
    """What the HTTP transport serves: the token, the port (for ``Host``) and the answer.

    Attributes:
        token: the bearer token every request must carry.
        answer: takes a POSTed message, returns the status and the reply
            (``None``: 202 and no body).
        port: the port listened on, set once bound.
        pending: answers being computed or written; the owner awaits them on close.

    """

    token: str
    answer: Callable[[bytes], Awaitable[tuple[int, bytes] | None]]
    max_body: int
    port: int = 0
    pending: set[asyncio.Future[None]] = field(default_factory=set)

    def check(self, request: HttpRequest) -> None:
        """Refuse a request from elsewhere than this session's agent.

        Raises:
            HttpError: 403 (a foreign ``Host`` or ``Origin``), 401 (no or a
                wrong token), 404 (another path), 405 (not POST).

        """
        host = request.header("host")
        allowed = {f"{name}:{self.port}" for name in _LOOPBACK_NAMES}
        if host is None or host.lower() not in allowed:
            raise HttpError(403, "this server answers only to a loopback Host")
        origin = request.header("origin")
        if origin is not None and origin.lower() not in {f"http://{a}" for a in allowed}:
            raise HttpError(403, "this server answers no web page")
        given = (request.header("authorization") or "").encode("utf-8", "replace")
        if not hmac.compare_digest(given, f"Bearer {self.token}".encode()):
            raise HttpError(401, "a bearer token is required", (("WWW-Authenticate", "Bearer"),))
        if request.target.partition("?")[0] != _PATH:
            raise HttpError(404, f"the MCP endpoint is {_PATH}")
        if request.method != "POST":
            # No server-to-client stream is offered (MCP "Listening for Messages from the Server").
            raise HttpError(405, "only POST is served", (("Allow", "POST"),))
        version = request.header("mcp-protocol-version")
        # MCP 2025-06-18 "Protocol Version Header": an unsupported one MUST get 400.
        if version is not None and version not in SUPPORTED_VERSIONS:
            raise HttpError(400, f"unsupported MCP-Protocol-Version {version[:40]!r}")


def _response(
    status: int,
    body: bytes,
    content_type: str | None,
    extra: tuple[tuple[str, str], ...] = (),
    close: bool = False,
) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}"]
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    lines.append(f"Content-Length: {len(body)}")
    lines.append("Cache-Control: no-store")
    lines += [f"{k}: {v}" for k, v in extra]
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


async def _body(reader: asyncio.StreamReader, request: HttpRequest, limit: int) -> bytes:
    if request.header("transfer-encoding") is not None:
        raise HttpError(501, "chunked request bodies are not served; send Content-Length")
    length = request.header("content-length")
    if length is None:
        raise HttpError(411, "Content-Length is required")
    if not length.isdigit() or len(length) > 20:
        raise HttpError(400, "malformed Content-Length")
    size = int(length)
    if size > limit:
        raise HttpError(413, f"the body is larger than {limit} bytes")
    media = (request.header("content-type") or "").partition(";")[0].strip().lower()
    if media != "application/json":
        raise HttpError(415, "the body must be application/json")
    return await asyncio.wait_for(reader.readexactly(size), _IDLE_TIMEOUT)


async def serve_http(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    endpoint: HttpEndpoint,
    admit: Callable[[], bool],
    auth_timeout: float,
) -> None:
    """Serve one HTTP connection until the client closes it, or it errs or idles.

    Args:
        reader: the connection's reader; its limit should be
            :data:`MAX_HEAD_BYTES` (a longer head is refused ``431`` whatever
            the limit, but only that limit keeps it from being buffered).
        writer: its writer.
        endpoint: what is served.
        admit: called once, when the first request has passed
            :meth:`HttpEndpoint.check` (the token); ``False`` answers ``503``
            and closes.
        auth_timeout: how long the first request head may take to arrive:
            until it is checked, the connection holds a slot any local user
            could take. Later heads are waited for as long as an idle
            keep-alive connection is kept.

    """
    admitted = False
    try:
        while True:
            wait = _IDLE_TIMEOUT if admitted else auth_timeout
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait)
            except (asyncio.IncompleteReadError, asyncio.TimeoutError):
                return
            except asyncio.LimitOverrunError:
                head = b""
            if not head or len(head) - 4 > MAX_HEAD_BYTES:
                text = f"the request head is larger than {MAX_HEAD_BYTES} bytes\n".encode()
                writer.write(_response(431, text, "text/plain", close=True))
                return
            try:
                request = parse_head(head[:-4])
                endpoint.check(request)
                if not admitted:
                    if not admit():
                        raise HttpError(503, "too many connections; send on an open one")
                    admitted = True
                body = await _body(reader, request, endpoint.max_body)
            except HttpError as exc:
                payload = (exc.text + "\n").encode()
                writer.write(_response(exc.status, payload, "text/plain", exc.headers, close=True))
                return
            await _answer(writer, endpoint, body)
            if (request.header("connection") or "").lower() == "close":
                return
    except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError, OSError) as exc:
        logger.debug("MCP http: connection ended: %s", exc)
    finally:
        writer.close()


async def _answer(writer: asyncio.StreamWriter, endpoint: HttpEndpoint, body: bytes) -> None:
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    endpoint.pending.add(done)
    try:
        answer = await endpoint.answer(body)
        if answer is None:
            writer.write(_response(202, b"", None))
        else:
            writer.write(_response(answer[0], answer[1], "application/json"))
        await writer.drain()
    finally:
        endpoint.pending.discard(done)
        done.set_result(None)
