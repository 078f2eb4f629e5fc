"""ACP v2 beside v1: negotiation per connection, and a v2 turn read as the one model.

The agent is a raw-JSON fake on the in-memory pair speaking the v2 draft
(``acp-schema/v2``) as claude-agent-acp and codex-acp do (frames in the
research captures): ``session/prompt`` answers ``{messageId}`` and the turn
ends with ``state_update`` idle.
"""

from __future__ import annotations

import asyncio
import base64

import pytest

from acphost import AcpClient
from acphost.errors import AgentExited, MethodNotFound, RemoteProtocolError
from acphost.host import AllowAll, HostConfig
from tests.support.fake_agent import NO_ANSWER, FakeAgent, answer, pair_with
from tests.support.waiting import eventually

V2_INIT = {
    "protocolVersion": 2,
    "info": {"name": "fake-v2", "version": "1.0"},
    "capabilities": {
        "session": {
            "prompt": {"image": {}, "embeddedContext": {}},
            "mcp": {"stdio": {}, "http": {}},
            "systemPrompt": {"mode": {"override": {}}},
        }
    },
    "authMethods": [{"methodId": "key", "type": "agent", "name": "API key"}],
}
V1_INIT = {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}, "authMethods": []}


def v2_initialize():
    async def handler(agent: FakeAgent, rid, params):
        if params.get("protocolVersion", 1) >= 2:
            if "info" not in params:
                raise Exception({"code": -32602, "message": "invalid initialize params: info"})
            return V2_INIT
        return V1_INIT

    return handler


def v1_only_refusing():
    async def handler(agent: FakeAgent, rid, params):
        if params.get("protocolVersion") != 1:
            raise Exception({"code": -32602, "message": "Invalid params: protocolVersion"})
        return V1_INIT

    return handler


async def test_auto_falls_back_to_v1_when_the_agent_refuses_v2():
    transport, agent = pair_with({"initialize": v1_only_refusing()})
    async with AcpClient.connect(transport, protocol="auto") as client:
        assert client.protocol_version == 1
    inits = [m["params"] for m in agent.received if m.get("method") == "initialize"]
    assert [i["protocolVersion"] for i in inits] == [2, 1]
    assert "info" in inits[0] and "clientInfo" not in inits[0]
    assert "clientInfo" in inits[1] and "clientCapabilities" in inits[1]


async def test_auto_falls_back_when_the_agent_answers_v1_to_v2():
    transport, agent = pair_with({"initialize": answer(V1_INIT)})
    async with AcpClient.connect(transport, protocol="auto") as client:
        assert client.protocol_version == 1
    assert [
        m["params"]["protocolVersion"] for m in agent.received if m.get("method") == "initialize"
    ] == [2, 1]


async def test_auto_lands_on_v2_with_a_v2_agent_and_maps_its_capabilities():
    transport, agent = pair_with({"initialize": v2_initialize()})
    async with AcpClient.connect(transport, protocol="auto") as client:
        assert client.protocol_version == 2
        caps = client.agent_capabilities
        assert caps.prompt_capabilities.image is True
        assert caps.mcp_capabilities.http is True
        assert client.agent_info.name == "fake-v2"
        assert [m.id for m in client.auth_methods] == ["key"]
    assert len([m for m in agent.received if m.get("method") == "initialize"]) == 1


async def test_an_echoed_version_in_the_v1_shape_is_not_v2():
    """fast-agent 0.10.48 answers ``protocolVersion: 2`` with v1's fields (no ``info``)."""
    echo = {**V1_INIT, "protocolVersion": 2}
    transport, agent = pair_with({"initialize": answer(echo)})
    with pytest.raises(RemoteProtocolError, match="in the v1 shape"):
        await AcpClient.connect(transport, protocol=2)
    transport, agent = pair_with({"initialize": v1_answering_echo()})
    async with AcpClient.connect(transport, protocol="auto") as client:
        assert client.protocol_version == 1
    assert [
        m["params"]["protocolVersion"] for m in agent.received if m.get("method") == "initialize"
    ] == [2, 1]


def v1_answering_echo():
    async def handler(agent: FakeAgent, rid, params):
        return {**V1_INIT, "protocolVersion": params["protocolVersion"]}

    return handler


