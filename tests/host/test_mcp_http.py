"""The host's tools over MCP streamable HTTP: a real socket, spoken to by the standard library's client.

``http.client`` (run in a thread) is an independent HTTP implementation: it
frames requests and parses answers on its own, over a real TCP connection.
"""

from __future__ import annotations

import asyncio
import http.client
import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from acphost.client._host_bridge import HostBridge
from acphost.host import AllowAll, HostConfig, _mcpserve
from acphost.host._mcphttp import MAX_HEAD_BYTES, HttpError, parse_head
from acphost.host._mcpserve import HostTools
from tests.host.test_mcp_stdio import flooding

SESSION = "sess-1"


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.reached = asyncio.Event()
        self.block = False

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        self.calls.append((method, params))
        self.reached.set()
        if self.block:
            await asyncio.Event().wait()
        if method == "fs/read_text_file":
            return {"content": "file text"}
        return {}


class Client:
    """One keep-alive HTTP connection to the server's endpoint."""

    def __init__(self, entry: dict[str, Any]) -> None:
        assert entry["type"] == "http" and entry["url"].startswith("http://127.0.0.1:")
        self.port = int(entry["url"].rsplit(":", 1)[1].split("/")[0])
        self.path = "/" + entry["url"].split("/", 3)[3]
        self.headers = {h["name"]: h["value"] for h in entry["headers"]}
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)

    def _post(
        self, body: bytes, headers: dict[str, str], method: str, path: str | None
    ) -> tuple[int, dict[str, str], bytes]:
        self.conn.request(method, path or self.path, body=body, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.will_close:
            self.conn.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    async def post(
        self,
        message: Any,
        *,
        headers: dict[str, str] | None = None,
        auth: bool = True,
        method: str = "POST",
        path: str | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(self.headers if auth else {}),
            **(headers or {}),
        }
        body = raw if raw is not None else json.dumps(message).encode()
        return await asyncio.to_thread(self._post, body, sent, method, path)

    async def rpc(self, rid: int, method: str, params: dict[str, Any] | None = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        status, headers, body = await self.post(message)
        assert status == 200 and headers["content-type"] == "application/json", (status, body)
        return json.loads(body)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[HostTools, Recorder, Client]]:
    host = Recorder()
    async with HostTools(host, SESSION, cwd=str(tmp_path), http=True) as tools:
        [entry] = tools.servers(protocol=2)
        client = Client(entry)
        yield tools, host, client
        client.conn.close()


async def test_an_agent_initializes_lists_and_calls_over_http(
    served: tuple[HostTools, Recorder, Client], tmp_path: Path
) -> None:
    _, host, client = served
    init = await client.rpc(1, "initialize", {"protocolVersion": "2025-03-26"})
    assert init["result"]["protocolVersion"] == "2025-03-26"
    status, _, body = await client.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert (status, body) == (202, b"")
    tools = (await client.rpc(2, "tools/list"))["result"]["tools"]
    assert [t["name"] for t in tools] == ["read_text_file", "write_text_file", "run_command"]
    result = await client.rpc(
        3, "tools/call", {"name": "read_text_file", "arguments": {"path": "a"}}
    )
    assert result["result"]["content"][0]["text"] == "file text"
    assert host.calls == [("fs/read_text_file", {"sessionId": SESSION, "path": f"{tmp_path}/a"})]


async def test_without_the_token_or_with_a_wrong_one_the_answer_is_401(
    served: tuple[HostTools, Recorder, Client],
) -> None:
    _, host, client = served
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    status, headers, _ = await client.post(ping, auth=False)
    assert status == 401 and headers["www-authenticate"] == "Bearer"
    status, _, _ = await client.post(ping, headers={"Authorization": "Bearer wrong"})
    assert status == 401
    status, _, _ = await client.post(
        ping, headers={"Authorization": client.headers["Authorization"].lower()}
    )
    assert status == 401
    assert (await client.rpc(2, "ping"))["result"] == {}
    assert host.calls == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example:80"},
        {"Host": "127.0.0.1.evil.example"},
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
    ],
)
async def test_a_foreign_host_or_origin_is_refused_403(
    served: tuple[HostTools, Recorder, Client], headers: dict[str, str]
) -> None:
    _, _, client = served
    status, _, _ = await client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
    assert status == 403


