"""``acphost tui --serve``: the same app in a browser, through textual-serve.

Each browser connection runs ``acphost tui`` (the same options, less the
serving ones) as its own process, speaking to the page over a websocket; the
agent runs inside that process, exactly as in a terminal.

Serving hands whoever reaches the page an agent that can read the workspace
(and write, run commands, with ``--write``), answering its permission
questions. So:

* every request, the page, its scripts and the websocket alike, must carry
  a random token, made at start and printed once in the address to open
  (``http://127.0.0.1:8000/?token=...``, as Jupyter does): on a shared
  machine any user can connect to a port on 127.0.0.1, and without the
  token they get a 403. The address's token is compared in constant time
  and moved into a cookie (``HttpOnly``, ``SameSite=Strict``, for this
  port's name), and the browser is sent on to the address without it, so
  the token leaves the address bar and the history; the page's scripts and
  its websocket carry the cookie;
* it binds to 127.0.0.1 by default (another address warns: the token is
  then the only lock, and plain HTTP carries it in clear);
* it answers only requests addressed to the host and port it serves (the
  ``Host`` header, and the ``Origin`` of the websocket): a web page
  elsewhere cannot reach it through DNS rebinding, nor drive it from a
  script.

A port that cannot be listened on (in use, privileged) is one line on
stderr and exit code 2, before anything is served.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlencode

__all__ = ["SERVE_FLAGS", "ServeError", "listen", "served_command", "serve"]

#: The options that configure the server, not the app: left out of the command it runs.
SERVE_FLAGS = {"--serve": 0, "--host": 1, "--port": 1}


def served_command(argv: Sequence[str]) -> list[str]:
    """The ``acphost tui`` command line each browser connection runs.

    Args:
        argv: the ``acphost tui`` arguments as given (after ``tui``).

    Returns:
        ``python -m acphost tui`` with the same arguments, less ``--serve``,
        ``--host`` and ``--port``.

    """
    out: list[str] = []
    skip = 0
    for arg in argv:
        if skip:
            skip -= 1
            continue
        name = arg.split("=", 1)[0]
        if name in SERVE_FLAGS:
            skip = SERVE_FLAGS[name] if "=" not in arg else 0
            continue
        out.append(arg)
    return [sys.executable, "-m", "acphost", "tui", *out]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _allowed_hosts(host: str, port: int) -> set[str]:
    names = {host, "localhost", "127.0.0.1", "[::1]"} if is_loopback(host) else {host}
    return {f"{name}:{port}" for name in names}


class ServeError(Exception):
    """The address cannot be served on; the message says what to change."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``, before anything is printed or served.

    Args:
        host: the address to bind (a name or an IP address).
        port: the port.

    Returns:
        The listening socket (the server takes it over).

    Raises:
        ServeError: the address is unknown, the port in use or not allowed.

    """
    where = f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ServeError(
            f"--host {host!r} is not an address to listen on ({exc}); "
            "the default, 127.0.0.1, serves this machine only"
        ) from exc
    sock = socket.socket(family, kind, proto)
    try:
        # As aiohttp does: a server just stopped leaves its port in TIME_WAIT,
        # which must not read as in use (a listening one still does).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} is in use on {host}; choose another with --port"
            ) from exc
        if exc.errno == errno.EACCES:
            raise ServeError(
                f"cannot listen on {where}: ports below 1024 need privileges; "
                "choose another with --port"
            ) from exc
        raise ServeError(
            f"cannot listen on {where}: {exc.strerror or exc}; check --host and --port"
        ) from exc
    return sock


def _same(given: str | None, token: str) -> bool:
    """Whether ``given`` is the token, in time that does not depend on where they differ."""
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def serve(argv: Sequence[str], host: str, port: int) -> int:
    """Serve the TUI on ``http://host:port`` until interrupted; return the exit code.

    Args:
        argv: the ``acphost tui`` arguments as given (the served app's options).
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
        sock = listen(host, port)
    except ServeError as exc:
        print(f"acphost: {exc}", file=sys.stderr)
        return 2
    token = secrets.token_urlsafe(32)
    # Cookies are not kept apart by port: the name says which server set it.
    cookie = f"acphost-token-{port}"
    allowed = _allowed_hosts(host, port)
    origins = {f"http://{h}" for h in allowed}
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/?token={token}"

    @web.middleware
    async def guard(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.host not in allowed:
            raise web.HTTPForbidden(text=f"acphost serves {sorted(allowed)[0]} only")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None and origin not in origins:
            raise web.HTTPForbidden(text="cross-site websocket refused")
        if _same(request.query.get("token"), token):
            if request.path == "/" and request.method == "GET":
                # The printed address: keep the token in a cookie, take it out
                # of the address bar (and the history, and a shared screen).
                rest = [(k, v) for k, v in request.query.items() if k != "token"]
                moved = web.HTTPSeeOther("/" + (f"?{urlencode(rest)}" if rest else ""))
                moved.set_cookie(cookie, token, httponly=True, samesite="Strict", path="/")
                raise moved
            return await handler(request)
        if not _same(request.cookies.get(cookie), token):
            raise web.HTTPForbidden(
                text="acphost: open the address printed when serving started (with its token)"
            )
        return await handler(request)

    class AcphostServer(Server):
        async def _make_app(self) -> Any:
            app = await super()._make_app()
            app.middlewares.append(guard)
            return app

        async def on_startup(self, app: web.Application) -> None:
            print(f"acphost: serving the TUI on {address}", flush=True)
            print("Open that address in a browser; Ctrl+C stops.", flush=True)

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            # The page's scripts and websocket on the host the browser asked
            # for (textual-serve would name the bound address): the cookie is
            # the browser's for that host only.
            base = request.host
            context = {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": f"ws://{base}/ws",
                "config": {"static": {"url": f"http://{base}/static/"}},
                "application": {"name": self.title},
            }
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        def run(self) -> None:
            self.initialize_logging()
            # No access log: the first request's address holds the token.
            web.run_app(
                self._make_app(), sock=sock, print=None, handle_signals=True, access_log=None
            )

    if not is_loopback(host):
        print(
            f"acphost: serving on {host}: whoever has the address, token included, gets "
            "this agent and this workspace; plain HTTP carries the token in clear",
            file=sys.stderr,
        )
    command = shlex.join(served_command(argv))
    AcphostServer(command, host=host, port=port, title="acphost").run()
    return 0