async def test_asking_for_v2_from_a_v1_agent_says_what_to_do():
    transport, _ = pair_with({"initialize": v1_only_refusing()})
    with pytest.raises(RemoteProtocolError, match="version 1 or 'auto'"):
        await AcpClient.connect(transport, protocol=2)


async def test_protocol_one_sends_todays_v1_initialize():
    transport, agent = pair_with({"initialize": v2_initialize()})
    async with AcpClient.connect(transport) as client:
        assert client.protocol_version == 1
    (init,) = [m["params"] for m in agent.received if m.get("method") == "initialize"]
    assert init["protocolVersion"] == 1 and "clientCapabilities" in init


def _prompting(updates, *, stop="end_turn", usage=None, after=None):
    """A v2 session/prompt: answer {messageId} first, then stream, then idle."""

    async def handler(agent: FakeAgent, rid, params):
        sid = params["sessionId"]
        agent.send({"id": rid, "result": {"messageId": "u1"}})
        agent.update(
            sid, {"sessionUpdate": "user_message", "messageId": "u1", "content": params["prompt"]}
        )
        agent.update(sid, {"sessionUpdate": "state_update", "state": "running"})
        for update in updates:
            agent.update(sid, update)
        if after is not None:
            await after(agent, sid)
        idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}
        if usage is not None:
            idle["usage"] = usage
        agent.update(sid, idle)
        return NO_ANSWER

    return handler


async def _v2_client(handlers, **options):
    transport, agent = pair_with(
        {
            "initialize": v2_initialize(),
            "session/new": answer(
                {
                    "sessionId": "s1",
                    "configOptions": [
                        {
                            "configId": "mode",
                            "name": "Mode",
                            "category": "mode",
                            "type": "select",
                            "currentValue": "default",
                            "options": [
                                {"value": "default", "name": "Default"},
                                {"value": "plan", "name": "Plan"},
                            ],
                        }
                    ],
                    "availableCommands": [
                        {"type": "command", "name": "review", "description": "Review"}
                    ],
                }
            ),
            **handlers,
        }
    )
    return AcpClient.connect(transport, protocol=2, **options), agent


async def test_a_v2_turn_is_the_same_turn_result():
    out = base64.b64encode(b"hi\n").decode()
    updates = [
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": {"type": "text", "text": "Hel"},
        },
        {
            "sessionUpdate": "agent_message",
            "messageId": "a1",
            "content": [{"type": "text", "text": "Hello"}],
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "echo hi",
            "kind": "execute",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "term1"}],
        },
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term1",
            "command": "echo hi",
            "output": {"data": out},
        },
        {"sessionUpdate": "terminal_update", "terminalId": "term1", "exitStatus": {"exitCode": 0}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p",
                "entries": [{"content": "do it", "priority": "high", "status": "pending"}],
            },
        },
    ]
    client, _ = await _v2_client(
        {
            "session/prompt": _prompting(
                updates, usage={"totalTokens": 12, "inputTokens": 10, "outputTokens": 2}
            )
        }
    )
    async with client as client:
        session = await client.new_session("/tmp")
        assert session.protocol_version == 2
        assert [c.name for c in session.state.available_commands] == ["review"]
        result = await session.prompt("say hello")
        assert result.stop_reason == "end_turn"
        assert result.text == "Hello"
        (call,) = result.tool_calls
        assert (call.title, call.status) == ("echo hi", "completed")
        (terminal,) = call.terminals.values()
        assert terminal.output == "hi\n"
        assert terminal.exit_code == 0
        assert [e.content for e in session.state.plan] == ["do it"]
        assert result.usage is not None and result.usage["totalTokens"] == 12
        # The agent's echo of the prompt is the host's own prompt: shown once.
        users = [m for m in session.state.messages if m.role == "user"]
        assert len(users) == 1


