"""The client against scripted fake agents on the in-memory pair: edge cases and gaps."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

import acphost
from acphost import AcpClient, HostConfig
from acphost import schema as s
from acphost.host import AllowAll, FileSystemProvider, Interactive
from acphost.view import update_text
from tests.support.fake_agent import INIT_RESULT, NO_ANSWER, answer, pair_with
from tests.support.waiting import eventually


def connect(transport, **options):
    return AcpClient.connect(transport, **options)


async def test_unsupported_protocol_version_fails_clearly():
    t, _agent = pair_with({"initialize": answer({**INIT_RESULT, "protocolVersion": 2})})
    with pytest.raises(acphost.RemoteProtocolError, match="version 2"):
        async with connect(t):
            pass


async def test_capability_gates_before_sending(workspace):
    t, agent = pair_with({})
    async with connect(t) as client:
        for call in (
            client.list_sessions(),
            client.resume_session("x", workspace),
            client.delete_session("x"),
            client.load_session("x", workspace),
            client.logout(),
        ):
            with pytest.raises(acphost.CapabilityNotSupported):
                await call
        with pytest.raises(acphost.CapabilityNotSupported, match="additional"):
            await client.new_session(workspace, additional_directories=[str(workspace)])
        http = {"type": "http", "name": "h", "url": "http://127.0.0.1:1", "headers": []}
        with pytest.raises(acphost.CapabilityNotSupported, match="HTTP"):
            await client.new_session(workspace, mcp_servers=[http])
        session = await client.new_session(workspace)
        await session.close()  # no close capability: forgotten locally, nothing sent
    assert "session/list" not in agent.methods() and "session/close" not in agent.methods()


async def test_additional_directories_and_mcp_forwarded_when_advertised(workspace, tmp_path):
    caps = {"sessionCapabilities": {"additionalDirectories": {}}, "mcpCapabilities": {"http": True}}
    t, agent = pair_with({"initialize": answer({**INIT_RESULT, "agentCapabilities": caps})})
    extra = tmp_path / "extra"
    extra.mkdir()
    http = {"type": "http", "name": "h", "url": "http://127.0.0.1:1", "headers": []}
    async with connect(t) as client:
        await client.new_session(workspace, additional_directories=[extra], mcp_servers=[http])
    new = next(m for m in agent.received if m.get("method") == "session/new")
    assert new["params"]["additionalDirectories"] == [str(extra)]
    assert new["params"]["mcpServers"] == [http]


async def test_state_follows_info_mode_and_failed_tool_updates(workspace):
    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        agent.update(sid, {"sessionUpdate": "session_info_update", "title": "A title"})
        agent.update(sid, {"sessionUpdate": "current_mode_update", "currentModeId": "code"})
        agent.update(
            sid,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "run",
                "kind": "execute",
                "rawInput": {"command": "make"},
            },
        )
        agent.update(
            sid, {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"}
        )
        return {"stopReason": "max_turn_requests", "usage": {"totalTokens": 5}, "_meta": {"k": 1}}

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go")
    assert session.state.title == "A title"
    assert session.state.current_mode_id == "code"
    call = session.state.tool_calls["t1"]
    assert (
        call.status == "failed" and call.raw_input == {"command": "make"} and call.kind == "execute"
    )
    assert result.stop_reason == "max_turn_requests"
    assert result.usage == {"totalTokens": 5} and result.meta == {"k": 1}


async def test_updates_before_new_session_response_and_after_prompt_response(workspace):
    async def new(agent, rid, params):
        agent.update(
            "s1",
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [{"name": "early", "description": "d"}],
            },
        )
        return {"sessionId": "s1"}

    async def prompt(agent, rid, params):
        agent.send({"id": rid, "result": {"stopReason": "end_turn"}})
        agent.update(
            "s1",
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "late"}},
        )
        return NO_ANSWER

    t, _ = pair_with({"session/new": new, "session/prompt": prompt})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        assert [c.name for c in session.state.available_commands] == ["early"]
        turn = session.prompt("go")
        seen = [u async for u in turn]
        await turn
        await eventually(lambda: "late" in session.state.messages[-1].text, what="the late chunk")
    assert all(getattr(u, "text", "") != "late" for u in seen)  # not part of the finished turn
    assert "late" in session.state.messages[-1].text  # but recorded in the state


async def test_agent_cancel_request_answers_32800(workspace):
    asked = asyncio.Event()

    async def slow(request):
        asked.set()
        await asyncio.sleep(3600)

    async def prompt(agent, rid, params):
        task = asyncio.ensure_future(
            agent.request(
                "session/request_permission",
                {
                    "sessionId": "s1",
                    "toolCall": {"toolCallId": "t"},
                    "options": [{"optionId": "o", "name": "ok", "kind": "allow_once"}],
                },
                rid="perm-1",
            )
        )
        await asyncio.wait_for(asked.wait(), 5)
        agent.notify("$/cancel_request", {"requestId": "perm-1"})
        reply = await task
        return {"stopReason": "end_turn", "_meta": {"reply": reply}}

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t, host=HostConfig(permissions=Interactive(slow))) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go")
    assert result.meta["reply"]["error"]["code"] == -32800


async def test_request_timeout_sends_cancel_request(workspace):
    async def never(agent, rid, params):
        return NO_ANSWER

    t, agent = pair_with({"session/new": never})
    async with connect(t, session_timeout=0.2) as client:
        with pytest.raises(acphost.AcpTimeout, match="session/new"):
            await client.new_session(workspace)
        await agent.wait_for("$/cancel_request")
    cancel = [m for m in agent.received if m.get("method") == "$/cancel_request"]
    assert cancel and cancel[0]["params"]["requestId"] == 1


async def test_cancel_without_answer_times_out_clearly(workspace):
    async def never(agent, rid, params):
        return NO_ANSWER

    t, agent = pair_with({"session/prompt": never})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        with pytest.raises(acphost.AcpTimeout, match="session/cancel"):
            await session.cancel(timeout=0.2)
        with pytest.raises(acphost.AcpTimeout):
            await turn
    assert "session/cancel" in agent.methods()


async def test_cancel_marks_unfinished_tool_calls(workspace):
    started = asyncio.Event()

    async def prompt(agent, rid, params):
        agent.update(
            "s1",
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "x",
                "status": "in_progress",
            },
        )
        started.set()
        await agent.wait_for("session/cancel")
        return {"stopReason": "cancelled"}

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await started.wait()
        await eventually(lambda: "t1" in session.state.tool_calls, what="the tool call")
        result = await session.cancel()
        assert result.stop_reason == "cancelled" and (await turn).stop_reason == "cancelled"
    assert session.state.tool_calls["t1"].cancelled


async def test_malformed_and_oversized_frames_do_not_kill_the_connection(workspace):
    async def prompt(agent, rid, params):
        agent.send_raw(b"{this is not json\n")
        agent.send_raw(
            b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"'
            + b"x" * 5000
            + b'"}}}}\n'
        )
        agent.update(
            "s1",
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}},
        )
        return {"stopReason": "end_turn"}

    violations = []
    t, agent = pair_with({"session/prompt": prompt})
    async with connect(t, max_line_bytes=1000, on_violation=violations.append) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go")
    assert result.text == "ok"
    assert len(violations) == 2
    assert any(m.get("error", {}).get("code") == -32700 for m in agent.received)


async def test_agent_requests_errors(workspace):
    results = {}

    async def prompt(agent, rid, params):
        results["unknown"] = await agent.request("vendor/unknown", {})
        results["bad"] = await agent.request(
            "fs/read_text_file", {"sessionId": "s1", "path": 5}, rid="str-id"
        )
        results["relative"] = await agent.request(
            "fs/read_text_file", {"sessionId": "s1", "path": "rel.txt"}
        )
        results["no-session"] = await agent.request(
            "fs/read_text_file", {"sessionId": "zz", "path": "/x"}
        )
        results["write"] = await agent.request(
            "fs/write_text_file", {"sessionId": "s1", "path": "/x", "content": ""}
        )
        results["elicit"] = await agent.request(
            "elicitation/create",
            {
                "sessionId": "s1",
                "message": "m",
                "mode": "form",
                "requestedSchema": {"type": "object", "properties": {}},
            },
        )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
    assert results["unknown"]["error"]["code"] == -32601
    assert results["bad"]["id"] == "str-id" and results["bad"]["error"]["code"] == -32602
    assert "path" in results["bad"]["error"]["message"]
    assert (
        results["relative"]["error"]["code"] == -32602
        and "absolute" in results["relative"]["error"]["message"]
    )
    assert results["no-session"]["error"]["code"] == -32602
    assert results["write"]["error"]["code"] == -32601  # writes not advertised
    assert results["elicit"]["error"]["code"] == -32601  # no handler, not advertised


async def test_elicitation_handler_is_advertised_and_called(workspace):
    class Handler:
        form = True
        url = False

        async def __call__(self, request):
            return {"action": "accept", "content": {"name": "Ada"}}

    results = {}

    async def prompt(agent, rid, params):
        results["elicit"] = await agent.request(
            "elicitation/create",
            {
                "sessionId": "s1",
                "message": "Your name?",
                "mode": "form",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
            },
        )
        return {"stopReason": "end_turn"}

    t, agent = pair_with({"session/prompt": prompt})
    async with connect(t, host=HostConfig(elicitation=Handler())) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
    init = next(m for m in agent.received if m.get("method") == "initialize")
    assert init["params"]["clientCapabilities"]["elicitation"] == {"form": {}}
    assert results["elicit"]["result"] == {"action": "accept", "content": {"name": "Ada"}}


async def test_a_cancelled_turn_withdraws_the_form_and_answers_it_cancel(workspace):
    """Session.cancel answers a form the user has not filled in yet with the
    ``cancel`` action (an agent waiting on it can then end the turn), and the
    handler's question is withdrawn (its task is cancelled)."""
    asked, withdrawn = asyncio.Event(), asyncio.Event()

    class Handler:
        form = True
        url = False

        async def __call__(self, request):
            asked.set()
            try:
                await asyncio.Event().wait()  # the user never answers
            except asyncio.CancelledError:
                withdrawn.set()
                raise
            return {"action": "accept"}

    results = {}

    async def prompt(agent, rid, params):
        results["elicit"] = await agent.request(
            "elicitation/create",
            {
                "sessionId": "s1",
                "message": "Your name?",
                "mode": "form",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
            },
        )
        await agent.wait_for("session/cancel")
        return {"stopReason": "cancelled"}

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t, host=HostConfig(elicitation=Handler())) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await asyncio.wait_for(asked.wait(), 10)
        result = await session.cancel()
        assert result.stop_reason == "cancelled" and (await turn).stop_reason == "cancelled"
    assert withdrawn.is_set()
    assert results["elicit"]["result"] == {"action": "cancel"}


