"""The core against what a hostile or confused peer writes: bytes in, events out.

Taps see the exact bytes of every frame that parses as JSON, from the same
batched path that runs without them; anything else becomes a violation, and
a peer that writes nothing but junk is declared not an ACP agent.
"""

from __future__ import annotations

import json

import pytest

from acphost.errors import NotAnAcpAgent
from acphost.rpc import (
    Notification,
    ProtocolViolation,
    Request,
    Response,
    RpcCore,
    chain_taps,
    tap_all_cores,
)
from acphost.rpc._prelude import NOT_ACP_BYTES, NOT_ACP_LINES

pytestmark = pytest.mark.unordered_frames

GREETING = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}\n'


def update(i: int, text: str = "hi") -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
                                                     "content": {"type": "text", "text": f"{text}{i}"}}},
        },
        separators=(",", ":"),
    ).encode()


def greeted(**kwargs) -> tuple[RpcCore, list[tuple[str, bytes]]]:
    """A core whose peer has answered initialize, with a recording tap."""
    seen: list[tuple[str, bytes]] = []
    core = RpcCore(tap=lambda d, line: seen.append((d, line)), **kwargs)
    core.send_request("initialize", {"protocolVersion": 1})
    core.receive_data(GREETING)
    assert [type(e) for e in core.events_received()] == [Response]
    core.data_to_send()
    seen.clear()
    return core, seen


def received(seen):
    return [line for d, line in seen if d == "receive"]


# -- taps on the batched path ----------------------------------------------------------


@pytest.mark.parametrize("text", ["short", "x" * 3000], ids=["short-lines", "long-lines"])
@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 20])
def test_a_tap_sees_every_frame_exactly_and_changes_no_event(text, chunk):
    lines = [update(i, text) for i in range(50)]
    lines.insert(20, b'{"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"path":"/a"}}\r')
    data = b"\n".join(lines) + b"\n"
    tapped, seen = greeted()
    plain = RpcCore()
    plain.send_request("initialize", {"protocolVersion": 1})
    plain.receive_data(GREETING)
    plain.events_received()
    for i in range(0, len(data), chunk):
        tapped.receive_data(data[i : i + chunk])
        plain.receive_data(data[i : i + chunk])
    assert received(seen) == lines  # exact bytes (the \r too), wire order, nothing else
    assert all(type(line) is bytes for line in received(seen))
    # The same path with and without the tap: notifications stay parsed frames
    # (the batched path's hand-over to the driver), requests become events.
    events = tapped._take_events()
    assert events == plain._take_events()
    assert isinstance(events[20], Request) and events[21] == json.loads(lines[21])
    assert sum(type(e) is dict for e in events) == 50


def test_a_tap_sees_frames_in_a_chunk_larger_than_the_line_limit():
    core, seen = greeted(max_line_bytes=100)
    small = b'{"jsonrpc":"2.0","method":"a"}'
    big = b'{"jsonrpc":"2.0","method":"b","params":{"t":"' + b"x" * 200 + b'"}}'
    core.receive_data(small + b"\n" + big + b"\n" + small + b"\n")
    assert received(seen) == [small, small]
    a, v, a2 = core.events_received()
    assert a == a2 == Notification("a", None) and "100-byte limit" in v.message


def test_tap_all_cores_attaches_to_cores_created_inside_the_block_only():
    before = RpcCore()
    seen = []
    made = iter(range(10))

    def factory():
        n = next(made)
        return lambda d, line: seen.append((n, d, line))

    with tap_all_cores(factory):
        inside = RpcCore(tap=lambda d, line: seen.append(("own", d, line)))
        with tap_all_cores(lambda: None):
            nested = RpcCore()
    after = RpcCore()
    for core in (before, inside, nested, after):
        core.receive_data(b'{"jsonrpc":"2.0","method":"m"}\n')
    # the core's own tap first, then the blocks'; cores made outside the block are untouched
    assert seen == [("own", "receive", b'{"jsonrpc":"2.0","method":"m"}'),
                    (0, "receive", b'{"jsonrpc":"2.0","method":"m"}'),
                    (1, "receive", b'{"jsonrpc":"2.0","method":"m"}')]


# -- what no peer can do to the core -----------------------------------------------------


def deep(levels: int) -> bytes:
    return b'{"jsonrpc":"2.0","method":"m","params":{"a":' + b"[" * levels + b"]" * levels + b"}}"


HOSTILE = {
    "deeply-nested": (deep(5000), "depth"),
    "lone-surrogate": (b'{"jsonrpc":"2.0","method":"m","params":{"t":"\\ud800"}}', "surrogate"),
    "invalid-utf8": (b'{"jsonrpc":"2.0","method":"m","params":{"t":"\xff\xfe"}}', "UTF-8"),
    "number-overflow": (b'{"jsonrpc":"2.0","id":5,"method":"m","params":{"n":1e999}}', "infinity"),
    "not-json": (b"\x1b]52;c;cHduZWQ=\x07 hello", "malformed JSON"),
}


