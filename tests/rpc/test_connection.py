"""The asyncio driver on the in-memory pair, against a raw-JSON agent.

What the agent sends, the connection hands over in wire order; a slow
consumer or a flood of requests pauses reading instead of queueing without
bound; cancellation works both ways; closing fails what is pending.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from acphost.errors import (
    AcpTimeout,
    AgentExited,
    MethodNotFound,
    NotAnAcpAgent,
    RequestCancelled,
)
from acphost.rpc import Connection, ProtocolViolation
from tests.rpc.test_core_input import HOSTILE
from tests.support.fake_agent import INIT_RESULT, NO_ANSWER, pair_with
from tests.support.waiting import eventually, settled

INIT = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}
PERMISSION = {
    "sessionId": "s1",
    "toolCall": {"toolCallId": "t1", "title": "rm"},
    "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
}
CANCELLED = {"outcome": {"outcome": "cancelled"}}


def chunk(text: str) -> dict:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}




class Host:
    """The client side's handlers, recording what they were given."""

    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.violations: list[ProtocolViolation] = []
        self.waiters: dict[str, asyncio.Future] = {}
        self.release = asyncio.Event()
        self.running = 0
        self.most_running = 0
        self.started = 0

    def on_notification(self, method, params):
        text = params["update"]["content"]["text"]
        self.log.append(("notification", text))
        return self.waiters.get(text)

    async def on_request(self, method, params):
        self.log.append(("request", method))
        self.started += 1
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await self.release.wait()
        finally:
            self.running -= 1
        return CANCELLED


async def opened(handlers=None, **options):
    client_end, agent = pair_with(handlers or {})
    host = Host()
    conn = Connection(
        client_end,
        on_request=host.on_request,
        on_notification=host.on_notification,
        on_violation=host.violations.append,
        **options,
    )
    conn.start()
    host.log.append(("initialized", await conn.request("initialize", INIT)))
    return conn, agent, host, client_end


async def test_events_are_handed_over_in_wire_order():
    async def initialize(agent, rid, params):
        agent.update("s1", chunk("one"))
        agent.send({"id": "p1", "method": "session/request_permission", "params": PERMISSION})
        agent.update("s1", chunk("two"))
        return INIT_RESULT

    client_end, agent = pair_with({"initialize": initialize})
    host = Host()
    host.release.set()
    conn = Connection(
        client_end,
        on_request=host.on_request,
        on_notification=host.on_notification,
    )
    conn.start()
    result = await conn.request(
        "initialize", INIT, on_response=lambda r: host.log.append(("response", r["protocolVersion"]))
    )
    await eventually(lambda: any(m.get("id") == "p1" for m in agent.received), what="the permission answer")
    # notifications and the response callback in wire order; the request got
    # its own task (it may start later) and exactly one answer
    assert [e for e in host.log if e[0] != "request"] == [
        ("notification", "one"), ("notification", "two"), ("response", 1),
    ]
    assert ("request", "session/request_permission") in host.log
    assert result == INIT_RESULT
    assert [m for m in agent.received if m.get("id") == "p1"] == [
        {"jsonrpc": "2.0", "id": "p1", "result": CANCELLED}
    ]
    await conn.close()


async def test_a_slow_consumer_pauses_reading_and_nothing_is_lost():
    conn, agent, host, client_end = await opened()
    host.waiters["2"] = gate = asyncio.get_running_loop().create_future()
    for i in range(1, 51):
        agent.update("s1", chunk(str(i)))
    await eventually(lambda: ("notification", "2") in host.log, what="the second update")
    await settled()  # all the reader could do has run: it must stay paused on the gate
    assert [t for kind, t in host.log if kind == "notification"] == ["1", "2"]
    assert client_end.unread > 0  # the rest waits, unread, in the transport
    gate.set_result(None)
    await eventually(lambda: ("notification", "50") in host.log, what="the last update")
    assert [t for kind, t in host.log if kind == "notification"] == [str(i) for i in range(1, 51)]
    await conn.close()


