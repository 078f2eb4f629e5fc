"""A hostile v2 agent: malformed upserts, floods of ids, and ids that look like ours.

Each case once broke the v2 mapping (``client/_v2.py``, ``_v2_updates.py``):
a malformed update closed the whole connection, state grew per id without
bound, content chunks cost the whole list each, a terminal's first chunk lost
its output, a repeated idle ended the turn before its work, a reload tore the
live session down, an agent's tool id was taken for a made-up one.
"""

from __future__ import annotations

import base64

import pytest

from acphost import AcpClient
from acphost.errors import RequestError
from tests.client.test_v2 import V2_INIT, _prompting, _v2_client
from tests.support.fake_agent import answer, pair_with


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


TEXT = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "ok",
    "content": {"type": "text", "text": "alive"},
}

MALFORMED = [
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "content": 5},
    {"sessionUpdate": "agent_message", "messageId": "m", "content": [{"type": "text", "text": 5}]},
    {
        "sessionUpdate": "agent_message",
        "messageId": "m",
        "content": [{"type": "text", "text": None}],
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "content": [{"type": "diff", "changes": 5}],
    },
    {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "t",
        "content": {"type": "diff", "changes": 5},
    },
    {"sessionUpdate": "user_message", "content": [{"type": "text", "text": "no id"}]},
    {"sessionUpdate": "user_message", "messageId": "u", "content": 5},
    {
        "sessionUpdate": "terminal_update",
        "terminalId": "T",
        "exitStatus": {"exitCode": "x", "signal": [1]},
    },
    {"sessionUpdate": "plan_update", "plan": {"type": "items", "entries": 5}},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": 5, "status": 7},
    {"sessionUpdate": "terminal_output_chunk", "terminalId": "T", "data": "!!!"},
]


@pytest.mark.parametrize("bad", MALFORMED, ids=range(len(MALFORMED)))
async def test_a_malformed_update_is_one_update_not_the_connection(bad):
    client, _ = await _v2_client({"session/prompt": _prompting([bad, TEXT])})
    async with client as client:
        session = await client.new_session("/tmp")
        assert (await session.prompt("go")).text == "alive"
        # The connection lives on: a second turn works.
        assert (await session.prompt("again")).text.endswith("alive")


async def test_updates_for_ids_no_session_has_keep_nothing():
    ghosts = [
        {"sessionUpdate": "state_update", "state": "running"},
    ]

    async def after(agent, sid):
        for i in range(2_000):
            agent.update(f"ghost-{i}", ghosts[0])
            agent.update(f"ghost-{i}", {**TEXT, "messageId": f"m{i}"})

    client, _ = await _v2_client({"session/prompt": _prompting([TEXT], after=after)})
    async with client as client:
        session = await client.new_session("/tmp")
        await session.prompt("go")
        v2 = client._peer.v2
        assert set(v2.sessions) == {session.id}
        await session.close()
        assert v2.sessions == {}


async def test_terminals_and_messages_are_bounded_per_session():
    from acphost.client import _v2_updates

    floods = [
        {"sessionUpdate": "terminal_update", "terminalId": f"T{i}", "command": "x"}
        for i in range(_v2_updates._MAX_TERMINALS + 50)
    ] + [{**TEXT, "messageId": f"m{i}"} for i in range(500)]
    client, _ = await _v2_client({"session/prompt": _prompting(floods)})
    async with client as client:
        session = await client.new_session("/tmp")
        await session.prompt("go")
        wire = client._peer.v2.sessions[session.id]
        assert len(wire.terminals) == _v2_updates._MAX_TERMINALS
        assert len(wire.messages) <= _v2_updates._MAX_MESSAGES


async def test_content_chunks_are_appended_one_item_each_and_the_newest_kept():
    from acphost.client._toolcall_state import MAX_CONTENT_ITEMS

    n = MAX_CONTENT_ITEMS + 500
    chunks = [
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t",
            "content": {"type": "content", "content": {"type": "text", "text": f"line {i}"}},
        }
        for i in range(n)
    ]
    seen = []
    client, _ = await _v2_client({"session/prompt": _prompting(chunks)})
    async with client as client:
        session = await client.new_session("/tmp")
        session.add_listener(
            lambda _s, update: seen.append(len(getattr(update, "content", None) or ()))
        )
        await session.prompt("go")
        call = session.state.tool_calls["t"]
    assert set(seen) == {1}, "each chunk is one item, not the whole list again"
    assert len(call.content) == MAX_CONTENT_ITEMS
    assert call.content[-1].content.text == f"line {n - 1}"