async def test_terminal_auth_method(workspace):
    methods = [
        {"type": "terminal", "id": "login", "name": "Log in", "args": ["--login"]},
        {"id": "key", "name": "API key"},
    ]
    t, agent = pair_with(
        {"initialize": answer({**INIT_RESULT, "authMethods": methods}), "authenticate": answer({})}
    )
    async with connect(t, auth_terminal=True) as client:
        with pytest.raises(acphost.LocalProtocolError, match="terminal login"):
            await client.authenticate("login")
        await client.authenticate("key")
    init = next(m for m in agent.received if m.get("method") == "initialize")
    assert init["params"]["clientCapabilities"]["auth"] == {"terminal": True}
    assert [
        m["params"]["methodId"] for m in agent.received if m.get("method") == "authenticate"
    ] == ["key"]


async def test_missing_file_compat_option(workspace):
    results = {}

    async def prompt(agent, rid, params):
        results["read"] = await agent.request(
            "fs/read_text_file", {"sessionId": "s1", "path": str(workspace / "new.txt")}
        )
        return {"stopReason": "end_turn"}

    for empty, expected in ((False, "error"), (True, "result")):
        t, _ = pair_with({"session/prompt": prompt})
        host = HostConfig(
            fs=FileSystemProvider(missing_file_returns_empty=empty), permissions=AllowAll()
        )
        async with connect(t, host=host) as client:
            session = await client.new_session(workspace)
            await session.prompt("go")
        assert expected in results["read"]
        if expected == "error":
            assert results["read"]["error"]["code"] == -32002
        else:
            assert results["read"]["result"] == {"content": ""}


