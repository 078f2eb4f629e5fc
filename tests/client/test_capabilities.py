"""What the client advertises in initialize, and what it then accepts."""

from __future__ import annotations

from acphost import AcpClient
from acphost import schema as s
from tests.support.fake_agent import pair_with


async def _advertised(**options) -> dict:
    t, agent = pair_with({})
    async with AcpClient.connect(t, **options):
        pass
    init = next(m for m in agent.received if m.get("method") == "initialize")
    return init["params"]["clientCapabilities"]


async def test_notices_and_compaction_are_advertised_by_default():
    caps = await _advertised()
    assert caps["session"]["notices"] == {} and caps["session"]["compaction"] == {}


async def test_notices_and_compaction_can_be_turned_off():
    caps = await _advertised(notices=False, compaction=False)
    assert "notices" not in caps["session"] and "compaction" not in caps["session"]


async def test_notices_reach_the_turn_in_wire_order(workspace):
    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        agent.update(
            sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}
        )
        agent.update(
            sid,
            {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Slow down",
                "description": "rate limited",
            },
        )
        agent.update(
            sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "b"}}
        )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        seen = [u async for u in session.prompt("go")]
    kinds = [type(u) for u in seen]
    assert kinds == [s.AgentMessageChunk, s.Notice, s.AgentMessageChunk]
    notice = seen[1]
    assert isinstance(notice, s.Notice)
    assert (notice.severity, notice.title, notice.description) == (
        "warning",
        "Slow down",
        "rate limited",
    )
    assert session.state.last_agent_text() == "ab"  # a notice is not history
