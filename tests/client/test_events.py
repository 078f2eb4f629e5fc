"""The client's typed event stream: what is emitted, in which order, and in blocks.

Over the demo agent as a real subprocess (real pipes) and over the in-memory
pair, where the test chooses exactly which bytes arrive in one read.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from acphost import AcpClient, HostConfig
from acphost import schema as s
from acphost.client import (
    Budget,
    EventStream,
    PermissionAsked,
    PermissionDecided,
    SessionClosed,
    SessionOpened,
    TerminalExited,
    TerminalStarted,
    TurnEnded,
    TurnResult,
    TurnStarted,
    UpdatesReceived,
)
from acphost.host import AllowAll, Interactive, PermissionOutcome
from tests.support.fake_agent import answer, pair_with
from tests.support.waiting import eventually

FAST = {"ACPHOST_DEMO_STEP": "0"}


def start(demo_argv, **options):
    return AcpClient.start(demo_argv, env=FAST, **options)


def kinds(events):
    return [type(e).__name__ for e in events]


def turn_events(events, session):
    """The events of the session's last turn: from its TurnStarted to its TurnEnded."""
    begin = max(i for i, e in enumerate(events) if type(e) is TurnStarted and e.session is session)
    end = next(i for i, e in enumerate(events) if i > begin and type(e) is TurnEnded)
    return events[begin : end + 1]


# -- over the demo agent (a real subprocess) ----------------------------------------------


async def test_a_turn_is_told_in_order_and_a_flood_in_blocks(demo_argv, workspace):
    events: list = []
    async with start(demo_argv) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        turn = session.prompt("flood 3000")
        streamed = [u async for u in turn]
        result = await turn
    assert type(events[0]) is SessionOpened
    assert events[0].session is session and events[0].how == "new"
    told = turn_events(events, session)
    assert type(told[0]) is TurnStarted and told[0].turn is turn
    assert [b.text for b in told[0].prompt] == ["flood 3000"]
    assert type(told[-1]) is TurnEnded and told[-1].turn is turn
    assert told[-1].result is result and told[-1].host_stop is None
    blocks = told[1:-1]
    assert blocks and all(type(e) is UpdatesReceived and e.session is session for e in blocks)
    # Every update of the turn, in wire order, once; a flood costs fewer events than updates.
    updates = [u for e in blocks for u in e.updates]
    assert updates == streamed
    chunks = [u for u in updates if isinstance(u, s.AgentMessageChunk)]
    assert len(chunks) == 3000
    assert len(blocks) < len(updates)
    assert type(events[-1]) is SessionClosed and events[-1].session is session


async def test_permission_questions_and_decisions_are_typed(demo_argv, workspace):
    events: list = []
    host = HostConfig(permissions=AllowAll())
    async with start(demo_argv, host=host) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        result = await session.prompt("permission")
    assert result.stop_reason == "end_turn"
    asked = [e for e in events if type(e) is PermissionAsked]
    decided = [e for e in events if type(e) is PermissionDecided]
    assert len(asked) == 1 and len(decided) == 1
    assert asked[0].session_id == session.id
    assert decided[0].request is asked[0].request
    outcome = decided[0].outcome
    assert isinstance(outcome, PermissionOutcome)
    assert outcome.decision == "allow" and outcome.option_kind == "allow_once"
    assert decided[0].asked is True
    assert events.index(asked[0]) < events.index(decided[0])
    # Both inside the turn that asked.
    told = turn_events(events, session)
    assert asked[0] in told and decided[0] in told


async def test_terminals_are_told_when_they_start_and_exit(demo_argv, workspace):
    events: list = []
    host = HostConfig(permissions=AllowAll())
    async with start(demo_argv, host=host) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        result = await session.prompt("terminal echo hello")
        assert result.stop_reason == "end_turn"
        await eventually(lambda: any(type(e) is TerminalExited for e in events))
    started = [e for e in events if type(e) is TerminalStarted]
    exited = [e for e in events if type(e) is TerminalExited]
    assert len(started) == 1 and len(exited) == 1
    assert started[0].session_id == session.id and started[0].command == "echo"
    assert list(started[0].args) == ["hello"] and started[0].cwd == str(workspace)
    assert exited[0].terminal_id == started[0].terminal_id
    assert exited[0].exit_status == {"exitCode": 0}
    assert events.index(started[0]) < events.index(exited[0])
    # The host mediated terminal/create without being asked: told as a decision too.
    mediated = [e for e in events if type(e) is PermissionDecided and not e.asked]
    assert [e.request.operation for e in mediated] == ["terminal_create"]
    assert mediated[0].outcome.decision == "allow" and not mediated[0].outcome.cancelled
    assert events.index(mediated[0]) < events.index(started[0])


