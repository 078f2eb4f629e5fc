"""The client's and the session's lifecycles: explicit states, no reuse after close."""

from __future__ import annotations

import asyncio

import pytest

import acphost
from acphost import AcpClient
from acphost.client import USE_DEFAULT, LifecycleState
from acphost.client._peer import EARLY_UPDATES_MAX_BYTES
from tests.support.fake_agent import answer, pair_with
from tests.support.waiting import settled


async def test_a_client_can_be_awaited_and_closed_without_async_with(workspace):
    t, agent = pair_with({})
    client = await AcpClient.connect(t)
    assert client.lifecycle is LifecycleState.OPEN and not client.closed
    session = await client.new_session(workspace)
    assert session.lifecycle is LifecycleState.OPEN
    await client.close()
    assert client.lifecycle is LifecycleState.CLOSED and client.closed
    assert session.lifecycle is LifecycleState.CLOSED
    await client.wait_closed()  # returns at once once closed
    await client.close()  # idempotent
    assert "initialize" in agent.methods()


async def test_using_a_closed_client_or_session_says_what_to_do(workspace):
    t, _ = pair_with({})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
    with pytest.raises(acphost.UsageError, match="start a new client"):
        await client.new_session(workspace)
    with pytest.raises(acphost.UsageError, match="open a new session"):
        session.prompt("hi")


async def test_a_client_context_opens_once():
    t, _ = pair_with({})
    context = AcpClient.connect(t)
    client = await context
    try:
        with pytest.raises(acphost.UsageError, match="already opened"):
            await context
        with pytest.raises(acphost.UsageError, match="already opened"):
            async with context:
                pass
    finally:
        await client.close()


async def test_wait_closed_returns_when_the_agent_goes_away():
    t, agent = pair_with({})
    client = await AcpClient.connect(t)
    waiter = asyncio.ensure_future(client.wait_closed())
    await settled()  # all the client could do with the agent still there has run
    assert not waiter.done()
    await agent.t.close()  # the agent's end of the pair goes away
    await asyncio.wait_for(waiter, 5)
    assert client.closed and client.lifecycle is LifecycleState.CLOSED
    await client.close()


async def test_use_default_and_none_mean_different_timeouts():
    t, _ = pair_with({"initialize": answer({"protocolVersion": 1, "agentCapabilities": {}})})
    async with AcpClient.connect(t, init_timeout=None, session_timeout=USE_DEFAULT) as client:
        assert client._settings.init_timeout is None  # unbounded, as asked
        assert client._settings.session_timeout == 60.0  # the default


async def test_early_updates_are_bounded_by_bytes_not_count(workspace):
    """An agent flooding updates for sessions that never open cannot grow the host's memory."""
    t, agent = pair_with({})
    async with AcpClient.connect(t) as client:
        peer = client._peer
        big = "x" * 100_000
        for i in range(200):  # 20 MB of updates for a session nobody opened
            agent.update(
                f"ghost-{i % 3}",
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": big}},
            )
        few = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
        agent.update("early", few)
        session = await client.new_session(workspace)  # keeps the reader busy until all is read
        assert peer._early_bytes <= EARLY_UPDATES_MAX_BYTES
        assert peer._early_dropped > 0
        assert len(peer._early) < 200
        assert session.id != "early"


async def test_updates_sent_before_session_new_answers_reach_the_session(workspace):
    async def new(agent, rid, params):
        agent.update("s1", {"sessionUpdate": "session_info_update", "title": "early title"})
        agent.update("other", {"sessionUpdate": "session_info_update", "title": "not ours"})
        return {"sessionId": "s1"}

    t, _ = pair_with({"session/new": new})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        assert session.state.title == "early title"
        assert [sid for sid, _, _ in client._peer._early] == ["other"]


async def test_a_program_that_printed_a_banner_and_idles_is_named_for_what_it_is():
    """A banner and no JSON-RPC: the timeout says it does not look like an ACP agent."""
    import sys

    script = "import sys, time; print('Welcome to my tool v1.0', flush=True); time.sleep(60)"
    with pytest.raises(acphost.AcpTimeout, match="does not look like an ACP agent") as caught:
        async with AcpClient.start([sys.executable, "-c", script], init_timeout=1.0):
            pass
    assert "Welcome to my tool" in str(caught.value)
    assert "raise the timeout" not in str(caught.value)