async def test_the_turn_ends_at_idle_not_at_the_prompt_answer():
    release = asyncio.Event()

    async def after(agent, sid):
        await release.wait()

    working = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "a",
        "content": {"type": "text", "text": "working"},
    }
    client, _ = await _v2_client({"session/prompt": _prompting([working], after=after)})
    async with client as client:
        session = await client.new_session("/tmp")
        turn = session.prompt("wait")
        # The prompt was answered and an update after it was read: still running.
        await eventually(lambda: session.state.last_agent_text() == "working")
        assert not turn.done
        release.set()
        assert (await turn).stop_reason == "end_turn"


async def test_cancel_ends_with_the_idle_cancelled():
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def after(agent, sid):
        started.set()
        await cancelled.wait()

    async def on_cancel(agent, rid, params):
        cancelled.set()
        return NO_ANSWER

    client, _ = await _v2_client(
        {
            "session/prompt": _prompting([], stop="cancelled", after=after),
            "session/cancel": on_cancel,
        }
    )
    async with client as client:
        session = await client.new_session("/tmp")
        turn = session.prompt("long")
        await started.wait()
        await session.cancel()
        assert (await turn).stop_reason == "cancelled"


async def test_the_agent_leaving_mid_turn_fails_the_turn():
    async def after(agent, sid):
        await agent.t.close()
        await asyncio.Event().wait()

    client, _ = await _v2_client({"session/prompt": _prompting([], after=after)})
    async with client as client:
        session = await client.new_session("/tmp")
        with pytest.raises(AgentExited):
            await session.prompt("bye")


async def test_a_v2_permission_request_with_a_subject_reaches_the_policy():
    asked = {}

    async def after(agent, sid):
        asked["answer"] = await agent.request(
            "session/request_permission",
            {
                "sessionId": sid,
                "title": "touch shell-ran",
                "description": "the probe needs it",
                "subject": {"type": "command", "command": "touch shell-ran", "cwd": "/tmp"},
                "options": [
                    {"optionId": "ok", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                ],
            },
        )

    client, _ = await _v2_client(
        {"session/prompt": _prompting([], after=after)}, host=HostConfig(permissions=AllowAll())
    )
    async with client as client:
        session = await client.new_session("/tmp")
        await session.prompt("go")
    assert asked["answer"]["result"] == {"outcome": {"outcome": "selected", "optionId": "ok"}}


async def test_a_v2_agent_has_no_client_fs_methods():
    got = {}

    async def after(agent, sid):
        got["answer"] = await agent.request(
            "fs/read_text_file", {"sessionId": sid, "path": "/etc/hostname"}
        )

    client, _ = await _v2_client({"session/prompt": _prompting([], after=after)})
    async with client as client:
        session = await client.new_session("/tmp")
        await session.prompt("read")
    assert got["answer"]["error"]["code"] == MethodNotFound.CODE


async def test_config_options_are_keyed_config_id_and_set_with_their_type():
    async def set_option(agent, rid, params):
        return {"configOptions": []}

    client, agent = await _v2_client({"session/set_config_option": set_option})
    async with client as client:
        session = await client.new_session("/tmp")
        assert [o.id for o in session.state.config_options] == ["mode"]
        await session.set_config_option("mode", "plan")
    sent = await agent.wait_for("session/set_config_option")
    assert sent["params"] == {"sessionId": "s1", "configId": "mode", "type": "id", "value": "plan"}


async def test_load_is_resume_with_replay_and_the_replay_is_history():
    async def resume(agent, rid, params):
        sid = params["sessionId"]
        agent.update(
            sid,
            {
                "sessionUpdate": "user_message",
                "messageId": "u0",
                "content": [{"type": "text", "text": "earlier"}],
            },
        )
        agent.update(
            sid,
            {
                "sessionUpdate": "agent_message",
                "messageId": "a0",
                "content": [{"type": "text", "text": "answer"}],
            },
        )
        return {"configOptions": [], "availableCommands": []}

    client, agent = await _v2_client({"session/resume": resume})
    async with client as client:
        session = await client.load_session("old", "/tmp")
        roles = [(m.role, m.text) for m in session.state.messages]
        assert roles == [("user", "earlier"), ("agent", "answer")]
    sent = await agent.wait_for("session/resume")
    assert sent["params"]["replayFrom"] == {"type": "start"}
    assert "session/load" not in agent.methods()


async def test_set_mode_on_v2_is_the_mode_config_option():
    async def set_option(agent, rid, params):
        return {"configOptions": []}

    client, agent = await _v2_client({"session/set_config_option": set_option})
    async with client as client:
        session = await client.new_session("/tmp")
        await session.set_mode("plan")
    sent = await agent.wait_for("session/set_config_option")
    assert sent["params"]["configId"] == "mode" and sent["params"]["value"] == "plan"
    assert "session/set_mode" not in agent.methods()


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


async def test_a_terminal_announced_before_its_tool_call_is_shown_in_it():
    """The demo and the adapters send terminal_update before the tool call that shows it."""
    updates = [
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "k",
            "command": "echo hi",
            "cwd": "/tmp",
        },
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "k", "data": _b64("h")},
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "title": "Running echo hi",
            "kind": "execute",
            "content": [{"type": "terminal", "terminalId": "k"}],
        },
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "k", "data": _b64("i\n")},
        {"sessionUpdate": "terminal_update", "terminalId": "k", "exitStatus": {"exitCode": 0}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed"},
        # A background terminal no tool call shows: a card of its own at the end.
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "bg",
            "command": "watch",
            "output": {"data": _b64("tick\n")},
        },
    ]
    client, _ = await _v2_client({"session/prompt": _prompting(updates)})
    async with client as client:
        session = await client.new_session("/tmp")
        result = await session.prompt("run")
    shown, background = result.tool_calls
    assert shown.tool_call_id == "t" and [t.output for t in shown.terminals.values()] == ["hi\n"]
    assert [t.exit_code for t in shown.terminals.values()] == [0]
    assert (background.title, [t.output for t in background.terminals.values()]) == (
        "watch",
        ["tick\n"],
    )


