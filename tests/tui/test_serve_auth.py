"""``acphost tui --serve`` lets in only whoever opened the address it printed.

A real served process on real sockets: any local process (any user of a
shared machine) can connect to 127.0.0.1 and run servers on its other ports.
The printed token works once, for a session key the page keeps in the
browser's storage of its own origin; the session key buys tickets; a ticket
opens one websocket (the app, the agent), once, within a minute. No cookie,
so no other local server ever receives a key. ``--host localhost`` holds
both loopbacks, and the address printed is the literal one listened on.
A port that cannot be listened on is one line and exit 2.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import re
import socket
import subprocess
import sys
import threading

import pytest

from acphost.tui._serve_keys import MAX_TICKETS, TICKET_SECONDS, Keys

from .conftest import demo_spec
from .serving import free_port, start

pytest.importorskip("textual_serve")
aiohttp = pytest.importorskip("aiohttp")

SESSION = re.compile(r'setItem\("acphost-session", "([A-Za-z0-9_-]+)"\)')


@pytest.fixture
def served(tmp_path, workspace):
    server = start(tmp_path, workspace)
    try:
        assert server.process.poll() is None, server.err
        yield server
    finally:
        server.stop()


def request(port: int, path: str, *, method: str = "GET", host: str | None = None, **headers: str):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Host": host or f"127.0.0.1:{port}", **headers}
        connection.request(method, path, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


def session_of(port: int, token: str) -> str:
    """Open the printed address: the page that keeps the session key."""
    status, headers, page = request(port, f"/?token={token}")
    assert status == 200 and "Set-Cookie" not in headers, (status, headers)
    found = SESSION.search(page)
    assert found is not None, page
    return found[1]


def ticket_of(port: int, session: str, **headers: str) -> str:
    status, _, ticket = request(
        port, "/ticket", method="POST", **{"X-Acphost-Session": session, **headers}
    )
    assert status == 200, ticket
    return ticket


async def _websocket(port: int, path: str, until: str, headers: dict[str, str]) -> tuple[int, str]:
    """Open a websocket; return 101 and the app's output up to ``until``, or the refusal."""
    url = f"http://127.0.0.1:{port}{path}?width=100&height=30"
    seen = ""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers) as ws:
                while until not in seen:  # the app runs, the agent with it
                    message = await asyncio.wait_for(ws.receive(), 60)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        seen += message.data.decode("utf-8", "replace")
                    else:
                        assert message.type == aiohttp.WSMsgType.TEXT, (message, seen)
                return 101, seen
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, ""


def websocket(port: int, path: str, until: str = "", **headers: str) -> tuple[int, str]:
    return asyncio.run(_websocket(port, path, until or "\x1b", headers))


def test_without_a_key_nothing_runs(served):
    port = served.port
    for path in ("/?token=", "/?token=wrong", "/ws", "/ws/", "/ws/wrong", "/download/x"):
        status, _, body = request(port, path)
        assert status == 403, path
        assert "address printed" in body
    assert request(port, "/ticket", method="POST")[0] == 403
    assert request(port, "/ticket", method="POST", **{"X-Acphost-Session": "x"})[0] == 403
    assert request(port, "/ticket")[0] == 403  # GET
    assert websocket(port, "/ws")[0] == 403
    assert websocket(port, "/ws/wrong")[0] == 403
    assert websocket(port, f"/ws/{served.token}")[0] == 403  # the token is no ticket
    # The page and textual-serve's files hold no key: anyone may have them.
    status, headers, page = request(port, "/")
    assert status == 200 and served.token not in page and 'id="terminal"' in page
    assert headers["X-Frame-Options"] == "DENY" and headers["Cache-Control"] == "no-store"
    assert request(port, "/static/js/textual.js")[0] == 200


def test_the_token_works_once(served):
    port, token = served.port, served.token
    status, headers, page = request(port, f"/?token={token}&fontsize=18")
    assert status == 200 and "Set-Cookie" not in headers
    assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
    assert SESSION.search(page) and 'location.replace("/?fontsize=18")' in page
    # Found again (the browser's history keeps it): it opens nothing now.
    status, headers, body = request(port, f"/?token={token}&fontsize=18")
    assert status == 303 and headers["Location"] == "/?fontsize=18", body
    assert "Set-Cookie" not in headers and not SESSION.search(body)