async def test_a_terminal_still_running_when_the_client_closes_is_told_exited(demo_argv, workspace):
    events: list = []
    host = HostConfig(permissions=AllowAll())
    async with start(demo_argv, host=host) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        turn = session.prompt("terminal sleep 60")
        await eventually(lambda: any(type(e) is TerminalStarted for e in events))
        await session.cancel(reason="test over", timeout=10)
        await turn.result()
    exited = [e for e in events if type(e) is TerminalExited]
    assert len(exited) == 1
    assert exited[0].exit_status.get("signal") in ("SIGTERM", "SIGKILL")


async def test_cancel_reason_reaches_turn_ended(demo_argv, workspace):
    asked = asyncio.Event()

    async def never_answers(request):
        asked.set()
        await asyncio.Event().wait()

    events: list = []
    host = HostConfig(permissions=Interactive(never_answers))
    async with start(demo_argv, host=host) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        turn = session.prompt("permission")
        await asyncio.wait_for(asked.wait(), 10)
        result = await session.cancel(reason="interrupted")
        assert result is not None and result.stop_reason == "cancelled"
        # The next turn, not cancelled, tells no host stop.
        await session.prompt("echo again")
    ends = [e for e in events if type(e) is TurnEnded]
    assert [e.host_stop for e in ends] == ["interrupted", None]
    assert ends[0].turn is turn and ends[0].result is result
    # The pending question was answered cancelled, and told so, inside the turn.
    (decided,) = [e for e in events if type(e) is PermissionDecided]
    assert decided.outcome.cancelled and decided.outcome.decision == "cancelled"
    assert events.index(decided) < events.index(ends[0])


async def test_a_load_tells_its_replay_before_it_is_opened(demo_argv, workspace, tmp_path):
    env = {**FAST, "ACPHOST_DEMO_STATE_DIR": str(tmp_path / "state")}
    async with AcpClient.start(demo_argv, env=env) as client:
        first = await client.new_session(workspace)
        await first.prompt("echo remember me")
        sid = first.id
    events: list = []
    async with AcpClient.start(demo_argv, env=env) as client:
        client.events.subscribe(events.append)
        loaded = await client.load_session(sid, workspace)
    opened = [i for i, e in enumerate(events) if type(e) is SessionOpened]
    assert len(opened) == 1 and events[opened[0]].how == "load"
    assert events[opened[0]].session is loaded
    replay = [e for e in events[: opened[0]] if type(e) is UpdatesReceived]
    assert any(isinstance(u, s.UserMessageChunk) for e in replay for u in e.updates)
    assert type(events[-1]) is SessionClosed


# -- over the in-memory pair ----------------------------------------------------------


def _chunk(sid: str, text: str) -> bytes:
    frame = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": sid,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            },
        },
    }
    return json.dumps(frame).encode() + b"\n"


def _two_sessions():
    opened = iter(["s1", "s2"])

    async def new(agent, rid, params):
        return {"sessionId": next(opened)}

    return new


async def test_one_read_of_many_updates_is_one_event_per_run_of_a_session(workspace):
    """Blocks stay blocks: s1 x3, s2 x2, s1 x1 in one read are three events, in order."""

    async def prompt(agent, rid, params):
        data = b"".join(
            [_chunk("s1", f"a{i}") for i in range(3)]
            + [_chunk("s2", f"b{i}") for i in range(2)]
            + [_chunk("s1", "a3")]
        )
        agent.send_raw(data)
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/new": _two_sessions(), "session/prompt": prompt})
    events: list = []
    async with AcpClient.connect(t) as client:
        one = await client.new_session(workspace)
        two = await client.new_session(workspace)
        client.events.subscribe(events.append)
        result = await one.prompt("go")
    told = [e for e in events if type(e) is UpdatesReceived]
    assert [(e.session.id, [u.text for u in e.updates]) for e in told] == [
        ("s1", ["a0", "a1", "a2"]),
        ("s2", ["b0", "b1"]),
        ("s1", ["a3"]),
    ]
    assert told[0].session is one and told[1].session is two
    assert kinds(events)[0] == "TurnStarted" and kinds(events)[-3:] == [
        "TurnEnded",
        "SessionClosed",
        "SessionClosed",
    ]
    assert events[-3].result is result and result.text == "a0a1a2a3"


async def test_a_single_update_is_one_event(workspace):
    async def prompt(agent, rid, params):
        agent.update(
            params["sessionId"],
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "only"}},
        )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    events: list = []
    async with AcpClient.connect(t) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        await session.prompt("go")
    assert kinds(events) == [
        "SessionOpened",
        "TurnStarted",
        "UpdatesReceived",
        "TurnEnded",
        "SessionClosed",
    ]
    assert [u.text for u in events[2].updates] == ["only"]


