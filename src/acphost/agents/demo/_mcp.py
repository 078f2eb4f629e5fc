"""The demo agent's MCP client: the host's own tools, offered as the ``acphost`` MCP server.

ACP v2 has no client ``fs/*`` or ``terminal/*`` methods: a client gives an agent
its tools as MCP servers in ``session/new`` (``mcpServers``; schema ``McpServer``).
The demo agent looks for the one named ``acphost`` and calls its tools
``read_text_file``, ``write_text_file`` and ``run_command``.

Two transports, as the MCP specification (2025-06-18) defines them:

- stdio: the agent starts ``command args`` with ``env`` added to its own
  environment and exchanges one JSON-RPC message per line on its stdin/stdout;
- streamable HTTP: each message is POSTed to ``url`` with the entry's
  ``headers``; an answer comes back as ``application/json`` or as a
  ``text/event-stream`` whose ``data:`` lines carry it. The ``Mcp-Session-Id``
  the server returns from ``initialize`` goes on every later request.

Every request gets a :class:`~._wire.Reply`, so a turn waits for an MCP server
exactly as it waits for the client, and a cancelled turn stops waiting at once
(``notifications/cancelled`` then tells the server).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from ._codec import DecodeError, dumps, loads
from ._wire import INVALID_PARAMS, Reply, RpcError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    Json = dict[str, Any]

#: The name of the client's own MCP server in ``mcpServers``.
SERVER_NAME = "acphost"
#: The tools the demo agent calls on it.
TOOLS = ("read_text_file", "write_text_file", "run_command")
MCP_VERSION = "2025-06-18"
#: Longest line or HTTP body read from the server (a bound on what an untrusted peer sends).
MAX_MESSAGE = 16 * 1024 * 1024


class ToolFailure(Exception):
    """The server could not be reached or answered a request with an error."""


def find_server(servers: object) -> Json | None:
    """Return the ``acphost`` entry of a ``mcpServers`` list, checked, or ``None``.

    Raises:
        RpcError: The entry exists but is malformed (-32602), so the session
            would silently lose its tools.

    """
    if not isinstance(servers, list):
        return None
    for entry in servers:
        if isinstance(entry, dict) and entry.get("name") == SERVER_NAME:
            return _checked(entry)
    return None


def _bad(what: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"Invalid params: mcpServers entry {SERVER_NAME!r}: {what}")


def _pairs(value: object, key: str, what: str) -> list[tuple[str, str]]:
    # schema EnvVariable {name, value} / HttpHeader {name, value}
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad(f"{what} must be a list")
    pairs = []
    for item in value:
        name = item.get("name") if isinstance(item, dict) else None
        text = item.get(key) if isinstance(item, dict) else None
        if not isinstance(name, str) or not isinstance(text, str):
            raise _bad(f"each of {what} needs a string name and {key}")
        pairs.append((name, text))
    return pairs


def _checked(entry: Json) -> Json:
    kind = entry.get("type", "stdio")  # a v1 stdio entry has no type (schema, McpServerStdio)
    if kind == "stdio":
        command, args = entry.get("command"), entry.get("args") or []
        if not isinstance(command, str) or not os.path.isabs(command):
            raise _bad("command must be an absolute path")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise _bad("args must be a list of strings")
        env = _pairs(entry.get("env"), "value", "env")
        return {"type": "stdio", "command": command, "args": list(args), "env": env}
    if kind == "http":
        url = entry.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise _bad("url must be an http(s) URL")
        return {
            "type": "http",
            "url": url,
            "headers": _pairs(entry.get("headers"), "value", "headers"),
        }
    raise _bad(f"transport {kind!r} is not supported (stdio or http)")


class Connection:
    """One MCP session with the ``acphost`` server of one ACP session."""

    def __init__(self, spec: Json, cwd: str) -> None:
        self.spec = spec
        self.cwd = cwd
        self.ready = False  # initialize and tools/list succeeded
        self.tools: set[str] = set()  # which of TOOLS the server lists
        self._lock = threading.Lock()
        self._pending: dict[int, Reply] = {}
        self._counter = 0
        self._closed: str | None = None  # why the connection is gone
        self._proc: subprocess.Popen[bytes] | None = None
        self._session_id: str | None = None  # streamable HTTP's Mcp-Session-Id

    # -- requests ---------------------------------------------------------------

    def request(self, method: str, params: Json, timeout: float | None = None) -> Reply:
        """Send a request and return the :class:`Reply` its answer fills in.

        Args:
            method: The MCP method.
            params: Its params.
            timeout: Seconds after which the reply fails, the server having said
                nothing (``None``: wait for as long as the turn does).

        """
        reply = Reply()
        with self._lock:
            self._counter += 1
            request_id = self._counter
            if self._closed is None:
                self._pending[request_id] = reply
        if self._closed is not None:
            reply.error = {"code": -32603, "message": self._closed}
            reply.done.set()
            return reply
        if timeout is not None:
            timer = threading.Timer(timeout, self._expire, (request_id, method, timeout))
            timer.daemon = True
            timer.start()
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return reply

    def _expire(self, request_id: int, method: str, timeout: float) -> None:
        with self._lock:
            reply = self._pending.pop(request_id, None)
        if reply is not None and not reply.done.is_set():
            reply.error = {"code": -32603, "message": f"no answer to {method} in {timeout:g} s"}
            reply.done.set()

    def notify(self, method: str, params: Json) -> None:
        """Send a notification (nothing comes back)."""
        if self._closed is None:
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def cancel(self, reply: Reply) -> None:
        """Tell the server the request behind ``reply`` is no longer wanted."""
        with self._lock:
            ids = [key for key, value in self._pending.items() if value is reply]
            for key in ids:
                del self._pending[key]
        for key in ids:
            self.notify("notifications/cancelled", {"requestId": key, "reason": "cancelled"})

    def close(self) -> None:
        """End the session: stop a stdio server and fail every waiting request."""
        self._gone("the MCP connection was closed")
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(2.0)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()

    # -- transport ------------------------------------------------------------------

    def _send(self, message: Json) -> None:
        if self.spec["type"] == "stdio":
            self._send_stdio(message)
        elif "id" not in message or "method" not in message:
            # A notification (or an answer to the server) is posted before anything
            # else is sent, so the server sees notifications/initialized before the
            # next request (MCP lifecycle).
            self._post(message)
        else:
            threading.Thread(
                target=self._post, args=(message,), name="acphost-demo.mcp", daemon=True
            ).start()

    def _deliver(self, message: object) -> None:
        """Hand one message from the server to the request it answers; drop the rest."""
        if isinstance(message, list):  # a JSON-RPC batch
            for item in message:
                self._deliver(item)
            return
        if not isinstance(message, dict):
            return
        if "method" in message:
            if "id" in message:  # a server request: answer ping, refuse the rest (MCP basic)
                answer: Json = {"jsonrpc": "2.0", "id": message["id"]}
                if message["method"] == "ping":
                    answer["result"] = {}
                else:
                    answer["error"] = {"code": -32601, "message": "Method not found"}
                self._send(answer)
            return  # notifications: the demo uses none
        with self._lock:
            reply = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
        if reply is None:
            return
        error = message.get("error")
        if isinstance(error, dict):
            reply.error = error
        elif isinstance(message.get("result"), dict):
            reply.result = message["result"]
        else:
            reply.error = {"code": -32603, "message": "the MCP server sent a malformed answer"}
        reply.done.set()

    def _gone(self, reason: str) -> None:
        with self._lock:
            if self._closed is None:
                self._closed = reason
            pending = list(self._pending.values())
            self._pending.clear()
        for reply in pending:
            if not reply.done.is_set():
                reply.error = {"code": -32603, "message": reason}
                reply.done.set()

    def _send_stdio(self, message: Json) -> None:
        proc = self._proc
        if proc is None:
            proc = self._spawn()
            if proc is None:
                return
        assert proc.stdin is not None
        try:
            proc.stdin.write(dumps(message).encode("utf-8", "surrogatepass") + b"\n")
            proc.stdin.flush()
        except (OSError, ValueError):
            self._gone("the MCP server closed its input")

    def _spawn(self) -> subprocess.Popen[bytes] | None:
        env = dict(os.environ)
        env.update(self.spec["env"])
        try:
            proc = subprocess.Popen(
                [self.spec["command"], *self.spec["args"]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                cwd=self.cwd if os.path.isdir(self.cwd) else None,
            )
        except OSError as exc:
            self._gone(f"cannot start the MCP server {self.spec['command']}: {exc.strerror or exc}")
            return None
        self._proc = proc
        assert proc.stdout is not None
        threading.Thread(
            target=self._read_stdio, args=(proc.stdout,), name="acphost-demo.mcp", daemon=True
        ).start()
        return proc

    def _read_stdio(self, stdout: BinaryIO) -> None:
        while True:
            line = stdout.readline(MAX_MESSAGE + 1)
            if not line:
                break
            if len(line) > MAX_MESSAGE:
                self._gone("the MCP server sent a line longer than 16 MiB")
                break
            try:
                self._deliver(loads(line.decode("utf-8", "replace")))
            except DecodeError:
                sys.stderr.write(
                    "acphost-demo: ignoring a line from the MCP server that is not JSON\n"
                )
        code = self._proc.poll() if self._proc is not None else None
        self._gone("the MCP server exited" + (f" with code {code}" if code is not None else ""))

    def _post(self, message: Json) -> None:
        import urllib.error  # noqa: PLC0415 - only an HTTP server needs them
        import urllib.request  # noqa: PLC0415

        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        headers.update(self.spec["headers"])
        if message.get("method") != "initialize":
            headers["MCP-Protocol-Version"] = MCP_VERSION
            if self._session_id is not None:
                headers["Mcp-Session-Id"] = self._session_id
        request = urllib.request.Request(
            self.spec["url"], data=dumps(message).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            # A request may run long (a command); a notification only needs a 202.
            timeout = 3600 if "id" in message else 10
            with _opener().open(request, timeout=timeout) as response:
                session_id = response.headers.get("Mcp-Session-Id")
                if session_id and message.get("method") == "initialize":
                    self._session_id = session_id
                kind = response.headers.get("Content-Type", "")
                body = response.read(MAX_MESSAGE + 1)
        except urllib.error.HTTPError as exc:
            self._failed(message, f"the MCP server answered HTTP {exc.code} {exc.reason}")
            return
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            self._failed(message, f"cannot reach the MCP server at {self.spec['url']}: {reason}")
            return
        if "id" not in message or "method" not in message:
            return  # a notification or an answer: 202 Accepted, no body
        if len(body) > MAX_MESSAGE:
            self._failed(message, "the MCP server sent an answer over 16 MiB")
            return
        text = body.decode("utf-8", "replace")
        try:
            if kind.startswith("text/event-stream"):
                for data in _events(text):
                    self._deliver(loads(data))
            else:
                self._deliver(loads(text))
        except DecodeError:
            self._failed(message, "the MCP server sent an answer that is not JSON")
            return
        self._failed(message, "the MCP server sent no answer")  # no-op once answered

    def _failed(self, message: Json, reason: str) -> None:
        with self._lock:
            reply = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
        if reply is not None and not reply.done.is_set():
            reply.error = {"code": -32603, "message": reason}
            reply.done.set()


def _opener() -> Any:
    """A urllib opener that goes straight to the server: no proxy, no redirect.

    The entry's headers hold the client's credentials for its server: a proxy
    from the environment (``http_proxy``) or a redirect elsewhere would carry
    them to another host, so neither is followed (a redirect fails the request).
    """
    import urllib.request  # noqa: PLC0415 - only an HTTP server needs it

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    return urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect)


def _events(text: str) -> list[str]:
    """Return the ``data`` of each event of a ``text/event-stream`` body (WHATWG SSE)."""
    events: list[str] = []
    data: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line:
            if data:
                events.append("\n".join(data))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        events.append("\n".join(data))
    return events


def tool_result(result: Json) -> tuple[bool, str, Json]:
    """Return (is_error, text, structuredContent) of an MCP ``CallToolResult``."""
    content = result.get("content")
    texts = [
        str(item.get("text", ""))
        for item in (content if isinstance(content, list) else [])
        if isinstance(item, dict) and item.get("type") == "text"
    ]
    structured = result.get("structuredContent")
    return (
        result.get("isError") is True,
        "\n".join(texts),
        structured if isinstance(structured, dict) else {},
    )
