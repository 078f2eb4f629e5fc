"""``acphost tui --serve``: the same app in a browser, through textual-serve.

Each browser connection runs ``acphost tui`` (the same options, less the
serving ones) as its own process, speaking to the page over a websocket; the
agent runs inside that process, exactly as in a terminal.

Serving hands whoever reaches the page an agent that can read the workspace
(and write, run commands, with ``--write``). So it binds to 127.0.0.1 by
default, and it answers only requests addressed to the host and port it
serves (the ``Host`` header, and the ``Origin`` of the websocket): a web page
elsewhere cannot reach it through DNS rebinding, nor drive it from a script.
"""

from __future__ import annotations

import ipaddress
import shlex
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

__all__ = ["SERVE_FLAGS", "served_command", "serve"]

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


def serve(argv: Sequence[str], host: str, port: int) -> int:
    """Serve the TUI on ``http://host:port`` until interrupted; return the exit code.

    Args:
        argv: the ``acphost tui`` arguments as given (the served app's options).
        host: the address to bind (127.0.0.1 unless the user chose otherwise).
        port: the port.

    Returns:
        0 after Ctrl+C, 2 when textual-serve is missing.

    """
    try:
        from aiohttp import web  # noqa: PLC0415 - only when serving
        from textual_serve.server import Server  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"acphost: --serve needs textual-serve: pip install textual-serve ({exc})",
            file=sys.stderr,
        )
        return 2
    if not is_loopback(host):
        print(
            f"acphost: serving on {host}: anyone who can reach it gets this agent "
            "and this workspace; there is no login",
            file=sys.stderr,
        )
    allowed = _allowed_hosts(host, port)
    origins = {f"http://{h}" for h in allowed}

    @web.middleware
    async def same_site_only(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.host not in allowed:
            raise web.HTTPForbidden(text=f"acphost serves {sorted(allowed)[0]} only")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None and origin not in origins:
            raise web.HTTPForbidden(text="cross-site websocket refused")
        return await handler(request)

    class AcphostServer(Server):
        async def _make_app(self) -> Any:
            app = await super()._make_app()
            app.middlewares.append(same_site_only)
            return app

    command = shlex.join(served_command(argv))
    AcphostServer(command, host=host, port=port, title="acphost").serve()
    return 0
