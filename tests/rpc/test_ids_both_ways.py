"""Request ids are per direction: the agent's ids never stand for ours.

Both newest adapters (codex-acp 2.6.0, claude-agent-acp 0.101.0) number their
own requests from 0, as acphost does, so the same id is often pending both
ways at once. JSON-RPC 2.0 §5: a response carries the id of the request it
answers, sent by the other side; a request of the peer is matched against the
ids we answer, a response against the ids we asked with, and never the other
way round. Python also holds ``0 == False == 0.0``: only a JSON integer or
string is an id (JSON-RPC 2.0 §4), so ``false`` or ``0.0`` never match ours.
"""

from __future__ import annotations

import json

import pytest

from acphost.rpc import CancelRequested, ProtocolViolation, Request, Response, RpcCore

pytestmark = pytest.mark.unordered_frames


def frames(core: RpcCore) -> list[dict]:
    return [json.loads(line) for line in core.data_to_send().splitlines()]


def line(frame: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **frame}).encode() + b"\n"


def test_the_same_id_pending_both_ways_is_two_requests():
    core = RpcCore()
    assert core.send_request("initialize", {"protocolVersion": 1}) == 0
    frames(core)
    # The agent asks with id 0 before it answers ours (also id 0).
    core.receive_data(line({"id": 0, "method": "_codex/ping", "params": {}}))
    assert core.events_received() == [Request(0, "_codex/ping", {})]
    assert core.pending_requests == {0: "initialize"}  # ours still waits

    # Our answer to its request 0 is not the answer to ours.
    core.send_result(0, {"pong": True})
    assert frames(core) == [{"jsonrpc": "2.0", "id": 0, "result": {"pong": True}}]
    assert core.pending_requests == {0: "initialize"}

    # Its answer to our request 0 is ours, and it no longer has a request 0 open.
    core.receive_data(line({"id": 0, "result": {"protocolVersion": 1}}))
    assert core.events_received() == [Response(0, "initialize", {"protocolVersion": 1})]
    assert core.pending_requests == {}

    # The agent may use 0 again now that it was answered: a new request.
    core.receive_data(line({"id": 0, "method": "session/request_permission", "params": {}}))
    assert core.events_received() == [Request(0, "session/request_permission", {})]


def test_a_response_is_never_matched_against_the_agents_own_requests():
    core = RpcCore()
    core.receive_data(line({"id": 0, "method": "session/request_permission", "params": {}}))
    assert core.events_received() == [Request(0, "session/request_permission", {})]
    # A response with id 0 while only the agent's request 0 is open: no request of
    # ours has that id. Reported; the agent's request still awaits our answer.
    core.receive_data(line({"id": 0, "result": {"outcome": {"outcome": "cancelled"}}}))
    (bad,) = core.events_received()
    assert isinstance(bad, ProtocolViolation) and "unknown request id 0" in bad.message
    core.send_result(0, {"outcome": {"outcome": "cancelled"}})
    assert frames(core) == [
        {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}
    ]


def test_the_agents_cancel_request_names_its_own_request_not_ours():
    core = RpcCore()
    core.send_request("session/prompt", {"sessionId": "s", "prompt": []})
    frames(core)
    cancel = {"method": "$/cancel_request", "params": {"requestId": 0}}
    core.receive_data(line(cancel))  # no request 0 of the agent is open: nothing to cancel
    assert core.events_received() == []
    core.receive_data(line({"id": 0, "method": "fs/read_text_file", "params": {}}))
    core.receive_data(line(cancel))
    assert core.events_received() == [Request(0, "fs/read_text_file", {}), CancelRequested(0)]
    assert core.pending_requests == {0: "session/prompt"}


@pytest.mark.parametrize("rid", ["0", False, 0.0])
def test_only_the_same_json_id_answers_our_request_0(rid):
    core = RpcCore()
    core.send_request("initialize", {"protocolVersion": 1})
    frames(core)
    core.receive_data(line({"id": rid, "result": {}}))
    (bad,) = core.events_received()
    assert isinstance(bad, ProtocolViolation)
    assert core.pending_requests == {0: "initialize"}
