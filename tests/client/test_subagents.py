"""Subagents as a session tree: children announced, routed, awaited and cancelled.

The demo agent over real pipes runs a child in the foreground and one that
goes on after the parent's prompt answered (as codex-acp's do); a scripted
agent on the in-memory pair sends what a hostile agent could: a child named
with another session's id, patches that clear, floods of children, a child
claiming a cwd outside the workspace.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from acphost import AcpClient, AcpTimeout, AgentExited, CapabilityNotSupported, RequestError
from acphost.client import Subagent
from acphost.client._subagent_state import decode_tree_update
from acphost.client._subagents import MAX_TREE
from acphost.host import AllowAll, HostConfig, Interactive
from tests.support.fake_agent import NO_ANSWER, FakeAgent, pair_with
from tests.support.waiting import eventually, settled

FAST = {"ACPHOST_DEMO_STEP": "0"}


def _env() -> dict[str, str]:
    return dict(FAST)


async def test_a_foreground_subagent_is_a_child_with_its_own_state(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=_env()) as client:
        session = await client.new_session(workspace)
        seen: list[tuple[str, str]] = []
        session.add_listener(
            lambda owner, u: seen.append((type(owner).__name__, u.session_update)),
            subagents=True,
        )
        result = await session.prompt("subagent count the files")
        assert result.stop_reason == "end_turn"
        assert result.subagents_running == ()  # it ended before the answer
        [child] = session.subagents
        assert isinstance(child, Subagent)
        assert (child.label, child.description) == ("helper 1", "answers one question")
        assert (child.activity, child.stop_reason, child.running) == ("idle", "end_turn", False)
        assert child.parent is session and child.root is session and child.depth == 1
        assert child.state.last_agent_text() == "Working on: count the files"
        [call] = child.state.tool_calls.values()
        assert (call.title, call.status) == ("Look it up", "completed")
        assert child.state.usage is not None and child.state.usage.used == 120
        # The parent keeps its instruction to the child and the child's reply.
        messages = session.state.session_messages
        assert [
            (m.sender_session_id, m.recipient_session_id, m.text) for m in messages.values()
        ] == [
            (session.id, child.id, "count the files"),
            (child.id, session.id, "Done: count the files"),
        ]
        # The child's own transcript has the incoming view of the instruction.
        [incoming] = child.state.session_messages.values()
        assert (incoming.sender_message_id, incoming.text) == ("to-sub-1", "count the files")
        # None of the child's updates reached the parent's state.
        assert not session.state.tool_calls
        assert "Working on" not in "".join(m.text for m in session.state.messages)
        # One stream, in wire order: the parent announces, the child works.
        assert seen.index(("Session", "subagent_update")) < seen.index(
            ("Subagent", "agent_message_chunk")
        )
        assert ("Subagent", "tool_call") in seen


async def test_a_background_child_streams_after_the_turn_and_can_be_awaited(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=_env()) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("subagent background wait 0.2 look around")
        [child] = session.subagents
        # The prompt answered first: the child was still running then.
        assert result.subagents_running == (child.id,)
        await session.wait_subagents(timeout=30)
        assert (child.activity, child.stop_reason) == ("idle", "end_turn")
        assert child.state.last_agent_text() == "Working on: look around"
        assert session.running_subagents() == []


async def test_cancel_reaches_a_child_that_goes_on_after_the_turn(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=_env()) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("subagent background wait 60 long job")
        [child] = session.subagents
        assert result.subagents_running == (child.id,) and child.can_cancel
        with pytest.raises(AcpTimeout, match=r"subagents still running after .*helper 1"):
            await session.wait_subagents(timeout=0.05)
        assert await session.cancel() is None  # no turn: only the children are cancelled
        await session.wait_subagents(timeout=30)
        assert (child.activity, child.stop_reason) == ("idle", "cancelled")


async def test_without_the_capability_the_agent_shows_a_tool_call(demo_argv, workspace):
    async with AcpClient.start(demo_argv, env=_env(), subagents=False) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("subagent count")
        assert session.subagents == () and result.subagents_running == ()
        [call] = session.state.tool_calls.values()
        assert (call.name, call.kind, call.status) == ("Agent", "think", "completed")


# -- a scripted agent: what a hostile or odd agent may send -----------------------------------


def _subagent(child: str, **fields):
    return {"sessionUpdate": "subagent_update", "sessionId": child, **fields}


def decode(update: dict):
    return decode_tree_update(update["sessionUpdate"], update)


def _chunk(text: str):
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


async def _prompting(script):
    """A prompt handler that runs ``script(agent, session_id)`` then ends the turn."""

    async def prompt(agent: FakeAgent, rid, params):
        await script(agent, params["sessionId"])
        return {"stopReason": "end_turn"}

    return prompt


async def test_the_capability_is_advertised_and_can_be_left_out(workspace):
    for flag, expected in ((True, {}), (False, None)):
        t, agent = pair_with({})
        async with AcpClient.connect(t, subagents=flag):
            init = await agent.wait_for("initialize")
        assert init["params"]["clientCapabilities"].get("subagents") == expected


async def test_patches_keep_omitted_fields_and_clear_null_ones(workspace):
    async def script(agent, sid):
        agent.update(
            sid,
            _subagent(
                "c1",
                title="T",
                description="D",
                capabilities={"cancel": {}},
                state={"state": "running"},
                cwd="/elsewhere",
            ),
        )
        agent.update(sid, _subagent("c1", state={"state": "requires_action"}))
        agent.update(sid, _subagent("c1", title=None, capabilities=None))

    t, _ = pair_with({"session/prompt": await _prompting(script)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go")
        [child] = session.subagents
        info = child.info
        assert (info.title, info.description) == (None, "D")  # null cleared, omitted kept
        assert child.label == "D"
        assert (child.activity, child.can_cancel) == ("requires_action", False)
        assert info.cwd == "/elsewhere"  # kept as said, for display only
        assert result.subagents_running == ("c1",)  # requires_action still holds the child
        with pytest.raises(CapabilityNotSupported, match="does not allow cancelling"):
            await child.cancel()


async def test_a_child_never_takes_over_another_sessions_updates(workspace):
    """A subagent_update naming the parent's (or another session's) id is ignored."""
    sessions = iter(["s1", "s2"])

    async def new(agent, rid, params):
        return {"sessionId": next(sessions)}

    async def script(agent, sid):
        agent.update(sid, _subagent(sid, title="me"))  # its own id
        agent.update(sid, _subagent("s2", title="the other session"))
        agent.update("s2", _chunk("for s2"))
        agent.update(sid, _chunk("for s1"))

    t, _ = pair_with({"session/new": new, "session/prompt": await _prompting(script)})
    async with AcpClient.connect(t) as client:
        first = await client.new_session(workspace)
        second = await client.new_session(workspace)
        await first.prompt("go")
        # Neither kept, shown, routed nor waited for.
        assert first.subagents == () and first.running_subagents() == []
        assert first.state.subagents == {} and first.state.children == []
        assert client.sessions["s2"] is second
        assert [m.text for m in first.state.messages if m.role == "agent"] == ["for s1"]
        assert [m.text for m in second.state.messages] == ["for s2"]


async def test_children_are_bounded_and_nesting_is_followed(workspace):
    """The whole tree is bounded, children of children included."""

    async def script(agent, sid):
        agent.update(sid, _subagent("c0", state={"state": "idle"}))
        agent.update("c0", _subagent("g0", title="grandchild", state={"state": "running"}))
        agent.update("g0", _chunk("deep"))
        agent.update("g0", _subagent("g0", title="itself"))  # a child naming its own id
        agent.update("g0", _subagent("c0", title="its parent"))  # a cycle
        for i in range(1, MAX_TREE + 5):
            agent.update(sid, _subagent(f"c{i}", state={"state": "idle"}))
            agent.update("c0", _subagent(f"g{i}", state={"state": "idle"}))

    t, _ = pair_with({"session/prompt": await _prompting(script)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go")
        first = session.subagents[0]
        [grandchild, *_] = first.subagents
        assert (grandchild.label, grandchild.depth, grandchild.parent.id) == ("grandchild", 2, "c0")
        assert grandchild.state.last_agent_text() == "deep"
        assert grandchild.subagents == () and grandchild.state.subagents == {}
        assert len(session.subagents) + len(first.subagents) == MAX_TREE
        assert result.subagents_running == ("g0",)
        assert [child.id for child in session.running_subagents()] == ["g0"]


async def test_a_label_is_one_bounded_line():
    """codex sends no title and its whole prompt as the description."""
    from acphost.client import SessionState

    state = SessionState()
    for update in (
        _subagent("a", description="Reply with pong.\nThen stop."),
        _subagent("b", title="x" * 500),
        _subagent("p:subagent:" + "9" * 80),
    ):
        state.apply(decode(update))
    labels = [child.label for child in state.subagents.values()]
    assert labels[0] == "Reply with pong."
    assert len(labels[1]) <= 64 and labels[1].endswith("[…]")
    assert labels[2].startswith("[…]") and labels[2].endswith("9" * 30) and len(labels[2]) <= 64


async def test_updates_before_the_announcement_are_replayed_to_the_child(workspace):
    async def script(agent, sid):
        agent.update("early", _chunk("before"))
        agent.update(sid, _subagent("early", title="late"))
        agent.update("early", _chunk(" after"))

    t, _ = pair_with({"session/prompt": await _prompting(script)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
        [child] = session.subagents
        assert child.state.last_agent_text() == "before after"


async def test_a_childs_requests_pass_the_root_sessions_jail(workspace, tmp_path):
    """The agent says where a child works; the host decides: the root's workspace."""
    outside = tmp_path / "secret.txt"
    outside.write_text("no")
    (workspace / "inside.txt").write_text("yes")
    answers: dict[str, dict] = {}

    async def script(agent, sid):
        agent.update(sid, _subagent("c1", cwd=str(tmp_path), state={"state": "running"}))
        for name, path in (("inside", workspace / "inside.txt"), ("outside", outside)):
            answers[name] = await agent.request(
                "fs/read_text_file", {"sessionId": "c1", "path": str(path)}
            )

    t, _ = pair_with({"session/prompt": await _prompting(script)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
    assert answers["inside"]["result"]["content"] == "yes"
    assert "error" in answers["outside"]
    assert "no" not in json.dumps(answers["outside"])


async def test_waiting_for_children_ends_when_the_agent_goes_away(workspace):
    async def script(agent, sid):
        agent.update(sid, _subagent("c1", state={"state": "running"}))

    t, agent = pair_with({"session/prompt": await _prompting(script)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go")
        assert result.subagents_running == ("c1",)
        waiting = asyncio.ensure_future(session.wait_subagents())
        await settled()
        assert not waiting.done()
        await agent.t.close()
        with pytest.raises((AgentExited, RequestError)):
            await asyncio.wait_for(waiting, 10)


async def test_cancel_during_the_turn_also_cancels_cancellable_children(workspace):
    release = asyncio.Event()

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        agent.update(sid, _subagent("c1", capabilities={"cancel": {}}, state={"state": "running"}))
        agent.update(sid, _subagent("c2", state={"state": "running"}))  # no cancel allowed
        await release.wait()
        return {"stopReason": "cancelled"}

    async def cancel(agent, rid, params):
        release.set()
        return NO_ANSWER

    t, agent = pair_with({"session/prompt": prompt, "session/cancel": cancel})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await eventually(lambda: len(session.subagents) == 2, what="two children")
        result = await session.cancel()
        assert result is not None and result.stop_reason == "cancelled"
        cancelled = [
            m["params"]["sessionId"] for m in agent.received if m.get("method") == "session/cancel"
        ]
        assert cancelled == [session.id, "c1"]
        await turn


# -- regressions a hostile review found ---------------------------------------------------


async def test_an_agent_cannot_rearm_a_cancelled_childs_requests(workspace):
    """After a cancel, the child's permission questions stay answered 'cancelled' until the
    host's next prompt, whatever state the agent then claims for it."""
    answers: list[dict] = []
    go_on = asyncio.Event()

    def ask(agent):
        return agent.request(
            "session/request_permission",
            {
                "sessionId": "c1",
                "toolCall": {"toolCallId": "t1", "title": "rm", "kind": "execute"},
                "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
            },
        )

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        agent.update(sid, _subagent("c1", capabilities={"cancel": {}}, state={"state": "running"}))
        await go_on.wait()
        agent.update(sid, _subagent("c1", state={"state": "running"}))  # "running again"
        answers.append(await ask(agent))
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    allow = HostConfig(permissions=AllowAll())
    async with AcpClient.connect(t, host=allow) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await eventually(lambda: session.subagents, what="the child")
        session._tree.cancel_running()
        go_on.set()
        await turn
    assert answers[0]["result"]["outcome"] == {"outcome": "cancelled"}


async def test_closing_a_session_frees_its_childrens_workspace(workspace, tmp_path):
    (workspace / "a.txt").write_text("secret of a")
    answers: list[dict] = []

    async def prompt(agent, rid, params):
        agent.update(params["sessionId"], _subagent("k", state={"state": "idle"}))
        answers.append(await _read(agent, "k", workspace / "a.txt"))
        return {"stopReason": "end_turn"}

    t, agent = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
        await session.close()
        answers.append(await _read(agent, "k", workspace / "a.txt"))
    assert answers[0]["result"]["content"] == "secret of a"
    assert "unknown session" in answers[1]["error"]["message"]


async def _read(agent, sid, path):
    return await agent.request("fs/read_text_file", {"sessionId": sid, "path": str(path)})


async def test_cancel_answers_a_childs_question_even_when_it_cannot_be_cancelled(workspace):
    answered: list[dict] = []
    asked = asyncio.Event()

    async def prompt(agent, rid, params):
        agent.update(params["sessionId"], _subagent("c1", state={"state": "requires_action"}))
        asked.set()
        answered.append(
            await agent.request(
                "session/request_permission",
                {
                    "sessionId": "c1",
                    "toolCall": {"toolCallId": "t1", "title": "rm", "kind": "execute"},
                    "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
                },
            )
        )
        return {"stopReason": "cancelled"}

    never = asyncio.get_running_loop().create_future()

    async def never_answers(request):  # the user never answers
        return await never

    t, agent = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(
        t, host=HostConfig(permissions=Interactive(never_answers))
    ) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await asked.wait()
        await eventually(lambda: client._bridge.broker._state("c1").pending, what="the question")
        result = await session.cancel()
        await turn
    assert result is not None and result.stop_reason == "cancelled"
    assert answered[0]["result"]["outcome"] == {"outcome": "cancelled"}
    cancels = [
        m["params"]["sessionId"] for m in agent.received if m.get("method") == "session/cancel"
    ]
    assert cancels == [session.id]  # the child does not allow session/cancel


async def test_messages_keep_no_content_where_no_history_is_kept(workspace):
    async def script(agent, sid):
        agent.update(sid, _subagent("c1", state={"state": "running"}))
        agent.update(
            sid,
            {
                "sessionUpdate": "session_message",
                "messageId": "m1",
                "senderSessionId": sid,
                "recipientSessionId": "c1",
                "content": [{"type": "text", "text": "x" * 1000}],
            },
        )
        for _ in range(10):
            agent.update(
                sid,
                {
                    "sessionUpdate": "session_message_chunk",
                    "messageId": "m1",
                    "content": {"type": "text", "text": "y"},
                },
            )

    t, _ = pair_with({"session/prompt": await _prompting(script)})
    async with AcpClient.connect(t, keep_history=False) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
        [message] = session.state.session_messages.values()
        assert (message.recipient_session_id, message.content, message.text) == ("c1", [], "")
