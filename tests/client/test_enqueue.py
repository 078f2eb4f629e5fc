"""session.enqueue: prompts that wait their turn in one session, over real pipes to the demo agent."""

from __future__ import annotations

import asyncio

import pytest

from acphost import AcpClient, AgentExited, UsageError
from acphost import schema as s
from acphost.client import TurnEnded, TurnStarted, TurnState

FAST = {"ACPHOST_DEMO_STEP": "0"}


def _text(updates):
    return "".join(u.text for u in updates if isinstance(u, s.AgentMessageChunk))


async def test_queued_prompts_run_in_order_each_turn_streaming_its_own_updates(
    demo_argv, workspace
):
    async with AcpClient.start(demo_argv, env=FAST) as client:
        session = await client.new_session(workspace)
        events = []
        client.events.subscribe(
            lambda e: (
                events.append(type(e).__name__) if isinstance(e, (TurnStarted, TurnEnded)) else None
            )
        )
        first = session.enqueue("wait 0.3")
        second = session.enqueue("echo two")
        third = session.enqueue("echo three")
        assert first.state is TurnState.RUNNING
        assert second.state is TurnState.QUEUED and third.state is TurnState.QUEUED
        assert session.queued == (second, third)
        # prompt() still refuses while a turn runs (it never jumps the queue).
        with pytest.raises(UsageError, match="enqueue"):
            session.prompt("echo jump")

        async def collect(turn):
            return [u async for u in turn], await turn

        (u1, r1), (u2, r2), (u3, r3) = await asyncio.gather(
            collect(first), collect(second), collect(third)
        )
    assert [r.stop_reason for r in (r1, r2, r3)] == ["end_turn"] * 3
    assert "Waited 0.3 s." in _text(u1)
    assert "two" in _text(u2) and "three" not in _text(u2)
    assert "three" in _text(u3) and "two" not in _text(u3)
    # One turn at a time: each started after the one before it ended.
    assert events == ["TurnStarted", "TurnEnded"] * 3


async def test_cancelling_a_queued_turn_removes_it_and_the_queue_goes_on(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=FAST) as client:
        session = await client.new_session(workspace)
        first = session.enqueue("wait 0.3")
        dropped = session.enqueue("echo dropped")
        kept = session.enqueue("echo kept")
        result = await dropped.cancel(reason="not wanted")
        assert result is not None and result.stop_reason == "cancelled"
        assert dropped.state is TurnState.DONE and dropped.host_stop == "not wanted"
        assert session.queued == (kept,)
        assert (await first).stop_reason == "end_turn"
        kept_result = await kept
        prompts = [m for m in session.state.messages if m.role == "user"]
    assert "kept" in kept_result.text
    # The dropped prompt never reached the agent.
    assert all("dropped" not in str(m) for m in prompts)


async def test_cancelling_the_running_turn_of_a_queue_starts_the_next(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=FAST) as client:
        session = await client.new_session(workspace)
        first = session.enqueue("wait 30")
        second = session.enqueue("echo after")
        cancelled = await first.cancel(reason="interrupted")
        assert cancelled is not None and cancelled.stop_reason == "cancelled"
        assert (await second).stop_reason == "end_turn"


async def test_closing_the_session_ends_the_queued_turns_unsent(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=FAST) as client:
        session = await client.new_session(workspace)
        session.enqueue("wait 30")
        queued = session.enqueue("echo never")
        await session.close()
        with pytest.raises(UsageError, match="closed before this queued prompt"):
            await queued
        with pytest.raises(UsageError):
            session.enqueue("echo late")


async def test_a_cancel_right_after_the_prompt_reaches_the_agent_after_the_prompt(
    demo_argv, workspace
):
    """session/cancel was written before session/prompt: the agent ignored it, ran on."""
    async with AcpClient.start(demo_argv, env=FAST) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("wait 30")
        result = await session.cancel(timeout=5.0)
    assert result is not None and result.stop_reason == "cancelled"
    assert turn.state is TurnState.DONE


async def test_the_agent_dying_ends_the_queued_turns_unsent_with_agent_exited(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=FAST) as client:
        session = await client.new_session(workspace)
        crashing = session.enqueue("crash")
        queued = session.enqueue("echo never")
        with pytest.raises(AgentExited):
            await crashing
        with pytest.raises(AgentExited):
            await queued
        assert queued.state is TurnState.DONE
