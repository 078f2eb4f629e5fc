"""``acphost tui --serve`` answers only whoever has the token it printed.

A real served process on a real socket: any local process (any user of a
shared machine) can connect to 127.0.0.1, so the page, its scripts and the
websocket that runs the agent are refused (403) without the token, and
work with it, whether it comes in the address or in the cookie the first
request sets. A port that cannot be listened on is one line and exit 2.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import socket
import subprocess
import sys

import pytest

from .conftest import demo_spec
from .serving import free_port, start

pytest.importorskip("textual_serve")
aiohttp = pytest.importorskip("aiohttp")


@pytest.fixture
def served(tmp_path, workspace):
    server = start(tmp_path, workspace)
    try:
        assert server.process.poll() is None, server.err
        yield server
    finally:
        server.stop()


def get(port: int, path: str, *, host: str | None = None, **headers: str):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}", **headers})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


async def _websocket(port: int, query: str = "", **headers: str) -> tuple[int, str]:
    """Open the app's websocket; return 101 and the first terminal output, or the refusal."""
    url = f"http://127.0.0.1:{port}/ws?width=80&height=24{query}"
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers) as ws:
                while True:  # the app's first output: the TUI runs, the agent with it
                    message = await asyncio.wait_for(ws.receive(), 60)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        return 101, message.data.decode("utf-8", "replace")
                    assert message.type == aiohttp.WSMsgType.TEXT, message
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, ""


def websocket(port: int, query: str = "", **headers: str) -> tuple[int, str]:
    return asyncio.run(_websocket(port, query, **headers))


def test_without_the_token_every_request_is_refused(served):
    port = served.port
    for path in ("/", "/?token=", "/?token=wrong", "/static/js/textual.js", "/download/x"):
        status, _, body = get(port, path)
        assert status == 403, path
        assert "token" in body
    assert get(port, "/", Cookie=f"acphost-token-{port}=not-it")[0] == 403
    assert websocket(port)[0] == 403
    assert websocket(port, "&token=wrong")[0] == 403
    assert websocket(port, Cookie=f"acphost-token-{port}={served.token[:-1]}")[0] == 403


def test_the_token_in_the_address_becomes_a_cookie(served):
    port, token = served.port, served.token
    status, headers, _ = get(port, f"/?token={token}&fontsize=18")
    assert status == 303 and headers["Location"] == "/?fontsize=18"
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"acphost-token-{port}={token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    jar = f"acphost-token-{port}={token}"
    status, _, page = get(port, "/", Cookie=jar)
    assert status == 200 and f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
    assert get(port, "/static/js/textual.js", Cookie=jar)[0] == 200
    # The page names the host it was asked for: the cookie is that host's.
    _, _, page = get(port, "/", host=f"localhost:{port}", Cookie=jar)
    assert f"ws://localhost:{port}/ws" in page and f"http://localhost:{port}/static/" in page


def test_with_the_token_the_websocket_runs_the_app(served):
    port, token = served.port, served.token
    status, first = websocket(port, Cookie=f"acphost-token-{port}={token}")
    assert status == 101 and first
    assert websocket(port, f"&token={token}")[0] == 101


def test_the_host_and_origin_checks_stay(served):
    port, token = served.port, served.token
    jar = f"acphost-token-{port}={token}"
    assert get(port, f"/?token={token}", host=f"attacker.example:{port}")[0] == 403
    evil = {"Cookie": jar, "Origin": "http://attacker.example"}
    assert websocket(port, **evil)[0] == 403


def test_the_token_is_printed_once_and_is_long(served):
    printed = "".join(served.out + served.err)
    assert printed.count(served.token) == 1
    assert len(served.token) >= 32
    get(served.port, f"/?token={served.token}")  # not echoed in a request log either
    get(served.port, "/", Cookie=f"acphost-token-{served.port}={served.token}")
    assert "".join(served.out + served.err).count(served.token) == 1


def test_another_address_says_the_token_is_the_only_lock(tmp_path, workspace):
    server = start(tmp_path, workspace, "--host", "0.0.0.0")
    try:
        assert server.process.poll() is None, server.err
        warning = "".join(server.err)
        assert "serving on 0.0.0.0" in warning and "token" in warning
        assert get(server.port, "/", host=f"0.0.0.0:{server.port}")[0] == 403
    finally:
        server.stop()


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path, workspace):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = ["tui", str(workspace), "--serve", "--port", str(port)]
        r = subprocess.run(
            [sys.executable, "-m", "acphost", *command],
            env={**os.environ, **demo_spec(tmp_path).env},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert r.returncode == 2
    assert r.stderr == f"acphost: port {port} is in use on 127.0.0.1; choose another with --port\n"
    assert "Serving" not in r.stdout and "token" not in r.stdout


def test_an_unknown_host_is_one_line_and_exit_2(tmp_path, workspace):
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "tui", str(workspace), "--serve",
         "--port", str(free_port()), "--host", "no-such-host.invalid"],
        env={**os.environ, **demo_spec(tmp_path).env},
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("acphost: --host 'no-such-host.invalid' is not an address")