def test_a_ticket_opens_one_websocket(served):
    port = served.port
    session = session_of(port, served.token)
    ticket = ticket_of(port, session)
    status, first = websocket(port, f"/ws/{ticket}", until="acphost demo agent")
    assert status == 101 and "acphost demo agent" in first
    assert websocket(port, f"/ws/{ticket}")[0] == 403  # used
    assert websocket(port, f"/ws/{session}")[0] == 403  # the session key is no ticket
    # Each page asks for its own.
    assert websocket(port, f"/ws/{ticket_of(port, session)}")[0] == 101


def test_tickets_expire_and_are_few():
    now = [0.0]
    keys = Keys(clock=lambda: now[0])
    assert keys.ticket(None) is None and keys.ticket("") is None  # no session yet
    session = keys.exchange(keys.token)
    assert session is not None and keys.exchange(keys.token) is None
    assert keys.is_spent_token(keys.token) and not keys.is_spent_token("other")
    late, fresh = keys.ticket(session), keys.ticket(session)
    now[0] = TICKET_SECONDS - 0.001
    assert keys.take(fresh) and not keys.take(fresh)
    now[0] = TICKET_SECONDS
    assert not keys.take(late)  # expired
    many = [keys.ticket(session) for _ in range(MAX_TICKETS + 1)]
    assert not keys.take(many[0]) and keys.take(many[-1])  # the oldest dropped
    assert keys.ticket("wrong") is None and not keys.take(None) and not keys.take("")


