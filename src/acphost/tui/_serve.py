"""``acphost tui --serve``: the same app in a browser, through textual-serve.

Each browser connection runs ``acphost tui`` (the same options, less the
serving ones) as its own process, speaking to the page over a websocket; the
agent runs inside that process, exactly as in a terminal.

Serving hands whoever drives a page an agent that can read the workspace
(and write, run commands, with ``--write``), answering its permission
questions; on a shared machine any user can connect to a port on 127.0.0.1
and run servers on its other ports. So (the keys are in
:mod:`acphost.tui._serve_keys`):

* a random token is printed once, in the address to open
  (``http://127.0.0.1:8000/?token=...``). It works once: that request gets
  a page that keeps a session key in the browser's storage for this origin
  (port included) and moves to ``/``. The address stays in the browser's
  history, spent. Nothing is a cookie: browsers send 127.0.0.1's cookies to
  every port of it, to any other local server;
* ``/`` and ``/static/`` (textual-serve's page, scripts and fonts) hold no
  key and are served to anyone. The page asks ``/ticket`` for a ticket,
  showing the session key in a request header, and opens the websocket at
  ``/ws/TICKET``: a ticket works once, within a minute. Everything else
  (``/ws`` without a ticket, ``/download``: acphost delivers no files) is
  refused;
* it listens on 127.0.0.1 by default and prints the literal address it
  listens on, never a name; ``--host localhost`` holds both 127.0.0.1 and
  ``::1`` (a browser tries either), so no other local user listens on the
  other one. Another address warns: the token is then the only lock, and
  plain HTTP carries it in clear;
* it answers only requests addressed to the host and port it serves (the
  ``Host`` header, and any ``Origin``): a web page elsewhere cannot reach it
  through DNS rebinding, nor drive it from a script; no page may frame it.

A port that cannot be listened on (in use, privileged) is one line on
stderr and exit code 2, before anything is served.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from ._serve_keys import Keys

__all__ = ["ServeError", "is_loopback", "listen", "served_command", "serve"]

#: The request header that carries the session key (never sent by a browser on its own).
SESSION_HEADER = "X-Acphost-Session"

#: The ``localStorage`` entry the page keeps the session key in.
_STORED = "acphost-session"

_NO_KEY = (
    "acphost: this browser holds no key for this server. Open the address printed "
    "when serving started (its token works once; restart acphost tui --serve for "
    "a new one)."
)

# The page the printed address gets: keep the session key, go on to the app.
_HANDOVER = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>acphost</title></head><body>
<script>
try {{
  window.localStorage.setItem({stored}, {session});
  window.location.replace({then});
}} catch (e) {{
  document.body.textContent = "acphost: this page needs the browser's storage: " + e;
}}
</script>
<noscript>acphost: the served TUI needs JavaScript.</noscript>
</body></html>
"""

# Added to textual-serve's page: textual.js connects on load to the address
# in the terminal's data; ask for a ticket first and put it in that address.
_ASK_TICKET = """<script>
(() => {{
  const connect = window.onload;
  window.onload = async () => {{
    let reply = null;
    try {{
      const session = window.localStorage.getItem({stored});
      if (session) {{
        reply = await fetch("/ticket", {{
          method: "POST", cache: "no-store", headers: {{{header}: session}},
        }});
      }}
    }} catch (e) {{}}
    if (!reply || !reply.ok) {{
      document.querySelector(".intro > div").textContent = {no_key};
      return;
    }}
    const ticket = await reply.text();
    document.getElementById("terminal").dataset.sessionWebsocketUrl =
      `ws://${{window.location.host}}/ws/${{ticket}}`;
    connect();
  }};
}})();
</script>
"""


def served_command(app_argv: Sequence[str]) -> list[str]:
    """The ``acphost tui`` command line each browser connection runs.

    Args:
        app_argv: the app's arguments, already without the serving options
            (built from the parsed options, see
            :func:`acphost.cli._parser.command_line`).

    Returns:
        ``python -m acphost tui`` with those arguments.

    """
    return [sys.executable, "-m", "acphost", "tui", *app_argv]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ServeError(Exception):
    """The address cannot be served on; the message says what to change."""


