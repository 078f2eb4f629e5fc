"""The client library against the built-in demo agent, over real pipes."""

from __future__ import annotations

import asyncio
import sys

import pytest

import acphost
import acphost.client
import acphost.content
from acphost import AcpClient, HostConfig
from acphost import schema as s
from acphost.host import AllowAll, DenyAll, Interactive
from acphost.view import update_text
from tests.support.waiting import eventually

FAST = {"ACPHOST_DEMO_STEP": "0"}


def start(demo_argv, *, env=None, **options):
    return AcpClient.start(demo_argv, env={**FAST, **(env or {})}, **options)


async def test_initialize_exposes_agent_capabilities(demo_argv, workspace):
    async with start(demo_argv) as client:
        assert client.protocol_version == 1
        assert client.agent_info is not None and client.agent_info.name == "acphost-demo"
        assert client.agent_capabilities.load_session is True
        assert [acphost.client.auth_method_id(m) for m in client.auth_methods] == ["demo-login"]
        assert client.agent_capabilities.prompt_capabilities.image is True


async def test_echo_turn_streams_text_and_result(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("echo hello there")
        updates = [u async for u in turn]
        result = await turn
    assert result.stop_reason == "end_turn"
    assert "hello there" in result.text
    assert "".join(u.text for u in updates if isinstance(u, s.AgentMessageChunk)) == result.text


async def test_session_setup_state(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        assert session.state.current_mode_id == "ask"
        ids = [o.id for o in session.state.config_options]
        assert "model" in ids and "verbose" in ids  # boolean offered: we advertise it
        await session.prompt("echo x")  # commands update arrives right after session/new
        assert {c.name for c in session.state.available_commands} >= {"help", "plan", "echo"}


async def test_tour_covers_update_variants(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("show me around")
        kinds = [u.session_update async for u in turn]
        result = await turn
    for kind in (
        "agent_thought_chunk",
        "plan",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "available_commands_update",
        "usage_update",
    ):
        assert kind in kinds, kind
    assert result.stop_reason == "end_turn"
    state = session.state
    assert all(e.status == "completed" for e in state.plan)
    assert all(c.status == "completed" for c in state.tool_calls.values())
    diffs = [
        c
        for call in state.tool_calls.values()
        for c in call.content
        if isinstance(c, s.DiffToolCallContent)
    ]
    assert diffs and diffs[0].new_text
    assert state.usage is not None and state.usage.size > 0
    assert {t.tool_call_id for t in result.tool_calls} == set(state.tool_calls)


async def test_tool_call_updates_merge_only_given_fields(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        await session.prompt("tool")
    (call,) = session.state.tool_calls.values()
    assert call.title and call.kind == "search"  # from tool_call, kept through updates
    assert call.status == "completed" and call.locations and call.raw_output is not None


async def test_unknown_update_variant_is_delivered_raw(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("unknown")
        updates = [u async for u in turn]
        await turn
    unknown = [u for u in updates if isinstance(u, s.UnknownSessionUpdate)]
    assert unknown and unknown[0].kind == "future_variant"
    assert unknown[0].raw["sessionUpdate"] == "future_variant"
    assert update_text(unknown[0])  # the view names the unknown kind


@pytest.mark.parametrize(
    ("policy", "expected"),
    [(AllowAll(), "allow_once"), (DenyAll(), "reject_once")],
)
async def test_permission_request_answered_by_kind(demo_argv, workspace, policy, expected):
    async with start(demo_argv, host=HostConfig(permissions=policy)) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("permission")
    assert expected in result.text


async def test_cancel_with_pending_permission_request(demo_argv, workspace):
    asked = asyncio.Event()

    async def never_answers(request):
        asked.set()
        await asyncio.sleep(3600)

    host = HostConfig(permissions=Interactive(never_answers))
    async with start(demo_argv, host=host) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("permission")
        await asyncio.wait_for(asked.wait(), 10)
        result = await session.cancel()
        assert result is not None and result.stop_reason == "cancelled"
        assert (await turn).stop_reason == "cancelled"
        assert await session.cancel() is None  # idempotent
        # the session is usable afterwards
        assert (await session.prompt("echo again")).stop_reason == "end_turn"


async def test_cancel_mid_stream(demo_argv, workspace):
    async with start(demo_argv, env={"ACPHOST_DEMO_STEP": "0.01"}) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("stream 500")
        seen = 0
        async for update in turn:
            seen += isinstance(update, s.AgentMessageChunk)
            if seen == 5:
                await asyncio.wait_for(asyncio.shield(session.cancel()), 5)
                break
        await turn.aclose()
        result = await turn
    assert result.stop_reason == "cancelled"
    assert seen < 500


async def test_fs_read_and_write_inside_the_workspace(demo_argv, workspace):
    target = workspace / "notes.txt"
    target.write_text("first line\nsecond\n")
    host = HostConfig(allow_write=True, permissions=AllowAll())
    async with start(demo_argv, host=host) as client:
        session = await client.new_session(workspace)
        read = await session.prompt(f"read {target}")
        assert "first line" in read.text
        await session.prompt(f"write {workspace / 'new' / 'out.txt'} written by the demo")
    assert (workspace / "new" / "out.txt").read_text() == "written by the demo"


async def test_fs_write_outside_the_workspace_is_refused(demo_argv, workspace, tmp_path):
    outside = tmp_path / "outside.txt"
    host = HostConfig(allow_write=True, permissions=AllowAll())
    async with start(demo_argv, host=host) as client:
        session = await client.new_session(workspace)
        result = await session.prompt(f"write {outside} pwned")
    assert not outside.exists()
    assert "outside the workspace" in result.text


async def test_write_not_advertised_by_default(demo_argv, workspace):
    async with start(demo_argv, host=HostConfig(permissions=AllowAll())) as client:
        session = await client.new_session(workspace)
        await session.prompt(f"write {workspace / 'x.txt'} no")
    assert not (workspace / "x.txt").exists()


async def test_policy_mediates_writes_without_permission_request(demo_argv, workspace):
    # DenyAll rejects the demo's permission request; the agent may still try to write.
    host = HostConfig(allow_write=True, permissions=DenyAll())
    async with start(demo_argv, host=host) as client:
        session = await client.new_session(workspace)
        await session.prompt(f"write {workspace / 'x.txt'} no")
    assert not (workspace / "x.txt").exists()


async def test_terminal_sequence(demo_argv, workspace):
    async with start(demo_argv, host=HostConfig(permissions=AllowAll())) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("terminal echo hello-from-terminal")
    assert "hello-from-terminal" in result.text
    terminals = [
        c
        for call in session.state.tool_calls.values()
        for c in call.content
        if isinstance(c, s.TerminalToolCallContent)
    ]
    assert terminals


async def test_agent_crash_mid_turn_fails_with_exit_code_and_stderr(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        with pytest.raises(acphost.AgentExited) as info:
            await session.prompt("crash")
    assert info.value.returncode == 3
    assert info.value.stderr_tail


async def test_chatty_stderr_never_blocks(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        result = await asyncio.wait_for(session.prompt("stderr 1024").result(), 20)
    assert result.stop_reason == "end_turn"


async def test_prompt_error_raises_request_error(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        with pytest.raises(acphost.RequestError) as info:
            await session.prompt("error")
        assert info.value.code == -32603
        assert (await session.prompt("echo still alive")).stop_reason == "end_turn"


async def test_modes_and_config_options(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        await session.set_mode("code")
        assert session.state.current_mode_id == "code"
        with pytest.raises(acphost.LocalProtocolError, match="valid modes"):
            await session.set_mode("nope")
        await session.set_model("demo-smart")
        model = session.model_option()
        assert model is not None and model.current_value == "demo-smart"
        await session.set_config_option("verbose", True)
        with pytest.raises(acphost.LocalProtocolError, match="valid values"):
            await session.set_config_option("model", "gpt-0")
        with pytest.raises(acphost.LocalProtocolError, match="valid options"):
            await session.set_config_option("nope", "x")


async def test_auth_required_then_authenticate(demo_argv, workspace):
    async with start(demo_argv, env={"ACPHOST_DEMO_REQUIRE_AUTH": "1"}) as client:
        with pytest.raises(acphost.AuthRequired) as info:
            await client.new_session(workspace)
        methods = info.value.auth_methods
        assert [m.id for m in methods] == ["demo-login"]
        await client.authenticate(methods[0].id)
        session = await client.new_session(workspace)
        assert session.id
        with pytest.raises(acphost.LocalProtocolError, match="demo-login"):
            await client.authenticate("nope")
        await client.logout()


async def test_load_list_resume_close_across_processes(demo_argv, workspace, tmp_path):
    env = {"ACPHOST_DEMO_STATE_DIR": str(tmp_path / "state")}
    async with start(demo_argv, env=env) as client:
        ids = []
        for word in ("one", "two", "three"):
            session = await client.new_session(workspace)
            await session.prompt(f"echo {word}")
            ids.append(session.id)
    async with start(demo_argv, env=env) as client:
        listed = [info.session_id async for info in client.iter_sessions()]
        assert sorted(listed) == sorted(ids)  # three sessions over two pages
        loaded = await client.load_session(ids[1], workspace)
        texts = [(m.role, m.text) for m in loaded.state.messages]
        assert ("user", "echo two") in texts and any("two" in t for r, t in texts if r == "agent")
        resumed = await client.resume_session(ids[2], workspace)
        assert resumed.state.messages == []  # resume does not replay
        await resumed.close()
        assert ids[2] not in client.sessions
        await client.delete_session(ids[0])


async def test_ordering_under_a_slow_consumer(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        session._queue_limit = 8  # force backpressure
        turn = session.prompt("flood 3000")
        texts = []
        async for update in turn:
            if isinstance(update, s.AgentMessageChunk):
                texts.append(update.text)
                if len(texts) % 100 == 0:
                    await asyncio.sleep(0.01)
        result = await turn
    assert "".join(texts) == result.text
    assert len(texts) == 3000


async def test_capability_checks_before_sending(demo_argv, workspace, tmp_path):
    audio_file = tmp_path / "a.wav"
    audio_file.write_bytes(b"RIFF0000WAVE")
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        with pytest.raises(acphost.CapabilityNotSupported, match="audio"):
            session.prompt([acphost.content.audio(audio_file)])
        with pytest.raises(acphost.LocalProtocolError, match="absolute"):
            await client.new_session("relative/dir")
        with pytest.raises(acphost.UsageError):
            await client.fork_session(session)


async def test_one_turn_at_a_time(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("stream 5")
        with pytest.raises(acphost.UsageError, match="already running"):
            session.prompt("echo no")
        await turn


def test_sync_run(workspace):
    result = acphost.run("echo synchronous", cwd=workspace, env=FAST)
    assert result.stop_reason == "end_turn" and "synchronous" in result.text


async def test_agent_that_does_not_exist():
    with pytest.raises(acphost.AgentStartError, match="not found"):
        async with AcpClient.start(["/nonexistent/agent-binary"]):
            pass


async def test_agent_that_exits_at_start(workspace):
    with pytest.raises(acphost.AgentExited) as info:
        async with AcpClient.start(
            [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(7)"]
        ):
            pass
    assert info.value.returncode == 7 and "boom" in info.value.stderr_tail


async def test_initialize_timeout_names_the_wait(workspace):
    with pytest.raises(acphost.AcpTimeout, match="initialize"):
        async with AcpClient.start(
            [sys.executable, "-c", "import time; time.sleep(30)"], init_timeout=0.5
        ):
            pass


async def test_other_stop_reasons_reach_the_host(demo_argv, workspace):
    async with start(demo_argv) as client:
        session = await client.new_session(workspace)
        assert (await session.prompt("limit")).stop_reason == "max_tokens"
        assert (await session.prompt("refuse")).stop_reason == "refusal"


async def test_cancel_during_a_command_kills_the_terminal(demo_argv, workspace):
    from acphost.host import TerminalManager

    events = []
    terminals = TerminalManager(on_event=events.append)
    host = HostConfig(terminals=terminals, permissions=AllowAll())
    async with start(demo_argv, host=host) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("terminal sleep 30")
        await eventually(
            lambda: any(type(e).__name__ == "TerminalCreated" for e in events), what="a terminal"
        )
        result = await session.cancel()
        assert result is not None and result.stop_reason == "cancelled"
        await turn
        # the agent sends terminal/kill, then terminal/release
        await eventually(
            lambda: any(type(e).__name__ == "TerminalExited" for e in events), what="its exit"
        )
    exited = [e for e in events if type(e).__name__ == "TerminalExited"]
    assert exited and exited[0].exit_status.signal is not None


async def test_delete_session_forgets_it_locally(demo_argv, workspace, tmp_path):
    async with start(demo_argv, env={"ACPHOST_DEMO_STATE_DIR": str(tmp_path / "st")}) as client:
        session = await client.new_session(workspace)
        await client.delete_session(session.id)
        assert session.id not in client.sessions
        assert [i.session_id async for i in client.iter_sessions()] == []
