"""The sans-I/O core: bytes in, events and bytes out, no event loop."""

from __future__ import annotations

import json

import pytest

from acphost.errors import InvalidParams, LocalProtocolError, MethodNotFound, RequestError
from acphost.rpc import (
    CancelRequested,
    ErrorResponse,
    Notification,
    ProtocolViolation,
    Request,
    Response,
    RpcCore,
)

pytestmark = pytest.mark.unordered_frames


def frames(core: RpcCore) -> list[dict]:
    data = core.data_to_send()
    assert data == b"" or data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


def test_request_ids_and_response_correlation():
    core = RpcCore()
    a = core.send_request("initialize", {"protocolVersion": 1})
    b = core.send_request("session/new", {"cwd": "/", "mcpServers": []})
    assert (a, b) == (0, 1)
    sent = frames(core)
    assert sent[0] == {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 1},
    }
    core.receive_data(b'{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}\n')
    core.receive_data(b'{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"nope"}}\n')
    r, e = core.events_received()
    assert r == Response(1, "session/new", {"sessionId": "s"})
    assert isinstance(e, ErrorResponse) and isinstance(e.error, MethodNotFound)
    assert e.error.code == -32601 and e.method == "initialize"
    assert core.pending_requests == {}


def test_lines_split_anywhere_and_crlf():
    core = RpcCore()
    msg = b'{"jsonrpc":"2.0","method":"session/update","params":{"x":1}}\r\n'
    for i in range(len(msg)):
        core.receive_data(msg[i : i + 1])
    assert core.events_received() == [Notification("session/update", {"x": 1})]


def test_many_frames_in_one_chunk_keep_order():
    core = RpcCore()
    data = b"".join(b'{"jsonrpc":"2.0","method":"n","params":{"i":%d}}\n' % i for i in range(100))
    core.receive_data(data)
    assert [ev.params["i"] for ev in core.events_received()] == list(range(100))


@pytest.mark.parametrize("rid", [7, "7", "a1b2c3d4-0000-4000-8000-000000000000", None])
def test_request_ids_of_any_type_are_echoed(rid):
    core = RpcCore()
    core.receive_data(
        json.dumps(
            {"jsonrpc": "2.0", "id": rid, "method": "fs/read_text_file", "params": {}}
        ).encode()
        + b"\n"
    )
    (ev,) = core.events_received()
    assert ev == Request(rid, "fs/read_text_file", {})
    core.send_result(rid, {"content": ""})
    assert frames(core) == [{"jsonrpc": "2.0", "id": rid, "result": {"content": ""}}]


def test_malformed_json_answers_parse_error_and_survives():
    core = RpcCore()
    core.receive_data(b'{"jsonrpc": "2.0", "method": \n')
    core.receive_data(b'{"jsonrpc":"2.0","method":"ok"}\n')
    v, n = core.events_received()
    assert isinstance(v, ProtocolViolation) and "malformed JSON" in v.message
    assert n == Notification("ok", None)
    assert frames(core) == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": "Parse error: the frame is not valid JSON"},
        }
    ]


@pytest.mark.parametrize(
    "frame",
    [
        b'[{"jsonrpc":"2.0","method":"x"}]',
        b'{"jsonrpc":"2.0","id":3,"method":5}',
        b'{"jsonrpc":"2.0","id":3}',
        b'{"jsonrpc":"2.0","id":3,"method":"x","params":"str"}',
        b'{"jsonrpc":"2.0","id":1.5,"method":"x"}',
    ],
)
def test_invalid_requests_answer_32600(frame):
    core = RpcCore()
    core.receive_data(frame + b"\n")
    (ev,) = core.events_received()
    assert isinstance(ev, ProtocolViolation)
    (reply,) = frames(core)
    assert reply["error"]["code"] == -32600


def test_broken_notification_is_not_answered():
    core = RpcCore()
    core.receive_data(b'{"jsonrpc":"2.0","method":7}\n')
    assert isinstance(core.events_received()[0], ProtocolViolation)
    assert frames(core) == []


def test_blank_lines_are_ignored():
    core = RpcCore()
    core.receive_data(b"\n  \n")
    assert core.events_received() == []
    assert frames(core) == []


def test_oversized_frame_is_reported_and_connection_survives():
    core = RpcCore(max_line_bytes=1000)
    big = b'{"jsonrpc":"2.0","method":"n","params":{"t":"' + b"x" * 5000 + b'"}}\n'
    # arrives in pieces, then a normal frame
    for i in range(0, len(big), 700):
        core.receive_data(big[i : i + 700])
    core.receive_data(b'{"jsonrpc":"2.0","method":"after"}\n')
    v, n = core.events_received()
    assert isinstance(v, ProtocolViolation) and "1000-byte limit" in v.message
    assert n.method == "after"
    # whole oversized line in one chunk
    core.receive_data(big + b'{"jsonrpc":"2.0","method":"after2"}\n')
    v, n = core.events_received()
    assert isinstance(v, ProtocolViolation) and n.method == "after2"