async def test_a_terminal_whose_first_word_is_output_keeps_it():
    updates = [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "title": "make",
            "content": [{"type": "terminal", "terminalId": "T"}],
        },
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "T", "data": _b64("compiling\n")},
        {"sessionUpdate": "terminal_update", "terminalId": "T", "command": "make"},
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "T", "data": _b64("done\n")},
        {"sessionUpdate": "terminal_update", "terminalId": "T", "exitStatus": {"exitCode": 0}},
    ]
    client, _ = await _v2_client({"session/prompt": _prompting(updates)})
    async with client as client:
        session = await client.new_session("/tmp")
        (call,) = (await session.prompt("go")).tool_calls
    (terminal,) = call.terminals.values()
    assert (terminal.output, terminal.exit_code) == ("compiling\ndone\n", 0)


async def test_upserts_past_the_tracked_text_add_only_what_is_new():
    big = "a" * ((1 << 20) + 5)
    upserts = [
        {
            "sessionUpdate": "agent_message",
            "messageId": "m",
            "content": [{"type": "text", "text": text}],
        }
        for text in (big, big + "B" * 10, big + "B" * 10 + "C" * 10)
    ]
    client, _ = await _v2_client({"session/prompt": _prompting(upserts)})
    async with client as client:
        session = await client.new_session("/tmp")
        result = await session.prompt("go")
    assert result.text == big + "B" * 10 + "C" * 10


async def test_a_repeated_idle_before_the_work_started_does_not_end_the_turn():
    async def handler(agent, rid, params):
        sid = params["sessionId"]
        agent.send({"id": rid, "result": {"messageId": "u"}})
        agent.update(sid, {"sessionUpdate": "state_update", "state": "idle"})  # a snapshot
        agent.update(sid, {"sessionUpdate": "state_update", "state": "running"})
        agent.update(sid, {**TEXT, "content": {"type": "text", "text": "the answer"}})
        agent.update(
            sid, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "max_tokens"}
        )
        from tests.support.fake_agent import NO_ANSWER

        return NO_ANSWER

    client, _ = await _v2_client({"session/prompt": handler})
    async with client as client:
        session = await client.new_session("/tmp")
        result = await session.prompt("go")
    assert (result.stop_reason, result.text) == ("max_tokens", "the answer")


async def test_a_failed_reopen_of_an_open_session_leaves_it_alive():
    async def refuse(agent, rid, params):
        raise Exception({"code": -32603, "message": "no"})

    client, _ = await _v2_client({"session/resume": refuse, "session/prompt": _prompting([TEXT])})
    async with client as client:
        session = await client.new_session("/tmp")
        tools = client._bridge._tools[session.id]
        with pytest.raises(RequestError):
            await client.load_session(session.id, "/tmp")
        assert client._bridge._tools[session.id] is tools  # its MCP tools still serve it
        assert (await session.prompt("still there?")).text == "alive"


async def test_an_agents_id_that_looks_made_up_is_left_as_the_agent_said():
    updates = [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "terminal:build",
            "title": "deploy",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "build"}],
        },
        {"sessionUpdate": "terminal_update", "terminalId": "build", "exitStatus": {"exitCode": 0}},
    ]
    client, _ = await _v2_client({"session/prompt": _prompting(updates)})
    async with client as client:
        session = await client.new_session("/tmp")
        await session.prompt("go")
        assert session.state.tool_calls["terminal:build"].status == "in_progress"


async def test_a_v1_shaped_prompt_answer_on_v2_ends_the_turn():
    async def v1_answer(agent, rid, params):
        return {"stopReason": "refusal"}

    client, _ = await _v2_client({"session/prompt": v1_answer})
    async with client as client:
        session = await client.new_session("/tmp")
        assert (await session.prompt("go")).stop_reason == "refusal"


async def test_malformed_auth_methods_in_a_v2_answer_connect_with_none():
    transport, _ = pair_with({"initialize": answer({**V2_INIT, "authMethods": 5})})
    async with AcpClient.connect(transport, protocol=2) as client:
        assert client.protocol_version == 2 and client.auth_methods == []


def test_a_patch_naming_another_file_than_its_change_is_not_shown_as_that_file():
    from acphost.client._v2_updates import content_items

    lying = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/home/u/.bashrc"}],
        "patch": {
            "format": "git_patch",
            "text": "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n",
        },
    }
    (item,) = content_items([lying])
    assert item["type"] == "content" and "/home/u/.bashrc" in item["content"]["text"]
    honest = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/ws/x.py"}],
        "patch": {
            "format": "git_patch",
            "text": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n@@ -500 +500 @@\n-y\n+z\n",
        },
    }
    first, second = content_items([honest])
    assert (first["path"], first["oldText"], first["newText"]) == ("/ws/x.py", "a\n", "b\n")
    assert (second["oldText"], second["newText"]) == ("y\n", "z\n")  # its own hunk