async def test_concurrent_agent_requests_are_capped_and_all_answered():
    conn, agent, host, client_end = await opened()
    flood = [
        asyncio.ensure_future(agent.request("session/request_permission", PERMISSION, rid=i))
        for i in range(200)
    ]
    await eventually(lambda: host.started == 64, what="64 handlers")
    await eventually(lambda: conn.request_cap_hits == 1, what="the cap")
    await settled()  # a 65th handler would have started by now
    assert host.started == 64 and conn.requests_in_flight == 64
    assert client_end.unread > 0  # the 65th and later wait unread: reading paused
    host.release.set()
    answers = await asyncio.gather(*flood)
    assert [a["id"] for a in answers] == list(range(200))
    assert all(a["result"] == CANCELLED for a in answers)
    assert host.started == 200 and host.most_running == 64
    assert sorted(m["id"] for m in agent.received if "result" in m) == list(range(200))
    assert conn.requests_in_flight == 0
    await conn.close()


async def test_the_cap_can_be_lowered():
    conn, agent, host, _ = await opened(max_concurrent_requests=2)
    flood = [asyncio.ensure_future(agent.request("session/request_permission", PERMISSION))
             for _ in range(5)]
    await eventually(lambda: host.started == 2 and conn.request_cap_hits == 1, what="the cap of 2")
    host.release.set()
    await asyncio.gather(*flood)
    assert host.most_running == 2 and host.started == 5
    await conn.close()


async def test_the_client_cancels_its_request_with_cancel_request():
    conn, agent, host, _ = await opened({"session/prompt": NO_ANSWER_HANDLER})
    violations_before = len(host.violations)
    task = asyncio.ensure_future(
        conn.request("session/prompt", {"sessionId": "s1", "prompt": []})
    )
    await eventually(lambda: "session/prompt" in agent.methods(), what="the prompt")
    rid = next(m["id"] for m in agent.received if m.get("method") == "session/prompt")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await eventually(lambda: "$/cancel_request" in agent.methods(), what="the cancel")
    cancel = next(m for m in agent.received if m.get("method") == "$/cancel_request")
    assert cancel["params"] == {"requestId": rid}
    # The agent's late -32800 answer is dropped quietly, and the stream goes on.
    agent.send({"id": rid, "error": {"code": -32800, "message": "cancelled"}})
    agent.update("s1", chunk("after"))
    await eventually(lambda: ("notification", "after") in host.log, what="the next update")
    assert len(host.violations) == violations_before
    await conn.close()


async def test_a_timeout_abandons_the_request_with_cancel_request():
    conn, agent, _host, _ = await opened({"session/prompt": NO_ANSWER_HANDLER})
    with pytest.raises(AcpTimeout, match="session/prompt"):
        await conn.request("session/prompt", {"sessionId": "s1", "prompt": []}, timeout=0.05)
    await eventually(lambda: "$/cancel_request" in agent.methods(), what="the cancel")
    await conn.close()


async def test_the_agent_cancels_its_request_and_gets_32800():
    conn, agent, host, _ = await opened()
    answer = asyncio.ensure_future(agent.request("session/request_permission", PERMISSION, rid="p9"))
    await eventually(lambda: host.running == 1, what="the handler")
    agent.notify("$/cancel_request", {"requestId": "p9"})
    reply = await answer
    assert reply["error"]["code"] == RequestCancelled.CODE
    assert host.running == 0 and conn.requests_in_flight == 0
    await conn.close()


async def test_close_fails_pending_requests_and_ends_handlers():
    conn, agent, host, _ = await opened({"session/prompt": NO_ANSWER_HANDLER})
    pending = asyncio.ensure_future(
        conn.request("session/prompt", {"sessionId": "s1", "prompt": []})
    )
    asked = asyncio.ensure_future(agent.request("session/request_permission", PERMISSION))
    await eventually(lambda: host.running == 1 and "session/prompt" in agent.methods(), what="both ways")
    await conn.close()
    asked.cancel()  # the agent's request is never answered: the connection is gone
    with pytest.raises(AgentExited, match="closed"):
        await pending
    assert conn.is_closed and conn.closed.done() and host.running == 0
    with pytest.raises(AgentExited):
        await conn.request("session/new", {"cwd": "/", "mcpServers": []})
    with pytest.raises(AgentExited):
        conn.notify("session/cancel", {"sessionId": "s1"})