@pytest.mark.parametrize("line,why", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_lines_are_violations_and_the_stream_goes_on(line, why):
    core, seen = greeted()
    core.receive_data(line + b"\n" + update(1) + b"\n")
    violation, after = core.events_received()
    assert isinstance(violation, ProtocolViolation)
    assert violation.message.startswith("malformed JSON") and why in violation.message
    assert violation.excerpt == line[:200]
    assert after == Notification("session/update", json.loads(update(1))["params"])
    assert received(seen) == [update(1)]  # the bad line never reached the tap
    (reply,) = [json.loads(x) for x in core.data_to_send().splitlines()]
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert core.failure is None


def test_nesting_that_json_allows_is_passed_on():
    core, seen = greeted()
    core.receive_data(deep(1000) + b"\n")
    (ev,) = core.events_received()
    assert isinstance(ev, Notification) and received(seen) == [deep(1000)]


def test_a_huge_line_is_skipped_in_pieces_without_keeping_it():
    core, seen = greeted(max_line_bytes=1 << 16)
    piece = b"y" * 65536
    core.receive_data(b'{"jsonrpc":"2.0","method":"m","params":{"t":"')
    for _ in range(64):  # 4 MiB, never held at once
        core.receive_data(piece)
        assert len(core._partial) <= 1 << 16
    core.receive_data(b'"}}\n' + update(2) + b"\n")
    v, n = core.events_received()
    assert isinstance(v, ProtocolViolation) and "65536-byte limit" in v.message
    assert n.params["update"]["content"]["text"] == "hi2" and received(seen) == [update(2)]


def test_parse_error_replies_are_bounded_for_a_peer_that_floods_junk():
    core, _ = greeted()
    core.receive_data(b"junk\n" * 1000)
    assert len(core.events_received()) == 1000
    assert len(core.data_to_send().splitlines()) == 100
    core.receive_data(update(3) + b"\n")
    assert isinstance(core.events_received()[0], Notification)


# -- a peer that does not speak ACP at all ---------------------------------------------------


def test_junk_before_any_message_fails_the_core_with_not_an_acp_agent():
    core = RpcCore()
    core.send_request("initialize", {"protocolVersion": 1})
    core.receive_data(b"\x1b[2J\x1b]0;pwned\x07 Usage: tool [options]\n" + b"y\n" * 100)
    events = core.events_received()
    assert len(events) == NOT_ACP_LINES and all(isinstance(e, ProtocolViolation) for e in events)
    err = core.failure
    assert isinstance(err, NotAnAcpAgent)
    assert "this does not look like an ACP agent" in str(err)
    # quoted, made visible: no escape sequence survives
    assert err.first_line == "\\x1b[2J\\x1b]0;pwned\\x07 Usage: tool [options]"
    assert "\x1b" not in str(err) and err.first_line in str(err)
    core.receive_data(GREETING)  # too late: the core no longer listens
    assert core.events_received() == []


def test_a_long_first_line_that_cannot_be_json_rpc_fails_without_a_newline():
    core = RpcCore()
    core.receive_data(b"\x00\x01binary" * 5000)
    assert core.failure is None
    core.receive_data(b"\x00\x01binary" * 5000)
    assert isinstance(core.failure, NotAnAcpAgent)
    assert core.failure.first_line.startswith("\\x00\\x01binary")
    assert len(core.failure.first_line) < 200 and core._partial == b""


def test_a_big_first_frame_is_not_junk():
    core, seen = RpcCore(), []
    core.tap = lambda d, line: seen.append(line)
    frame = update(0, "z" * (2 * NOT_ACP_BYTES))
    for i in range(0, len(frame), 5000):
        core.receive_data(frame[i : i + 5000])
    core.receive_data(b"\n")
    assert core.failure is None and received([("receive", x) for x in seen]) == [frame]


def test_a_short_banner_is_forgiven_and_junk_after_the_first_message_never_fails():
    core = RpcCore()
    core.send_request("initialize", {"protocolVersion": 1})
    core.receive_data(b"Debugger listening\nwelcome\n")
    core.receive_data(update(0) + b"\n")  # a notification on the batched path greets too
    core.receive_data(b"junk\n" * (10 * NOT_ACP_LINES))
    core.receive_data(GREETING)
    events = core.events_received()
    assert core.failure is None
    assert isinstance(events[-1], Response) and len(events) == 2 + 1 + 10 * NOT_ACP_LINES + 1


def test_junk_bytes_are_bounded_as_well_as_lines():
    core = RpcCore()
    core.receive_data((b"n" * 40000 + b"\n") * 2)
    assert isinstance(core.failure, NotAnAcpAgent) and "2 lines" in str(core.failure)


def test_eof_after_only_junk_leaves_a_hint():
    core = RpcCore()
    core.receive_data(b"hello there\n")
    core.receive_eof()
    core.events_received()
    assert core.failure is None and 'only output like "hello there"' in core._not_acp_hint()
    clean = RpcCore()
    clean.receive_data(update(0) + b"\njunk\n")
    clean.receive_eof()
    clean.events_received()
    assert clean._not_acp_hint() == ""


def test_json_that_is_not_json_rpc_counts_as_junk_too():
    core = RpcCore()
    core.receive_data(b'{"status": "ok"}\n42\n' * 10)
    events = core.events_received()
    assert len(events) == NOT_ACP_LINES and isinstance(core.failure, NotAnAcpAgent)
    assert core.failure.first_line == '{"status": "ok"}'


def test_chained_taps_all_see_a_frame_when_one_fails(caplog):
    seen = []

    def broken(direction, line):
        raise RecursionError("an observer that recurses over the frame")

    core = RpcCore(tap=chain_taps(broken, lambda d, line: seen.append(line)))
    core.receive_data(update(0) + b"\n" + update(1) + b"\n")
    assert seen == [update(0), update(1)] and len(core.events_received()) == 2
    assert sum("frame tap failed" in r.getMessage() for r in caplog.records) == 1
    assert chain_taps(None, None) is None and chain_taps(None, broken) is broken
