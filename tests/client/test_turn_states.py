"""The turn lifecycle as one transition table: running, cancelling, done."""

from __future__ import annotations

import asyncio

import pytest

from acphost import AcpClient, UsageError
from acphost.client import TurnState
from tests.support.fake_agent import NO_ANSWER, pair_with


async def test_a_cancelled_turn_moves_running_cancelling_done_and_cancels_once(workspace):
    answer_now = asyncio.Event()

    async def prompt(agent, rid, params):
        await answer_now.wait()
        return {"stopReason": "cancelled"}

    t, agent = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        assert turn.state is TurnState.RUNNING and turn.host_stop is None
        first = asyncio.ensure_future(session.cancel(reason="interrupted"))
        second = asyncio.ensure_future(session.cancel(reason="later"))
        await agent.wait_for("session/cancel")
        assert turn.state is TurnState.CANCELLING
        answer_now.set()
        results = await asyncio.gather(first, second)
        assert turn.state is TurnState.DONE
        assert [r.stop_reason for r in results] == ["cancelled", "cancelled"]
        assert turn.host_stop == "interrupted"  # the first reason given is kept
        assert agent.methods().count("session/cancel") == 1
        assert await session.cancel(reason="too late") is None  # no turn: a no-op
        assert turn.host_stop == "interrupted"


async def test_a_done_turn_refuses_every_move(workspace):
    async def prompt(agent, rid, params):
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await turn
        assert turn.state is TurnState.DONE
        with pytest.raises(UsageError, match="the turn cannot go from done to cancelling"):
            turn._cancel("late")
        with pytest.raises(UsageError, match="from done to running"):
            turn._life.move(TurnState.RUNNING)


async def test_an_error_answering_a_cancel_ends_the_turn_cancelled_only_when_cancelling(
    workspace,
):
    """Agents that answer a cancelled prompt with an error: cancelled, by the turn's state."""
    calls = 0

    async def prompt(agent, rid, params):
        nonlocal calls
        calls += 1
        if calls == 1:
            await agent.wait_for("session/cancel")
        raise Exception({"code": -32603, "message": "aborted"})

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        result = await session.cancel(reason="stop")
        assert result is not None and result.stop_reason == "cancelled"
        assert turn.state is TurnState.DONE
        # The next turn is not cancelling: its error is its error.
        with pytest.raises(Exception, match="aborted"):
            await session.prompt("again")


async def test_an_abandoned_turn_is_done(workspace):
    async def prompt(agent, rid, params):
        return NO_ANSWER

    t, _ = pair_with({"session/prompt": prompt})
    client = await AcpClient.connect(t)
    session = await client.new_session(workspace)
    turn = session.prompt("go")
    await client.close()
    assert turn.state is TurnState.DONE
    with pytest.raises(Exception, match="closed during the turn"):
        await turn
