"""A scripted fake agent speaking raw JSON over the in-memory transport.

It deliberately does not use acphost's RpcCore: it is the other side, and the
client's frames must be checked independently (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from acphost.transport import MemoryTransport, memory_pair

INIT_RESULT = {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}, "authMethods": []}

Handler = Callable[["FakeAgent", Any, Any], Awaitable[Any]]


class FakeAgent:
    """Answers the client's requests through ``handlers`` (method -> async fn)."""

    def __init__(self, transport: MemoryTransport, handlers: dict[str, Handler]) -> None:
        self.t = transport
        self.handlers = handlers
        self.received: list[dict] = []
        self.responses: dict[Any, asyncio.Future] = {}
        self.task = asyncio.get_running_loop().create_task(self._run())
        self._next = 1000
        self._arrived = asyncio.Condition()

    def send(self, frame: dict) -> None:
        self.t.send(json.dumps({"jsonrpc": "2.0", **frame}).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        self.t.send(data)

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def update(self, sid: str, update: dict) -> None:
        self.notify("session/update", {"sessionId": sid, "update": update})

    async def request(self, method: str, params: Any, rid: Any = None) -> dict:
        if rid is None:
            rid = self._next
            self._next += 1
        fut = asyncio.get_running_loop().create_future()
        self.responses[rid] = fut
        self.send({"id": rid, "method": method, "params": params})
        return await asyncio.wait_for(fut, 10)

    async def _run(self) -> None:
        buf = b""
        while True:
            chunk = await self.t.receive()
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                msg = json.loads(line)
                self.received.append(msg)
                async with self._arrived:
                    self._arrived.notify_all()
                if "method" not in msg:
                    fut = self.responses.pop(msg.get("id"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                    continue
                handler = self.handlers.get(msg["method"])
                if handler is None:
                    if "id" in msg:
                        self.send({"id": msg["id"], "error": {"code": -32601, "message": "nope"}})
                    continue
                asyncio.get_running_loop().create_task(self._answer(handler, msg))

    async def _answer(self, handler: Handler, msg: dict) -> None:
        try:
            result = await handler(self, msg.get("id"), msg.get("params"))
        except Exception as exc:  # a scripted error: {"code":..., "message":...} in args
            if "id" in msg:
                self.send({"id": msg["id"], "error": exc.args[0]})
            return
        if "id" in msg and result is not NO_ANSWER:
            self.send({"id": msg["id"], "result": result})

    def methods(self) -> list[str]:
        return [m["method"] for m in self.received if "method" in m]

    async def wait_for(self, method: str, timeout: float = 10.0) -> dict:
        """The first frame the client sent with this method, once it has arrived."""

        def first() -> dict | None:
            return next((m for m in self.received if m.get("method") == method), None)

        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: first() is not None), timeout)
        found = first()
        assert found is not None
        return found


NO_ANSWER = object()


async def const(value: Any) -> Handler:
    async def handler(agent: FakeAgent, rid: Any, params: Any) -> Any:
        return value

    return handler


def answer(value: Any) -> Handler:
    async def handler(agent: FakeAgent, rid: Any, params: Any) -> Any:
        return value

    return handler


def pair_with(handlers: dict[str, Handler]) -> tuple[MemoryTransport, FakeAgent]:
    client_end, agent_end = memory_pair()
    base = {"initialize": answer(INIT_RESULT), "session/new": answer({"sessionId": "s1"})}
    return client_end, FakeAgent(agent_end, {**base, **handlers})
