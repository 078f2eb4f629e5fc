"""The core's typed decoder: streamed notifications read straight from their bytes.

The client gives the core ``acphost.schema.strict.decode_update_line``; these
tests use it too, and a recording decoder where the core's side of the
contract is the point (what it is offered, what happens when it refuses).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from acphost import schema as s
from acphost.rpc import Connection, Notification, ProtocolViolation, Request, Response, RpcCore
from acphost.schema.strict import decode_update_line, decode_update_lines
from acphost.transport import memory_pair
from tests.support.fake_agent import pair_with
from tests.support.waiting import eventually, settled

pytestmark = pytest.mark.unordered_frames

INIT = {"protocolVersion": 1, "clientCapabilities": {}}


def update_line(text: str, sid: str = "s1") -> bytes:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    frame = {"jsonrpc": "2.0", "method": "session/update",
             "params": {"sessionId": sid, "update": update}}
    return json.dumps(frame).encode()


def chunk(text: str) -> s.AgentMessageChunk:
    return s.AgentMessageChunk(content=s.TextContentBlock(text=text))


class Recording:
    """A decoder that reads ``{"method": "n", "params": {"i": N}}`` and refuses the rest."""

    def __init__(self) -> None:
        self.offered: list[bytes] = []

    def __call__(self, line: bytes | memoryview) -> tuple[int]:
        self.offered.append(bytes(line))
        msg = json.loads(bytes(line))
        if msg.get("method") != "n" or "id" in msg:
            raise ValueError("not mine")
        return (msg["params"]["i"],)


def test_lines_are_offered_to_the_decoder_once_the_peer_has_greeted():
    dec = Recording()
    core = RpcCore(decode_notification=dec)
    banner = b"starting up...\n"
    first = b'{"jsonrpc":"2.0","method":"n","params":{"i":1}}\n'
    rest = b"".join(b'{"jsonrpc":"2.0","method":"n","params":{"i":%d}}\n' % i for i in (2, 3))
    core.receive_data(banner + first + rest)
    evs = core.events_received()
    # The banner and the greeting take the general path; then the decoder reads.
    assert isinstance(evs[0], ProtocolViolation)
    assert evs[1:] == [Notification("n", {"i": 1}), (2,), (3,)]
    assert dec.offered == [line for line in rest.splitlines()]


def test_what_the_decoder_refuses_takes_the_general_path_in_wire_order():
    dec = Recording()
    core = RpcCore(decode_notification=dec)
    core.send_request("initialize", INIT)
    core.data_to_send()
    core.receive_data(b'{"jsonrpc":"2.0","method":"hello"}\n')  # greets
    core.events_received()
    lines = [
        b'{"jsonrpc":"2.0","method":"n","params":{"i":1}}',
        b'{"jsonrpc":"2.0","id":7,"method":"n","params":{"i":2}}',  # a request, refused
        b'{"jsonrpc":"2.0","method":"other","params":{"x":1}}',
        b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}',
        b"{not json",
        b'{"jsonrpc":"2.0","method":"n","params":{"i":3}}',
    ]
    core.receive_data(b"\n".join(lines) + b"\n")
    evs = core.events_received()
    assert evs[0] == (1,) and evs[-1] == (3,)
    assert evs[1] == Request(7, "n", {"i": 2})
    assert evs[2] == Notification("other", {"x": 1})
    assert evs[3] == Response(0, "initialize", {"protocolVersion": 1})
    assert isinstance(evs[4], ProtocolViolation) and "malformed JSON" in evs[4].message
    assert len(evs) == 6
    assert dec.offered == lines  # every line was offered, in order
    # the bad JSON was answered -32700, as without a decoder
    assert b'"code":-32700' in core.data_to_send()


def test_a_decoder_that_fails_in_any_way_changes_nothing():
    def broken(line: bytes | memoryview) -> tuple[int]:
        raise RecursionError("deep")

    core = RpcCore(decode_notification=broken)
    core.receive_data(b'{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b","params":[1]}\n')
    assert core.events_received() == [Notification("a", None), Notification("b", [1])]


def test_taps_see_the_lines_the_decoder_read():
    seen = []
    core = RpcCore(tap=lambda d, b: seen.append((d, b)), decode_notification=decode_update_line)
    lines = [b'{"jsonrpc":"2.0","method":"hello"}', update_line("a"), update_line("b")]
    core.receive_data(b"\n".join(lines) + b"\n")
    assert core.events_received() == [Notification("hello", None), ("s1", chunk("a")),
                                      ("s1", chunk("b"))]
    assert seen == [("receive", line) for line in lines]


def test_long_lines_are_offered_as_they_are_parsed():
    core = RpcCore(decode_notification=decode_update_line)
    core.receive_data(b'{"jsonrpc":"2.0","method":"hello"}\n')
    core.events_received()
    big = "x" * 5000  # long lines are parsed from views of the chunk
    core.receive_data(update_line(big) + b"\n" + update_line("small") + b"\n")
    assert core.events_received() == [("s1", chunk(big)), ("s1", chunk("small"))]


def test_an_oversized_line_is_still_reported():
    core = RpcCore(max_line_bytes=200, decode_notification=decode_update_line)
    core.receive_data(b'{"jsonrpc":"2.0","method":"hello"}\n')
    core.events_received()
    core.receive_data(update_line("y" * 300) + b"\n" + update_line("ok") + b"\n")
    bad, good = core.events_received()
    assert isinstance(bad, ProtocolViolation) and "longer than the 200-byte limit" in bad.message
    assert good == ("s1", chunk("ok"))


def test_a_decoder_needs_a_handler():
    client_end, _ = memory_pair()
    with pytest.raises(ValueError, match="on_decoded"):
        Connection(client_end, on_request=unused_request, on_notification=lambda m, p: None,
                   decode_notification=decode_update_line)


async def unused_request(method, params):
    raise AssertionError(method)


async def test_decoded_notifications_are_handed_over_in_wire_order_with_backpressure():
    client_end, agent = pair_with({})
    log: list[object] = []
    gates: dict[str, asyncio.Future] = {}

    def on_decoded(ev):
        sid, update = ev
        assert sid == "s1"
        log.append(update.content.text)
        return gates.get(update.content.text)

    def on_notification(method, params):
        log.append(method)

    conn = Connection(client_end, on_request=unused_request, on_notification=on_notification,
                      decode_notification=decode_update_line, on_decoded=on_decoded)
    conn.start()
    gates["2"] = gate = asyncio.get_running_loop().create_future()
    agent.notify("hello", {})
    for i in range(1, 6):
        agent.update("s1", {"sessionUpdate": "agent_message_chunk",
                            "content": {"type": "text", "text": str(i)}})
    # an update the strict decoder refuses (an unknown member) goes to on_notification
    agent.update("s1", {"sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "6"}, "later": True})
    await eventually(lambda: "2" in log, what="the second update")
    await settled()  # all the reader could do has run: it must stay paused on the gate
    assert log == ["hello", "1", "2"]
    assert client_end.unread > 0
    gate.set_result(None)
    await eventually(lambda: log[-1] == "session/update", what="the last update")
    assert log == ["hello", "1", "2", "3", "4", "5", "session/update"]
    await conn.close()


class Block(Recording):
    """A block decoder over Recording's lines, all or nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[bytes] = []

    def block(self, data: memoryview) -> list[tuple[int]]:
        self.blocks.append(bytes(data))
        return [self(line) for line in bytes(data).splitlines() if line.strip()]