async def test_sdk_frames_and_unknown_option_are_rejected():
    t, _ = pair_with({})
    with pytest.raises(TypeError, match="unknown option"):
        async with connect(t, no_such_option=1):
            pass


def test_import_acphost_is_light():
    import subprocess
    import sys

    code = "import sys, acphost; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('asyncio','acphost','rich','textual','typing'))))"
    out = subprocess.run(
        [sys.executable, "-c", "import json;" + code], capture_output=True, text=True, check=True
    )
    loaded = json.loads(out.stdout)
    assert not any(
        m.startswith(("asyncio", "rich", "textual", "acphost.schema")) for m in loaded
    ), loaded


def test_public_api_is_pinned():
    assert sorted(acphost.__all__) == sorted(
        [
            "AcpClient",
            "AcpError",
            "AcpTimeout",
            "AgentExited",
            "AgentStartError",
            "AuthRequired",
            "CapabilityNotSupported",
            "EventStream",
            "HostConfig",
            "InternalError",
            "InvalidParams",
            "InvalidRequest",
            "LocalProtocolError",
            "Message",
            "MethodNotFound",
            "NotAnAcpAgent",
            "OutputFileError",
            "ParseError",
            "RemoteProtocolError",
            "RequestCancelled",
            "RequestError",
            "ResourceNotFound",
            "RunResult",
            "Session",
            "SessionState",
            "ToolCallState",
            "Turn",
            "TurnResult",
            "UsageError",
            "__version__",
            "run",
        ]
    )
    for name in acphost.__all__:
        assert getattr(acphost, name) is not None