async def test_a_loopback_origin_is_accepted(served: tuple[HostTools, Recorder, Client]) -> None:
    _, _, client = served
    origin = {"Origin": f"http://localhost:{client.port}", "Host": f"localhost:{client.port}"}
    status, _, _ = await client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=origin)
    assert status == 200


@pytest.mark.parametrize(
    ("kwargs", "status"),
    [
        ({"method": "GET"}, 405),
        ({"method": "DELETE"}, 405),
        ({"path": "/other"}, 404),
        ({"headers": {"Content-Type": "text/plain"}}, 415),
        ({"headers": {"MCP-Protocol-Version": "1999-01-01"}}, 400),
    ],
)
async def test_requests_the_endpoint_does_not_serve_get_their_status(
    served: tuple[HostTools, Recorder, Client], kwargs: dict[str, Any], status: int
) -> None:
    _, _, client = served
    got, _, _ = await client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, **kwargs)
    assert got == status


async def test_a_body_over_the_bound_is_refused_413_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_mcpserve, "MAX_MESSAGE_BYTES", 1024)
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path), http=True) as tools:
        client = Client(tools.servers()[0])
        status, _, _ = await client.post(None, raw=b"x" * 2048)
        assert status == 413
        client.conn.close()


async def test_a_body_that_is_not_json_or_a_batch_gets_400_and_the_json_rpc_error(
    served: tuple[HostTools, Recorder, Client],
) -> None:
    _, _, client = served
    status, _, body = await client.post(None, raw=b"{nope")
    assert status == 400 and json.loads(body)["error"]["code"] == -32700
    status, _, body = await client.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert status == 400 and json.loads(body)["error"]["code"] == -32600
    # An error about a request it can name is an answer to that request.
    await client.rpc(2, "initialize", {"protocolVersion": "2025-06-18"})
    status, _, body = await client.post({"jsonrpc": "2.0", "id": 7, "method": "nope"})
    assert status == 200 and json.loads(body)["error"]["code"] == -32601


async def test_a_call_in_flight_at_close_is_answered_with_an_error(tmp_path: Path) -> None:
    host = Recorder()
    host.block = True
    tools = HostTools(host, SESSION, cwd=str(tmp_path), http=True)
    async with tools:
        client = Client(tools.servers()[0])
        await client.rpc(1, "initialize", {"protocolVersion": "2025-06-18"})
        params = {"name": "read_text_file", "arguments": {"path": "a"}}
        pending = asyncio.ensure_future(
            client.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        )
        await asyncio.wait_for(host.reached.wait(), 20)
    status, _, body = await asyncio.wait_for(pending, 20)
    answer = json.loads(body)
    assert status == 200 and answer["id"] == 2
    assert "closed this session" in answer["error"]["message"]
    client.conn.close()
    with pytest.raises(ConnectionRefusedError):
        await asyncio.to_thread(http.client.HTTPConnection("127.0.0.1", client.port).connect)


def test_a_head_that_is_not_http_1_1_or_malformed_is_refused() -> None:
    assert parse_head(b"POST /mcp HTTP/1.1\r\nHost: a\r\nX-A:  b ").headers == (
        ("host", "a"),
        ("x-a", "b"),
    )
    for head, status in [
        (b"POST /mcp HTTP/1.0", 501),
        (b"POST  /mcp HTTP/1.1", 400),
        (b"POST /mcp HTTP/1.1\r\nno colon", 400),
        (b"POST /mcp HTTP/1.1\r\nBad Name: x", 400),
        (b"POST /mcp HTTP/1.1\r\nHost: \xff", 400),
    ]:
        with pytest.raises(HttpError) as caught:
            parse_head(head)
        assert caught.value.status == status