async def test_close_while_reading_waits_for_a_request_slot():
    conn, agent, host, _ = await opened(max_concurrent_requests=1)
    asked = [asyncio.ensure_future(agent.request("session/request_permission", PERMISSION))
             for _ in range(3)]
    await eventually(lambda: conn.request_cap_hits == 1, what="the cap")
    await conn.close()
    assert conn.is_closed and host.running == 0 and host.started == 1
    for a in asked:
        a.cancel()


async def test_a_peer_that_writes_junk_fails_pending_requests_at_once(caplog):
    client_end, agent = pair_with({"initialize": NO_ANSWER_HANDLER})
    host = Host()
    conn = Connection(client_end, on_request=host.on_request, on_notification=host.on_notification,
                      on_violation=host.violations.append)
    conn.start()
    init = asyncio.ensure_future(conn.request("initialize", INIT))
    await eventually(lambda: "initialize" in agent.methods(), what="initialize")
    agent.send_raw(b"Usage: sometool [--help]\n" + b"y\n" * 1000)
    with caplog.at_level(logging.WARNING, logger="acphost.rpc"), pytest.raises(
        NotAnAcpAgent, match=r'this does not look like an ACP agent.*the first: "Usage: sometool'
    ):
        await init
    assert isinstance(conn.closed_error, NotAnAcpAgent)
    assert len(host.violations) == 10  # then the connection stopped reading
    assert not [r for r in caplog.records if "violation" in r.getMessage()]  # no flood
    await conn.close()


async def test_end_of_stream_after_only_junk_says_so():
    client_end, agent = pair_with({"initialize": NO_ANSWER_HANDLER})
    host = Host()
    conn = Connection(client_end, on_request=host.on_request, on_notification=host.on_notification)
    conn.start()
    init = asyncio.ensure_future(conn.request("initialize", INIT))
    await eventually(lambda: "initialize" in agent.methods(), what="initialize")
    agent.send_raw(b"hello\n")
    await agent.t.close()
    with pytest.raises(AgentExited, match=r'does not look like an ACP agent.*"hello"'):
        await init
    await conn.close()


async def test_a_timeout_after_only_junk_says_so():
    client_end, agent = pair_with({"initialize": NO_ANSWER_HANDLER})
    host = Host()
    conn = Connection(client_end, on_request=host.on_request, on_notification=host.on_notification)
    conn.start()
    agent.send_raw(b"Welcome to the shell!\n")
    with pytest.raises(AcpTimeout, match=r'within 0.05 s; this does not look like an ACP agent.*"Welcome'):
        await conn.request("initialize", INIT, timeout=0.05)
    await conn.close()


@pytest.mark.parametrize("line", [v[0] for v in HOSTILE.values()], ids=HOSTILE.keys())
async def test_hostile_lines_do_not_take_the_connection_down(line):
    tapped: list[bytes] = []
    client_end, agent = pair_with({})
    host = Host()
    host.release.set()
    conn = Connection(client_end, on_request=host.on_request, on_notification=host.on_notification,
                      on_violation=host.violations.append,
                      tap=lambda d, b: tapped.append(b) if d == "receive" else None)
    conn.start()
    await conn.request("initialize", INIT)
    agent.send_raw(line + b"\n")
    agent.update("s1", chunk("still here"))
    await eventually(lambda: ("notification", "still here") in host.log, what="the next update")
    assert [v.excerpt for v in host.violations] == [line[:200]]
    assert line not in tapped and len(tapped) == 2  # the initialize answer and the update
    reply = await agent.request("session/request_permission", PERMISSION)
    assert reply["result"] == CANCELLED and not conn.is_closed
    await conn.close()


async def test_a_huge_line_is_skipped_and_the_connection_goes_on():
    conn, agent, host, _ = await opened(max_line_bytes=64 * 1024)
    agent.send_raw(b'{"jsonrpc":"2.0","method":"session/update","params":{"t":"')
    for _ in range(64):  # 4 MiB in pieces, never held whole
        agent.send_raw(b"y" * 65536)
    agent.send_raw(b'"}}\n')
    agent.update("s1", chunk("after"))
    await eventually(lambda: ("notification", "after") in host.log, what="the next update")
    (violation,) = host.violations
    assert "65536-byte limit" in violation.message and len(violation.excerpt) == 200
    assert len(conn.core._partial) == 0 and not conn.is_closed
    await conn.close()