def test_every_error_code_maps_to_a_class():
    schema = _schema()
    codes = [v["const"] for v in schema["$defs"]["ErrorCode"]["anyOf"] if "const" in v]
    for code in codes:
        err = acphost.RequestError.from_wire({"code": code, "message": "m"})
        assert type(err) is not acphost.RequestError and err.code == code


def test_every_session_update_variant_maps_to_a_class():
    schema = _schema()
    for variant in schema["$defs"]["SessionUpdate"]["oneOf"]:
        kind = variant["properties"]["sessionUpdate"]["const"]
        decoded = s.decode_session_update({"sessionUpdate": kind, **_minimal(kind)})
        assert not isinstance(decoded, s.UnknownSessionUpdate), kind
        assert isinstance(update_text(decoded), str)


def _schema() -> dict:
    from pathlib import Path

    return json.loads((Path(acphost.schema.__file__).parent / "v1" / "schema.json").read_text())


def _minimal(kind: str) -> dict:
    text = {"content": {"type": "text", "text": "t"}}
    return {
        "user_message_chunk": text,
        "agent_message_chunk": text,
        "agent_thought_chunk": text,
        "tool_call": {"toolCallId": "t", "title": "x"},
        "tool_call_update": {"toolCallId": "t"},
        "plan": {"entries": []},
        "available_commands_update": {"availableCommands": []},
        "current_mode_update": {"currentModeId": "m"},
        "config_option_update": {"configOptions": []},
        "session_info_update": {},
        "usage_update": {"used": 1, "size": 2},
        "notice": {"severity": "info", "title": "n"},
        "compaction_update": {"compactionId": "c", "status": "in_progress"},
        "compaction_summary_chunk": {"compactionId": "c", **text},
    }[kind]


async def test_cancel_while_the_host_is_not_consuming_a_full_queue(workspace):
    async def prompt(agent, rid, params):
        for i in range(3000):
            agent.update(
                "s1",
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": f"{i} "},
                },
            )
        await agent.wait_for("session/cancel")
        return {"stopReason": "cancelled"}

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        session._queue_limit = 8
        turn = session.prompt("go")
        first = await turn.__anext__()  # the host starts consuming, then stops
        # the queue fills up: the reader waits for space
        queue = turn._queue
        await eventually(
            lambda: queue._space is not None and not queue._space.done(),
            what="the reader waiting on a full queue",
        )
        result = await session.cancel(timeout=5)
        assert result is not None and result.stop_reason == "cancelled"
        rest = [u async for u in turn]  # nothing was dropped
    assert 1 + len(rest) == 3000 and first.text == "0 "


