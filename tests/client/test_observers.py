"""Client-level observers of the event stream: the session's budget keeper."""

from __future__ import annotations

import asyncio

from acphost import AcpClient
from acphost import schema as s
from acphost.client import Budget
from tests.support.fake_agent import pair_with


def _usage_agent(observed: list):
    """Reports a cumulative cost twice per turn; notes whether the stream was observed."""
    spent = 0.0

    async def prompt(agent, rid, params):
        nonlocal spent
        sid = params["sessionId"]
        for _ in range(2):
            spent += 0.01
            agent.update(
                sid,
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}},
            )
            agent.update(
                sid,
                {
                    "sessionUpdate": "usage_update",
                    "used": 10,
                    "size": 100,
                    "cost": {"amount": round(spent, 6), "currency": "USD"},
                },
            )
            await asyncio.sleep(0)
        observed.append(agent.client_events.observed)
        return {"stopReason": "end_turn"}

    return prompt


async def test_a_session_without_budgets_adds_no_observer(workspace):
    seen: list = []
    t, agent = pair_with({"session/prompt": _usage_agent(seen)})
    async with AcpClient.connect(t) as client:
        agent.client_events = client.events
        session = await client.new_session(workspace)
        result = await session.prompt("go")
        # Its cost is still known: a new session started at zero.
        assert session.turn_cost == s.Cost(amount=0.02, currency="USD")
    assert result.stop_reason == "end_turn" and seen == [False]


async def test_the_budget_observer_follows_while_it_has_a_meter_and_stops_at_close(workspace):
    seen: list = []
    t, agent = pair_with({"session/prompt": _usage_agent(seen)})
    async with AcpClient.connect(t) as client:
        agent.client_events = client.events
        session = await client.new_session(workspace)
        session.budget = Budget(max_cost=1.0)
        first = await session.prompt("go")
        second = await session.prompt("go", budget=Budget(max_cost=0.5))
        assert session.turn_cost == s.Cost(amount=0.02, currency="USD")
        assert client.events.observed  # the session's budget counts between turns too
        await session.close()
        assert not client.events.observed
    assert seen == [True, True]
    assert first.usage_reported and second.usage_reported
    assert first.budget_exceeded is None and second.budget_exceeded is None


async def test_a_resumed_session_is_followed_until_its_start_cost_is_known(workspace):
    seen: list = []

    async def resume(agent, rid, params):
        return {}

    t, agent = pair_with({"session/prompt": _usage_agent(seen), "session/resume": resume})
    agent_caps = {
        "protocolVersion": 1,
        "agentCapabilities": {"sessionCapabilities": {"resume": {}}},
        "authMethods": [],
    }

    async def initialize(agent, rid, params):
        return agent_caps

    agent.handlers["initialize"] = initialize
    async with AcpClient.connect(t) as client:
        agent.client_events = client.events
        session = await client.resume_session("old", workspace)
        await session.prompt("go")
        # The first report came after work: counted from it, a lower bound.
        assert session.cost_start is not None and session.cost_start.source == "unknown"
        assert not client.events.observed  # learnt: nothing more to watch
    assert seen == [False]