async def test_violations_are_logged_a_few_times_then_counted(caplog):
    conn, agent, host, _ = await opened()
    with caplog.at_level(logging.WARNING, logger="acphost.rpc"):
        agent.send_raw(b"junk\n" * 40)
        agent.update("s1", chunk("end"))
        await eventually(lambda: ("notification", "end") in host.log, what="the update after the junk")
        await conn.close()
    messages = [r.getMessage() for r in caplog.records]
    assert len(host.violations) == 40
    assert sum("agent protocol violation" in m for m in messages) == 5
    assert any("only counted" in m for m in messages)
    assert any("40 protocol violations in all" in m for m in messages)


async def test_a_failing_tap_changes_nothing(caplog):
    def tap(direction, line):
        raise RuntimeError("observer bug")

    client_end, agent = pair_with({})
    host = Host()
    conn = Connection(client_end, on_request=host.on_request, on_notification=host.on_notification,
                      tap=tap)
    conn.start()
    with caplog.at_level(logging.ERROR, logger="acphost.rpc"):
        assert await conn.request("initialize", INIT) == INIT_RESULT
        agent.update("s1", chunk("x"))
        await eventually(lambda: ("notification", "x") in host.log, what="the update")
    assert sum("frame tap failed" in r.getMessage() for r in caplog.records) == 1
    await conn.close()


async def test_an_error_answer_raises_the_class_for_its_code():
    async def missing(agent, rid, params):
        raise RuntimeError({"code": -32601, "message": "no such method", "data": {"m": 1}})

    conn, _agent, _host, _ = await opened({"session/new": missing})
    with pytest.raises(MethodNotFound, match="no such method") as caught:
        await conn.request("session/new", {"cwd": "/", "mcpServers": []})
    assert caught.value.data == {"m": 1}
    await conn.close()


async def test_a_banner_before_the_first_message_is_logged_once_the_agent_greets(caplog):
    async def initialize(agent, rid, params):
        agent.send_raw(b"Starting agent v1.2\n")
        return INIT_RESULT

    with caplog.at_level(logging.WARNING, logger="acphost.rpc"):
        conn, _agent, host, _ = await opened({"initialize": initialize})
    assert [v.excerpt for v in host.violations] == [b"Starting agent v1.2"]
    assert [r.getMessage() for r in caplog.records] == [
        "agent protocol violation: malformed JSON: unexpected character, expected a JSON value:"
        " line 1 column 1 (char 0): b'Starting agent v1.2'"
    ]
    await conn.close()


async def test_a_failing_notification_handler_ends_the_connection_clearly():
    def broken(method, params):
        raise KeyError("handler bug")

    client_end, agent = pair_with({"session/prompt": NO_ANSWER_HANDLER})
    conn = Connection(client_end, on_request=Host().on_request, on_notification=broken)
    conn.start()
    await conn.request("initialize", INIT)
    pending = asyncio.ensure_future(conn.request("session/prompt", {"sessionId": "s1", "prompt": []}))
    agent.update("s1", chunk("boom"))
    with pytest.raises(AgentExited, match="reader failed"):
        await pending
    await conn.close()


async def _never(agent, rid, params):
    return NO_ANSWER


NO_ANSWER_HANDLER = _never


async def test_the_suites_frame_check_sees_every_frame_on_the_batched_path(validate_client_frames):
    conn, agent, host, _ = await opened()
    for i in range(20):
        agent.update("s1", chunk(str(i)))
    await eventually(lambda: ("notification", "19") in host.log, what="the updates")
    (checker,) = validate_client_frames  # attached through tap_all_cores, no patching
    assert (checker.sent, checker.received) == (1, 21)  # initialize; its answer and 20 updates
    assert conn.core._prelude is None  # greeted: the updates took the batched path
    await conn.close()