def test_cancel_request_both_ways():
    core = RpcCore()
    core.receive_data(
        b'{"jsonrpc":"2.0","id":"r1","method":"session/request_permission","params":{}}\n'
    )
    core.receive_data(
        b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"r1"}}\n'
    )
    # a cancel for an id that is not pending is ignored
    core.receive_data(
        b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"zz"}}\n'
    )
    _req, cancel = core.events_received()
    assert cancel == CancelRequested("r1")
    rid = core.send_request("session/list", {})
    core.abandon_request(rid)
    assert frames(core)[-1] == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": rid},
    }
    # a late answer to an abandoned request (often -32800) is dropped quietly...
    core.receive_data(b'{"jsonrpc":"2.0","id":%d,"error":{"code":-32800,"message":"c"}}\n' % rid)
    assert core.events_received() == []
    # ...but a second one, or one for an id never used, is a violation
    core.receive_data(b'{"jsonrpc":"2.0","id":%d,"result":{}}\n' % rid)
    (ev,) = core.events_received()
    assert isinstance(ev, ProtocolViolation)


def test_malformed_cancel_request_ids_do_not_break_the_core():
    core = RpcCore()
    core.receive_data(b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":[1]}}\n')
    core.receive_data(b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":{"a":1}}}\n')
    core.receive_data(b'{"jsonrpc":"2.0","method":"ok"}\n')
    assert core.events_received() == [Notification("ok", None)]


def test_unencodable_frames_raise_before_any_bookkeeping():
    core = RpcCore()
    with pytest.raises(LocalProtocolError, match="valid Unicode"):
        core.send_request("session/prompt", {"text": "bad \udcff"})
    assert core.pending_requests == {} and core.data_to_send() == b""
    assert core.send_request("initialize", {"protocolVersion": 1}) == 0  # the id was not consumed
    core.receive_data(b'{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file"}\n')
    core.events_received()
    core.send_error("x", InvalidParams("no such file: \udcff"))
    reply = frames(core)[-1]
    assert reply["id"] == "x" and reply["error"]["code"] == -32603


def test_exactly_one_response_per_request():
    core = RpcCore()
    core.receive_data(b'{"jsonrpc":"2.0","id":1,"method":"m"}\n')
    core.events_received()
    core.send_error(1, InvalidParams("bad"))
    with pytest.raises(LocalProtocolError):
        core.send_result(1, {})
    # a duplicate id while the first is pending is refused
    core.receive_data(
        b'{"jsonrpc":"2.0","id":2,"method":"m"}\n{"jsonrpc":"2.0","id":2,"method":"m"}\n'
    )
    evs = core.events_received()
    assert isinstance(evs[0], Request) and isinstance(evs[1], ProtocolViolation)


def test_tap_sees_exact_bytes_both_ways():
    seen = []
    core = RpcCore(tap=lambda d, b: seen.append((d, b)))
    line = b'{"jsonrpc":"2.0", "method":"x"}'
    core.receive_data(line + b"\n")
    core.send_notification("session/cancel", {"sessionId": "s"})
    assert seen[0] == ("receive", line)
    assert seen[1][0] == "send" and json.loads(seen[1][1])["method"] == "session/cancel"
    assert core.data_to_send() == seen[1][1] + b"\n"


def test_partial_last_line_is_parsed_at_eof():
    core = RpcCore()
    core.receive_data(b'{"jsonrpc":"2.0","method":"last"}')
    assert core.events_received() == []
    core.receive_eof()
    assert core.events_received() == [Notification("last", None)]


def test_unknown_error_code_keeps_code_and_data():
    err = RequestError.from_wire({"code": -31999, "message": "m", "data": {"k": 1}})
    assert type(err) is RequestError and err.code == -31999 and err.data == {"k": 1}
    assert RequestError.from_wire("garbage").code == -32603


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (b'{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn","x":NaN}}', "not valid JSON"),
        (b'{"result":{"x":Infinity},"id":%d,"jsonrpc":"2.0"}', "not valid JSON"),
        (b'{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"', "not valid JSON"),
        (b'{"jsonrpc":"2.0","id":%d,"result":{"text":"' + b"A" * 200 + b'"}}', "line limit"),
    ],
)
def test_a_broken_response_fails_its_pending_request(frame, why):
    """A response that cannot be decoded but whose id can be read ends its request
    with a RemoteProtocolError saying what was wrong, instead of leaving it pending."""
    from acphost import RemoteProtocolError

    core = RpcCore(max_line_bytes=128)
    rid = core.send_request("session/prompt", {"sessionId": "s", "prompt": []})
    other = core.send_request("session/new", {"cwd": "/", "mcpServers": []})
    core.receive_data(frame % rid + b"\n")
    bad, failed = core.events_received()
    assert isinstance(bad, ProtocolViolation)
    assert isinstance(failed, ErrorResponse) and (failed.id, failed.method) == (rid, "session/prompt")
    assert isinstance(failed.error, RemoteProtocolError)
    assert str(failed.error).startswith("the agent's response to session/prompt ")
    assert why in str(failed.error)
    assert list(core.pending_requests) == [other]


@pytest.mark.parametrize(
    "frame",
    [
        b'{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"x":NaN}}',
        b'{"jsonrpc":"2.0","method":"session/update","params":{"id":%d,"result":NaN}}',
        b'{"jsonrpc":"2.0","id":"%d","result":NaN}',
        b'{"jsonrpc":"2.0","id":%d.0,"result":NaN}',
        b'[{"jsonrpc":"2.0","id":%d,"result":NaN}]',
    ],
)
def test_a_broken_frame_that_is_not_the_response_fails_nothing(frame):
    core = RpcCore()
    rid = core.send_request("session/prompt", {"sessionId": "s", "prompt": []})
    core.receive_data(frame % rid + b"\n")
    assert [type(e) for e in core.events_received()] == [ProtocolViolation]
    assert list(core.pending_requests) == [rid]