def greeted(**options) -> RpcCore:
    core = RpcCore(**options)
    core.receive_data(b'{"jsonrpc":"2.0","method":"hello"}\n')
    core.events_received()
    return core


def test_a_chunk_of_notifications_is_decoded_as_a_block():
    dec = Block()
    seen = []
    core = greeted(decode_notification=dec, decode_notifications=dec.block,
                   tap=lambda d, b: seen.append(b))
    lines = [b'{"jsonrpc":"2.0","method":"n","params":{"i":%d}}' % i for i in range(5)]
    data = b"\n".join(lines) + b"\n"
    # the chunk ends inside a line, and the next one completes it
    core.receive_data(data + lines[0][:10])
    core.receive_data(lines[0][10:] + b"\n\n" + data)
    assert core.events_received() == [(i,) for i in range(5)] + [(0,)] + [(i,) for i in range(5)]
    assert dec.blocks == [data, b"\n" + data]  # the completed line goes on its own
    assert seen[1:] == [*lines, lines[0], *lines]  # the tap: every frame, in wire order


def test_a_block_with_one_other_line_is_read_line_by_line():
    dec = Block()
    core = greeted(decode_notification=dec, decode_notifications=dec.block)
    core.send_request("initialize", INIT)
    core.data_to_send()
    data = (b'{"jsonrpc":"2.0","method":"n","params":{"i":1}}\n'
            b'{"jsonrpc":"2.0","id":0,"result":{}}\n'
            b'{"jsonrpc":"2.0","method":"n","params":{"i":2}}\n')
    core.receive_data(data)
    assert core.events_received() == [(1,), Response(0, "initialize", {}), (2,)]
    assert len(dec.blocks) == 1


def test_no_block_for_one_line_before_the_greeting_or_near_the_limit():
    dec = Block()
    line = b'{"jsonrpc":"2.0","method":"n","params":{"i":1}}\n'
    core = RpcCore(decode_notification=dec, decode_notifications=dec.block)
    core.receive_data(line * 3)  # the first greets: line by line
    core.receive_data(line)  # one line
    small = greeted(max_line_bytes=64 * 2, decode_notification=dec, decode_notifications=dec.block)
    small.receive_data(line * 3)  # three lines are more than the limit together
    assert dec.blocks == []
    assert core.events_received() == [Notification("n", {"i": 1}), (1,), (1,), (1,)]
    assert small.events_received() == [(1,)] * 3


