"""Floods as agents send them: many updates in one read, decoded as a block.

The client reads a chunk whose lines are all updates with one call of the
strict decoder and routes them in one call of the peer. These tests check
that nothing about that is visible: order, backpressure inside the block,
updates for sessions not open yet, and updates the strict decoder refuses.
"""

from __future__ import annotations

import json

from acphost import AcpClient
from acphost import schema as s
from tests.support.fake_agent import pair_with


def line(sid: str, text: str, **extra: object) -> bytes:
    update = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
        **extra,
    }
    frame = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": sid, "update": update},
    }
    return json.dumps(frame).encode() + b"\n"


async def test_a_flood_in_one_read_arrives_whole_in_order_and_paces_the_reader(workspace):
    n = 3000  # three times the turn's queue: the reader must pause inside the block

    async def new(agent, rid, params):
        # before the answer: for this session and for one nobody opens, in one read
        agent.send_raw(line("s1", "early ") + line("ghost", "lost") + line("s1", "too"))
        return {"sessionId": "s1"}

    async def prompt(agent, rid, params):
        agent.send_raw(b"".join(line("s1", str(i)) for i in range(n)))
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/new": new, "session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        assert session.state.messages[0].text == "early too"
        assert [sid for sid, _, _ in client._peer._early] == ["ghost"]
        turn = session.prompt("go")
        texts: list[str] = []
        most_queued = 0
        async for update in turn:
            assert type(update) is s.AgentMessageChunk
            texts.append(update.content.text)
            most_queued = max(most_queued, len(turn._queue))
        result = await turn
    assert texts == [str(i) for i in range(n)]
    assert 0 < most_queued <= 1024 < n  # the block was handed over a queue's worth at a time
    assert result.stop_reason == "end_turn"
    kept = [m for m in session.state.messages if m.role == "agent"]
    assert kept[-1].text == "".join(str(i) for i in range(n))


async def test_unknown_members_in_a_flood_are_kept_and_the_rest_keeps_its_order(workspace):
    async def prompt(agent, rid, params):
        agent.send_raw(line("s1", "a") + line("s1", "b", later={"x": 1}) + line("s1", "c"))
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        updates = [u async for u in turn]
        await turn
    assert [u.content.text for u in updates] == ["a", "b", "c"]
    assert [u.extra for u in updates] == [None, {"later": {"x": 1}}, None]
