"""The client library against an agent built on the official SDK, over real pipes.

``tests/peers/sdk_agent.py`` is an independent implementation of the agent
side (``acp.run_agent``, agent-client-protocol 0.12.1): interop with it checks
that we did not only learn to talk to our own demo agent (h11's
``test_against_stdlib_http.py``). Every frame we send is schema-validated by
the autouse fixture in ``tests/conftest.py``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from acphost import AcpClient, HostConfig, MethodNotFound
from acphost import schema as s
from acphost.host import AllowAll, DenyAll, Interactive

SDK_AGENT = [sys.executable, str(Path(__file__).parent.parent / "peers" / "sdk_agent.py")]


def start(**options):
    return AcpClient.start(SDK_AGENT, **options)


def tool_contents(session, cls):
    return [
        c for call in session.state.tool_calls.values() for c in call.content if isinstance(c, cls)
    ]


async def test_initialize_and_echo(workspace):
    async with start() as client:
        assert client.protocol_version == 1
        assert client.agent_info is not None and client.agent_info.name == "sdk-peer"
        session = await client.new_session(workspace)
        turn = session.prompt("echo hello from the sdk")
        updates = [u async for u in turn]
        result = await turn
    assert result.stop_reason == "end_turn"
    assert result.text == "hello from the sdk"
    assert [type(u) for u in updates] == [s.AgentMessageChunk]


async def test_update_sent_before_new_session_response_is_kept(workspace):
    # The SDK agent notifies available commands before answering session/new:
    # the client must hold them until it learns the session id.
    async with start() as client:
        session = await client.new_session(workspace)
        names = {c.name for c in session.state.available_commands}
    assert {"echo", "permission", "stream"} <= names


@pytest.mark.parametrize(
    ("policy", "expected"),
    [(AllowAll(), "chosen opt-A allow_once"), (DenyAll(), "chosen opt-C reject_once")],
)
async def test_permission_chosen_by_kind_with_foreign_ids(workspace, policy, expected):
    async with start(host=HostConfig(permissions=policy)) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("permission")
    assert result.text == expected
    # The tool call carried by the request is merged into the session state.
    call = session.state.tool_calls["perm-call"]
    assert call.kind == "edit" and call.title == "Edit notes.txt"


async def test_cancel_answers_pending_permission_cancelled(workspace):
    asked = asyncio.Event()

    async def never_answers(request):
        asked.set()
        await asyncio.sleep(3600)

    async with start(host=HostConfig(permissions=Interactive(never_answers))) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("permission")
        await asyncio.wait_for(asked.wait(), 10)
        result = await session.cancel(timeout=5)
        assert result is not None and result.stop_reason == "cancelled"
        assert result.text == "cancelled"  # the agent saw outcome "cancelled"
        assert (await turn).stop_reason == "cancelled"


async def test_read_confined_to_workspace(workspace, tmp_path):
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    async with start() as client:
        session = await client.new_session(workspace)
        inside = await session.prompt(f"read {workspace / 'notes.txt'}")
        outside = await session.prompt(f"read {secret}")
    assert inside.text == "alpha\nbeta\n"
    assert outside.text.startswith("error ")
    assert "top secret" not in outside.text


async def test_write_allowed_inside_refused_outside(workspace, tmp_path):
    host = HostConfig(allow_write=True, permissions=AllowAll())
    target = workspace / "sub" / "out.txt"
    outside = tmp_path / "outside.txt"
    async with start(host=host) as client:
        session = await client.new_session(workspace)
        allowed = await session.prompt(f"write {target} written-by-sdk")
        refused = await session.prompt(f"write {outside} pwned")
    assert allowed.text == f"wrote {target}"
    assert target.read_text() == "written-by-sdk"
    assert refused.text.startswith("error ")
    assert not outside.exists()


async def test_write_without_permission_refused_by_deny_all(workspace):
    # The agent never asks permission: the host's policy still mediates the write.
    host = HostConfig(allow_write=True, permissions=DenyAll())
    async with start(host=host) as client:
        session = await client.new_session(workspace)
        result = await session.prompt(f"write {workspace / 'x.txt'} no")
    assert result.text.startswith("error ")
    assert not (workspace / "x.txt").exists()


async def test_write_not_advertised_is_method_not_found(workspace):
    async with start(host=HostConfig(permissions=AllowAll())) as client:
        session = await client.new_session(workspace)
        result = await session.prompt(f"write {workspace / 'x.txt'} no")
    assert result.text.startswith(f"error {MethodNotFound.CODE}:")
    assert not (workspace / "x.txt").exists()


async def test_terminal_shell_line_output_captured(workspace):
    async with start(host=HostConfig(permissions=AllowAll())) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("terminal echo one && echo two >&2; exit 3")
    assert result.text == "exit=3 output='one\\ntwo'"
    (ref,) = tool_contents(session, s.TerminalToolCallContent)
    assert session.state.tool_calls["term-call"].status == "completed"
    assert ref.terminal_id


async def test_terminal_refused_by_deny_all(workspace):
    async with start(host=HostConfig(permissions=DenyAll())) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("terminal touch made-by-terminal")
    assert result.text.startswith("error ")
    assert not (workspace / "made-by-terminal").exists()


async def test_plan_is_replaced_whole(workspace):
    async with start() as client:
        session = await client.new_session(workspace)
        turn = session.prompt("plan")
        plans = [u async for u in turn if isinstance(u, s.PlanUpdate)]
        await turn
    assert [len(p.entries) for p in plans] == [3, 2]
    assert [(e.content, e.status) for e in session.state.plan] == [
        ("look", "completed"),
        ("act", "in_progress"),
    ]


async def test_unannounced_tool_call_is_merged(workspace):
    async with start() as client:
        session = await client.new_session(workspace)
        turn = session.prompt("tool")
        updates = [u async for u in turn]
        result = await turn
    assert any(isinstance(u, s.ToolCallProgress) for u in updates)
    call = session.state.tool_calls["ghost-call"]
    assert call.title == "Never announced" and call.kind == "fetch"
    assert call.status == "completed" and call.raw_output == {"ok": True}
    assert call.announced is False
    assert [c.tool_call_id for c in result.tool_calls] == ["ghost-call"]


async def test_stream_in_wire_order(workspace):
    async with start(keep_history=False) as client:
        session = await client.new_session(workspace)
        turn = session.prompt("stream 40")
        texts = [u.text async for u in turn if isinstance(u, s.AgentMessageChunk)]
        result = await turn
    assert result.stop_reason == "end_turn"
    assert texts == [f"chunk {i} " for i in range(40)]


async def test_cancel_mid_stream_is_prompt(workspace):
    async with start() as client:
        session = await client.new_session(workspace)
        turn = session.prompt("stream 2000")
        seen = 0
        async for update in turn:
            seen += isinstance(update, s.AgentMessageChunk)
            if seen == 5:
                result = await session.cancel(timeout=5)
                break
        await turn.aclose()
        assert result is not None and result.stop_reason == "cancelled"
        assert (await turn).stop_reason == "cancelled"
        # The agent stopped streaming when asked, long before its 2,000 chunks.
        chunks = [m for m in session.state.messages if m.role == "agent"]
        assert sum(len(m.content) for m in chunks) < 2000
        # the session is usable afterwards
        assert (await session.prompt("echo again")).text == "again"
    assert seen < 2000