async def test_through_the_real_host_over_http_a_write_lands_inside_and_is_refused_outside(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    host = HostBridge(
        HostConfig(allow_write=True, permissions=AllowAll()),
        SimpleNamespace(observed=False),  # type: ignore[arg-type]
    )
    host.attach({SESSION: SimpleNamespace(cwd=str(ws), additional_directories=(), state=None)})
    try:
        async with HostTools(host.handle, SESSION, cwd=str(ws), http=True) as tools:
            client = Client(tools.servers()[0])
            await client.rpc(1, "initialize", {"protocolVersion": "2025-06-18"})
            inside = {"name": "write_text_file", "arguments": {"path": "a.txt", "content": "A"}}
            landed = await client.rpc(2, "tools/call", inside)
            assert "isError" not in landed["result"]
            outside = {
                "name": "write_text_file",
                "arguments": {"path": str(tmp_path / "b.txt"), "content": "B"},
            }
            refused = await client.rpc(3, "tools/call", outside)
            assert refused["result"]["isError"] is True
            assert "outside" in refused["result"]["content"][0]["text"]
            client.conn.close()
    finally:
        await host.close()
    assert (ws / "a.txt").read_text() == "A"
    assert not (tmp_path / "b.txt").exists()


# -- connections that never show the token, and heads past the bound -----------------


async def test_idle_connections_without_the_token_do_not_keep_the_agent_out(
    served: tuple[HostTools, Recorder, Client],
) -> None:
    """More idle TCP connections than the cap took every slot: the agent's POST was reset."""
    _, _, client = served
    idle = [
        await asyncio.open_connection("127.0.0.1", client.port)
        for _ in range(_mcpserve._MAX_CONNECTIONS + 1)
    ]
    # Accepted in the order they connected: the agent's connection comes after all of them.
    assert (await client.rpc(1, "ping"))["result"] == {}
    assert await asyncio.wait_for(idle[0][0].read(), 20) == b""  # the oldest made room
    for _, writer in idle:
        writer.close()


async def test_a_flood_of_silent_connections_does_not_keep_the_agent_out(
    served: tuple[HostTools, Recorder, Client],
) -> None:
    _, _, client = served
    async with flooding("tcp", str(client.port)):
        for rid in range(3):
            client.conn.close()  # a new connection each time, made during the flood
            assert (await client.rpc(rid, "ping"))["result"] == {}


async def test_an_authenticated_connection_is_never_pushed_out_and_idle_ones_time_out(
    served: tuple[HostTools, Recorder, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, client = served
    await client.rpc(1, "ping")  # the keep-alive connection is authenticated
    idle = [
        await asyncio.open_connection("127.0.0.1", client.port)
        for _ in range(3 * _mcpserve._MAX_UNAUTHENTICATED)
    ]
    assert await asyncio.wait_for(idle[0][0].read(), 20) == b""
    assert (await client.rpc(2, "ping"))["result"] == {}
    for _, writer in idle:
        writer.close()
    # A head that does not come whole in time is not waited for.
    monkeypatch.setattr(_mcpserve, "_AUTH_TIMEOUT", 0.05)
    reader, writer = await asyncio.open_connection("127.0.0.1", client.port)
    writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert await asyncio.wait_for(reader.read(), 20) == b""
    writer.close()
    assert (await client.rpc(3, "ping"))["result"] == {}


async def test_authenticated_connections_past_the_cap_are_answered_503(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_mcpserve, "_MAX_CONNECTIONS", 1)
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path), http=True) as tools:
        client, other = Client(tools.servers()[0]), Client(tools.servers()[0])
        assert (await client.rpc(1, "ping"))["result"] == {}
        status, _, body = await other.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert status == 503 and b"too many connections" in body
        assert (await client.rpc(3, "ping"))["result"] == {}
        client.conn.close()


async def test_a_head_over_the_bound_is_refused_431_and_a_large_body_is_not(
    served: tuple[HostTools, Recorder, Client],
) -> None:
    """The head bound was asyncio's default 64 KiB, not ``MAX_HEAD_BYTES``."""
    _, host, client = served
    pad = {"X-Pad": "p" * (MAX_HEAD_BYTES + 1)}
    status, _, body = await client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=pad)
    assert status == 431 and str(MAX_HEAD_BYTES) in body.decode()
    # Bodies have their own, larger bound: one far past the head's goes through.
    client.conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=20)
    await client.rpc(2, "initialize", {"protocolVersion": "2025-06-18"})
    content = "c" * (8 * MAX_HEAD_BYTES)
    params = {"name": "write_text_file", "arguments": {"path": "big.txt", "content": content}}
    result = await client.rpc(3, "tools/call", params)
    assert "isError" not in result["result"]
    assert host.calls[-1][1]["content"] == content