async def test_a_bad_option_or_trace_path_does_not_leave_the_agent_running(tmp_path):
    from acphost.transport import StdioTransport

    spawned: list[int] = []
    closed: list[int] = []
    original_close, original_spawn = StdioTransport.close, StdioTransport.spawn

    async def spy_close(self, **kw):
        closed.append(self.pid)
        await original_close(self, **kw)

    async def spy_spawn(*args, **kw):
        transport = await original_spawn(*args, **kw)
        spawned.append(transport.pid)
        return transport

    StdioTransport.close = spy_close  # type: ignore[method-assign]
    StdioTransport.spawn = spy_spawn  # type: ignore[method-assign]
    try:
        with pytest.raises(OSError):
            async with AcpClient.start(
                [sys.executable, "-m", "acphost.agents.demo"],
                trace=str(tmp_path / "no" / "such" / "dir" / "t.jsonl"),
            ):
                pass
        # An unknown option is refused before any agent is started at all.
        with pytest.raises(TypeError, match="unknown option"):
            async with AcpClient.start([sys.executable, "-m", "acphost.agents.demo"], bogus=1):
                pass
    finally:
        StdioTransport.close = original_close  # type: ignore[method-assign]
        StdioTransport.spawn = original_spawn  # type: ignore[method-assign]
    assert len(spawned) == 1 and closed == spawned


async def test_protocol_version_below_the_minimum_fails_clearly():
    t, _agent = pair_with({"initialize": answer({**INIT_RESULT, "protocolVersion": 0})})
    with pytest.raises(acphost.RemoteProtocolError, match="version 0"):
        async with connect(t):
            pass


async def test_error_answer_to_a_cancelled_prompt_ends_the_turn_cancelled(workspace):
    # Qwen Code's quirk (tests/trace/test_real_traces.py::test_qwen_cancel_is_an_error).
    async def prompt(agent, rid, params):
        agent.update(
            "s1",
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "x",
                "status": "in_progress",
            },
        )
        await agent.wait_for("session/cancel")
        raise Exception(
            {"code": -32603, "message": "Internal error", "data": "Request was aborted."}
        )

    async def plain_error(agent, rid, params):
        raise Exception({"code": -32603, "message": "boom"})

    t, _ = pair_with({"session/prompt": prompt})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("go")
        await eventually(lambda: "t1" in session.state.tool_calls, what="the tool call")
        result = await session.cancel()
        assert result is not None and result.stop_reason == "cancelled"
        assert (await turn).stop_reason == "cancelled"
        assert session.state.tool_calls["t1"].cancelled
    t, _ = pair_with({"session/prompt": plain_error})
    async with connect(t) as client:
        session = await client.new_session(workspace)
        with pytest.raises(acphost.InternalError):  # without a cancel, an error stays an error
            await session.prompt("go")


async def test_fork_only_behind_the_unstable_opt_in(workspace):
    caps = {"sessionCapabilities": {"fork": {}}}
    forks = []

    async def fork(agent, rid, params):
        forks.append(params)
        return {"sessionId": "s2"}

    t, _ = pair_with(
        {"initialize": answer({**INIT_RESULT, "agentCapabilities": caps}), "session/fork": fork}
    )
    async with connect(t) as client:
        session = await client.new_session(workspace)
        with pytest.raises(acphost.UsageError, match="unstable"):
            await client.fork_session(session)
    t, _ = pair_with(
        {"initialize": answer({**INIT_RESULT, "agentCapabilities": caps}), "session/fork": fork}
    )
    async with connect(t, unstable=True) as client:
        session = await client.new_session(workspace)
        forked = await client.fork_session(session)
        assert forked.id == "s2" and forked.cwd == session.cwd and "s2" in client.sessions
    assert forks == [{"sessionId": "s1", "cwd": str(workspace), "mcpServers": []}]
    t, _ = pair_with({})
    async with connect(t, unstable=True) as client:  # not advertised
        session = await client.new_session(workspace)
        with pytest.raises(acphost.CapabilityNotSupported):
            await client.fork_session(session)