def test_patches_are_read_by_their_hunk_counts():
    from acphost.client._diffpatch import patch_files

    patch = (
        "diff --git a/x.sql b/x.sql\n--- a/x.sql\n+++ b/x.sql\n@@ -1,2 +1,2 @@\n"
        "--- a comment\n+-- the comment\n keep\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n"
    )
    assert patch_files(patch) == [
        ("x.sql", "-- a comment\nkeep\n", "-- the comment\nkeep\n"),
        ("new.txt", None, "hello\n"),
    ]


async def test_an_agent_taking_mcp_only_over_http_gets_the_tools_over_http(tmp_path):
    """v2 McpCapabilities without ``stdio``: the host's tools are served on 127.0.0.1."""
    import json as _json
    import urllib.request

    from acphost.host import AllowAll, HostConfig

    init = {
        **V2_INIT,
        "capabilities": {"session": {"prompt": {}, "mcp": {"http": {}}}},
    }
    seen = {}

    async def new(agent, rid, params):
        seen["servers"] = params.get("mcpServers")
        return {"sessionId": "s1"}

    transport, _ = pair_with({"initialize": answer(init), "session/new": new})
    ws = tmp_path / "ws"
    ws.mkdir()
    host = HostConfig(allow_write=True, permissions=AllowAll())
    async with AcpClient.connect(transport, protocol=2, host=host) as client:
        await client.new_session(str(ws))
        (entry,) = seen["servers"]
        assert entry["type"] == "http" and entry["name"] == "acphost"
        assert entry["url"].startswith("http://127.0.0.1:")
        headers = {h["name"]: h["value"] for h in entry["headers"]}

        def call(message):
            request = urllib.request.Request(
                entry["url"],
                data=_json.dumps(message).encode(),
                headers={
                    **headers,
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                },
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                return _json.loads(response.read())

        def session():
            call(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                }
            )
            inside = call(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {
                        "name": "write_text_file",
                        "arguments": {"path": str(ws / "a.txt"), "content": "hi"},
                    },
                }
            )
            outside = call(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {
                        "name": "write_text_file",
                        "arguments": {"path": str(tmp_path / "out.txt"), "content": "x"},
                    },
                }
            )
            return inside, outside

        inside, outside = await asyncio.to_thread(session)
    assert not inside["result"].get("isError") and (ws / "a.txt").read_text() == "hi"
    assert outside["result"]["isError"] and "outside the workspace" in _json.dumps(outside)
    assert not (tmp_path / "out.txt").exists()