def _addresses(host: str, port: int) -> list[tuple[socket.AddressFamily, Any]]:
    if host == "localhost":
        # Browsers take localhost for both loopbacks (often ::1 first), whatever
        # this machine's resolver says: hold both.
        return [(socket.AF_INET, ("127.0.0.1", port)), (socket.AF_INET6, ("::1", port, 0, 0))]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise ServeError(
            f"--host {host!r} is not an address to listen on ({exc}); "
            "the default, 127.0.0.1, serves this machine only"
        ) from exc
    found: dict[tuple[int, str], tuple[socket.AddressFamily, Any]] = {}
    for family, _, _, _, address in infos:
        found.setdefault((family, str(address[0])), (family, address))
    return sorted(found.values(), key=lambda item: item[0] != socket.AF_INET)


def _bind(family: socket.AddressFamily, address: Any, several: bool) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # As aiohttp does: a server just stopped leaves its port in TIME_WAIT,
        # which must not read as in use (a listening one still does).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if several and family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets listening on every address of ``host``, before anything is printed or served.

    An address this machine does not have (no IPv6 loopback) is left out when
    another one is bound: no one else can listen there either. Any address
    in use fails the whole.

    Args:
        host: the address to bind (an IP address or a name: all it resolves to).
        port: the port.

    Returns:
        The listening sockets, IPv4 first (the server takes them over).

    Raises:
        ServeError: the address is unknown, the port in use or not allowed.

    """
    addresses = _addresses(host, port)
    bound: list[socket.socket] = []
    missing: OSError | None = None
    for family, address in addresses:
        try:
            bound.append(_bind(family, address, len(addresses) > 1))
        except OSError as exc:
            if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) and len(addresses) > 1:
                missing = missing or exc
                continue
            for sock in bound:
                sock.close()
            raise _listen_error(exc, address[0], port) from exc
    if not bound:
        assert missing is not None
        raise _listen_error(missing, host, port)
    return bound


def _listen_error(exc: OSError, where: str, port: int) -> ServeError:
    if exc.errno == errno.EADDRINUSE:
        return ServeError(f"port {port} is in use on {where}; choose another with --port")
    if exc.errno == errno.EACCES:
        return ServeError(
            f"cannot listen on {where} port {port}: ports below 1024 need privileges; "
            "choose another with --port"
        )
    return ServeError(
        f"cannot listen on {where} port {port}: {exc.strerror or exc}; check --host and --port"
    )


def url_host(sock: socket.socket) -> str:
    """The literal address ``sock`` listens on, as a URL writes it (``[::1]`` for IPv6)."""
    address = sock.getsockname()[0]
    return f"[{address}]" if sock.family == socket.AF_INET6 else str(address)


def serve(app_argv: Sequence[str], host: str, port: int) -> int:
    """Serve the TUI on ``host:port`` until interrupted; return the exit code.

    Args:
        app_argv: the arguments of the app each page runs (see :func:`served_command`).
        host: the address to bind (127.0.0.1 unless the user chose otherwise).
        port: the port.

    Returns:
        0 after Ctrl+C or SIGTERM, 2 when textual-serve is missing or the
        address cannot be listened on.

    """
    try:
        import aiohttp_jinja2  # noqa: PLC0415 - only when serving
        from aiohttp import web  # noqa: PLC0415
        from textual_serve.server import Server, to_int  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"acphost: --serve needs textual-serve: pip install textual-serve ({exc})",
            file=sys.stderr,
        )
        return 2
    try:
        sockets = listen(host, port)
    except ServeError as exc:
        print(f"acphost: {exc}", file=sys.stderr)
        return 2
    keys = Keys()
    port = sockets[0].getsockname()[1]  # the port bound (--port 0 picks one)
    literal = [url_host(sock) for sock in sockets]
    names = [*literal, "localhost"] if is_loopback(host) else literal
    allowed = {f"{name}:{port}" for name in names}
    # Bound to every address (0.0.0.0, ::): a browser names one of them. Only IP
    # literals are taken, never a name: a name is what DNS rebinding would use.
    wildcard = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}
    anywhere = any(name in wildcard for name in literal)
    # The literal address bound, never a name another local user could answer for
    # (for a wildcard, its loopback: browsers refuse to open 0.0.0.0).
    address = f"http://{wildcard.get(literal[0], literal[0])}:{port}/?token={keys.token}"

    def host_ok(given: str) -> bool:
        if given in allowed:
            return True
        name, sep, given_port = given.rpartition(":")
        if not anywhere or not sep or given_port != str(port):
            return False
        try:
            ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            return False
        return True

    refused = "acphost: open the address printed when serving started"

    @web.middleware
    async def guard(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not host_ok(request.host):
            raise web.HTTPForbidden(text=f"acphost serves {sorted(allowed)[0]} only")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{request.host}":
            raise web.HTTPForbidden(text="acphost: cross-site request refused")
        path = request.path
        if path.startswith("/static/"):
            return await handler(request)  # textual-serve's own files: no key in them
        if path == "/" and "token" in request.query:
            given = request.query.get("token")
            session = keys.exchange(given) if request.method == "GET" else None
            rest = [(k, v) for k, v in request.query.items() if k != "token"]
            then = "/" + (f"?{urlencode(rest)}" if rest else "")
            if session is not None:
                return web.Response(text=_handover(session, then), content_type="text/html")
            if keys.is_spent_token(given):  # from the history: it opens nothing now
                raise web.HTTPSeeOther(then)
            raise web.HTTPForbidden(text=refused)
        if path == "/" and request.method in ("GET", "HEAD"):
            return await handler(request)  # the page: no key in it
        if path == "/ticket" and request.method == "POST":
            if not request.headers.get(SESSION_HEADER):
                raise web.HTTPForbidden(text=refused)
            return await handler(request)
        if path.startswith("/ws/") and keys.take(path.removeprefix("/ws/")):
            return await handler(request)
        raise web.HTTPForbidden(text=refused)

    async def secure_headers(request: web.Request, response: web.StreamResponse) -> None:
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
        response.headers["X-Content-Type-Options"] = "nosniff"
        if not request.path.startswith("/static/"):
            response.headers["Cache-Control"] = "no-store"

    async def handle_ticket(request: web.Request) -> web.StreamResponse:
        ticket = keys.ticket(request.headers.get(SESSION_HEADER))
        if ticket is None:
            raise web.HTTPForbidden(text=refused)
        return web.Response(text=ticket)

    class AcphostServer(Server):
        async def _make_app(self) -> Any:
            app = await super()._make_app()
            app.router.add_post("/ticket", handle_ticket)
            app.router.add_get("/ws/{ticket}", self.handle_websocket)
            app.middlewares.append(guard)
            app.on_response_prepare.append(secure_headers)
            return app

        async def on_startup(self, app: web.Application) -> None:
            print(f"acphost: serving the TUI on {address}", flush=True)
            print(
                "Open that address in a browser (its token works once); Ctrl+C stops.", flush=True
            )

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            context = {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": "",  # set by the page once it holds a ticket
                "config": {"static": {"url": "/static/"}},
                "application": {"name": self.title},
            }
            page = aiohttp_jinja2.render_string("app_index.html", request, context)
            end = page.rindex("</body>")
            page = page[:end] + _ask_ticket() + page[end:]
            return web.Response(text=page, content_type="text/html")

        def run(self) -> None:
            self.initialize_logging()
            # No access log: the first request's address holds the token.
            web.run_app(
                self._make_app(), sock=sockets, print=None, handle_signals=True, access_log=None
            )

    if not is_loopback(host):
        print(
            f"acphost: serving on {host}: whoever has the address, token included, gets "
            "this agent and this workspace; plain HTTP carries the token in clear",
            file=sys.stderr,
        )
    command = shlex.join(served_command(app_argv))
    AcphostServer(command, host=host, port=port, title="acphost").run()
    return 0


def _handover(session: str, then: str) -> str:
    """The page that keeps ``session`` in this origin's storage and goes on to ``then``."""
    return _HANDOVER.format(
        stored=json.dumps(_STORED), session=json.dumps(session), then=json.dumps(then)
    )


def _ask_ticket() -> str:
    return _ASK_TICKET.format(
        stored=json.dumps(_STORED), header=json.dumps(SESSION_HEADER), no_key=json.dumps(_NO_KEY)
    )