STREAM = [
    b'{"jsonrpc":"2.0","method":"hello"}',
    update_line("one"),
    update_line("two", sid="s2"),
    b"",
    b"   ",
    update_line("x" * 3000),
    b'{"jsonrpc":"2.0","id":"r1","method":"session/request_permission","params":{}}',
    json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk",
                                      "content": {"type": "text", "text": "e"}, "extra": 1}}}
               ).encode(),
    update_line("three") + b"\r",
    b"{broken",
    json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s1", "update": {"sessionUpdate": "future_kind"}}}).encode(),
    b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}',
    b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"r1"}}',
    update_line("four"),
]


def general(ev):
    """A session/update event in the form the typed decoder gives it."""
    if isinstance(ev, Notification) and ev.method == "session/update":
        return (ev.params["sessionId"], s.decode_session_update(ev.params["update"]))
    return ev


@pytest.mark.parametrize("seed", range(40))
def test_any_chunking_gives_the_same_events_and_taps_with_the_decoders_or_without(seed):
    import random

    rng = random.Random(seed)
    # mostly updates, as in a stream: whole chunks of them are read as blocks
    lines = [update_line(str(i)) if rng.random() < 0.7 else rng.choice(STREAM)
             for i in range(200)]
    data = b"\n".join(STREAM[:1] + lines) + b"\n"
    results = []
    for typed in (False, True):
        seen: list[bytes] = []
        options = {"decode_notification": decode_update_line,
                   "decode_notifications": decode_update_lines} if typed else {}
        core = RpcCore(tap=lambda d, b, seen=seen: seen.append(b), **options)
        core.send_request("initialize", INIT)
        core.data_to_send()
        pos = 0
        chunk_rng = random.Random(seed)
        while pos < len(data):
            size = chunk_rng.choice([1, 7, 100, 700, 5000, 100000])
            core.receive_data(data[pos : pos + size])
            pos += size
        results.append(([general(ev) for ev in core.events_received()], seen,
                         core.data_to_send()))
    assert results[0] == results[1]
    assert any(type(ev) is tuple for ev in results[0][0])


@pytest.mark.parametrize("with_block_handler", [False, True])
async def test_a_block_is_handed_over_in_order_and_can_pause_the_reader(with_block_handler):
    client_end, agent = pair_with({})
    log: list[str] = []
    gate = asyncio.get_running_loop().create_future()

    def on_decoded(ev):
        log.append(ev[1].content.text)
        return gate if ev[1].content.text == "b2" else None

    async def on_decoded_block(block):
        log.append("block")
        for ev in block:
            waiter = on_decoded(ev)
            if waiter is not None:
                await waiter

    conn = Connection(client_end, on_request=unused_request,
                      on_notification=lambda m, p: log.append(m),
                      decode_notification=decode_update_line,
                      decode_notifications=decode_update_lines, on_decoded=on_decoded,
                      on_decoded_block=on_decoded_block if with_block_handler else None)
    conn.start()
    agent.notify("hello", {})
    agent.send_raw(b"".join(update_line(f"b{i}") + b"\n" for i in range(1, 5)))
    agent.send_raw(update_line("after") + b"\n")
    await eventually(lambda: "b2" in log, what="the second update of the block")
    await settled()  # all the reader could do has run: paused inside the block
    assert log[-1] == "b2" and "b3" not in log
    gate.set_result(None)
    await eventually(lambda: "after" in log, what="the update after the block")
    expected = ["hello", "b1", "b2", "b3", "b4", "after"]
    if with_block_handler:
        expected.insert(1, "block")
    assert log == expected
    await conn.close()


class BlockTap:
    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.blocks: list[bytes] = []

    def __call__(self, direction, line):
        self.lines.append(line)

    def receive_block(self, block):
        self.blocks.append(block)


def test_a_tap_that_takes_blocks_gets_a_decoded_block_at_once_and_others_its_lines():
    from acphost.rpc import chain_taps

    blocky, plain, failing_seen = BlockTap(), [], []

    def failing(direction, line):
        failing_seen.append(line)
        raise RuntimeError("observer bug")

    core = RpcCore(tap=chain_taps(blocky, lambda d, b: plain.append(b), failing),
                   decode_notification=decode_update_line,
                   decode_notifications=decode_update_lines)
    lines = [b'{"jsonrpc":"2.0","method":"hello"}', update_line("a"), update_line("b")]
    core.receive_data(lines[0] + b"\n")
    block = update_line("a") + b"\n\n" + update_line("b") + b"\r\n"
    core.receive_data(block)
    assert core.events_received() == [Notification("hello", None), ("s1", chunk("a")),
                                      ("s1", chunk("b"))]
    assert blocky.lines == lines[:1] and blocky.blocks == [block]
    assert plain == [*lines[:2], lines[2] + b"\r"] == failing_seen  # every line, blanks aside