async def test_a_flood_with_a_full_queue_keeps_order_and_every_update(workspace):
    """Backpressure mid-block: the run so far is told before the reader waits."""
    n = 3000

    async def prompt(agent, rid, params):
        agent.send_raw(b"".join(_chunk("s1", str(i)) for i in range(n)))
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    events: list = []
    async with AcpClient.connect(t) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        streamed = []
        async for update in turn:
            streamed.append(update)
            if len(streamed) == 1:
                await asyncio.sleep(0)  # the reader runs ahead and fills the queue
        await turn
    told = turn_events(events, session)
    updates = [u for e in told[1:-1] for u in e.updates]
    assert [u.text for u in updates] == [str(i) for i in range(n)]
    assert updates == streamed
    assert 1 < len(told) - 2 < n  # split where the queue filled, still blocks


async def test_a_budget_stop_is_told_as_the_host_stop(workspace):
    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for i in range(1, 1000):
            agent.update(
                sid,
                {
                    "sessionUpdate": "usage_update",
                    "used": 10 * i,
                    "size": 1000,
                    "cost": {"amount": 0.01 * i, "currency": "USD"},
                },
            )
            await asyncio.sleep(0)
            if any(m.get("method") == "session/cancel" for m in agent.received):
                return {"stopReason": "cancelled"}
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    events: list = []
    async with AcpClient.connect(t) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        result = await session.prompt("go", budget=Budget(max_cost=0.025))
    assert result.budget_exceeded is not None
    (ended,) = [e for e in events if type(e) is TurnEnded]
    assert ended.host_stop == f"budget: {result.budget_exceeded}"
    assert ended.host_stop.startswith("budget: cost budget exceeded")


async def test_a_failed_turn_is_told_with_its_error(workspace):
    async def prompt(agent, rid, params):
        raise Exception({"code": -32603, "message": "boom"})

    t, _ = pair_with({"session/prompt": prompt})
    events: list = []
    async with AcpClient.connect(t) as client:
        client.events.subscribe(events.append)
        session = await client.new_session(workspace)
        with pytest.raises(acphost_request_error()):
            await session.prompt("go")
    (ended,) = [e for e in events if type(e) is TurnEnded]
    assert isinstance(ended.result, acphost_request_error())
    assert not isinstance(ended.result, TurnResult)


def acphost_request_error():
    from acphost import RequestError

    return RequestError


async def test_an_observer_that_raises_does_not_stop_the_others(workspace, caplog):
    t, _ = pair_with({"session/prompt": answer({"stopReason": "end_turn"})})
    seen: list = []

    def broken(event):
        raise RuntimeError("observer bug")

    async with AcpClient.connect(t) as client:
        client.events.subscribe(broken)
        client.events.subscribe(seen.append)
        with caplog.at_level(logging.ERROR, logger="acphost.events"):
            session = await client.new_session(workspace)
            result = await session.prompt("go")
    assert result.stop_reason == "end_turn"
    assert kinds(seen) == ["SessionOpened", "TurnStarted", "TurnEnded", "SessionClosed"]
    assert sum("an event observer failed" in r.message for r in caplog.records) == 4


async def test_unsubscribe_stops_the_events_and_only_that_subscription(workspace):
    t, _ = pair_with({"session/prompt": answer({"stopReason": "end_turn"})})
    first: list = []
    twice: list = []
    async with AcpClient.connect(t) as client:
        stop_first = client.events.subscribe(first.append)
        client.events.subscribe(twice.append)
        stop_second = client.events.subscribe(twice.append)
        session = await client.new_session(workspace)
        stop_first()
        stop_first()  # harmless
        stop_second()
        assert client.events.observed  # twice.append is subscribed once still
        await session.prompt("go")
    assert kinds(first) == ["SessionOpened"]
    assert kinds(twice) == [
        "SessionOpened",
        "SessionOpened",
        "TurnStarted",
        "TurnEnded",
        "SessionClosed",
    ]


def test_a_stream_without_observers_is_not_observed():
    stream = EventStream()
    assert stream.observed is False
    remove = stream.subscribe(lambda e: None)
    assert stream.observed is True
    remove()
    assert stream.observed is False


async def test_add_listener_rides_the_stream_and_can_be_removed(workspace):
    async def prompt(agent, rid, params):
        agent.send_raw(b"".join(_chunk("s1", str(i)) for i in range(5)))
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    heard: list = []
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        assert not client.events.observed
        remove = session.add_listener(lambda sess, u: heard.append((sess, u.text)))
        assert client.events.observed
        await session.prompt("go")
        remove()
        assert not client.events.observed
        await session.prompt("go")
    assert heard == [(session, str(i)) for i in range(5)]