class Catcher:
    """Another local server, on another port of 127.0.0.1: keeps every request it gets."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.requests: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            with connection:
                data = b""
                while b"\r\n\r\n" not in data and (chunk := connection.recv(4096)):
                    data += chunk
                self.requests.append(data.decode("latin-1"))
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nhi\n")


def test_another_local_server_receives_nothing_that_opens_the_app(served):
    """A browser sends the cookies of 127.0.0.1 to every port of it: there must be none."""
    port = served.port
    catcher = Catcher()

    async def browse() -> tuple[list[str], int]:
        jar = aiohttp.CookieJar(unsafe=True)  # keyed by host, as a browser's (IP hosts too)
        set_cookies = []
        async with aiohttp.ClientSession(cookie_jar=jar) as browser:
            base = f"http://127.0.0.1:{port}"
            async with browser.get(f"{base}/?token={served.token}") as response:
                set_cookies += response.headers.getall("Set-Cookie", [])
                session = SESSION.search(await response.text())
            async with browser.get(f"{base}/") as response:
                set_cookies += response.headers.getall("Set-Cookie", [])
            headers = {"X-Acphost-Session": session[1] if session else ""}
            async with browser.post(f"{base}/ticket", headers=headers) as response:
                set_cookies += response.headers.getall("Set-Cookie", [])
            # Then the user (or a page elsewhere) visits another local server.
            async with browser.get(f"http://127.0.0.1:{catcher.port}/") as response:
                await response.read()
            return set_cookies, len(jar)

    set_cookies, kept = asyncio.run(browse())
    catcher.sock.close()
    (caught,) = catcher.requests
    assert "cookie" not in caught.lower(), caught
    assert set_cookies == [] and kept == 0
    # Whatever it got, replayed: nothing.
    replay = {
        name: value.strip()
        for line in caught.split("\r\n")[1:]
        if ":" in line
        for name, value in [line.split(":", 1)]
        if name.lower() not in ("host", "content-length", "connection")
    }
    assert websocket(port, "/ws", **replay)[0] == 403
    assert request(port, "/ticket", method="POST", **replay)[0] == 403


def test_the_host_and_origin_checks_stay(served):
    port = served.port
    session = session_of(port, served.token)
    evil = {"Origin": "http://attacker.example"}
    assert request(port, "/", host=f"attacker.example:{port}")[0] == 403
    assert request(port, "/?token=x", host=f"attacker.example:{port}")[0] == 403
    headers = {"X-Acphost-Session": session}
    assert request(port, "/ticket", method="POST", **headers, **evil)[0] == 403
    origin = {"Origin": f"http://127.0.0.1:{port}"}
    ticket = ticket_of(port, session, **origin)
    assert websocket(port, f"/ws/{ticket}", **evil)[0] == 403
    assert websocket(port, f"/ws/{ticket}", **origin)[0] == 101


def test_the_token_is_printed_once_and_is_long(served):
    printed = "".join(served.out + served.err)
    assert printed.count(served.token) == 1
    assert len(served.token) >= 32
    session = session_of(served.port, served.token)  # not echoed in a request log either
    request(served.port, f"/?token={served.token}")
    websocket(served.port, f"/ws/{ticket_of(served.port, session)}")
    after = "".join(served.out + served.err)
    assert after.count(served.token) == 1 and session not in after


def test_abbreviated_serving_options_are_not_passed_to_the_page(tmp_path, workspace):
    # argparse takes --ser for --serve: each page's app must not serve again.
    server = start(tmp_path, workspace, "--wr", spelled=("--ser", "--po"))
    try:
        assert server.process.poll() is None, server.err
        port = server.port
        ticket = ticket_of(port, session_of(port, server.token))
        status, first = websocket(port, f"/ws/{ticket}", until="acphost demo agent")
        assert status == 101 and "acphost demo agent" in first
    finally:
        server.stop()


def test_localhost_is_printed_as_the_address_listened_on(tmp_path, workspace):
    server = start(tmp_path, workspace, "--host", "localhost")
    try:
        assert server.process.poll() is None, server.err
        assert server.url.startswith(f"http://127.0.0.1:{server.port}/?token=")
        assert request(server.port, "/", host=f"localhost:{server.port}")[0] == 200
    finally:
        server.stop()


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback here")
def test_localhost_holds_both_loopbacks(tmp_path, workspace):
    # Another local user listening on [::1]:PORT gets nothing: a browser may
    # try ::1 first for localhost.
    with socket.socket(socket.AF_INET6) as squatter:
        squatter.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        squatter.bind(("::1", 0))
        squatter.listen()
        squatter.setblocking(False)
        port = squatter.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "acphost", "tui", str(workspace), "--serve",
             "--host", "localhost", "--port", str(port)],
            env={**os.environ, **demo_spec(tmp_path).env},
            capture_output=True,
            text=True,
            timeout=60,
        )  # fmt: skip
        assert r.returncode == 2, (r.stdout, r.stderr)
        assert r.stderr == f"acphost: port {port} is in use on ::1; choose another with --port\n"
        assert "token" not in r.stdout
        with pytest.raises(BlockingIOError):
            squatter.accept()  # nobody came
    # Free, both are ours.
    server = start(tmp_path, workspace, "--host", "localhost", port=port)
    try:
        assert server.process.poll() is None, server.err
        connection = http.client.HTTPConnection("::1", port, timeout=30)
        connection.request("GET", "/", headers={"Host": f"localhost:{port}"})
        response = connection.getresponse()
        assert response.status == 200 and "acphost" in response.read().decode()
        connection.close()
    finally:
        server.stop()


def test_another_address_says_the_token_is_the_only_lock(tmp_path, workspace):
    server = start(tmp_path, workspace, "--host", "0.0.0.0")
    try:
        assert server.process.poll() is None, server.err
        warning = "".join(server.err)
        assert "serving on 0.0.0.0" in warning and "token" in warning
        assert request(server.port, "/ws", host=f"0.0.0.0:{server.port}")[0] == 403
    finally:
        server.stop()


def test_every_address_takes_a_browser_that_names_one_by_its_ip(tmp_path, workspace):
    """``--host 0.0.0.0`` answered every real client 403 (only ``Host: 0.0.0.0`` passed)
    and printed an address browsers refuse to open. An IP literal of this machine is
    accepted (the token still needed), a name never (DNS rebinding)."""
    server = start(tmp_path, workspace, "--host", "0.0.0.0")
    try:
        assert server.process.poll() is None, server.err
        assert server.address["host"] == f"127.0.0.1:{server.port}"
        # A header only: the request still goes to 127.0.0.1.
        lan = f"192.0.2.7:{server.port}"
        assert request(server.port, "/", host=lan)[0] == 200
        assert request(server.port, "/", host=f"rebound.example:{server.port}")[0] == 403
        assert request(server.port, "/", host="192.0.2.7:1")[0] == 403
        assert request(server.port, "/ws/x", host=lan)[0] == 403  # no ticket, no app
        status, _, _ = request(server.port, "/", host=lan, Origin="http://192.0.2.8")
        assert status == 403
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
